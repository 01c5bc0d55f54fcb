// Renaming the attribute hides it from the scan, on a method too.
use kube_markers::rbac as perm;

struct Reconciler;

impl Reconciler {
    #[perm(groups = "", resources = "pods", verbs = "get")]
    fn reconcile(&self) {}
}

fn main() {
    Reconciler.reconcile();
}
