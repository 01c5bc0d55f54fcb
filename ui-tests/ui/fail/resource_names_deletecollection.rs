use kube_markers::rbac;

#[rbac(groups = "", resources = "pods;pods/status", resource_names = "web-0", verbs = "deletecollection")]
fn reconcile() {}

fn main() {
    // The function is still emitted: no "cannot find function" follows the attribute's error.
    reconcile();
}
