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
mod kubectl_yaml;
mod located;
mod numbers;
mod paths;
mod structural;
pub mod upgrade;
mod uri;

pub use cel_rules::Fixes;
pub use files::{FileReport, check_paths, check_text, check_text_as};
pub use kubectl_yaml::is_yaml_float;
pub use located::{Located, Severity};
pub use paths::{PathError, resolve};

use kube_markers_cel::SchemaReport;
use kube_markers_registry::crd::SchemaProblem;
use serde_json::{Map, Value};
use structural::{Junctor, check_metadata, check_node, root_problems, status_root_problems};

/// What the API server makes of a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Refuses,
    /// Accepts it, silently: a schema no value satisfies (`minimum` above `maximum`), a printer
    /// column or scale path that leads nowhere. A warning of `check-crds` and the generator.
    Accepts,
    /// Accepts it with a warning of its own (`unrecognized format "uint32"`), which the
    /// problem's message quotes.
    Warns,
}

/// Problems found, each with the API server's verdict on it. `check-crds` and the generator
/// both refuse what it refuses and warn of the rest.
#[derive(Debug, Default)]
pub struct Found {
    problems: Vec<(SchemaProblem, Verdict)>,
    /// Whether a refused problem makes the schema unfit for CEL: any but a default's.
    schema_refused: bool,
}

/// A version's problems by the API server's verdict.
#[derive(Debug, Clone, Default)]
pub struct Split {
    /// What it refuses.
    pub refused: Vec<SchemaProblem>,
    /// What it accepts, each with whether it warns of it itself.
    pub accepted: Vec<(SchemaProblem, bool)>,
}

impl Found {
    /// Records a problem once: the entries of a junctor share their node's path, and the same
    /// mistake in two of them (`type` in both of `anyOf`'s) is one line to fix.
    fn add(&mut self, problem: SchemaProblem, verdict: Verdict) {
        if !self
            .problems
            .iter()
            .any(|(p, v)| *p == problem && *v == verdict)
        {
            self.problems.push((problem, verdict));
        }
    }
    fn push(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Refuses);
        self.schema_refused = true;
    }
    /// A default the API server refuses: the schema itself stands, and its CEL rules are
    /// compiled all the same (the API server reports both).
    fn push_default(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Refuses);
    }
    fn server_accepts(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Accepts);
    }
    fn server_warns(&mut self, problem: SchemaProblem) {
        self.add(problem, Verdict::Warns);
    }
    /// Every problem, whatever the verdict.
    pub fn problems(&self) -> impl Iterator<Item = &SchemaProblem> {
        self.problems.iter().map(|(p, _)| p)
    }
    /// Whether the API server refuses any of them.
    pub fn refused(&self) -> bool {
        self.problems.iter().any(|(_, v)| *v == Verdict::Refuses)
    }
    /// (what the API server refuses, what it accepts).
    pub fn split(self) -> (Vec<SchemaProblem>, Vec<SchemaProblem>) {
        let split = self.split_warned();
        (
            split.refused,
            split.accepted.into_iter().map(|(p, _)| p).collect(),
        )
    }
    /// What the API server refuses, and what it accepts with whether it warns of it.
    pub fn split_warned(self) -> Split {
        let mut split = Split::default();
        for (p, v) in self.problems {
            match v {
                Verdict::Refuses => split.refused.push(p),
                Verdict::Accepts => split.accepted.push((p, false)),
                Verdict::Warns => split.accepted.push((p, true)),
            }
        }
        split
    }
}

/// Checks one version's `openAPIV3Schema`; returns a message per problem.
pub fn check_schema(root: &Value) -> Vec<SchemaProblem> {
    check_schema_found(root).problems().cloned().collect()
}

fn check_schema_found(root: &Value) -> Found {
    let mut problems = Found::default();
    match root.as_object() {
        Some(node) => {
            root_problems(node, &mut problems);
            check_node(node, "", &mut problems, Junctor::Outside, false);
        }
        None => problems.push(SchemaProblem::version("the schema is not an object".into())),
    }
    if let Some(meta) = root["properties"].get("metadata") {
        check_metadata(meta, &mut problems);
    }
    problems
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

fn truthy(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

/// Checks printer columns, selectable fields and the scale subresource of one version (as
/// JSON) against its schema.
pub fn check_version(version: &Value) -> Vec<SchemaProblem> {
    check_version_as(version, Fixes::Attributes)
}

/// [`check_version`], with fixes of over-budget rules spelled as `fixes` says.
pub fn check_version_as(version: &Value, fixes: Fixes) -> Vec<SchemaProblem> {
    check_version_reporting(version, fixes, cel_rules::report).0
}

/// [`check_version_found`]'s problems, all of them.
pub fn check_version_reporting(
    version: &Value,
    fixes: Fixes,
    cel_check: fn(&Value) -> SchemaReport,
) -> (Vec<SchemaProblem>, Option<SchemaReport>) {
    let (found, report) = check_version_found(version, fixes, cel_check);
    (found.problems().cloned().collect(), report)
}

/// [`check_version_as`], with the CEL report `cel_check` made of the schema (`None` when
/// structural problems stopped it), so that a cost report does not type-check and cost every
/// rule again.
pub fn check_version_found(
    version: &Value,
    fixes: Fixes,
    cel_check: fn(&Value) -> SchemaReport,
) -> (Found, Option<SchemaReport>) {
    let root = &version["schema"]["openAPIV3Schema"];
    let mut problems = check_schema_found(root);
    if version["subresources"]
        .get("status")
        .is_some_and(|s| !s.is_null())
    {
        status_root_problems(root, &mut problems);
    }
    let mut report = None;
    // As the API server, type-check and cost the rules only of a schema without structural
    // problems (a refused default is not one): an invalid schema has no dependable CEL types.
    if !problems.schema_refused {
        let cel_report = cel_check(root);
        for problem in cel_rules::problems_of(&cel_report, fixes) {
            problems.push(problem);
        }
        report = Some(cel_report);
    }
    for column in version["additionalPrinterColumns"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = column["jsonPath"].as_str().unwrap_or_default();
        // The API server checks the path's syntax only.
        if let Err(why) = resolve(root, path) {
            problems.server_accepts(SchemaProblem::version(format!(
                "printer column `{}` path `{path}` does not resolve: {why}",
                column["name"].as_str().unwrap_or("?")
            )));
        }
    }
    for field in version["selectableFields"].as_array().into_iter().flatten() {
        let path = field["jsonPath"].as_str().unwrap_or_default();
        match resolve(root, path) {
            Err(why) => problems.push(SchemaProblem::version(format!(
                "selectable field `{path}` does not resolve: {why}"
            ))),
            Ok(node)
                if !node.is_null()
                    && !matches!(
                        node["type"].as_str(),
                        Some("string" | "integer" | "boolean")
                    ) =>
            {
                problems.push(SchemaProblem::version(format!(
                    "selectable field `{path}` must be a string, integer or boolean"
                )))
            }
            Ok(_) => {}
        }
    }
    if let Some(scale) = version["subresources"]["scale"].as_object() {
        for key in [
            "specReplicasPath",
            "statusReplicasPath",
            "labelSelectorPath",
        ] {
            let Some(path) = scale.get(key).and_then(Value::as_str) else {
                continue;
            };
            let expected_root = if key == "specReplicasPath" {
                ".spec."
            } else {
                ".status."
            };
            if key == "labelSelectorPath" {
                if !path.is_empty() && !path.starts_with(".spec.") && !path.starts_with(".status.")
                {
                    problems.push(SchemaProblem::version(format!(
                        "scale {key} `{path}` must be under `.spec` or `.status`"
                    )));
                }
            } else if !path.starts_with(expected_root) {
                problems.push(SchemaProblem::version(format!(
                    "scale {key} `{path}` must be under `{}`",
                    expected_root.trim_end_matches('.')
                )));
            }
            // The API server checks the prefix and the syntax only.
            match resolve(root, path) {
                Err(why) => problems.server_accepts(SchemaProblem::version(format!(
                    "scale {key} `{path}` does not resolve: {why}"
                ))),
                Ok(node) if key != "labelSelectorPath" && node["type"] != "integer" => problems
                    .server_accepts(SchemaProblem::version(format!(
                        "scale {key} `{path}` must be an integer"
                    ))),
                Ok(_) => {}
            }
        }
    }
    (problems, report)
}

#[cfg(test)]
mod tests;
