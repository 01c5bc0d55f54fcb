use kube_markers::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "create", allow(reason = "runs the database"))]
fn reconcile() {}

fn main() {
    reconcile();
}
