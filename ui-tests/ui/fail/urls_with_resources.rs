use kube_markers::rbac;

#[rbac(urls = "/metrics", groups = "", resources = "pods", resource_names = "p", verbs = "get")]
fn reconcile() {}

fn main() {
    // The function is still emitted: no "cannot find function" follows the attribute's error.
    reconcile();
}
