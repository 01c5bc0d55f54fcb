use kube_markers::webhook;

#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "a.example.com", admission_review_versions = "v1")]
fn not_async(_req: ()) {}

#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "b.example.com", admission_review_versions = "v1")]
async fn generic<K>(_req: K) {}

#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "c.example.com", admission_review_versions = "v1")]
async fn two_arguments(_a: (), _b: ()) {}

#[webhook(path = "/v", mutating = false, failure_policy = "Fail", side_effects = "None", groups = "", resources = "pods", versions = "v1", verbs = "create", name = "d.example.com", admission_review_versions = "v1")]
trait NotAnItem {}

fn main() {
    // The items are still emitted.
    not_async(());
}
