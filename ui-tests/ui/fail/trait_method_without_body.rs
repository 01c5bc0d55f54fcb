use kube_markers::rbac;

trait Reconciler {
    #[rbac(groups = "", resources = "pods", verbs = "get")]
    fn reconcile(&self);
}

fn main() {}
