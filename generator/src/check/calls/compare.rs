//! The calls held against the attributes: which call no attribute grants, which attribute's
//! verb no call needs.

use super::{
    Kinds, Resolved, field_kind, rbac_attribute, resource_text, role_verb_order, scope_text,
};
use crate::check::lints::{Lint, LintWarning};
use crate::input::scan::calls::{KindRef, KubeCall, Scope};
use crate::input::sources::FoundCalls;
use kube_markers_core::model::api_group;
use kube_markers_rbac::authorize::{RequestAttributes, rule_allows};
use kube_markers_rbac::policy_rule;
use kube_markers_registry::{CrdEntry, RbacEntry};
use std::collections::BTreeSet;
use std::path::Path;

/// One need of one call, its kind resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeededCall {
    /// The file, relative to the workspace root.
    pub file: String,
    /// Line and column of the call.
    pub line: usize,
    /// Column.
    pub column: usize,
    /// The call (`deployments.patch`, `finalizer`, ...).
    pub call: String,
    /// The function it is in, and that function's line.
    pub function: Option<(String, usize)>,
    /// The crate.
    pub krate: String,
    /// API group.
    pub group: String,
    /// `plural` or `plural/sub`.
    pub resource: String,
    /// Verbs.
    pub verbs: Vec<&'static str>,
    /// Where.
    pub scope: Scope,
    /// Why the verbs, when not plain.
    pub why: Option<&'static str>,
}

impl NeededCall {
    /// The attribute that grants this need, as pasted above the function.
    pub fn attribute(&self, verbs: &[&str]) -> String {
        let namespace = match &self.scope {
            Scope::Namespace(ns) => Some(ns.as_str()),
            _ => None,
        };
        rbac_attribute(&self.group, &self.resource, verbs, namespace)
    }
}

/// The call kube-markers' leader election (`LeaderElection::builder`) is recorded as: the
/// deploy bundle's `leader-election = true` grants its Lease, besides the attributes.
pub const LEADER_ELECTION_CALL: &str = "LeaderElection::builder";

/// What the deploy bundle grants besides the attributes, for the call check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BundleGrants {
    /// `leader-election = true`: its Role grants leases in the operator's namespace.
    pub leader_election: bool,
    /// The generator's `Cargo.toml` (relative to the workspace root), where that line goes.
    pub generator_manifest: Option<String>,
}

/// A call no attribute grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallWarning {
    /// The call and what it needs.
    pub needed: NeededCall,
    /// The verbs no attribute grants.
    pub missing: Vec<&'static str>,
    /// For the leader election's call, which the bundle may grant instead: the generator's
    /// `Cargo.toml`, where `leader-election = true` goes (`None`: not known).
    pub generator_manifest: Option<String>,
}

impl CallWarning {
    /// Whether the deploy bundle's `leader-election = true` grants what the call needs.
    pub fn bundle_may_grant(&self) -> bool {
        self.needed.call == LEADER_ELECTION_CALL
    }
}

impl std::fmt::Display for CallWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = &self.needed;
        let bundle = self.bundle_may_grant();
        write!(
            f,
            "[ungranted-call] {}:{}:{}{}: `{}` needs {} on {} {}",
            n.file,
            n.line,
            n.column,
            n.function
                .as_ref()
                .map_or(String::new(), |(name, _)| format!(" ({name})")),
            n.call,
            self.missing.join(", "),
            resource_text(&n.group, &n.resource),
            if bundle {
                "in the operator's namespace".to_string()
            } else {
                scope_text(&n.scope)
            },
        )?;
        if let Some(why) = n.why {
            write!(f, " ({why})")?;
        }
        if bundle {
            write!(
                f,
                ", and neither the deploy bundle nor an #[rbac] grants it; add the line \
                 `leader-election = true` under `[package.metadata.kube-markers.bundle]` in {} \
                 (the bundle's leader-election Role grants it in the operator's namespace), or add ",
                self.generator_manifest
                    .as_deref()
                    .unwrap_or("the generator's Cargo.toml")
            )?;
        } else {
            write!(f, ", and no #[rbac] grants it; add ")?;
        }
        match &n.function {
            Some((name, line)) => write!(
                f,
                "to `{name}` ({}:{line}): {}",
                n.file,
                n.attribute(&self.missing)
            ),
            None => write!(
                f,
                "to a function of the crate: {}",
                n.attribute(&self.missing)
            ),
        }
    }
}

impl std::error::Error for CallWarning {}

/// What the call check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Every need of every call whose kind is known.
    pub needed: Vec<NeededCall>,
    /// Calls no attribute grants.
    pub warnings: Vec<CallWarning>,
    /// Attributes' verbs no call needs (those no `allow(unused, ...)` accepts).
    pub unused: Vec<LintWarning>,
    /// Calls whose kind the scan cannot tell: `file:line:column: call: why`.
    pub unknown: Vec<String>,
    /// Needs the deploy bundle grants (the leader election's, with `leader-election = true`):
    /// no attribute to print for them.
    pub bundle_granted: Vec<NeededCall>,
}

impl Analysis {
    /// The calls the deploy bundle grants besides the attributes: with `leader-election =
    /// true`, the leader election's; without, its warning names the line to add and where.
    pub fn with_bundle(mut self, bundle: &BundleGrants) -> Analysis {
        self.warnings
            .retain(|w| !(bundle.leader_election && w.bundle_may_grant()));
        if bundle.leader_election {
            let (granted, rest) = std::mem::take(&mut self.needed)
                .into_iter()
                .partition(|n| n.call == LEADER_ELECTION_CALL);
            self.needed = rest;
            self.bundle_granted = granted;
        }
        for w in &mut self.warnings {
            if w.bundle_may_grant() {
                w.generator_manifest = bundle.generator_manifest.clone();
            }
        }
        self
    }
}

/// Holds the calls of the linked crates against the attributes.
pub fn analyse(
    found: &[FoundCalls],
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    linked_crates: &[&str],
    root: &Path,
    default_role_name: &str,
) -> Analysis {
    let kinds = Kinds::new(crds);
    analyse_kinds(
        found,
        entries,
        &kinds,
        linked_crates,
        root,
        default_role_name,
    )
}

/// [`analyse`], with the kinds known.
pub(crate) fn analyse_kinds(
    found: &[FoundCalls],
    entries: &[&RbacEntry],
    kinds: &Kinds<'_>,
    linked_crates: &[&str],
    root: &Path,
    default_role_name: &str,
) -> Analysis {
    let mut out = Analysis::default();
    // The verbs calls of unknown kind need: an attribute granting one of them may serve them.
    let mut unknown_verbs: BTreeSet<&'static str> = BTreeSet::new();
    let linked: Vec<&FoundCalls> = found
        .iter()
        .filter(|f| linked_crates.contains(&f.krate.as_str()))
        .collect();
    for file in &linked {
        let shown = file
            .file
            .strip_prefix(root)
            .unwrap_or(&file.file)
            .display()
            .to_string();
        for call in &file.calls.calls {
            let crate_files: Vec<&FoundCalls> = linked
                .iter()
                .filter(|o| o.krate == file.krate)
                .copied()
                .collect();
            let instances = match &call.kind {
                KindRef::Generic { function, param } => {
                    match super::generic::instances(&crate_files, root, function, param) {
                        Ok(kinds) => kinds,
                        Err(why) => vec![KindRef::Unknown(why)],
                    }
                }
                other => vec![other.clone()],
            };
            for instance in &instances {
                let kind = match instance {
                    KindRef::Field(name) => {
                        let fields: Vec<_> = crate_files
                            .iter()
                            .flat_map(|o| o.calls.api_fields.iter().cloned())
                            .collect();
                        match field_kind(&fields, name) {
                            Some(kind) => kind,
                            // Called with kube's parameters on something the crate does not type
                            // as `Api<K>`: a call of unknown kind.
                            None if call.params_shaped => KindRef::Unknown(format!(
                                "its receiver `{name}` is no field, function or method the crate \
                             types as `Api<K>`"
                            )),
                            // Not an `Api` (a map's `get`, a client's `list`).
                            None => continue,
                        }
                    }
                    other => other.clone(),
                };
                let resolved = match &kind {
                    KindRef::Type(path) => kinds.resolve(path),
                    KindRef::Unknown(why) => Err(why.clone()),
                    KindRef::Field(_) | KindRef::Generic { .. } => {
                        unreachable!("fields and generics are resolved above")
                    }
                };
                for need in &call.needs {
                    let (group, plural) = match (need.resource, &resolved) {
                        (Some((g, r)), _) => (g.to_string(), r.to_string()),
                        (None, Ok(Resolved { group, plural, .. })) => {
                            (group.clone(), plural.clone())
                        }
                        (None, Err(why)) => {
                            unknown_verbs.extend(need.verbs.iter().copied());
                            out.unknown.push(format!(
                                "{shown}:{}:{}: `{}` needs {}, but the scan cannot tell on which \
                             kind: {why}; grant it with an #[rbac] of its own (and \
                             allow(unused, reason = \"...\") there)",
                                call.line,
                                call.column,
                                call.call,
                                role_verb_order(need.verbs.iter().copied()).join(", ")
                            ));
                            continue;
                        }
                    };
                    let resource = match &need.subresource {
                        Some(sub) => format!("{plural}/{sub}"),
                        None => plural,
                    };
                    out.needed
                        .push(needed(&shown, file, call, group, resource, need));
                }
            }
        }
    }
    let rules: Vec<_> = entries.iter().map(|e| policy_rule(&e.marker)).collect();
    for need in &out.needed {
        let missing: Vec<&'static str> = need
            .verbs
            .iter()
            .copied()
            .filter(|verb| {
                !entries
                    .iter()
                    .zip(&rules)
                    .any(|(e, rule)| grants(e, rule, need, verb))
            })
            .collect();
        if !missing.is_empty() {
            out.warnings.push(CallWarning {
                needed: need.clone(),
                missing,
                generator_manifest: None,
            });
        }
    }
    out.unused = unused(
        entries,
        &out.needed,
        &unknown_verbs,
        &linked,
        default_role_name,
    );
    out
}

fn needed(
    shown: &str,
    file: &FoundCalls,
    call: &KubeCall,
    group: String,
    resource: String,
    need: &crate::input::scan::calls::Need,
) -> NeededCall {
    NeededCall {
        file: shown.to_string(),
        line: call.line,
        column: call.column,
        call: call.call.clone(),
        function: call.function.as_ref().map(|f| (f.name.clone(), f.line)),
        krate: file.krate.clone(),
        group,
        resource,
        verbs: role_verb_order(need.verbs.iter().copied()),
        scope: call.scope.clone(),
        why: need.why,
    }
}

/// Whether the attribute's rule grants `verb` of the call where the call makes it: a
/// ClusterRole anywhere, a Role in its namespace (a call whose namespace is chosen at run
/// time may be made there; a cluster-wide one never).
fn grants(
    entry: &RbacEntry,
    rule: &k8s_openapi::api::rbac::v1::PolicyRule,
    need: &NeededCall,
    verb: &str,
) -> bool {
    let in_scope = match (entry.marker.namespace.as_deref(), &need.scope) {
        (None, _) => true,
        (Some(_), Scope::Cluster) => false,
        (Some(ns), Scope::Namespace(called)) => ns == called,
        (Some(_), Scope::Namespaced | Scope::Unknown) => true,
    };
    if !in_scope {
        return false;
    }
    let (base, sub) = need
        .resource
        .split_once('/')
        .unwrap_or((need.resource.as_str(), ""));
    let request = RequestAttributes::resource(verb, &need.group, base).with_subresource(sub);
    rule_allows(&request, rule)
}

/// Each attribute of a scanned crate whose verbs on its resources no call needs.
fn unused(
    entries: &[&RbacEntry],
    needed: &[NeededCall],
    unknown_verbs: &BTreeSet<&'static str>,
    scanned: &[&FoundCalls],
    default_role_name: &str,
) -> Vec<LintWarning> {
    let scanned_crates: BTreeSet<&str> = scanned.iter().map(|f| f.krate.as_str()).collect();
    let mut out = Vec::new();
    for entry in entries {
        let m = &entry.marker;
        let wild = |list: &[kube_markers_core::model::Text]| list.iter().any(|v| v.contains('*'));
        if !scanned_crates.contains(entry.source.crate_name())
            || !m.urls.is_empty()
            || wild(&m.verbs)
            || wild(&m.resources)
            || wild(&m.groups)
            || m.allow.iter().any(|a| a.lint == Lint::Unused.name())
        {
            continue;
        }
        let mut idle: Vec<String> = Vec::new();
        for group in &m.groups {
            let group = api_group(group);
            for resource in &m.resources {
                let verbs: Vec<&str> = m
                    .verbs
                    .iter()
                    .map(|v| &**v)
                    .filter(|verb| {
                        !unknown_verbs.contains(verb)
                            && !needed.iter().any(|n| {
                                n.group == group
                                    && n.resource == **resource
                                    && n.verbs.contains(verb)
                            })
                    })
                    .collect();
                if !verbs.is_empty() {
                    idle.push(format!(
                        "{} on {}",
                        verbs.join(", "),
                        resource_text(group, resource)
                    ));
                }
            }
        }
        if idle.is_empty() {
            continue;
        }
        let role = entry
            .marker
            .role_name
            .as_deref()
            .unwrap_or(default_role_name);
        let role = match entry.marker.namespace.as_deref() {
            None => format!("in ClusterRole {role:?}"),
            Some(ns) => format!("in Role {role:?} of namespace {ns:?}"),
        };
        out.push(LintWarning {
            lint: Lint::Unused,
            source: entry.source.clone(),
            finding: format!(
                "grants {} {role}, which no kube call the scan found in crate `{}` needs",
                idle.join("; "),
                entry.source.crate_name()
            ),
            covered_by: None,
        });
    }
    out
}
