use kube_markers::rbac;

#[rbac(groups = "", resources = "pods", verbs = "get")]
mod controller {
    pub fn reconcile() {}
}

fn main() {
    controller::reconcile();
}
