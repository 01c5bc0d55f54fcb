use kube_markers::rbac;

// Every problem of an attribute is reported at once, each on its own token.
#[rbac(gropus = "apps", resources = "Deployments", verbs = "get;lsit", namespace = "-ns")]
async fn reconcile() {}

fn main() {
    let _ = reconcile();
}
