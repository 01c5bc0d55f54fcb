use kube_markers::webhook;

#[webhook(path = "/v", mutating = false, failure_policy = "Failed", side_effect = "None", groups = "", resources = "pods", versions = "v1", verbs = "create;updte", name = "v.example.com", admission_review_versions = "v1", match_policy = "exactly", reinvocation_policy = "Sometimes")]
struct Typos;

#[webhook(path = "v", mutating = "false", failure_policy = Fail, groups = "", resources = "pods", versions = "v1", verbs = "create", name = "short.name", admission_review_versions = ["v2"], side_effects = "None", service_port = 70000, timeout_seconds = "10")]
struct WrongShapes;

fn main() {}
