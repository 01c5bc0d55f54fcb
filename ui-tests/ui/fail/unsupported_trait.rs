use kube_markers::rbac;

#[rbac(groups = "", resources = "pods", verbs = "get")]
trait Reconciler {}

struct R;
impl Reconciler for R {}

fn main() {
    let _r: &dyn Reconciler = &R;
}
