//! The roles the bundle adds to `role.yaml`'s: leader election, metrics auth, and editor,
//! viewer and admin roles per CRD (kubebuilder's names, files and rules).

use super::identity::Identity;
use crate::generate::crds::GeneratedCrd;
use kube_markers_core::model::{RbacMarker, Text};
use kube_markers_rbac::{GeneratedRole, generate_roles};
use serde_json::Value;
use std::collections::BTreeMap;

/// A role of the bundle: the object, its file, and what made it (for error messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRole {
    /// Name, namespace and normalized rules.
    pub role: GeneratedRole,
    /// Extra labels (aggregation).
    pub labels: BTreeMap<String, String>,
    /// File under `--out`.
    pub file: String,
    /// Whether the bundle binds it to the operator's ServiceAccount.
    pub bound: bool,
    /// What asked for it, e.g. "`leader-election = true` in …".
    pub reason: String,
}

/// Rules of one role, written like `#[rbac]` attributes so they are merged and ordered as
/// controller-gen orders `role.yaml`.
fn role(
    namespace: Option<&str>,
    name: &str,
    rules: &[(&[&str], &[&str], &[&str])],
) -> GeneratedRole {
    let owned = |l: &[&str]| {
        l.iter()
            .map(|s| Text::from(s.to_string()))
            .collect::<Vec<_>>()
    };
    let markers: Vec<RbacMarker> = rules
        .iter()
        .map(|(groups, resources, verbs)| RbacMarker {
            groups: owned(groups),
            resources: owned(resources),
            verbs: owned(verbs),
            namespace: namespace.map(|n| n.to_string().into()),
            role_name: Some(name.to_string().into()),
            ..RbacMarker::default()
        })
        .collect();
    generate_roles(&markers, name)
        .pop()
        .expect("a role with rules")
}

fn url_role(name: &str, urls: &[&str], verbs: &[&str]) -> GeneratedRole {
    let marker = RbacMarker {
        urls: urls.iter().map(|s| s.to_string().into()).collect(),
        verbs: verbs.iter().map(|s| s.to_string().into()).collect(),
        role_name: Some(name.to_string().into()),
        ..RbacMarker::default()
    };
    generate_roles([&marker], name)
        .pop()
        .expect("a role with rules")
}

/// kubebuilder's leader-election Role name.
pub const LEADER_ELECTION_ROLE: &str = "leader-election-role";
/// kubebuilder's metrics-auth ClusterRole name.
pub const METRICS_AUTH_ROLE: &str = "metrics-auth-role";
/// kubebuilder's metrics-reader ClusterRole name.
pub const METRICS_READER_ROLE: &str = "metrics-reader";

const ALL_VERBS: &[&str] = &[
    "get", "list", "watch", "create", "update", "patch", "delete",
];

/// The ClusterRole that lets the server write its CRDs' `caBundle`, without cert-manager.
pub const CA_BUNDLE_ROLE: &str = "conversion-ca-bundle-role";
/// Its file's name, without `.yaml` (its binding's starts the same).
pub const CA_BUNDLE_ROLE_FILE: &str = "conversion_ca_bundle_role";

/// The opt-in roles of the identity, and the per-CRD roles.
pub fn bundle_roles(id: &Identity, crds: &[GeneratedCrd]) -> Vec<BundleRole> {
    let mut out = Vec::new();
    if id.leader_election {
        // Leases in the operator's own namespace, and the events a leader change records
        // (kube-rs writes events.k8s.io events; client-go and controller-runtime core ones).
        out.push(BundleRole {
            role: role(
                Some(&id.namespace),
                LEADER_ELECTION_ROLE,
                &[
                    (&["coordination.k8s.io"], &["leases"], ALL_VERBS),
                    (&["", "events.k8s.io"], &["events"], &["create", "patch"]),
                ],
            ),
            labels: BTreeMap::new(),
            file: "leader_election_role.yaml".into(),
            bound: true,
            reason: format!(
                "`leader-election = true` ({})",
                id.origin("leader-election")
            ),
        });
    }
    if id.metrics_auth {
        let reason = format!("`metrics-auth = true` ({})", id.origin("metrics-auth"));
        // What a metrics endpoint needs to authenticate and authorize its scrapers.
        out.push(BundleRole {
            role: role(
                None,
                METRICS_AUTH_ROLE,
                &[
                    (&["authentication.k8s.io"], &["tokenreviews"], &["create"]),
                    (
                        &["authorization.k8s.io"],
                        &["subjectaccessreviews"],
                        &["create"],
                    ),
                ],
            ),
            labels: BTreeMap::new(),
            file: "metrics_auth_role.yaml".into(),
            bound: true,
            reason: reason.clone(),
        });
        // For the scrapers (Prometheus' ServiceAccount): bound by whoever runs them.
        out.push(BundleRole {
            role: url_role(METRICS_READER_ROLE, &["/metrics"], &["get"]),
            labels: BTreeMap::new(),
            file: "metrics_reader_role.yaml".into(),
            bound: false,
            reason,
        });
    }
    out.extend(ca_bundle_role(id, &super::conversion::converting(crds)));
    let prefixes = crd_prefixes(crds);
    for (crd, prefix) in crds.iter().zip(prefixes) {
        let spec = &crd.crd.spec;
        let (group, plural) = (spec.group.as_str(), spec.names.plural.as_str());
        let status = format!("{plural}/status");
        let has_status = spec
            .versions
            .iter()
            .any(|v| v.subresources.as_ref().is_some_and(|s| s.status.is_some()));
        let reason = format!("the CRD {}.{group}", spec.names.plural);
        for (kind, verbs, aggregate_to) in [
            ("admin", &["*"][..], "admin"),
            (
                "editor",
                &[
                    "create", "delete", "get", "list", "patch", "update", "watch",
                ][..],
                "edit",
            ),
            ("viewer", &["get", "list", "watch"][..], "view"),
        ] {
            let name = format!("{prefix}-{kind}-role");
            let (groups, resources, status_rule) = ([group], [plural], [status.as_str()]);
            let mut rules: Vec<(&[&str], &[&str], &[&str])> = vec![(&groups, &resources, verbs)];
            if has_status {
                rules.push((&groups, &status_rule, &["get"]));
            }
            let mut labels = BTreeMap::new();
            if id.aggregate_to_default_roles {
                labels.insert(
                    format!("rbac.authorization.k8s.io/aggregate-to-{aggregate_to}"),
                    "true".to_string(),
                );
            }
            out.push(BundleRole {
                role: role(None, &name, &rules),
                labels,
                file: format!("{}.yaml", name.replace('-', "_")),
                bound: false,
                reason: reason.clone(),
            });
        }
    }
    out
}

/// The prefix of each CRD's role names: its kind in lowercase (kubebuilder's), or, for kinds
/// that two groups share, the group's labels joined by `-` before it.
fn crd_prefixes(crds: &[GeneratedCrd]) -> Vec<String> {
    let kind = |c: &GeneratedCrd| c.crd.spec.names.kind.to_lowercase();
    crds.iter()
        .map(|c| {
            let shared = crds.iter().filter(|o| kind(o) == kind(c)).count() > 1;
            if shared {
                format!("{}-{}", c.crd.spec.group.replace('.', "-"), kind(c))
            } else {
                kind(c)
            }
        })
        .collect()
}

/// The role object with the bundle's labels.
pub fn role_value(role: &GeneratedRole, labels: &BTreeMap<String, String>) -> Value {
    let mut value = role.to_object().to_value();
    if !labels.is_empty() {
        value["metadata"]["labels"] = serde_json::to_value(labels).expect("labels serialize");
    }
    value
}

/// Without cert-manager: `get`, `patch` and `watch` on exactly the converting CRDs, for the
/// server to write its CA into their `caBundle` as soon as they are applied (CRDs keep their
/// names under `namePrefix`; a watch by `metadata.name` is authorized by name).
pub fn ca_bundle_role(id: &Identity, crds: &[String]) -> Option<BundleRole> {
    if id.cert_manager || crds.is_empty() {
        return None;
    }
    let marker = RbacMarker {
        groups: vec!["apiextensions.k8s.io".to_string().into()],
        resources: vec!["customresourcedefinitions".to_string().into()],
        resource_names: crds.iter().map(|n| n.clone().into()).collect(),
        verbs: ["get", "patch", "watch"]
            .map(|v| v.to_string().into())
            .to_vec(),
        role_name: Some(CA_BUNDLE_ROLE.to_string().into()),
        ..RbacMarker::default()
    };
    let role: GeneratedRole = generate_roles([&marker], CA_BUNDLE_ROLE)
        .pop()
        .expect("a role with rules");
    Some(BundleRole {
        role,
        labels: BTreeMap::new(),
        file: format!("{CA_BUNDLE_ROLE_FILE}.yaml"),
        bound: true,
        reason: format!(
            "the conversion webhook's caBundle in {} (without `cert-manager`)",
            crds.join(", ")
        ),
    })
}
