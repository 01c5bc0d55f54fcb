// The attribute's arguments are checked even when it is named by its full path.
#[kube_markers::rbac(groups = "", resources = "pods", verbs = "fetch")]
fn reconcile() {}

fn main() {
    reconcile();
}
