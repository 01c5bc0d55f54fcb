//! The RBAC the code needs: the kube calls the scan found in the linked crates' sources
//! (`kube_markers_scan::calls`), their kinds resolved to group and resource (the linked CRDs,
//! then k8s-openapi's types: [`builtin_kinds()`]), held against the `#[rbac]` attributes.
//!
//! A call no attribute grants is a warning naming the call and the attribute to paste
//! ([`CallWarning`]); an attribute's verb that no call needs is the `unused` lint; a call
//! whose kind the scan cannot tell is said once, in the run's notes ([`Analysis::unknown`]).

mod builtin_kinds;
mod compare;
pub mod explain;
mod generic;
pub mod onboard;

pub(crate) use compare::analyse_kinds;
pub use compare::{Analysis, BundleGrants, CallWarning, LEADER_ELECTION_CALL, analyse};

use crate::input::scan::calls::{KindRef, Scope};
use kube_markers_registry::CrdEntry;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// One resource type of k8s-openapi: its path under `k8s_openapi::` and its `Resource` impl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinKind {
    /// `api::core::v1::Pod`.
    pub path: &'static str,
    /// API group (`""` for the core group).
    pub group: &'static str,
    /// API version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// The resource (`URL_PATH_SEGMENT`).
    pub plural: &'static str,
    /// `Scope = NamespaceResourceScope`.
    pub namespaced: bool,
}

/// Every resource type of the k8s-openapi the generator is built with (generated from its
/// sources by `scripts/gen-builtin-kinds.py`, held to its `Resource` impls by a test).
pub fn builtin_kinds() -> &'static [BuiltinKind] {
    builtin_kinds::BUILTIN_KINDS
}

/// A kind resolved: its group, resource, and whether it is namespaced.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Resolved {
    /// API group.
    pub group: String,
    /// The resource (plural).
    pub plural: String,
    /// Namespaced (else cluster-scoped).
    pub namespaced: bool,
}

/// The kinds a run knows: the linked CRDs' generated types, by type name (each CRD built
/// only when a call names its type: building one is most of the check's time).
pub(crate) struct Kinds<'a> {
    entries: &'a [&'a CrdEntry],
    crds: RefCell<BTreeMap<String, Option<Resolved>>>,
}

impl<'a> Kinds<'a> {
    pub(crate) fn new(entries: &'a [&'a CrdEntry]) -> Kinds<'a> {
        Kinds {
            entries,
            crds: RefCell::default(),
        }
    }

    /// The kinds of the CRDs a run generated (no CRD built again).
    pub(crate) fn generated(crds: &[crate::model::GeneratedCrd]) -> Kinds<'static> {
        let kinds = Kinds::new(&[]);
        for crd in crds {
            let resolved = Resolved {
                group: crd.crd.spec.group.clone(),
                plural: crd.crd.spec.names.plural.clone(),
                namespaced: crd.crd.spec.scope == "Namespaced",
            };
            for (type_name, _) in &crd.sources {
                kinds
                    .crds
                    .borrow_mut()
                    .insert(type_name.clone(), Some(resolved.clone()));
            }
        }
        kinds
    }

    /// The CRD whose generated type is named `name`.
    fn crd(&self, name: &str) -> Option<Resolved> {
        if let Some(known) = self.crds.borrow().get(name) {
            return known.clone();
        }
        let found = self
            .entries
            .iter()
            .find(|e| e.type_name == name)
            .map(|entry| {
                let crd = entry.definition();
                Resolved {
                    group: crd.spec.group.clone(),
                    plural: crd.spec.names.plural.clone(),
                    namespaced: crd.spec.scope == "Namespaced",
                }
            });
        self.crds
            .borrow_mut()
            .insert(name.to_string(), found.clone());
        found
    }

    /// The kind a type path names, or why it cannot be told.
    pub(crate) fn resolve(&self, path: &str) -> Result<Resolved, String> {
        let builtin = |k: &BuiltinKind| Resolved {
            group: k.group.to_string(),
            plural: k.plural.to_string(),
            namespaced: k.namespaced,
        };
        if let Some(rest) = path.strip_prefix("k8s_openapi::") {
            return builtin_kinds()
                .iter()
                .find(|k| k.path == rest)
                .map(builtin)
                .ok_or_else(|| format!("`{path}` is none of k8s-openapi's resource types"));
        }
        let name = path.rsplit("::").next().unwrap_or(path);
        if let Some(found) = self.crd(name) {
            return Ok(found);
        }
        // A path written from a module of k8s-openapi (`corev1::Pod` after `use
        // k8s_openapi::api::core::v1 as corev1` is resolved by the scan; `v1::Event` is not).
        let suffix = format!("::{path}");
        let candidates: Vec<&BuiltinKind> = builtin_kinds()
            .iter()
            .filter(|k| k.path.ends_with(&suffix))
            .collect();
        match candidates.as_slice() {
            [one] => Ok(builtin(one)),
            [] => Err(format!(
                "`{path}` is neither a linked CRD's type nor one of k8s-openapi's"
            )),
            several => Err(format!(
                "`{path}` may be any of k8s-openapi's {}",
                several
                    .iter()
                    .map(|k| format!("`{}`", k.path))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// Verbs in the one order the call check writes them everywhere (`calls`, the warnings and
/// their attributes, `explain`, the notes): sorted and deduplicated, as controller-gen writes a
/// rule's verbs (and so `rbac-out/role.yaml`), so that a pasted attribute reads as its rule.
pub(crate) fn role_verb_order<'a>(verbs: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut verbs: Vec<&str> = verbs.into_iter().collect();
    verbs.sort_unstable();
    verbs.dedup();
    verbs
}

/// The attribute granting `verbs` on `resource` of `group` (in a Role of `namespace`), as the
/// call check's warnings and `calls` print it to paste.
pub(crate) fn rbac_attribute(
    group: &str,
    resource: &str,
    verbs: &[&str],
    namespace: Option<&str>,
) -> String {
    let verbs = role_verb_order(verbs.iter().copied()).join(";");
    kube_markers_core::model::SuggestedRbac {
        group,
        resource,
        verbs: &verbs,
        namespace,
        ..Default::default()
    }
    .to_string()
}

/// `deployments.apps`, `pods/exec`, `documents.kube.rs/status`.
pub(crate) fn resource_text(group: &str, resource: &str) -> String {
    let (base, sub) = match resource.split_once('/') {
        Some((b, s)) => (b, Some(s)),
        None => (resource, None),
    };
    let mut out = base.to_string();
    if !group.is_empty() {
        out = format!("{out}.{group}");
    }
    if let Some(sub) = sub {
        out = format!("{out}/{sub}");
    }
    out
}

/// How a scope reads in a message.
pub(crate) fn scope_text(scope: &Scope) -> String {
    match scope {
        Scope::Cluster => "cluster-wide (`Api::all`)".to_string(),
        Scope::Namespace(ns) => format!("in namespace {ns:?}"),
        Scope::Namespaced => "in a namespace chosen at run time".to_string(),
        Scope::Unknown => "in the scope of the `Api` handed in".to_string(),
    }
}

/// A field's kind, across the files of one crate: `Unknown` when several differ; `None` when no
/// struct of the crate types a field of that name as `Api<K>` (`self.cache.get(..)` on a map).
pub(crate) fn field_kind(fields: &[(String, KindRef)], name: &str) -> Option<KindRef> {
    let mut kinds: Vec<&KindRef> = fields
        .iter()
        .filter(|(f, _)| f == name)
        .map(|(_, k)| k)
        .collect();
    kinds.sort();
    kinds.dedup();
    match kinds.as_slice() {
        [one] => Some((*one).clone()),
        [] => None,
        _ => Some(KindRef::Unknown(format!(
            "the crate has several fields `{name}` of different `Api<K>` types"
        ))),
    }
}

#[cfg(test)]
mod builtin_kinds_tests;
#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod cross_file_tests;
#[cfg(test)]
mod forms_tests;
#[cfg(test)]
mod leader_election_tests;
#[cfg(test)]
mod mask_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod ways_out_tests;
