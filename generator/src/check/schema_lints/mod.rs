//! The API-convention lints, named as kube-api-linter names them
//! ([`kube_markers_core::schema_types::SchemaLint`] has the list, why and their sources), run
//! on each CRD version's schema as kube-derive and the `#[k8s]` markers made it, and reported
//! at the Rust field each schema node comes from.
//!
//! The schema is what the API server and its clients see, so the checks read it, not the Rust
//! types: `type Count = u32;` is an integer of format `uint32` there, whatever it is called.
//! The registry's records of the `#[kube_markers::crd]` and `#[kube_markers::schema]` types
//! ([`SchemaType`]) say which field each property is: the walk starts at the kind's spec
//! struct and its status type and follows each field into the record of its type, found by
//! name and confirmed by the node's property names. Nodes of a type without such a record (a
//! dependency's, as `Condition`, or one with `#[derive(JsonSchema)]` alone) are not linted,
//! as kube-api-linter lints only the packages it is pointed at.

mod config;
mod walk;

use kube_markers_core::model::Source;
pub use kube_markers_core::schema_types::{SchemaLint, SchemaType};
use kube_markers_registry::CrdEntry;

pub use config::{ConfigError, LintLevels};
pub use walk::{AllowAt, FieldAt, crd_allows, crd_places};

/// One lint that fired on one schema node.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaLintWarning {
    /// Which lint.
    pub lint: SchemaLint,
    /// The Rust field (or type) the node comes from: `Type.field` at the field's `file:line`.
    pub source: Source,
    /// The CRD's name (`widgets.example.com`).
    pub crd: String,
    /// The version.
    pub version: String,
    /// The node's path (`spec.ports[*].name`).
    pub path: String,
    /// What the lint found.
    pub finding: String,
}

impl std::fmt::Display for SchemaLintWarning {
    /// `warning[lint]: file:line:column (Type.field): crd version path: finding: why; ...`,
    /// with the `allow` that accepts it written for where it stands: on the field, or on the
    /// type (then for all of it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.source;
        let place = match s.item.split_once('.') {
            Some(_) => "on the field".to_string(),
            None => format!(
                "on the type `{}` (above its `struct` or `enum` line), for all of it",
                s.item
            ),
        };
        write!(
            f,
            "warning[{}]: {}:{}:{} ({}): {} {} {}: {}: {}; if it is right, say why {place}: \
             #[k8s(allow({}, reason = \"...\"))] [{}]",
            self.lint,
            s.file,
            s.line,
            s.column,
            s.item,
            self.crd,
            self.version,
            self.path,
            self.finding,
            self.lint.why(),
            self.lint,
            self.lint.source()
        )
    }
}

impl std::error::Error for SchemaLintWarning {}

/// Runs the lints `levels` turns on over every CRD version of `crds`, finding fields in
/// `types`; returns the warnings no `allow(...)` accepts, sorted by place and lint.
pub fn check(
    crds: &[&CrdEntry],
    types: &[&SchemaType],
    levels: &LintLevels,
) -> Vec<SchemaLintWarning> {
    let mut warnings = Vec::new();
    for entry in crds {
        let crd = entry.definition();
        walk::lint_crd(entry, &crd, types, levels, &mut warnings);
    }
    warnings.sort_by(|a, b| {
        (&a.source, a.lint, &a.crd, &a.version, &a.path)
            .cmp(&(&b.source, b.lint, &b.crd, &b.version, &b.path))
    });
    warnings.dedup();
    warnings
}

#[cfg(test)]
mod tests;
