//! Why a CRD cannot be made: one variant per problem, each naming the Rust type (and where its
//! `#[kube_markers::crd]` stands), the group and kind, and the version or schema path at fault.

use crate::{CrdEntry, Source};
use std::fmt;
use std::sync::Arc;

/// A `#[kube_markers::crd]` type: its name and where its attribute stands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct CrdType {
    /// The kind's type (`MyDatabase`), as the entry names it.
    pub type_name: &'static str,
    /// Where `#[kube_markers::crd]` stands.
    pub source: Source,
}

impl CrdType {
    /// The type `type_name`, whose attribute stands at `source`.
    pub fn new(type_name: &'static str, source: Source) -> Self {
        CrdType { type_name, source }
    }

    /// The type of a registered entry.
    pub fn of(entry: &CrdEntry) -> CrdType {
        CrdType {
            type_name: entry.type_name,
            source: entry.source.clone(),
        }
    }
}

impl fmt::Display for CrdType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{} ({})",
            self.source.file, self.source.line, self.type_name
        )
    }
}

/// `a, b, c`.
struct Joined<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Joined<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

/// Why the registered types do not make a CRD, or one the API server would accept.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CrdProblem {
    /// kube-derive's `CustomResourceExt::crd` panicked (a schema it cannot express).
    #[error(
        "{ty}: kube-derive could not build the CRD: {message}. Internally or adjacently tagged \
         enums (#[serde(tag = ...)]) and enums mixing unit and data variants have no CRD schema; \
         use an externally tagged enum, or a struct with optional fields and \
         #[k8s(exactly_one_of = [...])]"
    )]
    KubeDerive {
        /// The type.
        ty: CrdType,
        /// The panic's message.
        message: String,
    },
    /// The root rules of `#[kube_markers::crd(validation(...))]`, as the macro registered them,
    /// are not a JSON object, or the patched schema no longer reads as a schema.
    #[error("{ty}: invalid root patch (a kube-markers bug)")]
    RootPatch {
        /// The type.
        ty: CrdType,
        /// Why it does not read.
        #[source]
        error: Arc<serde_json::Error>,
    },
    /// Two types of one group and kind disagree on its names or scope.
    #[error(
        "{group}/{kind}: {first} and {other} disagree on {what}: {first_value} vs \
         {other_value}; every version of a kind must have the same names and scope"
    )]
    NamesDisagree {
        /// The CRD's group.
        group: String,
        /// The CRD's kind.
        kind: String,
        /// `plural`, `singular`, `shortNames`, `categories` or `scope`.
        what: &'static str,
        /// The first type.
        first: CrdType,
        /// Its value.
        first_value: String,
        /// The type that disagrees.
        other: CrdType,
        /// Its value.
        other_value: String,
    },
    /// The group or plural is not a name the API server accepts (and would not make a plain
    /// file name: `<group>_<plural>.yaml` must stay in its directory).
    #[error(
        "{ty}: {field} {value:?} is not valid: {why} (the API server requires a DNS-1123 \
         {shape})",
        shape = if *field == "group" { "subdomain with at least one dot" } else { "label" }
    )]
    InvalidName {
        /// The type.
        ty: CrdType,
        /// `group` or `plural`.
        field: &'static str,
        /// The value.
        value: String,
        /// Why it is not valid.
        why: String,
    },
    /// Two types define the same version of a kind.
    #[error("{group}/{kind}: version {version} is defined twice, by {first} and {second}")]
    VersionTwice {
        /// The CRD's group.
        group: String,
        /// The CRD's kind.
        kind: String,
        /// The version.
        version: String,
        /// The first type that defines it.
        first: CrdType,
        /// The second.
        second: CrdType,
    },
    /// A kind with several versions marks none as the storage version.
    #[error(
        "{group}/{kind} has {} versions ({}) and none is the storage version: mark exactly one \
         with #[kube_markers::crd(storage)] (the version objects are stored at now, until a \
         release switches it){}", types.len(), Joined(types),
        difference.as_ref().map(|d| format!(
            "; their schemas differ too ({d}): they will need a #[kube_markers::conversion] \
             between them (docs/conversions.md)"
        )).unwrap_or_default()
    )]
    NoStorageVersion {
        /// The CRD's group.
        group: String,
        /// The CRD's kind.
        kind: String,
        /// Its types, one per version.
        types: Vec<CrdType>,
        /// The first difference between two of its versions' schemas, naming both versions
        /// (`spec.size exists in v1alpha1 only`), if they differ.
        difference: Option<String>,
    },
    /// A kind marks several versions as the storage version.
    #[error(
        "{group}/{kind} has {} storage versions ({}): exactly one may be",
        storage.len(), Joined(storage)
    )]
    SeveralStorageVersions {
        /// The CRD's group.
        group: String,
        /// The CRD's kind.
        kind: String,
        /// The types marked `#[kube_markers::crd(storage)]`.
        storage: Vec<CrdType>,
    },
    /// Two versions of a kind have different schemas, and no conversion between them (nor
    /// `allow(unconverted-versions, ...)`): strategy `None` would lose what one cannot hold.
    #[error(
        "{group}/{kind}: versions {storage} ({storage_type}) and {version} ({ty}) have different \
         schemas ({difference}) and no #[kube_markers::conversion] between them: without one, \
         the API server converts by rewriting `apiVersion` only, and a field one version lacks \
         is lost when a client of that version writes the object back. Write a \
         #[kube_markers::conversion] between {version} and {storage} (the hub, which the other \
         converts to and from, need not be the storage version), or accept the loss with \
         #[kube_markers::crd(allow(unconverted-versions, reason = \"...\"))] on the kind's type"
    )]
    VersionsDiffer {
        /// The CRD's group.
        group: String,
        /// The CRD's kind.
        kind: String,
        /// The storage version.
        storage: String,
        /// Its type.
        storage_type: CrdType,
        /// The version that differs from it.
        version: String,
        /// Its type.
        ty: CrdType,
        /// The first schema node where they differ (`spec.replicas`).
        path: String,
        /// How, in words naming both versions.
        difference: String,
    },
    /// The registered conversions name what does not exist, or do not cover their kind.
    #[error(transparent)]
    Conversion(#[from] super::versions::ConversionProblem),
    /// The API server would reject the CRD's own fields (its names, conversion, metadata or
    /// list of versions), found by the checks `check-crds` runs (with the `codegen` feature).
    #[error("{group}/{kind} ({ty}): {problem}")]
    Definition {
        /// The CRD's group.
        group: String,
        /// The CRD's kind.
        kind: String,
        /// The kind's first type.
        ty: CrdType,
        /// What is wrong, and where in the CRD.
        problem: String,
    },
    /// The API server would reject a version's schema (found by the generator's checks, with
    /// the `codegen` feature).
    #[error("{group}/{kind} ({ty}): version {version}: {problem}")]
    Schema {
        /// The CRD's group.
        group: String,
        /// The CRD's kind.
        kind: String,
        /// The version.
        version: String,
        /// The type of that version.
        ty: CrdType,
        /// What is wrong, and where in the schema.
        problem: SchemaProblem,
    },
}

impl CrdProblem {
    /// The group and kind whose versions the problem is about, when it is about one kind's
    /// versions and conversions (a conversion that names no existing kind, or two kinds, is
    /// about none).
    pub fn versions_of(&self) -> Option<(&str, &str)> {
        use super::versions::ConversionProblem as C;
        match self {
            CrdProblem::VersionsDiffer { group, kind, .. }
            | CrdProblem::Conversion(
                C::ToItself { group, kind, .. }
                | C::UnknownVersion { group, kind, .. }
                | C::TwoHubs { group, kind, .. }
                | C::Twice { group, kind, .. }
                | C::Missing { group, kind, .. },
            ) => Some((group, kind)),
            _ => None,
        }
    }

    /// The type the problem is about (the first one, when it is about several).
    pub fn crd_type(&self) -> Option<&CrdType> {
        match self {
            CrdProblem::KubeDerive { ty, .. }
            | CrdProblem::RootPatch { ty, .. }
            | CrdProblem::Schema { ty, .. }
            | CrdProblem::Definition { ty, .. }
            | CrdProblem::InvalidName { ty, .. } => Some(ty),
            CrdProblem::NamesDisagree { first, .. } | CrdProblem::VersionTwice { first, .. } => {
                Some(first)
            }
            CrdProblem::VersionsDiffer { storage_type, .. } => Some(storage_type),
            CrdProblem::Conversion(_) => None,
            CrdProblem::NoStorageVersion { types, .. } => types.first(),
            CrdProblem::SeveralStorageVersions { storage, .. } => storage.first(),
        }
    }
}

/// Something in a version of a CRD that the API server would reject: a schema node breaking a
/// structural-schema rule, or a printer column, selectable field or scale path that does not
/// fit the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaProblem {
    /// The schema node at fault, as a path (`spec.conditions[*].type`, `<root>`, `metadata`);
    /// `None` when the problem is in the version's other fields, which `message` names.
    pub path: Option<String>,
    /// What is wrong, and how to fix it.
    pub message: String,
}

// Made by the generator's checks.
impl SchemaProblem {
    /// A problem at the schema node `path`.
    pub fn at(path: &str, message: String) -> SchemaProblem {
        SchemaProblem {
            path: Some(path.to_string()),
            message,
        }
    }

    /// A problem in the version's other fields, which `message` names.
    pub fn version(message: String) -> SchemaProblem {
        SchemaProblem {
            path: None,
            message,
        }
    }
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{path}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for SchemaProblem {}
