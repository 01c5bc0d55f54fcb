#[cfg_attr(all(), allow(dead_code), rbac(verbs = "a"), kube_markers::rbac(verbs = "b"))]
#[cfg_attr(feature = "x", cfg_attr(unix, rbac(verbs = "c"), crd))]
fn f() {}
#[cfg_attr(
    feature = "y",
        rbac(verbs = "d"),
    /* c */ rbac(verbs = "é")
)] fn g() {}
