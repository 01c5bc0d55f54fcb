// An alias of the crate would hide the attribute from the generator's workspace scan.
use kube_markers as km;

#[km::rbac(groups = "", resources = "pods", verbs = "get")]
fn reconcile() {}

fn main() {
    reconcile();
}
