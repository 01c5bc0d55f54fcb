use kube_markers::rbac;

#[rbac(groups = "Apps_V1", resources = "deployments", verbs = "get")]
fn reconcile() {}

fn main() {
    // The function is still emitted: no "cannot find function" follows the attribute's error.
    reconcile();
}
