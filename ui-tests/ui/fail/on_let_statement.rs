use kube_markers::rbac;

// Attribute macros on statements are unstable (rustc's E0658); the macro's own error says
// where the attribute may stand instead of syn's "expected one of `fn`, ...".
fn main() {
    #[rbac(groups = "", resources = "pods", verbs = "get")]
    let x = 1;
    let _ = x;
}
