use kube_markers::webhook;

pub struct Request;

// `kube-markers` without its `webhook` feature: one error saying to enable it.
#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "a.example.com", admission_review_versions = "v1")]
async fn validate(_req: Request) {}

fn main() {}
