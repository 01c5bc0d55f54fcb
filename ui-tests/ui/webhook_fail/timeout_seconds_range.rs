use kube_markers::webhook;

// controller-tools testdata invalid-timeoutSeconds: 40 and -1.
#[webhook(verbs = "create;update", path = "/validate", mutating = false, failurePolicy = "fail", groups = "testdata.kubebuilder.io", resources = "cronjobs", versions = "v1", name = "validation.cronjob.testdata.kubebuilder.io", sideEffects = "None", timeoutSeconds = 40, admissionReviewVersions = "v1")]
#[webhook(verbs = "create;update", path = "/mutate", mutating = true, failurePolicy = "fail", groups = "testdata.kubebuilder.io", resources = "cronjobs", versions = "v1", name = "default.cronjob.testdata.kubebuilder.io", sideEffects = "None", timeoutSeconds = -1, admissionReviewVersions = "v1")]
const _: () = ();

fn main() {}
