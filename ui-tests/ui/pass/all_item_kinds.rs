//! Every place the attribute may stand, every spelling it accepts; the items are unchanged.

use kube_markers::rbac;
use kube_markers::registry::rbac_entries;

#[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]
#[kube_markers::rbac(groups = "", resources = "pods/status", verbs = "get;update")]
async fn reconcile(x: u32) -> u32 {
    x + 1
}

#[rbac(groups = ["", "core", "apps"], resources = ["configmaps"], resourceNames = ["a", "b"], verbs = ["get"])]
fn plain_fn<T: Clone>(t: &T) -> T {
    t.clone()
}

#[rbac(
    groups = "",
    resources = "secrets",
    verbs = "get",
    namespace = "tenant",
    roleName = "tenant-reader"
)]
struct Ctx {
    n: u8,
}

#[rbac(
    groups = "",
    resources = "events",
    verbs = "create;patch",
    role_name = "events"
)]
enum State {
    A,
    B(u8),
}

#[rbac(groups = "batch", resources = "jobs", verbs = "*")]
impl Ctx {
    #[rbac(
        groups = "",
        resources = "serviceaccounts/token",
        resource_names = "sa",
        verbs = "create"
    )]
    fn method(&self) -> u8 {
        self.n
    }

    #[rbac(groups = "", resources = "pods", verbs = "deletecollection")]
    async fn async_method(&mut self) {
        self.n += 1;
    }
}

trait Named {
    fn name(&self) -> &'static str;
}

#[rbac(
    groups = "x.io",
    resources = "widgets",
    verbs = "frobnicate;get",
    custom_verbs
)]
impl Named for State {
    fn name(&self) -> &'static str {
        match self {
            State::A => "a",
            State::B(_) => "b",
        }
    }
}

#[rbac(urls = ["/metrics", "/healthz*"], verbs = "get;head")]
#[rbac(urls = "*", verbs = "*")]
const _: () = ();

#[cfg_attr(all(), rbac(groups = "", resources = "nodes", verbs = "list"))]
#[cfg_attr(any(), rbac(groups = "", resources = "never", verbs = "list"))]
fn conditional() {}

fn main() {
    let mut ctx = Ctx { n: 1 };
    assert_eq!(plain_fn(&7), 7);
    assert_eq!(ctx.method(), 1);
    drop(ctx.async_method());
    drop(reconcile(1));
    assert_eq!(State::B(2).name(), "b");
    assert!(matches!(State::B(2), State::B(2)));
    assert_eq!(State::A.name(), "a");
    conditional();

    let entries = rbac_entries();
    assert_eq!(entries.len(), 12, "{entries:#?}");
    let items: Vec<&str> = entries.iter().map(|e| &*e.source.item).collect();
    for item in [
        "reconcile",
        "plain_fn",
        "Ctx",
        "State",
        "impl Ctx",
        "method",
        "async_method",
        "impl Named for State",
        "_",
        "conditional",
    ] {
        assert!(items.contains(&item), "{item} missing from {items:?}");
    }
    // Each entry records where its attribute stands.
    let first = entries
        .iter()
        .find(|e| e.source.item == "reconcile" && e.marker.groups == ["apps"])
        .unwrap();
    assert_eq!(first.source.line, 6);
    assert!(first.source.file.ends_with("all_item_kinds.rs"));
    assert!(!entries.iter().any(|e| e.marker.resources == ["never"]));
}
