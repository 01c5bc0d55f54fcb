//! Spellings the generator's workspace scan finds: the attribute's own name, however it was
//! imported, its full path (with or without a leading `::`), inside `cfg_attr`, and in a file
//! pulled in by `include!`. Each reaches the registry.

use kube_markers::registry::rbac_entries;

mod through_an_alias_of_the_crate {
    use km::rbac;
    use kube_markers as km;

    #[rbac(groups = "", resources = "pods", verbs = "get")]
    pub fn reconcile() {}
}

mod glob {
    use kube_markers::*;

    #[rbac(groups = "", resources = "services", verbs = "get")]
    pub fn reconcile() {}
}

#[::kube_markers::rbac(groups = "", resources = "endpoints", verbs = "get")]
fn leading_colons() {}

#[cfg_attr(
    all(),
    kube_markers::rbac(groups = "", resources = "events", verbs = "get")
)]
#[cfg_attr(
    not(doc),
    cfg_attr(
        unix,
        kube_markers::rbac(groups = "", resources = "nodes", verbs = "get")
    )
)]
fn in_cfg_attr() {}

use kube_markers::rbac;
include!("parts/included.rs");

fn main() {
    through_an_alias_of_the_crate::reconcile();
    glob::reconcile();
    leading_colons();
    in_cfg_attr();
    from_an_included_file();
    let mut resources: Vec<&str> = rbac_entries()
        .iter()
        .map(|e| &*e.marker.resources[0])
        .collect();
    resources.sort_unstable();
    assert_eq!(
        resources,
        [
            "endpoints",
            "events",
            "nodes",
            "pods",
            "resourcequotas",
            "services"
        ]
    );
}
