use kube_markers::webhook;

// A Service's name starts with a letter (DNS-1035): no Service `1-webhook` can exist.
#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "v.example.com", admission_review_versions = "v1", service_name = "1-webhook")]
struct Checked;

// An integer literal beyond 64 bits says so.
#[webhook(path = "/w", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "w.example.com", admission_review_versions = "v1", timeout_seconds = 99999999999999999999)]
struct TooLong;

fn main() {}
