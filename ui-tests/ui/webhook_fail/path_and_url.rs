use kube_markers::webhook;

// controller-tools testdata invalid-path-and-url, then neither.
#[webhook(url = "https://anothersomewebhook:9443/validate", path = "/somepath", verbs = "create;update", mutating = false, failurePolicy = "fail", groups = "testdata.kubebuilder.io", resources = "cronjobs", versions = "v1", name = "validation.cronjob.testdata.kubebuilder.io", sideEffects = "NoneOnDryRun", admissionReviewVersions = "v1")]
const _: () = ();

#[webhook(verbs = "create", mutating = false, failurePolicy = "fail", groups = "", resources = "pods", versions = "v1", name = "v.example.com", sideEffects = "None", admissionReviewVersions = "v1")]
struct Neither;

#[webhook(url = "http://plain:80/x", service_name = "svc", verbs = "create", mutating = false, failurePolicy = "fail", groups = "", resources = "pods", versions = "v1", name = "u.example.com", sideEffects = "None", admissionReviewVersions = "v1")]
struct NotHttps;

fn main() {}
