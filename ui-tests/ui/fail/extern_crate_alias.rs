// `extern crate ... as` is an alias too.
extern crate kube_markers as k;

#[k::rbac(groups = "", resources = "pods", verbs = "get")]
fn reconcile() {}

fn main() {
    reconcile();
}
