//! `allow(LINT, ..., reason = "...")` accepts generator lints on one attribute; the registry
//! entry carries each lint with its reason, in kebab-case whichever spelling was written.

use kube_markers::rbac;
use kube_markers::registry::rbac_entries;

#[rbac(
    groups = "",
    resources = "secrets",
    verbs = "get;list;watch",
    allow(cluster-secrets-read, reason = "the operator mirrors TLS Secrets into tenant namespaces")
)]
#[rbac(
    groups = "apps",
    resources = "deployments",
    verbs = "*",
    allow(wildcard_verbs, workload-write, reason = "it owns these Deployments outright"),
    allow(redundant, reason = "kept beside the narrower rule for reading")
)]
fn reconcile() {}

fn main() {
    reconcile();
    let entries = rbac_entries();
    assert_eq!(entries.len(), 2);
    fn allowed(e: &kube_markers::registry::RbacEntry) -> Vec<(&str, &str)> {
        e.marker
            .allow
            .iter()
            .map(|a| (&*a.lint, &*a.reason))
            .collect()
    }
    let secrets = entries
        .iter()
        .find(|e| e.marker.resources == ["secrets"])
        .unwrap();
    assert_eq!(
        allowed(secrets),
        [(
            "cluster-secrets-read",
            "the operator mirrors TLS Secrets into tenant namespaces"
        )]
    );
    let deployments = entries
        .iter()
        .find(|e| e.marker.resources == ["deployments"])
        .unwrap();
    assert_eq!(
        allowed(deployments),
        [
            ("wildcard-verbs", "it owns these Deployments outright"),
            ("workload-write", "it owns these Deployments outright"),
            ("redundant", "kept beside the narrower rule for reading"),
        ]
    );
}
