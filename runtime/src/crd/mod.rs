//! CRD generation: registered `CustomResource` types → one checked CRD per group and kind.
//!
//! The path of the data: each `#[kube_markers::crd]` registers a [`crate::registry::CrdEntry`]
//! whose function is kube-derive's `CustomResourceExt::crd` (its schema already patched by the
//! `#[k8s]` markers through [`SchemaPatch`]). One merge, shared by the generator and the
//! running operator, calls them, applies root rules and merges the versions of one group and
//! kind as controller-gen does. [`generate_crds`] then refuses to return a CRD the API server
//! would reject ([`structural`]); [`definitions`] and [`definition`] give the same CRDs at run
//! time, to install from code.

mod patch;
mod problem;
mod registered;
// Checking CRDs is the generator's job, with the `codegen` feature: the API server's rules it
// checks need a CEL parser and evaluator and a JSON Schema validator, which operators should
// not link. Where generation exists, it checks everything.
#[cfg(feature = "codegen")]
pub mod structural;

pub use patch::{SchemaPatch, apply as apply_patch};
pub use problem::{CrdProblem, CrdType, SchemaProblem};
pub use registered::{DefinitionError, definition, definition_of, definitions};

use crate::registry::CrdEntry;
use crate::registry::Source;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The annotation that says which generator wrote a CRD (as controller-gen's
/// `controller-gen.kubebuilder.io/version`).
pub const VERSION_ANNOTATION: &str = "kube-markers/version";

/// One CRD ready to write.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GeneratedCrd {
    /// The object.
    pub crd: CustomResourceDefinition,
    /// controller-gen's file name: `<group>_<plural>.yaml`.
    pub file_name: String,
    /// The types it was built from.
    pub sources: Vec<(String, Source)>,
}

impl GeneratedCrd {
    /// The CRD as JSON, for [`crate::yaml`].
    pub fn to_value(&self) -> Value {
        serde_json::to_value(&self.crd).expect("CustomResourceDefinition serializes to JSON")
    }
}

/// controller-gen's file name for a CRD.
pub fn file_name(group: &str, plural: &str) -> String {
    format!("{group}_{plural}.yaml")
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

struct Built<'a> {
    entry: &'a CrdEntry,
    crd: CustomResourceDefinition,
}

/// Builds one entry's CRD: kube-derive's, with the root rules applied.
// Called once per registered type, and its errors are collected: their size costs nothing.
#[allow(clippy::result_large_err)]
fn build(entry: &CrdEntry) -> Result<CustomResourceDefinition, CrdProblem> {
    let ty = CrdType::of(entry);
    // kube-derive panics on schemas it cannot express (internally or adjacently tagged enums,
    // enums mixing unit and data variants); turn that into an error naming the type. (The
    // panic hook, which is global, is left alone: the raw message also reaches stderr.)
    let mut crd =
        std::panic::catch_unwind(entry.crd).map_err(|payload| CrdProblem::KubeDerive {
            ty,
            message: panic_message(&*payload),
        })?;
    let root_patch = |error| CrdProblem::RootPatch {
        ty,
        error: Arc::new(error),
    };
    let patch: Value = serde_json::from_str(entry.root_patch).map_err(root_patch)?;
    if patch.as_object().is_some_and(|p| !p.is_empty()) {
        for version in &mut crd.spec.versions {
            let Some(schema) = version
                .schema
                .as_mut()
                .and_then(|s| s.open_api_v3_schema.as_mut())
            else {
                continue;
            };
            let mut json = serde_json::to_value(&*schema).map_err(root_patch)?;
            if let Some(node) = json.as_object_mut() {
                apply_patch(&patch, node);
            }
            *schema = serde_json::from_value(json).map_err(root_patch)?;
        }
    }
    Ok(crd)
}

/// Generates every CRD: one per group and kind, versions merged, checked.
///
/// Errors name the Rust type and its source location; all of them are reported together.
#[cfg(feature = "codegen")]
pub fn generate_crds(entries: &[&CrdEntry]) -> Result<Vec<GeneratedCrd>, Vec<CrdProblem>> {
    let (kinds, mut errors) = merge_entries(entries);
    let mut out = Vec::new();
    for kind in kinds {
        let mut problems = kind.problems;
        // The names make the file name, `<group>_<plural>.yaml`: a `/` or `..` in them would
        // write outside the CRD directory. The API server refuses such names anyway.
        let names = [
            (
                "group",
                &kind.crd.spec.group,
                crd_group(&kind.crd.spec.group),
            ),
            (
                "plural",
                &kind.crd.spec.names.plural,
                kube_markers_core::names::dns1123_label(&kind.crd.spec.names.plural),
            ),
        ];
        for (field, value, check) in names {
            if let (Err(why), Some(built)) = (check, kind.built.first()) {
                problems.push(CrdProblem::InvalidName {
                    ty: CrdType::of(built.entry),
                    field,
                    value: value.clone(),
                    why,
                });
            }
        }
        // Only the generator checks what the API server would reject: it needs the structural
        // rules and a CEL parser, which a running operator does without.
        for version in &kind.crd.spec.versions {
            let json = serde_json::to_value(version).unwrap_or(Value::Null);
            for problem in structural::check_version(&json) {
                problems.push(CrdProblem::Schema {
                    group: kind.crd.spec.group.clone(),
                    kind: kind.crd.spec.names.kind.clone(),
                    version: version.name.clone(),
                    ty: type_of(&kind.built, &version.name),
                    problem,
                });
            }
        }
        if problems.is_empty() {
            out.push(GeneratedCrd {
                file_name: file_name(&kind.crd.spec.group, &kind.crd.spec.names.plural),
                sources: kind
                    .built
                    .iter()
                    .map(|b| (b.entry.type_name.to_string(), b.entry.source))
                    .collect(),
                crd: kind.crd,
            });
        } else {
            errors.append(&mut problems);
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A CRD's group: a DNS-1123 subdomain with at least one dot.
#[cfg(feature = "codegen")]
fn crd_group(group: &str) -> Result<(), String> {
    kube_markers_core::names::dns1123_subdomain(group)?;
    if group.contains('.') {
        Ok(())
    } else {
        Err("it has no dot".to_string())
    }
}

/// One group and kind, merged: the CRD and what stands in its way.
struct MergedKind<'a> {
    crd: CustomResourceDefinition,
    // Named in the generator's messages only.
    #[cfg_attr(not(feature = "codegen"), allow(dead_code))]
    built: Vec<Built<'a>>,
    /// Why these types do not make one CRD (names or scope that disagree, storage versions,
    /// a version twice): the CRD above is then only a best effort.
    problems: Vec<CrdProblem>,
}

/// The merge that the generator and the running operator share: each entry's CRD built
/// (kube-derive's, with the root rules), grouped by group and kind, and merged as
/// controller-gen merges versions. Returns the kinds and the entries that could not be built.
fn merge_entries<'a>(entries: &[&'a CrdEntry]) -> (Vec<MergedKind<'a>>, Vec<CrdProblem>) {
    let mut errors = Vec::new();
    let mut sorted: Vec<&CrdEntry> = entries.to_vec();
    sorted.sort_by_key(|e| (e.source, e.type_name));
    let mut groups: BTreeMap<(String, String), Vec<Built>> = BTreeMap::new();
    for entry in sorted {
        match build(entry) {
            Ok(crd) => groups
                .entry((crd.spec.group.clone(), crd.spec.names.kind.clone()))
                .or_default()
                .push(Built { entry, crd }),
            Err(e) => errors.push(e),
        }
    }
    let kinds = groups
        .into_iter()
        .map(|((group, kind), built)| {
            let (crd, problems) = merge(&group, &kind, &built);
            MergedKind {
                crd,
                built,
                problems,
            }
        })
        .collect();
    (kinds, errors)
}

fn merge(group: &str, kind: &str, built: &[Built]) -> (CustomResourceDefinition, Vec<CrdProblem>) {
    let mut errors = Vec::new();
    let first = &built[0];
    let names = &first.crd.spec.names;
    for other in &built[1..] {
        let b = &other.crd.spec.names;
        let mut differ = |what: &'static str, x: String, y: String| {
            if x != y {
                errors.push(CrdProblem::NamesDisagree {
                    group: group.to_string(),
                    kind: kind.to_string(),
                    what,
                    first: CrdType::of(first.entry),
                    first_value: x,
                    other: CrdType::of(other.entry),
                    other_value: y,
                });
            }
        };
        differ("plural", names.plural.clone(), b.plural.clone());
        differ(
            "singular",
            format!("{:?}", names.singular),
            format!("{:?}", b.singular),
        );
        differ(
            "shortNames",
            format!("{:?}", names.short_names),
            format!("{:?}", b.short_names),
        );
        differ(
            "categories",
            format!("{:?}", names.categories),
            format!("{:?}", b.categories),
        );
        differ(
            "scope",
            first.crd.spec.scope.clone(),
            other.crd.spec.scope.clone(),
        );
    }

    let mut versions = Vec::new();
    let mut seen: BTreeMap<String, CrdType> = BTreeMap::new();
    for b in built {
        for v in &b.crd.spec.versions {
            if let Some(prev) = seen.insert(v.name.clone(), CrdType::of(b.entry)) {
                errors.push(CrdProblem::VersionTwice {
                    group: group.to_string(),
                    kind: kind.to_string(),
                    version: v.name.clone(),
                    first: prev,
                    second: CrdType::of(b.entry),
                });
            }
            let mut v = v.clone();
            v.storage = built.len() == 1 || b.entry.storage;
            versions.push(v);
        }
    }
    let storage: Vec<CrdType> = built
        .iter()
        .filter(|b| b.entry.storage)
        .map(|b| CrdType::of(b.entry))
        .collect();
    if built.len() > 1 && storage.len() != 1 {
        let (group, kind) = (group.to_string(), kind.to_string());
        errors.push(if storage.is_empty() {
            CrdProblem::NoStorageVersion {
                group,
                kind,
                types: built.iter().map(|b| CrdType::of(b.entry)).collect(),
            }
        } else {
            CrdProblem::SeveralStorageVersions {
                group,
                kind,
                storage,
            }
        });
    }
    // controller-gen orders versions by name.
    versions.sort_by(|a, b| a.name.cmp(&b.name));

    let mut crd = first.crd.clone();
    crd.spec.versions = versions;
    if crd.spec.names.list_kind.is_none() {
        crd.spec.names.list_kind = Some(format!("{kind}List"));
    }
    crd.metadata.name = Some(format!("{}.{group}", crd.spec.names.plural));
    crd.metadata
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .insert(
            VERSION_ANNOTATION.into(),
            format!("v{}", env!("CARGO_PKG_VERSION")),
        );
    (crd, errors)
}

/// The type that defines `version` (every merged version comes from one of `built`).
#[cfg(feature = "codegen")]
fn type_of(built: &[Built], version: &str) -> CrdType {
    let defining = built
        .iter()
        .find(|b| b.crd.spec.versions.iter().any(|v| v.name == version))
        .unwrap_or(&built[0]);
    CrdType::of(defining.entry)
}
