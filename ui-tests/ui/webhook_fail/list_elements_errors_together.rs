use kube_markers::webhook;

// Every bad element of every list in one compile: the `;;` does not hide the others.
#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "Apps;;batch", resources = "pods", versions = "v1", verbs = ["creat", "", "update"], name = "v.example.com", admission_review_versions = "v1;;v2")]
struct Checked;

fn main() {}
