//! The generator's lints: each `#[rbac]` attribute's rule checked, at generation time, for the
//! permissions that public Kubernetes hardening guidance calls dangerous
//! ([`kube_markers_core::lints::Lint`] has the list, their names and sources).
//!
//! Every check asks the question of the attribute's own rule, with kube-apiserver's matching
//! (`kube_markers_rbac::authorize`): "would this rule allow one of these requests?", so that a wildcard is
//! caught by every lint whose requests it allows, and `redundant` compares whole rules with
//! the API server's escalation check's "covers", among the attributes of one item: the same
//! grant on two functions that each need it is the documentation the docs ask for, not
//! redundancy.

use k8s_openapi::api::rbac::v1::PolicyRule;
pub use kube_markers_core::lints::Lint;
use kube_markers_core::model::{Text, api_group};
use kube_markers_rbac::aggregate::IdMap;
use kube_markers_rbac::authorize::{
    RequestAttributes, api_group_matches, resource_matches, rule_allows, rule_covers,
};
use kube_markers_rbac::policy_rule;
use kube_markers_registry::{RbacEntry, Source};

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
        Lint::WildcardVerbs
        | Lint::WildcardResources
        | Lint::WildcardGroups
        | Lint::Redundant
        | Lint::Unused => &[],
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
    /// `resource` split at `/`: what the rule's resources are matched against.
    base: &'static str,
    subresource: &'static str,
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
                                base,
                                subresource: sub,
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

/// Whether any lint's probe could match a rule with these groups: the probes ask of a few
/// well-known groups, and most attributes name only their own (`*.example.com`), for which
/// no request of any probe can be allowed, whatever the resources and verbs.
fn may_match_probes(rule: &PolicyRule) -> bool {
    static GROUPS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let groups = GROUPS.get_or_init(|| {
        let mut groups: Vec<&'static str> = Lint::ALL
            .iter()
            .flat_map(|&lint| probes(lint).iter().map(|probe| probe.group))
            .collect();
        groups.sort_unstable();
        groups.dedup();
        groups
    });
    groups.iter().any(|group| api_group_matches(rule, group))
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
    let mut found: Option<String> = None;
    for probe in resource_probes(lint) {
        // The group and resource decide for every verb of the probe at once: a rule that
        // does not name them allows none of its requests (most rules, most probes).
        if !(api_group_matches(rule, probe.group)
            && resource_matches(rule, probe.base, probe.subresource))
        {
            continue;
        }
        let mut verbs = probe
            .requests
            .iter()
            .filter(|(_, request)| allows(request))
            .map(|(verb, _)| *verb)
            .peekable();
        if verbs.peek().is_none() {
            continue;
        }
        let text = found.get_or_insert_with(String::new);
        if !text.is_empty() {
            text.push_str("; ");
        }
        for (i, verb) in verbs.enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            text.push_str(verb);
        }
        text.push_str(" on ");
        text.push_str(&resource_name(probe.group, probe.resource));
    }
    found
}

/// `in ClusterRole "manager-role"` / `in Role "x" of namespace "ns"`.
fn role_of(entry: &RbacEntry, default_role_name: &str) -> String {
    let name = entry
        .marker
        .role_name
        .as_deref()
        .unwrap_or(default_role_name);
    match entry.marker.namespace.as_deref() {
        None => format!("in ClusterRole {name:?}"),
        Some(ns) => format!("in Role {name:?} of namespace {ns:?}"),
    }
}

/// The findings of one lint on one attribute (its `rule`, in the role `role` names), before
/// `allow(...)` is applied. `probed`: whether [`may_match_probes`] for this rule.
fn check(
    lint: Lint,
    entry: &RbacEntry,
    rule: &PolicyRule,
    probed: bool,
    role: &mut impl FnMut() -> String,
) -> Option<String> {
    // The wild values of a list, quoted, if it has any.
    let wildcard = |list: &[Text], what: &str, is_wild: fn(&str) -> bool| {
        if !list.iter().any(|v| is_wild(v)) {
            return None;
        }
        let wild: Vec<String> = list
            .iter()
            .filter(|v| is_wild(v))
            .map(|v| format!("{v:?}"))
            .collect();
        Some(format!("{what} {}", wild.join(", ")))
    };
    let findings = |lint| {
        if probed {
            probe_findings(lint, rule)
        } else {
            None
        }
    };
    match lint {
        Lint::WildcardVerbs => wildcard(&entry.marker.verbs, "verbs", |v| v == "*"),
        Lint::WildcardResources => wildcard(&entry.marker.resources, "resources", |r| {
            r == "*" || r.starts_with("*/")
        }),
        Lint::WildcardGroups => wildcard(&entry.marker.groups, "groups", |g| g == "*"),
        Lint::ClusterSecretsRead if entry.marker.namespace.is_some() => None,
        Lint::Impersonate => {
            // Constrained impersonation's verbs (`impersonate:user-info`, ...) name their
            // own targets: any of them is impersonation.
            let constrained: Vec<&str> = entry
                .marker
                .verbs
                .iter()
                .map(|v| &**v)
                .filter(|v| v.starts_with("impersonate:") || v.starts_with("impersonate-on:"))
                .collect();
            match (findings(lint), constrained.is_empty()) {
                (Some(found), _) => Some(format!("grants {found}")),
                (None, false) => Some(format!(
                    "grants the impersonation verb(s) {}",
                    constrained
                        .iter()
                        .map(|v| format!("{v:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                (None, true) => None,
            }
        }
        // `unused` is the call check's (`check::calls`): it needs the code, not the rule.
        Lint::Redundant | Lint::Unused => None,
        _ => findings(lint).map(|found| format!("grants {found}")),
    }
    .map(|finding| format!("{finding} {}", role()))
}

/// Runs every lint over the attributes (the registry's order: sorted by source) and returns
/// the warnings that no `allow(...)` of their attribute accepts, attribute by attribute.
pub fn check_entries(entries: &[&RbacEntry], default_role_name: &str) -> Vec<LintWarning> {
    let rules: Vec<PolicyRule> = entries.iter().map(|e| policy_rule(&e.marker)).collect();
    let coverers = Coverers::new(entries, default_role_name);
    let mut covering = Vec::new();
    let mut warnings = Vec::new();
    for (i, (entry, rule)) in entries.iter().zip(&rules).enumerate() {
        let allowed = |lint: Lint| entry.marker.allow.iter().any(|a| a.lint == lint.name());
        // Built once per attribute that has a finding, not once per lint.
        let mut role_text: Option<String> = None;
        let mut role = || {
            role_text
                .get_or_insert_with(|| role_of(entry, default_role_name))
                .clone()
        };
        let probed = may_match_probes(rule);
        for lint in Lint::ALL {
            if allowed(lint) {
                continue;
            }
            if lint == Lint::Redundant {
                if let Some(j) = coverers.covering(i, &rules, &mut covering) {
                    let other = &entries[j].source;
                    warnings.push(LintWarning {
                        lint,
                        source: entry.source.clone(),
                        finding: format!(
                            "everything it grants {} is already granted by the attribute at \
                             {}:{}:{} on the same item ({})",
                            role(),
                            other.file,
                            other.line,
                            other.column,
                            other.item
                        ),
                        covered_by: Some(other.clone()),
                    });
                }
                continue;
            }
            if let Some(finding) = check(lint, entry, rule, probed, &mut role) {
                warnings.push(LintWarning {
                    lint,
                    source: entry.source.clone(),
                    finding,
                    covered_by: None,
                });
            }
        }
    }
    warnings
}

/// A (group, resource) of one item's role, numbered: what `redundant` indexes attributes by.
/// The scope (item, namespace, role), the group and the resource are each numbered once
/// (each string hashed once per attribute: unoptimized, as the generator runs, hashing text
/// is what an index costs); URL rules are under (`URL`, their URL).
type Target = (u32, u32, u32);

/// Which attributes could cover which: those of the same item and role whose rule names the
/// other's first (group, resource) or a wildcard for it. An index, so that `redundant` stays
/// near-linear on thousands of attributes instead of comparing every pair.
struct Coverers {
    /// Target → the last of its attributes in `chain`: the attributes of one target are a
    /// linked list through `chain` (no vector per target: thousands of them, each allocated).
    by_target: IdMap<Target, u32>,
    /// (attribute, the previous node of the same target, or `NONE`).
    chain: Vec<(u32, u32)>,
    /// Each attribute's own first target, and the number of `*/sub` for its subresource
    /// (`None` when no attribute names it, or the resource has none).
    keys: Vec<(Target, Option<u32>)>,
    /// The number of `*`.
    star: Option<u32>,
}

/// The end of a chain in [`Coverers::chain`].
const NONE: u32 = u32::MAX;
/// The "group" of a URL rule's targets: no string's number.
const URL: u32 = u32::MAX - 1;
/// The "URL" under which every rule with a `*`-ended URL is also indexed.
const WILD_URL: u32 = u32::MAX;

/// Numbers strings in the order they are first seen; the subresource `sub` of each `*/sub`
/// numbered too, so that an attribute's `res/sub` finds `*/sub` without building its text.
#[derive(Default)]
struct Numbers<'a> {
    ids: IdMap<&'a str, u32>,
    wild_subs: IdMap<&'a str, u32>,
}

impl<'a> Numbers<'a> {
    fn of(&mut self, s: &'a str) -> u32 {
        let next = self.ids.len() as u32;
        let id = *self.ids.entry(s).or_insert(next);
        if id == next
            && let Some(sub) = s.strip_prefix("*/")
        {
            self.wild_subs.insert(sub, id);
        }
        id
    }
}

impl Coverers {
    fn new(entries: &[&RbacEntry], default_role_name: &str) -> Coverers {
        let mut scopes: IdMap<(&str, &str, &str, &str, &str), u32> = Default::default();
        let mut strings = Numbers::default();
        let mut by_target: IdMap<Target, u32> = Default::default();
        let mut chain = Vec::with_capacity(entries.len());
        let mut firsts = Vec::with_capacity(entries.len());
        let mut last_scope = None;
        let none = strings.of("");
        for (j, entry) in entries.iter().enumerate() {
            // One item: its file, module and name (the attributes stacked on it).
            let scope_key = (
                &*entry.source.file,
                &*entry.source.module_path,
                &*entry.source.item,
                entry.marker.namespace.as_deref().unwrap_or_default(),
                entry
                    .marker
                    .role_name
                    .as_deref()
                    .unwrap_or(default_role_name),
            );
            // Attributes come sorted by source: an item's stand together.
            let scope = match last_scope {
                Some((key, scope)) if key == scope_key => scope,
                _ => {
                    let next = scopes.len() as u32;
                    *scopes.entry(scope_key).or_insert(next)
                }
            };
            last_scope = Some((scope_key, scope));
            let mut link = |target: Target| {
                let previous = by_target.insert(target, chain.len() as u32);
                chain.push((j as u32, previous.unwrap_or(NONE)));
            };
            let Some(first_resource) = entry.marker.resources.first().map(|r| &**r) else {
                // A URL rule, under each of its URLs, and under `WILD_URL` too when one of
                // them ends in `*` (it may cover any URL of its scope): not all under one key,
                // where each URL rule would gather every other (quadratic: a third of the
                // 25,000-rule set are URL rules).
                for url in &entry.marker.urls {
                    link((scope, URL, strings.of(url)));
                    if url.ends_with('*') {
                        link((scope, URL, WILD_URL));
                    }
                }
                let first_url = strings.of(entry.marker.urls.first().map_or("", |u| &**u));
                firsts.push(((scope, URL, first_url), ""));
                continue;
            };
            let mut first_group = none;
            for (n, g) in entry.marker.groups.iter().enumerate() {
                let g = strings.of(api_group(g));
                if n == 0 {
                    first_group = g;
                }
                for r in &entry.marker.resources {
                    link((scope, g, strings.of(r)));
                }
            }
            let resource = strings.of(first_resource);
            firsts.push(((scope, first_group, resource), first_resource));
        }
        // `*/sub` only matters where an attribute names it: every rule naming it is indexed.
        let keys = firsts
            .into_iter()
            .map(|(target, resource)| {
                let wild_sub = resource
                    .split_once('/')
                    .and_then(|(_, sub)| strings.wild_subs.get(sub).copied());
                (target, wild_sub)
            })
            .collect();
        let star = strings.ids.get("*").copied();
        Coverers {
            by_target,
            chain,
            keys,
            star,
        }
    }

    /// Another attribute whose rule covers attribute `i`'s; of two that cover each other, the
    /// later one is the redundant one. `candidates` is scratch space, reused across calls.
    fn covering(
        &self,
        i: usize,
        rules: &[PolicyRule],
        candidates: &mut Vec<usize>,
    ) -> Option<usize> {
        let ((scope, group, resource), wild_sub) = self.keys[i];
        candidates.clear();
        let mut add = |g: u32, r: u32| {
            let mut node = self.by_target.get(&(scope, g, r)).copied().unwrap_or(NONE);
            while node != NONE {
                let (j, previous) = self.chain[node as usize];
                candidates.push(j as usize);
                node = previous;
            }
        };
        add(group, resource);
        if group == URL {
            add(URL, WILD_URL);
        } else {
            for g in [Some(group), self.star].into_iter().flatten() {
                for r in [Some(resource), self.star, wild_sub].into_iter().flatten() {
                    if (g, r) != (group, resource) {
                        add(g, r);
                    }
                }
            }
        }
        if candidates.len() > 1 {
            candidates.sort_unstable();
            candidates.dedup();
        }
        candidates.iter().copied().find(|&j| {
            j != i
                && rule_covers(&rules[j], &rules[i])
                && (j < i || !rule_covers(&rules[i], &rules[j]))
        })
    }
}

#[cfg(test)]
mod tests;
