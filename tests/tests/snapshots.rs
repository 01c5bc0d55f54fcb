//! Snapshots of the emitted YAML text itself (not re-serialized): review changes with
//! `cargo insta review`.

use kube_markers::codegen::{render_roles, roles_for};
use kube_markers::rbac;
use kube_markers::registry::{RbacEntry, rbac_entries};

// Linked so their entries are in this test binary.
kube_markers::link!(memcached_operator, mydatabase_operator);

fn entries_of(pred: impl Fn(&RbacEntry) -> bool) -> Vec<&'static RbacEntry> {
    rbac_entries().into_iter().filter(|e| pred(e)).collect()
}

#[test]
fn example_operators_role_yaml() {
    let entries = entries_of(|e| {
        matches!(
            e.source.crate_name(),
            "memcached_operator" | "mydatabase_operator"
        )
    });
    let yaml = render_roles(&roles_for(&entries, "manager-role"), "");
    insta::assert_snapshot!(yaml);
}

#[rbac(
    groups = "",
    resources = "secrets",
    resource_names = "tls;ca",
    verbs = "get;watch"
)]
#[rbac(groups = ["*"], resources = "*/scale", verbs = "get;update")]
#[rbac(
    groups = "certificates.k8s.io",
    resources = "certificatesigningrequests/approval",
    verbs = "update"
)]
#[rbac(
    groups = "certificates.k8s.io",
    resources = "signers",
    resource_names = "example.com/signer",
    verbs = "approve"
)]
#[rbac(
    groups = "rbac.authorization.k8s.io",
    resources = "clusterroles",
    verbs = "escalate;bind",
    role_name = "rbac-admin"
)]
#[rbac(
    groups = "",
    resources = "serviceaccounts",
    verbs = "impersonate",
    namespace = "ci",
    role_name = "impersonator"
)]
#[rbac(urls = ["/healthz*", "/version"], verbs = "get;head")]
#[rbac(urls = "/apis/*", verbs = "*")]
#[rbac(
    groups = "x.example.io",
    resources = "widgets",
    verbs = "frobnicate;get",
    custom_verbs
)]
const _: () = ();

#[test]
fn every_kind_of_rule_yaml() {
    let entries = entries_of(|e| e.source.file.ends_with("snapshots.rs"));
    assert_eq!(entries.len(), 9);
    let yaml = render_roles(&roles_for(&entries, "manager-role"), "");
    insta::assert_snapshot!(yaml);
}

#[test]
fn example_crd_files() {
    let entries: Vec<_> = kube_markers::registry::crd_entries()
        .into_iter()
        .filter(|e| {
            matches!(
                e.source.crate_name(),
                "memcached_operator" | "mydatabase_operator"
            )
        })
        .collect();
    let crds = kube_markers::crd::generate_crds(&entries).unwrap();
    assert_eq!(crds.len(), 2);
    for crd in &crds {
        let text = kube_markers::codegen::render_crd(crd, "");
        insta::assert_snapshot!(crd.file_name.clone(), text);
    }
}
