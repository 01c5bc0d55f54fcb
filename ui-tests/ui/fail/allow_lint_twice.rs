use kube_markers::rbac;

#[rbac(
    groups = "apps",
    resources = "deployments",
    verbs = "create",
    allow(workload-write, reason = "runs the database"),
    allow(workload_write, reason = "and again")
)]
fn reconcile() {}

fn main() {
    reconcile();
}
