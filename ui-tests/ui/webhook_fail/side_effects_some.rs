use kube_markers::webhook;

// controller-tools testdata invalid-sideEffects.
#[webhook(webhookVersions = "v1", verbs = "create;update", path = "/validate-testdata-kubebuilder-io-v1-cronjob", mutating = false, failurePolicy = "fail", groups = "testdata.kubebuilder.io", resources = "cronjobs", versions = "v1", name = "validation.cronjob.testdata.kubebuilder.io", sideEffects = "Some", timeoutSeconds = 10, admissionReviewVersions = "v1;v1beta1")]
const _: () = ();

#[webhook(path = "/v", mutating = false, failure_policy = "Fail", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "v.example.com", admission_review_versions = "v1")]
struct MissingSideEffects;

fn main() {}
