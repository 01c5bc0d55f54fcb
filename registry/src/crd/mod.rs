//! The CRDs of the registered `#[kube_markers::crd]` types: each entry's function is
//! kube-derive's `CustomResourceExt::crd` (its schema already patched by the `#[k8s]` markers
//! through [`SchemaPatch`]). One merge, shared by the generator and the running operator, calls
//! them, applies the root rules and merges the versions of one group and kind as
//! controller-gen does ([`merge`]). The generator checks what it returns against the API
//! server's rules before writing it; the operator installs it from code.

mod patch;
mod problem;
pub mod versions;

pub use patch::{SchemaPatch, apply as apply_patch};
pub use problem::{CrdProblem, CrdType, SchemaProblem};
pub use versions::{ConversionProblem, UnneededAllow};

use crate::CrdEntry;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The annotation that says which generator wrote a CRD (as controller-gen's
/// `controller-gen.kubebuilder.io/version`).
pub const VERSION_ANNOTATION: &str = "kube-markers/version";

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

/// One registered type and the CRD kube-derive built for it (root rules applied).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Built<'a> {
    /// The entry.
    pub entry: &'a CrdEntry,
    /// Its CRD: one version, the type's.
    pub crd: CustomResourceDefinition,
}

/// Builds one entry's CRD: kube-derive's, with the root rules applied.
// Called once per registered type, and its errors are collected: their size costs nothing.
#[allow(clippy::result_large_err)]
fn build(entry: &CrdEntry) -> Result<CustomResourceDefinition, CrdProblem> {
    let ty = || CrdType::of(entry);
    // kube-derive panics on schemas it cannot express (internally or adjacently tagged enums,
    // enums mixing unit and data variants); turn that into an error naming the type. (The
    // panic hook, which is global, is left alone: the raw message also reaches stderr.)
    let mut crd = std::panic::catch_unwind(|| entry.definition()).map_err(|payload| {
        CrdProblem::KubeDerive {
            ty: ty(),
            message: panic_message(&*payload),
        }
    })?;
    let root_patch = |error| CrdProblem::RootPatch {
        ty: ty(),
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
    for version in &mut crd.spec.versions {
        let Some(schema) = version
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
        else {
            continue;
        };
        let mut json = serde_json::to_value(&*schema).map_err(root_patch)?;
        if integer_formats(&mut json) {
            *schema = serde_json::from_value(json).map_err(root_patch)?;
        }
    }
    Ok(crd)
}

/// Writes schemars' integer formats as the API server knows them: it recognizes `int32` and
/// `int64` only, warns `unrecognized format "uint32"` of any other on every create and update
/// of the CRD, and ignores it. `u8`, `u16`, `i8` and `i16` (bounded by schemars' `minimum` and
/// `maximum`) become `int32`; `u32`, `u64`, `usize` and `isize` (`minimum: 0` kept for the
/// unsigned) become `int64`, which holds every `u32` (controller-gen writes Go's `uint32` as
/// `int32`, which refuses values above 2^31 - 1) and every `u64` a Kubernetes client can send
/// exactly; `u128` and `i128`, which `int64` would cut, lose the format. Returns whether
/// anything changed.
fn integer_formats(node: &mut Value) -> bool {
    let mut changed = false;
    let Some(map) = node.as_object_mut() else {
        return false;
    };
    if map.get("type").and_then(Value::as_str) == Some("integer")
        && let Some(format) = map.get("format").and_then(Value::as_str)
    {
        let written = match format {
            "uint8" | "uint16" | "int8" | "int16" => Some("int32"),
            "uint32" | "uint64" | "uint" | "int" => Some("int64"),
            "uint128" | "int128" => None,
            _ => Some(format),
        };
        if written != Some(format) {
            changed = true;
            match written {
                Some(w) => map.insert("format".into(), Value::String(w.into())),
                None => map.remove("format"),
            };
        }
    }
    for (key, child) in map.iter_mut() {
        changed |= match key.as_str() {
            "properties" => child
                .as_object_mut()
                .into_iter()
                .flat_map(|props| props.values_mut())
                .fold(false, |c, v| integer_formats(v) | c),
            "allOf" | "anyOf" | "oneOf" => child
                .as_array_mut()
                .into_iter()
                .flatten()
                .fold(false, |c, v| integer_formats(v) | c),
            "items" | "additionalProperties" | "not" => integer_formats(child),
            _ => false,
        };
    }
    changed
}

/// One group and kind, merged: the CRD and what stands in its way.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MergedKind<'a> {
    /// The CRD, versions merged.
    pub crd: CustomResourceDefinition,
    /// The types it was merged from, in source order.
    pub built: Vec<Built<'a>>,
    /// Why these types do not make one CRD (names or scope that disagree, storage versions,
    /// a version twice): the CRD above is then only a best effort.
    pub problems: Vec<CrdProblem>,
}

/// The merge that the generator and the running operator share: each entry's CRD built
/// (kube-derive's, with the root rules), grouped by group and kind, and merged as
/// controller-gen merges versions. Returns the kinds and the entries that could not be built.
pub fn merge<'a>(entries: &[&'a CrdEntry]) -> (Vec<MergedKind<'a>>, Vec<CrdProblem>) {
    let mut errors = Vec::new();
    let mut sorted: Vec<&CrdEntry> = entries.to_vec();
    sorted.sort_by(|a, b| (&a.source, a.type_name).cmp(&(&b.source, b.type_name)));
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
            let (crd, problems) = merge_kind(&group, &kind, &built);
            MergedKind {
                crd,
                built,
                problems,
            }
        })
        .collect();
    (kinds, errors)
}

fn merge_kind(
    group: &str,
    kind: &str,
    built: &[Built],
) -> (CustomResourceDefinition, Vec<CrdProblem>) {
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
                difference: first_difference(&versions),
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

/// The first difference between the schema of the first version and another's, in words naming
/// both versions.
fn first_difference(versions: &[CustomResourceDefinitionVersion]) -> Option<String> {
    let schema = |v: &CustomResourceDefinitionVersion| {
        v.schema
            .as_ref()
            .and_then(|s| serde_json::to_value(&s.open_api_v3_schema).ok())
            .unwrap_or(serde_json::Value::Null)
    };
    let (first, others) = versions.split_first()?;
    others.iter().find_map(|other| {
        versions::schema_difference(&schema(first), &schema(other))
            .map(|d| d.describe(&first.name, &other.name))
    })
}
