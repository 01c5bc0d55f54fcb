//! What kube-apiserver would do with CustomResourceDefinition files, without a cluster.
//!
//! A file is read as `kubectl create -f` reads it (YAML 1.1 as go-yaml v2 resolves it, JSON
//! streams, UTF-16; [`files::read_documents`]), each CRD decoded into its type as the API server
//! decodes it, then checked by the API server's own rules: names and versions, structural
//! schemas, list and map topology, defaults that validate, formats, printer columns,
//! selectable fields, the scale subresource, and CEL rules type-checked and costed as
//! kube-apiserver 1.37 does (by `kube-markers-cel`). Each problem gets the API server's
//! verdict: it refuses it, accepts it with a warning of its own, or accepts it silently (a
//! schema no value satisfies, a path that leads nowhere), which these checks warn of.
//!
//! A new CRD is compared with the one it replaces by `kube-markers-compat` ([`upgrade`]),
//! with the previous file read by the same reader as every other CRD file.
//!
//! # Files or values in, findings out
//!
//! - [`check_paths`]: files and directories as `check-crds FILES|DIRS` takes them (a directory
//!   is walked for `.yaml`, `.yml` and `.json`; its documents that are not CRDs are skipped).
//! - [`files::check_file`] / [`check_text`]: one file, from disk or as text.
//! - [`files::verdict`] / [`files::check_crd`]: one CRD as a JSON value.
//! - [`upgrade::compare_files`]: a previous CRD file with a new one.
//!
//! Every [`FileReport`] lists its findings with where they are ([`FileReport::findings`]):
//! each [`Located`] carries the file as given and the 1-based line of what it is about (the
//! key of the schema node, field or version named; the document's first line when the finding
//! is about the CRD as a whole or its node cannot be found), and whether the API server
//! refuses it. That is what a CI annotation needs (`::error file=F,line=L::message`). In a JSON
//! file, the line is the line where its document starts. Each [`upgrade::Change`] likewise
//! carries the file and line of the node changed (in the new file; in the previous one for a
//! version or CRD no longer there).
//!
//! ```no_run
//! let reports = kube_markers_crdcheck::check_paths(&["config/crd".into()]).unwrap();
//! for report in &reports {
//!     for finding in report.findings() {
//!         // crds/widgets.yaml:7: error: widgets.example.com: spec.group `example`: it has no dot
//!         println!("{finding}");
//!     }
//! }
//! ```
//!
//! The generator of `kube-markers` runs the same whole-file check ([`check_text`]) on every CRD
//! it writes, so that the generator and `check-crds` never judge one file two ways.

mod base64;
mod cel_rules;
mod crd_rules;
pub mod decode;
mod defaults;
mod email;
pub mod files;
mod formats;
mod found;
mod kubectl_yaml;
mod located;
mod numbers;
mod paths;
mod schema;
mod structural;
pub mod upgrade;
mod uri;

pub use cel_rules::Fixes;
pub use files::{FileReport, check_paths, check_text, check_text_as};
pub use found::{Found, Split};
pub use kubectl_yaml::is_yaml_float;
pub use located::{Located, Severity};
pub use paths::{PathError, resolve};
pub use schema::{
    check_schema, check_version, check_version_as, check_version_found, check_version_reporting,
};

#[cfg(test)]
mod tests;
