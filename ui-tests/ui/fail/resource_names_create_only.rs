use kube_markers::rbac;

#[rbac(groups = "", resources = "pods", resource_names = "web-0", verbs = "create")]
fn reconcile() {}

fn main() {
    // The function is still emitted: no "cannot find function" follows the attribute's error.
    reconcile();
}
