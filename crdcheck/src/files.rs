//! `check-crds`: every check the generator applies to its own CRDs, applied to CRD files
//! written by anyone (by hand, controller-gen, Helm charts): names and metadata, versions,
//! structural schemas, defaults, list-map keys, printer-column, selectable-field and scale
//! paths, and CEL rules type-checked and costed as kube-apiserver 1.37 does; before them, the
//! CRD decoded into its type as the API server decodes it (`decode.rs`).
//!
//! A file is read as kubectl reads it ([`read_documents`], `kubectl_yaml.rs`;
//! `tests/tests/yaml_differential.rs` compares the two on thousands of scalars, keys and
//! documents): an unquoted `y`, `n`, `yes`, `no`, `on` or `off` is a boolean (YAML 1.1),
//! `0755` is octal, and a key read as a boolean or number is sent as its text (`y:` as
//! `true`), which is reported as a warning.

use super::cel_rules::{self, Fixes};
use super::crd_rules;
use super::kubectl_yaml::{self, Lines};
use super::located::{self, Located, Severity};
use kube_markers_cel::{ExpressionCost, PER_SCHEMA_LIMIT};
use kube_markers_registry::crd::SchemaProblem;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The whole-file check of one file's text, as `check-crds` checks a file it is named
/// (`file`: the name findings carry): read as kubectl reads it, every CRD in it checked, a
/// file without a CRD an error. The generator runs it on every CRD file it writes.
pub fn check_text(file: &str, text: &str) -> FileReport {
    check_text_as(file, text, Fixes::Yaml)
}

/// [`check_text`], with the fixes of over-budget CEL rules spelled as `fixes` says (the
/// generator's CRDs: as attributes to write on the Rust type).
pub fn check_text_as(file: &str, text: &str, fixes: Fixes) -> FileReport {
    let file = file.to_string();
    kube_markers_cel::on_large_stack(|| check_text_here(file, text, Vec::new(), true, false, fixes))
}

/// The check of files and directories, as `check-crds FILES|DIRS` takes them: a file named
/// must hold a CRD; a directory is walked for `.yaml`, `.yml` and `.json` files
/// ([`collect`]), and their documents that are not CRDs are skipped. Errs when a
/// path does not exist or a directory cannot be read.
pub fn check_paths(paths: &[PathBuf]) -> Result<Vec<FileReport>, String> {
    Ok(collect(paths)?
        .iter()
        .map(|(path, named)| check_file_in(path, *named))
        .collect())
}

/// The verdict on one CRD document.
#[derive(Debug, Serialize)]
pub struct CrdReport {
    /// `metadata.name`, or `document N` when it has none.
    pub name: String,
    /// What the API server would refuse, as `location: message`.
    pub problems: Vec<String>,
    /// What the generator refuses in its own CRDs and the API server accepts: a schema no
    /// value satisfies, a printer column or scale path that leads nowhere, a field the CRD
    /// type does not have.
    pub warnings: Vec<String>,
    /// Each version's CEL cost report.
    pub versions: Vec<VersionCosts>,
    /// `problems`, each with the version it is in.
    #[serde(skip)]
    pub refused: Vec<Finding>,
    /// `warnings`, each with the version it is in.
    #[serde(skip)]
    pub accepted: Vec<Finding>,
}

/// The CEL expressions of one version and what they cost.
#[derive(Debug, Serialize)]
pub struct VersionCosts {
    pub version: String,
    /// The sum the API server compares with its per-schema limit.
    pub total: u64,
    pub limit: u64,
    pub expressions: Vec<ExpressionCost>,
}

/// The verdict on one file.
#[derive(Debug, Serialize)]
pub struct FileReport {
    pub file: String,
    /// Unreadable files, YAML errors, documents that are not CRDs.
    pub errors: Vec<String>,
    /// YAML 1.1 readings kubectl would make.
    pub warnings: Vec<String>,
    pub crds: Vec<CrdReport>,
    /// Whether no CRD could be read from the file: it cannot be read, is not YAML, or was
    /// named and holds none (`check-crds` then exits 2, as `--previous` does, not 1).
    #[serde(skip)]
    pub unreadable: bool,
    /// Every error, warning and CRD finding above, with its line.
    #[serde(skip)]
    located: Vec<Located>,
}

impl FileReport {
    fn new(file: String) -> FileReport {
        FileReport {
            file,
            errors: Vec::new(),
            warnings: Vec::new(),
            crds: Vec::new(),
            unreadable: false,
            located: Vec::new(),
        }
    }

    /// Whether the API server would take every CRD of the file.
    pub fn accepted(&self) -> bool {
        self.errors.is_empty() && self.crds.iter().all(|c| c.problems.is_empty())
    }

    /// Every finding in the file, in the order of [`FileReport::errors`],
    /// [`FileReport::warnings`], then each CRD's problems and warnings, each with the file and
    /// the line it is about.
    pub fn findings(&self) -> &[Located] {
        &self.located
    }

    fn error(&mut self, line: Option<usize>, message: String) {
        self.located.push(Located::new(
            &self.file,
            (line, None),
            None,
            Severity::Error,
            &message,
        ));
        self.errors.push(message);
    }

    fn warn(&mut self, line: Option<usize>, message: String) {
        self.located.push(Located::new(
            &self.file,
            (line, None),
            None,
            Severity::Warning,
            &message,
        ));
        self.warnings.push(message);
    }

    /// A CRD's report, its findings placed by `lines` (the CRD at `pointer` in its document).
    fn add_crd(&mut self, crd: &Value, report: CrdReport, lines: &Lines, pointer: &str) {
        for (findings, severity) in [
            (&report.refused, Severity::Error),
            (&report.accepted, Severity::Warning),
        ] {
            for finding in findings {
                let at = format!(
                    "{pointer}{}",
                    located::pointer_of(crd, finding.version.as_deref(), &finding.problem)
                );
                let message = match severity {
                    Severity::Error => finding.refusal(),
                    Severity::Warning => finding.warning(),
                };
                let (line, column) = lines.place(&at);
                self.located.push(Located::new(
                    &self.file,
                    (Some(line), column),
                    Some(&report.name),
                    severity,
                    &message,
                ));
            }
        }
        self.crds.push(report);
    }
}

/// The files of `paths`, each with whether it was named (a file) rather than found in a
/// directory walked for `.yaml`, `.yml` and `.json`, sorted so the report's order is stable.
///
/// As `kubectl apply -R` walks: a symbolic link to a directory is not followed (a link loop
/// cannot hang the walk), and only regular files are read from a directory (not a FIFO that
/// would block). A path named on the command line is read whatever it is (`/dev/stdin` for
/// `helm template | check-crds /dev/stdin`).
pub fn collect(paths: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>, String> {
    let mut out = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut found = Vec::new();
                walk(path, &mut found)?;
                out.extend(found.into_iter().map(|p| (p, false)));
            }
            Ok(_) => out.push((path.clone(), true)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("{}: no such file or directory", path.display()));
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("{}: {e}", dir.display());
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        // The entry itself, not what a link points to.
        let kind = entry.file_type().map_err(failed)?;
        entries.push((entry.path(), kind));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in entries {
        if kind.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            // A link to a regular file is read; to a directory, a FIFO or a device, not.
            && std::fs::metadata(&path).is_ok_and(|m| m.is_file())
        {
            out.push(path);
        }
    }
    Ok(())
}

/// The most of one file read: far above what the API server takes in one request (3 MiB), so
/// that a file of many CRDs is read whole, while `/dev/zero` is not read forever.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// A file's text as kubectl reads it (UTF-16 with a byte order mark decoded, a byte that is
/// not UTF-8 read as U+FFFD), at most 64 MiB, and what was replaced.
pub fn read_text(path: &Path) -> Result<(String, Vec<String>), String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("larger than {} MiB", MAX_FILE_BYTES >> 20));
    }
    Ok(super::kubectl_yaml::decode_bytes(&bytes))
}

/// The objects of one document, each with its JSON pointer in it: the document itself, or the
/// `items` of a `List` or a `CustomResourceDefinitionList` (`kubectl get -o yaml`): kubectl
/// takes any kind ending in `List` so.
pub(crate) fn objects_at(doc: &Value) -> Vec<(String, &Value)> {
    match doc["kind"].as_str() {
        Some(kind) if kind.ends_with("List") && doc["items"].is_array() => doc["items"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, item)| (format!("/items/{i}"), item))
            .collect(),
        _ => vec![(String::new(), doc)],
    }
}

/// The objects of one document: the document itself, or the `items` of a `List`.
pub fn objects(doc: &Value) -> Vec<&Value> {
    objects_at(doc)
        .into_iter()
        .map(|(_, object)| object)
        .collect()
}

/// Checks one file; a file without CRDs is an error.
pub fn check_file(path: &Path) -> FileReport {
    check_file_in(path, true)
}

/// Checks one file; `required`: whether a file without CRDs is an error (a file given by
/// name) or skipped (one found in a directory, such as a chart's other manifests).
pub fn check_file_in(path: &Path, required: bool) -> FileReport {
    check_file_with(path, required, false)
}

/// [`check_file_in`]; with `cost_bounds`, the cost report also says what bounds each
/// expression ([`ExpressionCost::bounds`]), which compiles each expression again per list,
/// map or string it may read.
pub fn check_file_with(path: &Path, required: bool, cost_bounds: bool) -> FileReport {
    // A deep schema is read, decoded and walked recursively: on a stack made for it.
    kube_markers_cel::on_large_stack(|| check_file_here(path, required, cost_bounds))
}

fn check_file_here(path: &Path, required: bool, cost_bounds: bool) -> FileReport {
    let file = path.display().to_string();
    match read_text(path) {
        Ok((text, warnings)) => {
            check_text_here(file, &text, warnings, required, cost_bounds, Fixes::Yaml)
        }
        Err(e) => {
            let mut report = FileReport::new(file);
            report.error(None, format!("cannot read it: {e}"));
            report.unreadable = true;
            report
        }
    }
}

/// The line a reader's message names (`line 3: ...`).
fn line_in(message: &str) -> Option<usize> {
    message
        .strip_prefix("line ")?
        .split(':')
        .next()?
        .parse()
        .ok()
}

/// The checks of one file's text (`file`: its name in the report), after the `warnings` of
/// reading its bytes.
pub(crate) fn check_text_here(
    file: String,
    text: &str,
    warnings: Vec<String>,
    required: bool,
    cost_bounds: bool,
    fixes: Fixes,
) -> FileReport {
    let mut report = FileReport::new(file);
    for warning in warnings {
        report.warn(line_in(&warning), warning);
    }
    let docs = match kubectl_yaml::read_stream_located(text) {
        Ok((docs, warnings)) => {
            for warning in warnings {
                report.warn(line_in(&warning), warning);
            }
            docs
        }
        Err(e) => {
            report.error(line_in(&e), format!("not YAML: {e}"));
            report.unreadable = true;
            return report;
        }
    };
    let mut saw_crd = false;
    for (i, (doc, lines)) in docs.iter().enumerate() {
        if doc.is_null() {
            continue;
        }
        for (pointer, item) in objects_at(doc) {
            if item["kind"] != "CustomResourceDefinition" {
                continue;
            }
            if item["apiVersion"] == "apiextensions.k8s.io/v1" {
                saw_crd = true;
                let crd = check_crd_here(item, i + 1, cost_bounds, fixes);
                report.add_crd(item, crd, lines, &pointer);
            } else if item["apiVersion"] == "apiextensions.k8s.io/v1beta1" {
                saw_crd = true;
                let name = item["metadata"]["name"].as_str().unwrap_or("a CRD");
                report.error(
                    Some(lines.of(&format!("{pointer}/apiVersion"))),
                    format!(
                        "document {}: {name} is an apiextensions.k8s.io/v1beta1 \
                         CustomResourceDefinition: the API server has not served v1beta1 since \
                         Kubernetes 1.22 (kubectl: no matches for kind), write it as \
                         apiextensions.k8s.io/v1",
                        i + 1
                    ),
                );
            }
        }
    }
    if !saw_crd && required {
        report.error(
            Some(1),
            "no apiextensions.k8s.io/v1 CustomResourceDefinition in it".into(),
        );
        report.unreadable = true;
    }
    report
}

/// The checks of one CRD.
pub fn check_crd(crd: &Value, document: usize) -> CrdReport {
    check_crd_with(crd, document, false)
}

/// [`check_crd`]; `cost_bounds` as for [`check_file_with`].
pub fn check_crd_with(crd: &Value, document: usize, cost_bounds: bool) -> CrdReport {
    kube_markers_cel::on_large_stack(|| check_crd_here(crd, document, cost_bounds, Fixes::Yaml))
}

fn check_crd_here(crd: &Value, document: usize, cost_bounds: bool, fixes: Fixes) -> CrdReport {
    let name = crd["metadata"]["name"]
        .as_str()
        .map_or_else(|| format!("document {document}"), str::to_string);
    let verdict = verdict_here(crd, fixes, cost_bounds);
    CrdReport {
        name,
        problems: verdict.refused.iter().map(Finding::refusal).collect(),
        warnings: verdict.accepted.iter().map(Finding::warning).collect(),
        versions: verdict.versions,
        refused: verdict.refused,
        accepted: verdict.accepted,
    }
}

/// One finding of the checks on a CRD.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The version whose schema, printer columns, selectable fields or scale it is about;
    /// `None` for the CRD's own fields (names, conversion, metadata, the list of versions).
    pub version: Option<String>,
    /// Where and what: a path into the version's schema when it has one.
    pub problem: SchemaProblem,
    /// Whether the words are the API server's own warning (`unrecognized format "uint32"`),
    /// which it sends on every create and update of the CRD.
    pub server_warns: bool,
}

impl Finding {
    /// A finding about the CRD as a whole (its own fields, or the file it is in), which
    /// `message` names.
    pub fn crd(message: String) -> Self {
        Finding {
            version: None,
            problem: SchemaProblem::version(message),
            server_warns: false,
        }
    }

    /// As `check-crds` prints a refusal: `version v1: spec.x: ...`.
    pub fn refusal(&self) -> String {
        match &self.version {
            Some(v) => format!("version {v}: {}", self.problem),
            None => self.problem.to_string(),
        }
    }

    /// As `check-crds` prints a warning: with what the API server does about it.
    pub fn warning(&self) -> String {
        match &self.version {
            Some(v) if self.server_warns => {
                format!("version {v}: {} (the API server warns of it)", self.problem)
            }
            Some(v) => format!("version {v}: {} (the API server accepts it)", self.problem),
            None => self.problem.to_string(),
        }
    }
}

/// What the API server would make of one CRD, by the checks `check-crds` runs and the
/// generator runs on every CRD it writes (one code path, so that the two never disagree).
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Verdict {
    /// What the API server would refuse.
    pub refused: Vec<Finding>,
    /// What it accepts but is worth a warning: its own warnings, and what these checks find
    /// wrong in a CRD it takes (a schema no value satisfies, a path that leads nowhere, a field
    /// the CRD type does not have).
    pub accepted: Vec<Finding>,
    /// Each version's CEL cost report.
    pub versions: Vec<VersionCosts>,
}

/// The checks of one CRD, with the fixes of over-budget rules spelled as `fixes` says.
pub fn verdict(crd: &Value, fixes: Fixes) -> Verdict {
    kube_markers_cel::on_large_stack(|| verdict_here(crd, fixes, false))
}

fn verdict_here(crd: &Value, fixes: Fixes, cost_bounds: bool) -> Verdict {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let decoded = super::decode::decode(crd);
    if let Some(error) = decoded.type_error {
        problems.push(format!("{error} (the API server cannot decode the CRD)"));
    }
    for path in decoded.unknown_fields {
        warnings.push(Finding::crd(format!(
            "{path}: unknown field: `kubectl apply` and `kubectl create` refuse the CRD (strict \
             field validation, their default), and so does any server-side apply; a write \
             without strict validation drops the field"
        )));
    }
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    let plural = spec["names"]["plural"].as_str().unwrap_or_default();
    if let Err(why) = kube_markers_core::names::crd_group(group) {
        problems.push(format!("spec.group `{group}`: {why}"));
    }
    if let Err(why) = kube_markers_core::names::crd_plural(plural) {
        problems.push(format!("spec.names.plural `{plural}`: {why}"));
    }
    if crd["metadata"]["name"].as_str() != Some(&format!("{plural}.{group}")) {
        problems.push(format!(
            "metadata.name: must be `{plural}.{group}` (spec.names.plural.spec.group)"
        ));
    }
    if spec["names"]["kind"].as_str().is_none_or(str::is_empty) {
        problems.push("spec.names.kind: required".into());
    }
    crd_rules::names_problems(&spec["names"], &mut problems);
    crd_rules::conversion_problems(&spec["conversion"], &mut problems);
    problems.extend(crd_rules::problems(crd));
    if !matches!(spec["scope"].as_str(), Some("Namespaced" | "Cluster")) {
        problems.push("spec.scope: must be `Namespaced` or `Cluster`".into());
    }
    let versions: &[Value] = spec["versions"].as_array().map_or(&[], Vec::as_slice);
    if versions.is_empty() {
        problems.push("spec.versions: must have at least one version".into());
    }
    let storage = versions.iter().filter(|v| v["storage"] == true).count();
    if !versions.is_empty() && storage != 1 {
        problems.push(format!(
            "spec.versions: exactly one version must be the storage version, not {storage}"
        ));
    }
    let mut refused: Vec<Finding> = problems.drain(..).map(Finding::crd).collect();
    let mut seen = Vec::new();
    let mut costs = Vec::new();
    // The verdicts on versions already checked, by everything the checks read of a version:
    // a CRD's versions often share one schema (v1 and v1beta1 of Gateway API's kinds).
    #[allow(clippy::type_complexity)]
    let mut checked: Vec<(String, crate::found::Split, kube_markers_cel::SchemaReport)> =
        Vec::new();
    for (i, version) in versions.iter().enumerate() {
        let vname = version["name"].as_str().unwrap_or_default().to_string();
        if seen.contains(&vname) {
            problems.push(format!("spec.versions[{i}].name `{vname}`: given twice"));
        }
        if let Err(why) = kube_markers_core::names::dns1123_label(&vname) {
            problems.push(format!("spec.versions[{i}].name `{vname}`: {why}"));
        }
        seen.push(vname.clone());
        crd_rules::printer_column_problems(version, i, &mut problems);
        refused.extend(problems.drain(..).map(Finding::crd));
        if version["schema"]["openAPIV3Schema"].is_null() {
            refused.push(Finding::crd(format!(
                "spec.versions[{i}].schema.openAPIV3Schema: required"
            )));
            continue;
        }
        let cel: fn(&Value) -> kube_markers_cel::SchemaReport = if cost_bounds {
            cel_rules::report_with_bounds
        } else {
            cel_rules::report
        };
        let key = checked_parts(version);
        let (version_problems, report) = match checked.iter().find(|(k, ..)| *k == key) {
            Some((_, p, r)) => (p.clone(), r.clone()),
            None => {
                let (found, r) = crate::schema::check_version_found(version, fixes, cel);
                let p = found.split_warned();
                // A schema with structural problems still gets its cost report.
                let r = r.unwrap_or_else(|| cel(&version["schema"]["openAPIV3Schema"]));
                checked.push((key, p.clone(), r.clone()));
                (p, r)
            }
        };
        let in_version = |(problem, server_warns): (SchemaProblem, bool)| Finding {
            version: Some(vname.clone()),
            problem,
            server_warns,
        };
        refused.extend(
            version_problems
                .refused
                .into_iter()
                .map(|p| in_version((p, false))),
        );
        warnings.extend(version_problems.accepted.into_iter().map(in_version));
        costs.push(VersionCosts {
            version: vname,
            total: report.total,
            limit: PER_SCHEMA_LIMIT,
            expressions: report.costs,
        });
    }
    Verdict {
        refused,
        accepted: warnings,
        versions: costs,
    }
}

/// What the version checks read of a version, as text: all of it but its name and serving
/// flags, which they do not read.
fn checked_parts(version: &Value) -> String {
    const UNREAD: [&str; 5] = [
        "name",
        "served",
        "storage",
        "deprecated",
        "deprecationWarning",
    ];
    let parts: std::collections::BTreeMap<&String, &Value> = version
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !UNREAD.contains(&k.as_str()))
        .collect();
    serde_json::to_string(&parts).expect("a JSON value serializes")
}

/// The documents of a text as kubectl reads them (`kubectl_yaml.rs`: a JSON stream or YAML
/// documents, go-yaml v2's YAML 1.1 reading of every plain scalar and key, sigs.k8s.io/yaml's
/// JSON conversion), and warnings: a key given twice (kubectl keeps its last value and says
/// nothing), a key kubectl sends under another name (`y:` as `true`).
pub fn read_documents(text: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    kube_markers_cel::on_large_stack(|| read_documents_here(text))
}

/// [`read_documents`] of a file's bytes, decoded as kubectl decodes them (UTF-16 with a byte
/// order mark, U+FFFD for each byte that is not UTF-8); the warnings say what was replaced.
pub fn read_bytes(bytes: &[u8]) -> Result<(Vec<Value>, Vec<String>), String> {
    let (text, mut warnings) = kubectl_yaml::decode_bytes(bytes);
    let (docs, more) = read_documents(&text)?;
    warnings.extend(more);
    Ok((docs, warnings))
}

fn read_documents_here(text: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    kubectl_yaml::read_stream(text)
}

/// An expression's path as the other checks name nodes:
/// `spec.xs: x-kubernetes-validations[0].rule`.
pub fn short_path(path: &str) -> String {
    match path.find(".x-kubernetes-validations") {
        Some(i) => format!(
            "{}: {}",
            cel_rules::generator_path(&path[..i]),
            &path[i + 1..]
        ),
        None => cel_rules::generator_path(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As kubectl: leading-zero octal, a key given twice keeps its last value (and is
    /// reported), and a whole float is an integer (so `maxLength: 1e3` decodes).
    #[test]
    fn documents_are_read_as_kubectl_reads_them() {
        let (docs, duplicates) =
            read_documents("a: 0755\nb: 1e3\nc: 1.5\nd: -0.0\na: 010\n---\ne: 1_000\n").unwrap();
        assert_eq!(
            docs,
            [
                serde_json::json!({"a": 8, "b": 1000, "c": 1.5, "d": 0}),
                serde_json::json!({"e": 1000})
            ]
        );
        assert_eq!(duplicates.len(), 1, "{duplicates:?}");
        assert!(
            duplicates[0].contains("duplicate mapping key: a")
                && duplicates[0].ends_with("kubectl keeps the last value of a key given twice"),
            "{duplicates:?}"
        );
        assert!(read_documents("a: [\n").is_err());
        // 200 levels, as kubectl reads them.
        let deep = format!("{}1{}", "{a: ".repeat(200), "}".repeat(200));
        let (docs, _) = read_documents(&deep).unwrap();
        assert_eq!(
            docs[0].pointer(&"/a".repeat(200)),
            Some(&serde_json::json!(1))
        );
    }

    /// YAML 1.1 booleans as values and as keys, which kubectl sends as `true` and `false`
    /// (each such key warned of); a quoted one stays a string.
    #[test]
    fn yaml_1_1_booleans() {
        let (docs, warnings) =
            read_documents("n: n\ny: [y, n, yes, off]\nq: \"n\"\nl:\n  - off: 1\nname: n\n")
                .unwrap();
        assert_eq!(
            docs[0],
            serde_json::json!({"false": false, "true": [true, false, true, false], "q": "n",
                "l": [{"false": 1}], "name": false})
        );
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].starts_with("line 1: kubectl reads the key `n` as the boolean false"));
        assert!(warnings[2].starts_with("line 5: kubectl reads the key `off`"));
    }

    fn crd_file(dir: &Path, name: &str, rules: &str, bound: &str) -> PathBuf {
        let path = dir.join(name);
        let text = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
             metadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  \
             names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}\n  \
             scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    \
             schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          \
             spec:\n            type: object\n            x-kubernetes-validations: {rules}\n            \
             properties:\n              xs: {{type: array, {bound} items: {{type: string, maxLength: 16}}}}\n"
        );
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn refuses_what_the_server_refuses_and_names_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let rule = "[{rule: \"self.xs.all(x, self.xs.all(y, x == y))\"}]";
        let bad = check_file(&crd_file(dir.path(), "bad.yaml", rule, ""));
        assert!(!bad.accepted());
        let problems = &bad.crds[0].problems;
        assert!(
            problems[0].contains("estimated rule cost exceeds budget"),
            "{problems:?}"
        );
        let max: u64 = problems[0]
            .split("fix: set `maxItems: ")
            .nth(1)
            .and_then(|r| r.split('`').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{problems:?}"));
        let fixed = check_file(&crd_file(
            dir.path(),
            "ok.yaml",
            rule,
            &format!("maxItems: {max},"),
        ));
        assert!(fixed.accepted(), "{:?}", fixed.crds[0].problems);
        let over = check_file(&crd_file(
            dir.path(),
            "over.yaml",
            rule,
            &format!("maxItems: {},", max + 1),
        ));
        assert!(!over.accepted());
        let costs = &fixed.crds[0].versions[0];
        assert_eq!(costs.expressions.len(), 1);
        assert!(costs.expressions[0].cost <= kube_markers_cel::PER_EXPRESSION_LIMIT);
    }

    #[test]
    fn names_and_versions_are_checked() {
        let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "wrong"}, "spec": {"group": "example", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": false,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]}});
        let report = check_crd(&crd, 1);
        assert_eq!(
            report.problems,
            [
                "spec.group `example`: it has no dot",
                "metadata.name: must be `widgets.example` (spec.names.plural.spec.group)",
                "spec.versions: exactly one version must be the storage version, not 0",
            ]
        );
    }
}
