//! The versions of one kind, and how the API server converts between them.
//!
//! Without `spec.conversion` (strategy `None`) the API server converts an object by rewriting
//! its `apiVersion`: when two versions' schemas differ, a field one of them lacks is pruned
//! when a client of that version writes the object back. So a kind whose versions differ needs
//! a `#[kube_markers::conversion]` for every version but the storage version (the hub), or an
//! explicit `#[kube_markers::crd(allow(unconverted-versions, reason = "..."))]`. [`check`]
//! says which; the generator then gives the converting kinds strategy `Webhook`.

use super::{CrdProblem, CrdType, MergedKind};
use crate::{ConversionEntry, Source};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, ServiceReference, WebhookClientConfig, WebhookConversion,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The `allow(...)` name that accepts versions whose schemas differ, without a conversion
/// (one of `kube_markers_core::schema::CRD_ALLOWANCES`).
pub const UNCONVERTED_VERSIONS: &str = "unconverted-versions";

/// The Service a converting CRD's `spec.conversion` calls: the deploy bundle's webhook Service
/// (controller-gen's default webhook Service name).
pub const CONVERSION_SERVICE: &str = "webhook-service";
/// Its namespace as written: kubebuilder's placeholder, which kustomize's `namespace:` replaces
/// (the bundle's and an overlay's).
pub const CONVERSION_SERVICE_NAMESPACE: &str = "system";
/// The path the webhook server serves conversions on (controller-runtime's).
pub const CONVERSION_PATH: &str = "/convert";

/// Strategy `Webhook` through the bundle's webhook Service at [`CONVERSION_PATH`],
/// `ConversionReview` v1 (the only version the conversion server speaks).
pub fn webhook_conversion() -> CustomResourceConversion {
    CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(WebhookClientConfig {
                service: Some(ServiceReference {
                    name: CONVERSION_SERVICE.into(),
                    namespace: CONVERSION_SERVICE_NAMESPACE.into(),
                    path: Some(CONVERSION_PATH.into()),
                    port: None,
                }),
                ca_bundle: None,
                url: None,
            }),
            conversion_review_versions: vec!["v1".into()],
        }),
    }
}

/// [`check`], and the kinds that convert given [`webhook_conversion`]: the CRDs as the
/// generator writes them. Returns each kind's conversions (by index) and the problems.
pub fn apply<'c>(
    kinds: &mut [MergedKind],
    conversions: &[&'c ConversionEntry],
) -> (Vec<Vec<&'c ConversionEntry>>, Vec<CrdProblem>) {
    let (converting, problems) = check(kinds, conversions);
    for (kind, conversions) in kinds.iter_mut().zip(&converting) {
        if !conversions.is_empty() {
            kind.crd.spec.conversion = Some(webhook_conversion());
        }
    }
    (converting, problems)
}

/// Why the registered conversions do not cover a kind, or name what does not exist.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ConversionProblem {
    /// kube-derive's `CustomResourceExt::crd` of a conversion's type panicked.
    #[error(
        "{conversion}: #[kube_markers::conversion]: the CRD of {ty} could not be built: {message}"
    )]
    KubeDerive {
        /// Where the conversion stands.
        conversion: Source,
        /// The type as the conversion names it.
        ty: &'static str,
        /// The panic's message.
        message: String,
    },
    /// The spoke and the hub are not versions of one group and kind.
    #[error(
        "{conversion}: #[kube_markers::conversion] converts {spoke_type} ({spoke}) and \
         {hub_type} ({hub}), which are not versions of one group and kind"
    )]
    NotOneKind {
        /// Where the conversion stands.
        conversion: Source,
        /// The spoke type.
        spoke_type: &'static str,
        /// Its `group/kind/version`.
        spoke: String,
        /// The hub type.
        hub_type: &'static str,
        /// Its `group/kind/version`.
        hub: String,
    },
    /// The spoke and the hub are one version.
    #[error(
        "{conversion}: #[kube_markers::conversion] converts {group}/{kind} {version} \
         ({spoke_type} and {hub_type}) to itself"
    )]
    ToItself {
        /// Where the conversion stands.
        conversion: Source,
        /// The group.
        group: String,
        /// The kind.
        kind: String,
        /// The version.
        version: String,
        /// The spoke type.
        spoke_type: &'static str,
        /// The hub type.
        hub_type: &'static str,
    },
    /// No `#[kube_markers::crd]` type is of the conversion's group and kind.
    #[error(
        "{conversion}: #[kube_markers::conversion] converts {group}/{kind}, which no \
         #[kube_markers::crd] type of the linked crates defines"
    )]
    UnknownKind {
        /// Where the conversion stands.
        conversion: Source,
        /// The group.
        group: String,
        /// The kind.
        kind: String,
    },
    /// The kind has no such version.
    #[error(
        "{conversion}: #[kube_markers::conversion] names {group}/{kind} {version} ({ty}), \
         which no #[kube_markers::crd] type defines (its versions: {known})"
    )]
    UnknownVersion {
        /// Where the conversion stands.
        conversion: Source,
        /// The group.
        group: String,
        /// The kind.
        kind: String,
        /// The version.
        version: String,
        /// The type the conversion names.
        ty: &'static str,
        /// The kind's versions, `, `-joined.
        known: String,
    },
    /// Two conversions of one kind name different hubs.
    #[error(
        "{conversion}: #[kube_markers::conversion] converts {group}/{kind} {spoke} to and from \
         {hub} ({hub_type}), but {first} converts to and from {first_hub}: a kind has one hub, \
         which every other version converts to and from"
    )]
    TwoHubs {
        /// Where the conversion stands.
        conversion: Source,
        /// The group.
        group: String,
        /// The kind.
        kind: String,
        /// The spoke version.
        spoke: String,
        /// The hub version the conversion names.
        hub: String,
        /// Its type.
        hub_type: &'static str,
        /// The first conversion of the kind.
        first: Source,
        /// The hub it names.
        first_hub: String,
    },
    /// Two conversions for one spoke.
    #[error(
        "{group}/{kind} {version} has two conversions: {first} and {second}; the webhook \
         server would not know which to run"
    )]
    Twice {
        /// The group.
        group: String,
        /// The kind.
        kind: String,
        /// The spoke version.
        version: String,
        /// The first conversion.
        first: Source,
        /// The second.
        second: Source,
    },
    /// A version of a converting kind has no conversion.
    #[error(
        "{group}/{kind} {version} ({ty}) has no #[kube_markers::conversion] to and from the hub \
         {hub}, but the kind converts through a webhook (the conversions at {conversions}): the \
         API server would send objects of {version} to the webhook, which could not convert them"
    )]
    Missing {
        /// The group.
        group: String,
        /// The kind.
        kind: String,
        /// The version without a conversion.
        version: String,
        /// Its type.
        ty: CrdType,
        /// The hub version.
        hub: String,
        /// Where the kind's conversions stand, `, `-joined.
        conversions: String,
    },
}

/// A version of a kind: group, kind and version, from kube-derive's CRD of one type.
struct Gvk {
    group: String,
    kind: String,
    version: String,
}

impl fmt::Display for Gvk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} {}", self.group, self.kind, self.version)
    }
}

// Called twice per conversion, its errors collected: their size costs nothing.
#[allow(clippy::result_large_err)]
fn gvk_of(
    conversion: &ConversionEntry,
    crd: impl FnOnce() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition
    + std::panic::UnwindSafe,
    ty: &'static str,
) -> Result<Gvk, ConversionProblem> {
    let problem = |message: String| ConversionProblem::KubeDerive {
        conversion: conversion.source.clone(),
        ty,
        message,
    };
    let crd = std::panic::catch_unwind(crd).map_err(|p| problem(super::panic_message(&*p)))?;
    let version = crd
        .spec
        .versions
        .first()
        .map(|v| v.name.clone())
        .ok_or_else(|| problem("it has no version".into()))?;
    Ok(Gvk {
        group: crd.spec.group,
        kind: crd.spec.names.kind,
        version,
    })
}

/// Each kind's conversions (by the index of `kinds`), and every problem: conversions that name
/// what does not exist, kinds they do not cover, and kinds whose versions' schemas differ with
/// neither a conversion nor `allow(unconverted-versions, ...)`.
pub fn check<'c>(
    kinds: &[MergedKind],
    conversions: &[&'c ConversionEntry],
) -> (Vec<Vec<&'c ConversionEntry>>, Vec<CrdProblem>) {
    let mut problems: Vec<CrdProblem> = Vec::new();
    let mut per_kind: Vec<Vec<&'c ConversionEntry>> = vec![Vec::new(); kinds.len()];
    // The spoke versions a conversion names, valid or not: no "missing" on top of its error.
    let mut named: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut attempted: BTreeMap<usize, Vec<Source>> = BTreeMap::new();
    let mut first_for: BTreeMap<(usize, String), &'c ConversionEntry> = BTreeMap::new();
    let mut hub_of: BTreeMap<usize, (Source, String)> = BTreeMap::new();
    let index: BTreeMap<(&str, &str), usize> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            (
                (k.crd.spec.group.as_str(), k.crd.spec.names.kind.as_str()),
                i,
            )
        })
        .collect();
    for &c in conversions {
        let mut fail = |p: ConversionProblem| problems.push(CrdProblem::Conversion(p));
        let (spoke, hub) = match (
            gvk_of(c, || c.spoke_definition(), c.spoke_type),
            gvk_of(c, || c.hub_definition(), c.hub_type),
        ) {
            (Ok(s), Ok(h)) => (s, h),
            (s, h) => {
                s.err().into_iter().chain(h.err()).for_each(&mut fail);
                continue;
            }
        };
        let source = || c.source.clone();
        if (&spoke.group, &spoke.kind) != (&hub.group, &hub.kind) {
            fail(ConversionProblem::NotOneKind {
                conversion: source(),
                spoke_type: c.spoke_type,
                spoke: spoke.to_string(),
                hub_type: c.hub_type,
                hub: hub.to_string(),
            });
            continue;
        }
        let Some(&k) = index.get(&(spoke.group.as_str(), spoke.kind.as_str())) else {
            fail(ConversionProblem::UnknownKind {
                conversion: source(),
                group: spoke.group,
                kind: spoke.kind,
            });
            continue;
        };
        attempted.entry(k).or_default().push(c.source.clone());
        named.insert((k, spoke.version.clone()));
        if spoke.version == hub.version {
            fail(ConversionProblem::ToItself {
                conversion: source(),
                group: spoke.group,
                kind: spoke.kind,
                version: spoke.version,
                spoke_type: c.spoke_type,
                hub_type: c.hub_type,
            });
            continue;
        }
        let crd = &kinds[k].crd;
        let mut known = true;
        for (version, ty) in [(&spoke.version, c.spoke_type), (&hub.version, c.hub_type)] {
            if !crd.spec.versions.iter().any(|v| &v.name == version) {
                known = false;
                fail(ConversionProblem::UnknownVersion {
                    conversion: source(),
                    group: spoke.group.clone(),
                    kind: spoke.kind.clone(),
                    version: version.clone(),
                    ty,
                    known: version_names(&kinds[k]),
                });
            }
        }
        if !known {
            continue;
        }
        // The hub need not be the storage version: a release may serve a new hub while the
        // old version is still stored (Kubernetes' own rollout), and controller-runtime's
        // hub is not tied to storage either.
        match hub_of.get(&k) {
            Some((first, first_hub)) if *first_hub != hub.version => {
                fail(ConversionProblem::TwoHubs {
                    conversion: source(),
                    group: spoke.group,
                    kind: spoke.kind,
                    spoke: spoke.version,
                    hub: hub.version,
                    hub_type: c.hub_type,
                    first: first.clone(),
                    first_hub: first_hub.clone(),
                });
                continue;
            }
            Some(_) => {}
            None => {
                hub_of.insert(k, (source(), hub.version.clone()));
            }
        }
        match first_for.get(&(k, spoke.version.clone())) {
            Some(first) => fail(ConversionProblem::Twice {
                group: spoke.group,
                kind: spoke.kind,
                version: spoke.version,
                first: first.source.clone(),
                second: source(),
            }),
            None => {
                first_for.insert((k, spoke.version), c);
                per_kind[k].push(c);
            }
        }
    }
    for (k, kind) in kinds.iter().enumerate() {
        let Some(storage) = storage_version(kind) else {
            // None or several: the merge has said so already.
            continue;
        };
        if let Some(sources) = attempted.get(&k) {
            // Every conversion of the kind, refused ones included: the kind converts.
            let conversions = sources
                .iter()
                .map(|s| format!("{}:{}", s.file, s.line))
                .collect::<Vec<_>>()
                .join(", ");
            let hub = hub_of.get(&k).map_or(&storage, |(_, hub)| hub);
            let others = kind.crd.spec.versions.iter().filter(|v| &v.name != hub);
            for version in others {
                if !named.contains(&(k, version.name.clone())) {
                    problems.push(CrdProblem::Conversion(ConversionProblem::Missing {
                        group: kind.crd.spec.group.clone(),
                        kind: kind.crd.spec.names.kind.clone(),
                        version: version.name.clone(),
                        ty: type_of(kind, &version.name),
                        hub: hub.clone(),
                        conversions: conversions.clone(),
                    }));
                }
            }
            continue;
        }
        let allowed = kind
            .built
            .iter()
            .any(|b| b.entry.allows(UNCONVERTED_VERSIONS).is_some());
        if allowed {
            continue;
        }
        let schema_of = |name: &str| {
            kind.crd
                .spec
                .versions
                .iter()
                .find(|v| v.name == name)
                .and_then(|v| v.schema.as_ref())
                .and_then(|s| serde_json::to_value(&s.open_api_v3_schema).ok())
                .unwrap_or(Value::Null)
        };
        let hub_schema = schema_of(&storage);
        for version in kind.crd.spec.versions.iter().filter(|v| v.name != storage) {
            if let Some(difference) = schema_difference(&hub_schema, &schema_of(&version.name)) {
                problems.push(CrdProblem::VersionsDiffer {
                    group: kind.crd.spec.group.clone(),
                    kind: kind.crd.spec.names.kind.clone(),
                    storage_type: type_of(kind, &storage),
                    difference: difference.describe(&storage, &version.name),
                    storage: storage.clone(),
                    version: version.name.clone(),
                    ty: type_of(kind, &version.name),
                    path: difference.path,
                });
            }
        }
    }
    (per_kind, problems)
}

/// An `allow(unconverted-versions, ...)` that accepts nothing: the kind converts, or its
/// versions have one schema. Worth removing, so that a later change of schema is refused again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{ty}: `allow(unconverted-versions, ...)` is not needed: {group}/{kind} {why}; remove it, \
     so that versions that differ later are refused again"
)]
#[non_exhaustive]
pub struct UnneededAllow {
    /// The type whose attribute says it.
    pub ty: CrdType,
    /// The CRD's group.
    pub group: String,
    /// The CRD's kind.
    pub kind: String,
    /// Why it accepts nothing.
    pub why: &'static str,
}

/// The `allow(unconverted-versions, ...)` of kinds that convert (`converting`, as [`check`]
/// returned it) or whose versions have one schema.
pub fn unneeded_allows(
    kinds: &[MergedKind],
    converting: &[Vec<&ConversionEntry>],
) -> Vec<UnneededAllow> {
    let mut out = Vec::new();
    for (kind, conversions) in kinds.iter().zip(converting) {
        let why = if !conversions.is_empty() {
            "converts through #[kube_markers::conversion]"
        } else if !versions_differ(kind) {
            "has versions of one schema"
        } else {
            continue;
        };
        for built in &kind.built {
            if built.entry.allows(UNCONVERTED_VERSIONS).is_some() {
                out.push(UnneededAllow {
                    ty: CrdType::of(built.entry),
                    group: kind.crd.spec.group.clone(),
                    kind: kind.crd.spec.names.kind.clone(),
                    why,
                });
            }
        }
    }
    out
}

/// Whether any two of the kind's versions have different schemas.
fn versions_differ(kind: &MergedKind) -> bool {
    let schemas: Vec<Value> = kind
        .crd
        .spec
        .versions
        .iter()
        .map(|v| {
            v.schema
                .as_ref()
                .and_then(|s| serde_json::to_value(&s.open_api_v3_schema).ok())
                .unwrap_or(Value::Null)
        })
        .collect();
    schemas
        .windows(2)
        .any(|pair| schema_difference(&pair[0], &pair[1]).is_some())
}

/// The kind's one storage version, if it has exactly one.
fn storage_version(kind: &MergedKind) -> Option<String> {
    let mut storage = kind.crd.spec.versions.iter().filter(|v| v.storage);
    match (storage.next(), storage.next()) {
        (Some(v), None) => Some(v.name.clone()),
        _ => None,
    }
}

fn version_names(kind: &MergedKind) -> String {
    kind.crd
        .spec
        .versions
        .iter()
        .map(|v| v.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The type that defines `version` of the kind.
fn type_of(kind: &MergedKind, version: &str) -> CrdType {
    let defining = kind
        .built
        .iter()
        .find(|b| b.crd.spec.versions.iter().any(|v| v.name == version))
        .unwrap_or(&kind.built[0]);
    CrdType::of(defining.entry)
}

mod difference;
#[cfg(test)]
mod tests;

pub use difference::{Difference, SchemaDifference, schema_difference};
