use kube_markers::rbac;

#[rbac(groups = "", resources = "secrets", verbs = "get", allow(secrets_read, reason = "mirrors TLS Secrets"))]
fn reconcile() {}

fn main() {
    reconcile();
}
