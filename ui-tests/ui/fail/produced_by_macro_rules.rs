// An attribute in a macro_rules! body is invisible to the scan until expanded.
macro_rules! reconciler {
    ($name:ident) => {
        #[kube_markers::rbac(groups = "", resources = "pods", verbs = "get")]
        fn $name() {}
    };
}

reconciler!(reconcile);

fn main() {
    reconcile();
}
