//! controller-gen's own RBAC test (`pkg/rbac/testdata/controller.go` → `role.yaml`): the same
//! 41 markers, written as attributes, must give the same bytes.

use kube_markers::rbac;
use kube_markers::registry::{RbacEntry, rbac_entries};

#[rbac(
    groups = "batch.io",
    resources = "cronjobs",
    verbs = "get;watch;create"
)]
#[rbac(
    groups = "batch.io",
    resources = "cronjobs/status",
    verbs = "get;update;patch"
)]
#[rbac(groups = "art", resources = "jobs", verbs = "get")]
#[rbac(groups = "wave", resources = "jobs", verbs = "get", namespace = "zoo")]
#[rbac(
    groups = "batch;batch;batch",
    resources = "jobs/status",
    verbs = "watch"
)]
#[rbac(groups = "batch;cron", resources = "jobs/status", verbs = "create;get")]
#[rbac(groups = "art", resources = "jobs", verbs = "get", namespace = "zoo")]
#[rbac(groups = "cron;batch", resources = "jobs/status", verbs = "get;create")]
#[rbac(groups = "batch", resources = "jobs/status", verbs = "watch;watch")]
#[rbac(groups = "art", resources = "jobs", verbs = "get", namespace = "park")]
#[rbac(
    groups = "batch.io",
    resources = "cronjobs",
    resourceNames = "foo;bar;baz",
    verbs = "get;watch"
)]
#[rbac(groups = "deduplicate-verbs", resources = "some", verbs = "get;list")]
#[rbac(groups = "deduplicate-verbs", resources = "some", verbs = "get")]
#[rbac(groups = "deduplicate-verbs", resources = "some", verbs = "list")]
#[rbac(groups = "deduplicate-resources", resources = "one", verbs = "create")]
#[rbac(groups = "deduplicate-resources", resources = "two", verbs = "create")]
#[rbac(
    groups = "deduplicate-resources",
    resources = "three",
    verbs = "create"
)]
#[rbac(groups = "deduplicate-groups1", resources = "foo", verbs = "patch")]
#[rbac(groups = "deduplicate-groups2", resources = "foo", verbs = "patch")]
#[rbac(groups = "deduplicate-groups3", resources = "foo", verbs = "patch")]
#[rbac(groups = "deduplicate-all", resources = "foo;bar", verbs = "get;list")]
#[rbac(groups = "deduplicate-all", resources = "foo", verbs = "get")]
#[rbac(groups = "deduplicate-all", resources = "bar", verbs = "list")]
#[rbac(
    groups = "deduplicate-groups4",
    resources = "xyz",
    verbs = "get;update;patch"
)]
#[rbac(groups = "deduplicate-groups4", resources = "xyz", verbs = "*")]
#[rbac(
    groups = "deduplicate-all-group",
    resources = "foo;bar",
    verbs = "get;list"
)]
#[rbac(
    groups = "not-deduplicate-resources",
    resources = "some",
    verbs = "get"
)]
#[rbac(
    groups = "not-deduplicate-resources",
    resources = "another",
    verbs = "list"
)]
#[rbac(groups = "not-deduplicate-groups1", resources = "some", verbs = "get")]
#[rbac(groups = "not-deduplicate-groups2", resources = "some", verbs = "list")]
#[rbac(urls = "/url-to-duplicate", verbs = "get")]
#[rbac(urls = "/another/url-to-duplicate", verbs = "get")]
#[rbac(groups = "core", resources = "deduplicate", verbs = "list")]
#[rbac(groups = "", resources = "me", verbs = "list")]
#[rbac(groups = ["core", "", "some-other-to-deduplicate-with-core"], resources = "me", verbs = "list;get")]
#[rbac(
    groups = "deduplicate-groups5",
    resources = "abc",
    verbs = "get;update;patch;create",
    namespace = "here"
)]
#[rbac(
    groups = "deduplicate-groups5",
    resources = "abc",
    verbs = "*",
    namespace = "here"
)]
#[rbac(
    groups = "apps",
    namespace = "infrastructure",
    roleName = "infra-deployment-manager",
    resources = "deployments",
    verbs = "get;list;watch;update;patch"
)]
#[rbac(
    groups = "apps",
    namespace = "infrastructure",
    roleName = "infra-deployment-manager",
    resources = "statefulsets",
    verbs = "get;list"
)]
#[rbac(
    groups = "",
    namespace = "users",
    roleName = "user-secrets-reader",
    resources = "secrets",
    verbs = "get;list;watch"
)]
#[rbac(
    groups = "monitoring",
    namespace = "observability",
    resources = "prometheuses",
    verbs = "get;list"
)]
const _: () = ();

const GOLDEN: &str = include_str!("../conformance/controller-gen-role.yaml");

/// The entries of this file (the test binary also links the example operators).
fn entries() -> Vec<&'static RbacEntry> {
    rbac_entries()
        .into_iter()
        .filter(|e| e.source.file.ends_with("controller_gen_conformance.rs"))
        .collect()
}

fn generate(entries: &[&RbacEntry]) -> String {
    let roles = kube_markers::codegen::roles_for(entries, "manager-role");
    kube_markers::codegen::render_roles(&roles, "")
}

#[test]
fn reproduces_controller_gen_golden_bytes() {
    let entries = entries();
    assert_eq!(entries.len(), 41);
    let ours = generate(&entries);
    if ours != GOLDEN {
        panic!(
            "output differs from controller-gen's role.yaml:\n{}",
            similar_lines(GOLDEN, &ours)
        );
    }
}

#[test]
fn bytes_do_not_depend_on_registry_order() {
    let mut entries = entries();
    let mut rng = kube_markers_tests::Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..100 {
        rng.shuffle(&mut entries);
        assert_eq!(generate(&entries), GOLDEN);
    }
}

fn similar_lines(expected: &str, actual: &str) -> String {
    let mut out = String::new();
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            out.push_str(&format!("line {}: expected {e:?}, got {a:?}\n", i + 1));
        }
    }
    out.push_str(&format!(
        "({} expected lines, {} actual)",
        expected.lines().count(),
        actual.lines().count()
    ));
    out
}
