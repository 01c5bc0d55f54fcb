use kube_markers::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "*", allow(wildcard-verb, reason = "any verb"))]
fn reconcile() {}

fn main() {
    reconcile();
}
