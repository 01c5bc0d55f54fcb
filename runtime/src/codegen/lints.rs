//! The generator's lints: each `#[rbac]` attribute's rule checked, at generation time, for the
//! permissions that public Kubernetes hardening guidance calls dangerous
//! ([`kube_markers_core::lints::Lint`] has the list, their names and sources).
//!
//! Every check asks the question of the attribute's own rule, with kube-apiserver's matching
//! ([`crate::authz`]): "would this rule allow one of these requests?", so that a wildcard is
//! caught by every lint whose requests it allows, and `redundant` compares whole rules with
//! the API server's escalation check's "covers".

use crate::authz::{RequestAttributes, rule_allows, rule_covers};
use crate::rbac::RbacMarker;
use crate::registry::{RbacEntry, Source};
use k8s_openapi::api::rbac::v1::PolicyRule;
pub use kube_markers_core::lints::Lint;

/// One lint that fired on one attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LintWarning {
    /// Which lint.
    pub lint: Lint,
    /// The attribute it fired on.
    pub source: Source,
    /// What the attribute grants that the lint is about.
    pub finding: String,
    /// For `redundant`: the attribute whose rule already grants all of it.
    pub covered_by: Option<Source>,
}

impl std::fmt::Display for LintWarning {
    /// `warning[lint]: file:line:column (item): finding: risk; allow it with ...`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.source;
        write!(
            f,
            "warning[{}]: {}:{}:{} ({}): {}: {}; if it is needed, say why on the attribute: \
             allow({}, reason = \"...\") [{}]",
            self.lint,
            s.file,
            s.line,
            s.column,
            s.item,
            self.finding,
            self.lint.risk(),
            self.lint,
            self.lint.source()
        )
    }
}

impl std::error::Error for LintWarning {}

/// One request shape a lint is about: any of `verbs` on any of `resources` (`res/sub` for a
/// subresource) in `group`.
struct Probe {
    group: &'static str,
    resources: &'static [&'static str],
    verbs: &'static [&'static str],
}

const WRITE: &[&str] = &["create", "update", "patch", "delete", "deletecollection"];
const RBAC: &str = "rbac.authorization.k8s.io";

/// The requests each dangerous-permission lint looks for (none for the others).
fn probes(lint: Lint) -> &'static [Probe] {
    match lint {
        Lint::Escalate => &[Probe {
            group: RBAC,
            resources: &["roles", "clusterroles"],
            verbs: &["escalate"],
        }],
        Lint::Bind => &[Probe {
            group: RBAC,
            resources: &["roles", "clusterroles"],
            verbs: &["bind"],
        }],
        Lint::Impersonate => &[
            Probe {
                group: "",
                resources: &["users", "groups", "serviceaccounts"],
                verbs: &["impersonate"],
            },
            Probe {
                group: "authentication.k8s.io",
                resources: &["uids", "userextras"],
                verbs: &["impersonate"],
            },
        ],
        Lint::RbacWrite => &[Probe {
            group: RBAC,
            resources: &[
                "roles",
                "clusterroles",
                "rolebindings",
                "clusterrolebindings",
            ],
            verbs: WRITE,
        }],
        Lint::ClusterSecretsRead => &[Probe {
            group: "",
            resources: &["secrets"],
            verbs: &["get", "list", "watch"],
        }],
        Lint::PodsExec => &[
            // `get` too: before Kubernetes 1.35 a websocket GET was enough to exec.
            Probe {
                group: "",
                resources: &["pods/exec", "pods/attach", "pods/portforward"],
                verbs: &["create", "get"],
            },
            Probe {
                group: "",
                resources: &["pods/ephemeralcontainers"],
                verbs: &["update", "patch"],
            },
        ],
        Lint::NodesProxy => &[Probe {
            group: "",
            resources: &["nodes/proxy"],
            verbs: &[
                "get", "list", "watch", "create", "update", "patch", "delete",
            ],
        }],
        Lint::TokenRequest => &[Probe {
            group: "",
            resources: &["serviceaccounts/token"],
            verbs: &["create"],
        }],
        Lint::WorkloadWrite => &[
            Probe {
                group: "",
                resources: &["pods", "replicationcontrollers"],
                verbs: &["create", "update", "patch"],
            },
            Probe {
                group: "apps",
                resources: &["deployments", "replicasets", "statefulsets", "daemonsets"],
                verbs: &["create", "update", "patch"],
            },
            Probe {
                group: "batch",
                resources: &["jobs", "cronjobs"],
                verbs: &["create", "update", "patch"],
            },
        ],
        Lint::PersistentVolumeCreate => &[Probe {
            group: "",
            resources: &["persistentvolumes"],
            verbs: &["create"],
        }],
        Lint::CsrApproval => &[
            Probe {
                group: "certificates.k8s.io",
                resources: &["certificatesigningrequests/approval"],
                verbs: &["update", "patch"],
            },
            Probe {
                group: "certificates.k8s.io",
                resources: &["signers"],
                verbs: &["approve"],
            },
        ],
        Lint::WebhookConfigWrite => &[Probe {
            group: "admissionregistration.k8s.io",
            resources: &[
                "validatingwebhookconfigurations",
                "mutatingwebhookconfigurations",
            ],
            verbs: WRITE,
        }],
        Lint::NamespaceModify => &[Probe {
            group: "",
            resources: &["namespaces"],
            verbs: &["update", "patch"],
        }],
        Lint::WildcardVerbs | Lint::WildcardResources | Lint::WildcardGroups | Lint::Redundant => {
            &[]
        }
    }
}

/// The attribute as one policy rule (`core` is the core group).
pub fn marker_rule(marker: &RbacMarker) -> PolicyRule {
    let list = |l: &[String]| (!l.is_empty()).then(|| l.to_vec());
    PolicyRule {
        api_groups: list(
            &marker
                .groups
                .iter()
                .map(|g| {
                    if g == "core" {
                        String::new()
                    } else {
                        g.clone()
                    }
                })
                .collect::<Vec<_>>(),
        ),
        resources: list(&marker.resources),
        resource_names: list(&marker.resource_names),
        non_resource_urls: list(&marker.urls),
        verbs: marker.verbs.clone(),
    }
}

/// `deployments.apps`, `pods/exec`, `clusterroles.rbac.authorization.k8s.io`.
fn resource_name(group: &str, resource: &str) -> String {
    let (base, sub) = match resource.split_once('/') {
        Some((base, sub)) => (base, Some(sub)),
        None => (resource, None),
    };
    let mut name = base.to_string();
    if !group.is_empty() {
        name = format!("{name}.{group}");
    }
    if let Some(sub) = sub {
        name = format!("{name}/{sub}");
    }
    name
}

/// One resource a lint probes, with its request for each verb (on no object in particular),
/// built once for every attribute of a run: thousands of attributes ask the same questions.
struct ResourceProbe {
    group: &'static str,
    resource: &'static str,
    requests: Vec<(&'static str, RequestAttributes)>,
}

/// The lint's probes, as requests.
fn resource_probes(lint: Lint) -> &'static [ResourceProbe] {
    static BY_LINT: std::sync::OnceLock<Vec<Vec<ResourceProbe>>> = std::sync::OnceLock::new();
    let by_lint = BY_LINT.get_or_init(|| {
        Lint::ALL
            .iter()
            .map(|&lint| {
                probes(lint)
                    .iter()
                    .flat_map(|probe| {
                        probe.resources.iter().map(|&resource| {
                            let (base, sub) = resource.split_once('/').unwrap_or((resource, ""));
                            ResourceProbe {
                                group: probe.group,
                                resource,
                                requests: probe
                                    .verbs
                                    .iter()
                                    .map(|&verb| {
                                        let request =
                                            RequestAttributes::resource(verb, probe.group, base)
                                                .with_subresource(sub);
                                        (verb, request)
                                    })
                                    .collect(),
                            }
                        })
                    })
                    .collect()
            })
            .collect()
    });
    let index = Lint::ALL
        .iter()
        .position(|&l| l == lint)
        .unwrap_or_default();
    &by_lint[index]
}

/// What of the lint's requests the rule allows, as `verb, verb on resource; ...`, or `None`.
fn probe_findings(lint: Lint, rule: &PolicyRule) -> Option<String> {
    // With resourceNames the rule allows the requests on those objects: ask with each name.
    let names: &[String] = rule.resource_names.as_deref().unwrap_or_default();
    let allows = |request: &RequestAttributes| {
        if names.is_empty() {
            rule_allows(request, rule)
        } else {
            names
                .iter()
                .any(|name| rule_allows(&request.clone().named(name), rule))
        }
    };
    let mut found = Vec::new();
    for probe in resource_probes(lint) {
        let verbs: Vec<&str> = probe
            .requests
            .iter()
            .filter(|(_, request)| allows(request))
            .map(|(verb, _)| *verb)
            .collect();
        if !verbs.is_empty() {
            found.push(format!(
                "{} on {}",
                verbs.join(", "),
                resource_name(probe.group, probe.resource)
            ));
        }
    }
    (!found.is_empty()).then(|| found.join("; "))
}

/// `in ClusterRole "manager-role"` / `in Role "x" of namespace "ns"`.
fn role_of(marker: &RbacMarker, default_role_name: &str) -> String {
    let name = marker.role_name.as_deref().unwrap_or(default_role_name);
    match &marker.namespace {
        None => format!("in ClusterRole {name:?}"),
        Some(ns) => format!("in Role {name:?} of namespace {ns:?}"),
    }
}

/// The findings of one lint on one attribute (its `rule`, in `role`), before `allow(...)` is
/// applied.
fn check(lint: Lint, marker: &RbacMarker, rule: &PolicyRule, role: &str) -> Option<String> {
    let wildcard = |list: &[String], what: &str, is_wild: fn(&str) -> bool| {
        let wild: Vec<String> = list
            .iter()
            .filter(|v| is_wild(v))
            .map(|v| format!("{v:?}"))
            .collect();
        (!wild.is_empty()).then(|| format!("{what} {} {}", wild.join(", "), role))
    };
    match lint {
        Lint::WildcardVerbs => wildcard(&marker.verbs, "verbs", |v| v == "*"),
        Lint::WildcardResources => wildcard(&marker.resources, "resources", |r| {
            r == "*" || r.starts_with("*/")
        }),
        Lint::WildcardGroups => wildcard(&marker.groups, "groups", |g| g == "*"),
        Lint::ClusterSecretsRead if marker.namespace.is_some() => None,
        Lint::Impersonate => {
            // Constrained impersonation's verbs (`impersonate:user-info`, ...) name their
            // own targets: any of them is impersonation.
            let constrained: Vec<&String> = marker
                .verbs
                .iter()
                .filter(|v| v.starts_with("impersonate:") || v.starts_with("impersonate-on:"))
                .collect();
            match (probe_findings(lint, rule), constrained.is_empty()) {
                (Some(found), _) => Some(format!("grants {found} {role}")),
                (None, false) => Some(format!(
                    "grants the impersonation verb(s) {} {}",
                    constrained
                        .iter()
                        .map(|v| format!("{v:?}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    role
                )),
                (None, true) => None,
            }
        }
        Lint::Redundant => None,
        _ => probe_findings(lint, rule).map(|found| format!("grants {found} {role}")),
    }
}

/// Runs every lint over the attributes (the registry's order: sorted by source) and returns
/// the warnings that no `allow(...)` of their attribute accepts, attribute by attribute.
pub fn check_entries(entries: &[&RbacEntry], default_role_name: &str) -> Vec<LintWarning> {
    let markers: Vec<RbacMarker> = entries.iter().map(|e| RbacMarker::from(*e)).collect();
    let rules: Vec<PolicyRule> = markers.iter().map(marker_rule).collect();
    let coverers = Coverers::new(entries, &markers, &rules, default_role_name);
    let mut warnings = Vec::new();
    for (i, ((entry, marker), rule)) in entries.iter().zip(&markers).zip(&rules).enumerate() {
        let allowed = |lint: Lint| entry.allow.iter().any(|(name, _)| *name == lint.name());
        // Built once per attribute, not once per lint.
        let role = role_of(marker, default_role_name);
        for lint in Lint::ALL {
            if allowed(lint) {
                continue;
            }
            if lint == Lint::Redundant {
                if let Some(j) = coverers.covering(i, &rules) {
                    let other = entries[j].source;
                    warnings.push(LintWarning {
                        lint,
                        source: entry.source,
                        finding: format!(
                            "everything it grants {} is already granted by the attribute at \
                             {}:{}:{} ({})",
                            role, other.file, other.line, other.column, other.item
                        ),
                        covered_by: Some(other),
                    });
                }
                continue;
            }
            if let Some(finding) = check(lint, marker, rule, &role) {
                warnings.push(LintWarning {
                    lint,
                    source: entry.source,
                    finding,
                    covered_by: None,
                });
            }
        }
    }
    warnings
}

/// Which attributes could cover which: those of the same crate and role whose rule names the
/// other's first (group, resource) or a wildcard for it. An index, so that `redundant` stays
/// near-linear on thousands of attributes instead of comparing every pair.
struct Coverers {
    /// (crate, namespace, role, group, resource) → attributes, in source order; URL rules under
    /// group and resource `""`.
    by_target: std::collections::HashMap<(String, String, String, String, String), Vec<usize>>,
    /// The same key for each attribute's own first target.
    keys: Vec<(String, String, String, String, String)>,
}

impl Coverers {
    fn new(
        entries: &[&RbacEntry],
        markers: &[RbacMarker],
        rules: &[PolicyRule],
        default_role_name: &str,
    ) -> Coverers {
        let mut by_target: std::collections::HashMap<_, Vec<usize>> = Default::default();
        let mut keys = Vec::new();
        for (j, ((entry, marker), rule)) in entries.iter().zip(markers).zip(rules).enumerate() {
            let scope = |group: &str, resource: &str| {
                (
                    entry.source.crate_name().to_string(),
                    marker.namespace.clone().unwrap_or_default(),
                    marker
                        .role_name
                        .clone()
                        .unwrap_or_else(|| default_role_name.to_string()),
                    group.to_string(),
                    resource.to_string(),
                )
            };
            let groups = rule.api_groups.as_deref().unwrap_or_default();
            let resources = rule.resources.as_deref().unwrap_or_default();
            if resources.is_empty() {
                by_target.entry(scope("", "")).or_default().push(j);
                keys.push(scope("", ""));
                continue;
            }
            for g in groups {
                for r in resources {
                    by_target.entry(scope(g, r)).or_default().push(j);
                }
            }
            keys.push(scope(
                groups.first().map_or("", String::as_str),
                &resources[0],
            ));
        }
        Coverers { by_target, keys }
    }

    /// Another attribute whose rule covers attribute `i`'s; of two that cover each other, the
    /// later one is the redundant one.
    fn covering(&self, i: usize, rules: &[PolicyRule]) -> Option<usize> {
        let (krate, namespace, role, group, resource) = &self.keys[i];
        let wild_sub = resource.split_once('/').map(|(_, sub)| format!("*/{sub}"));
        let mut targets = vec![(group.as_str(), resource.as_str())];
        if !resource.is_empty() {
            for g in [group.as_str(), "*"] {
                for r in [Some(resource.as_str()), Some("*"), wild_sub.as_deref()]
                    .into_iter()
                    .flatten()
                {
                    targets.push((g, r));
                }
            }
        }
        let mut candidates: Vec<usize> = targets
            .into_iter()
            .filter_map(|(g, r)| {
                self.by_target.get(&(
                    krate.clone(),
                    namespace.clone(),
                    role.clone(),
                    g.to_string(),
                    r.to_string(),
                ))
            })
            .flatten()
            .copied()
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        candidates.into_iter().find(|&j| {
            j != i
                && rule_covers(&rules[j], &rules[i])
                && (j < i || !rule_covers(&rules[i], &rules[j]))
        })
    }
}

#[cfg(test)]
mod tests;
