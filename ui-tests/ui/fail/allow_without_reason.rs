use kube_markers::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "create", allow(workload-write))]
fn reconcile() {}

fn main() {
    reconcile();
}
