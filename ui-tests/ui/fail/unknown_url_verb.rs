use kube_markers::rbac;

#[rbac(urls = "/metrics", verbs = "list")]
fn reconcile() {}

fn main() {
    // The function is still emitted: no "cannot find function" follows the attribute's error.
    reconcile();
}
