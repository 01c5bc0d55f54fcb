use kube_markers::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "create", allow(workload-write, reason = " "))]
fn reconcile() {}

fn main() {
    reconcile();
}
