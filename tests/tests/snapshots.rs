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
    let crds = kube_markers::codegen::generate_crds_with_conversions(
        &entries,
        &kube_markers::registry::conversion_entries(),
    )
    .unwrap();
    assert_eq!(crds.len(), 2);
    for crd in &crds {
        let text = kube_markers::codegen::render_crd(crd, "");
        insta::assert_snapshot!(crd.file_name.clone(), text);
    }
}

// Bounds and defaults that the markers and schemars give as floats, which controller-gen's path
// writes as integers when they are whole (`1048576`, not `1.048576e+06`; `0`, not `-0`).
#[kube_markers::crd]
#[derive(
    kube::CustomResource, Clone, Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[kube(group = "numbers.example.com", version = "v1", kind = "Tuning")]
#[serde(rename_all = "camelCase")]
pub struct TuningSpec {
    #[k8s(minimum = 0.0, maximum = 1048576.0)]
    #[serde(default = "default_cache_bytes")]
    pub cache_bytes: f64,
    // Not beside a whole default: kube-apiserver compares a whole value with `int64(0.5)`, 0,
    // and refuses any such default (`factor MultipleOf ... must be positive`).
    #[k8s(multiple_of = 0.5)]
    pub step: f64,
    #[k8s(minimum = -0.0, maximum = 1e21)]
    #[serde(default = "default_ratio")]
    pub ratio: f64,
    #[k8s(minimum = 1, maximum = 9007199254740993)]
    pub count: i64,
}

fn default_cache_bytes() -> f64 {
    1e6
}

fn default_ratio() -> f64 {
    0.1 + 0.2
}

#[test]
fn whole_floats_in_a_crd_yaml() {
    let entries: Vec<_> = kube_markers::registry::crd_entries()
        .into_iter()
        .filter(|e| e.type_name == "Tuning")
        .collect();
    let crds = kube_markers::codegen::generate_crds(&entries).unwrap();
    let text = kube_markers::codegen::render_crd(&crds[0], "");
    for line in [
        "default: 1000000",
        "maximum: 1048576",
        "minimum: 0",
        "multipleOf: 0.5",
        "default: 0.30000000000000004",
        "maximum: 1e+21",
        "maximum: 9007199254740992",
    ] {
        assert!(text.contains(&format!(" {line}\n")), "{line}:\n{text}");
    }
    assert!(!text.contains("e+06") && !text.contains("-0\n"), "{text}");
    insta::assert_snapshot!(text);
}
