use kube_markers::rbac;

#[rbac(groups = "x.io", resources = "widgets", verbs = "frob it", custom_verbs)]
fn reconcile() {}

fn main() {
    // The function is still emitted: no "cannot find function" follows the attribute's error.
    reconcile();
}
