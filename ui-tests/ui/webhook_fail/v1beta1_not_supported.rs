use kube_markers::webhook;

// controller-tools testdata invalid-v1beta1NotSupported.
#[webhook(webhookVersions = "v1beta1", verbs = "create;update", path = "/validate", mutating = false, failurePolicy = "fail", groups = "testdata.kubebuilder.io", resources = "cronjobs", versions = "v1", name = "validation.cronjob.testdata.kubebuilder.io", sideEffects = "None", admissionReviewVersions = "v1;v1beta1")]
const _: () = ();

fn main() {}
