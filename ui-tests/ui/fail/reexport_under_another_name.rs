// A re-export, reached through its module path or renamed again.
mod p {
    pub use kube_markers::rbac;
}
use p::rbac as perm;

#[p::rbac(groups = "", resources = "pods", verbs = "get")]
fn through_the_module() {}

#[perm(groups = "", resources = "pods", verbs = "list")]
fn renamed_again() {}

fn main() {
    through_the_module();
    renamed_again();
}
