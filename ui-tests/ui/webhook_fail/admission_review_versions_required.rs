use kube_markers::webhook;

// controller-tools testdata invalid-admissionReviewVersionsRequired.
#[webhook(verbs = "create;update", path = "/validate-testdata-kubebuilder-io-v1-cronjob", mutating = false, failurePolicy = "fail", matchPolicy = "Equivalent", groups = "testdata.kubebuilder.io", resources = "cronjobs", versions = "v1", name = "validation.cronjob.testdata.kubebuilder.io", sideEffects = "NoneOnDryRun", timeoutSeconds = 10)]
const _: () = ();

fn main() {}
