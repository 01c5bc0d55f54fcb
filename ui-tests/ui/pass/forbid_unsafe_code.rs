//! A crate that forbids unsafe code can carry the attributes: the registry statics' link
//! sections are the macros' own doing, not the user's code.

#![forbid(unsafe_code)]

use kube_markers::rbac;
use kube_markers::registry::{rbac_entries, webhook_configuration_entries};

#[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]
async fn reconcile(x: u32) -> u32 {
    x + 1
}

#[rbac(groups = "", resources = "pods", verbs = "get")]
struct Ctx;

#[kube_markers::webhook_configuration(mutating = false, name = "forbid-unsafe-code")]
const _: () = ();

fn main() {
    drop(reconcile(1));
    let _ = Ctx;
    let entries = rbac_entries();
    assert_eq!(entries.len(), 2, "{entries:#?}");
    let configurations = webhook_configuration_entries();
    assert_eq!(configurations.len(), 1, "{configurations:#?}");
    assert_eq!(
        configurations[0].marker.name.as_deref(),
        Some("forbid-unsafe-code")
    );
}
