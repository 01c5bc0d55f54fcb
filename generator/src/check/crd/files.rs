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
use kube_markers_cel::{ExpressionCost, PER_SCHEMA_LIMIT};
use kube_markers_registry::crd::SchemaProblem;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

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
}

impl FileReport {
    /// Whether the API server would take every CRD of the file.
    pub fn accepted(&self) -> bool {
        self.errors.is_empty() && self.crds.iter().all(|c| c.problems.is_empty())
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
/// not UTF-8 read as U+FFFD), at most [`MAX_FILE_BYTES`], and what was replaced.
pub(crate) fn read_text(path: &Path) -> Result<(String, Vec<String>), String> {
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

/// The objects of one document: the document itself, or the `items` of a `List` or a
/// `CustomResourceDefinitionList` (`kubectl get -o yaml`): kubectl takes any kind ending in
/// `List` so.
pub(crate) fn objects(doc: &Value) -> Vec<&Value> {
    match doc["kind"].as_str() {
        Some(kind) if kind.ends_with("List") && doc["items"].is_array() => {
            doc["items"].as_array().into_iter().flatten().collect()
        }
        _ => vec![doc],
    }
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
    let mut report = FileReport {
        file: file.clone(),
        errors: Vec::new(),
        warnings: Vec::new(),
        crds: Vec::new(),
        unreadable: false,
    };
    let text = match read_text(path) {
        Ok((text, warnings)) => {
            report.warnings = warnings;
            text
        }
        Err(e) => {
            report.errors.push(format!("cannot read it: {e}"));
            report.unreadable = true;
            return report;
        }
    };
    let docs: Vec<Value> = match read_documents_here(&text) {
        Ok((docs, warnings)) => {
            report.warnings.extend(warnings);
            docs
        }
        Err(e) => {
            report.errors.push(format!("not YAML: {e}"));
            report.unreadable = true;
            return report;
        }
    };
    let mut saw_crd = false;
    for (i, doc) in docs.iter().enumerate() {
        if doc.is_null() {
            continue;
        }
        for item in objects(doc) {
            if item["kind"] != "CustomResourceDefinition" {
                continue;
            }
            if item["apiVersion"] == "apiextensions.k8s.io/v1" {
                saw_crd = true;
                report.crds.push(check_crd_here(item, i + 1, cost_bounds));
            } else if item["apiVersion"] == "apiextensions.k8s.io/v1beta1" {
                saw_crd = true;
                let name = item["metadata"]["name"].as_str().unwrap_or("a CRD");
                report.errors.push(format!(
                    "document {}: {name} is an apiextensions.k8s.io/v1beta1 \
                     CustomResourceDefinition: the API server has not served v1beta1 since \
                     Kubernetes 1.22 (kubectl: no matches for kind), write it as \
                     apiextensions.k8s.io/v1",
                    i + 1
                ));
            }
        }
    }
    if !saw_crd && required {
        report
            .errors
            .push("no apiextensions.k8s.io/v1 CustomResourceDefinition in it".into());
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
    kube_markers_cel::on_large_stack(|| check_crd_here(crd, document, cost_bounds))
}

fn check_crd_here(crd: &Value, document: usize, cost_bounds: bool) -> CrdReport {
    let name = crd["metadata"]["name"]
        .as_str()
        .map_or_else(|| format!("document {document}"), str::to_string);
    let verdict = verdict_here(crd, Fixes::Yaml, cost_bounds);
    CrdReport {
        name,
        problems: verdict.refused.iter().map(Finding::refusal).collect(),
        warnings: verdict.accepted.iter().map(Finding::warning).collect(),
        versions: verdict.versions,
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
    fn crd(message: String) -> Self {
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
    if let Err(why) = kube_markers_core::names::dns1123_subdomain(group) {
        problems.push(format!("spec.group `{group}`: {why}"));
    } else if !group.contains('.') {
        problems.push(format!("spec.group `{group}`: it has no dot"));
    }
    if let Err(why) = kube_markers_core::names::dns1035_label(plural) {
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
    names_problems(&spec["names"], &mut problems);
    conversion_problems(&spec["conversion"], &mut problems);
    problems.extend(super::crd_rules::problems(crd));
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
    let mut checked: Vec<(String, super::Split, kube_markers_cel::SchemaReport)> = Vec::new();
    for (i, version) in versions.iter().enumerate() {
        let vname = version["name"].as_str().unwrap_or_default().to_string();
        if seen.contains(&vname) {
            problems.push(format!("spec.versions[{i}].name `{vname}`: given twice"));
        }
        if let Err(why) = kube_markers_core::names::dns1123_label(&vname) {
            problems.push(format!("spec.versions[{i}].name `{vname}`: {why}"));
        }
        seen.push(vname.clone());
        printer_column_problems(version, i, &mut problems);
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
                let (found, r) = super::check_version_found(version, fixes, cel);
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

/// `ValidateCustomResourceDefinitionNames`: DNS-1035 labels (`kind` and `listKind` in any
/// case, `singular` lower case), and a `listKind` other than `kind`.
fn names_problems(names: &Value, problems: &mut Vec<String>) {
    use kube_markers_core::names::dns1035_label;
    // The API server defaults `listKind` to the kind + "List" before it validates the names.
    let default_list_kind = names["kind"]
        .as_str()
        .filter(|k| !k.is_empty())
        .map(|kind| format!("{kind}List"));
    for key in ["singular", "kind", "listKind"] {
        let given = names[key].as_str().filter(|n| !n.is_empty());
        let defaulted = (key == "listKind")
            .then_some(default_list_kind.as_deref())
            .flatten();
        let Some(name) = given.or(defaulted) else {
            continue;
        };
        let checked = if key == "singular" {
            name.to_string()
        } else {
            name.to_lowercase()
        };
        if let Err(why) = dns1035_label(&checked) {
            problems.push(format!("spec.names.{key} `{name}`: {why}"));
        }
    }
    for key in ["shortNames", "categories"] {
        for (i, name) in names[key].as_array().into_iter().flatten().enumerate() {
            let name = name.as_str().unwrap_or_default();
            if let Err(why) = dns1035_label(name) {
                problems.push(format!("spec.names.{key}[{i}] `{name}`: {why}"));
            }
        }
    }
    if let Some(kind) = names["kind"].as_str().filter(|k| !k.is_empty())
        && names["listKind"].as_str() == Some(kind)
    {
        problems.push(format!(
            "spec.names.listKind `{kind}`: kind and listKind may not be the same"
        ));
    }
}

/// `validateCustomResourceConversion`: a `Webhook` strategy needs `webhook.clientConfig` (one
/// of `url` and `service`) and `webhook.conversionReviewVersions`; `None` (the default)
/// takes neither.
fn conversion_problems(conversion: &Value, problems: &mut Vec<String>) {
    if conversion.is_null() {
        return;
    }
    let webhook = &conversion["webhook"];
    let client = &webhook["clientConfig"];
    let versions = webhook["conversionReviewVersions"].as_array();
    match conversion["strategy"].as_str().unwrap_or("None") {
        "Webhook" => {
            if client.is_null() {
                problems.push(
                    "spec.conversion.webhook.clientConfig: required when strategy is set to \
                     Webhook"
                        .into(),
                );
            } else if client["url"].is_null() == client["service"].is_null() {
                problems.push(
                    "spec.conversion.webhook.clientConfig: exactly one of url or service is \
                     required"
                        .into(),
                );
            }
            let versions: Vec<&str> = versions
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if versions.is_empty() {
                problems.push("spec.conversion.webhook.conversionReviewVersions: required".into());
            } else if !versions.iter().any(|v| matches!(*v, "v1" | "v1beta1")) {
                problems.push(
                    "spec.conversion.webhook.conversionReviewVersions: must include at least \
                     one of v1, v1beta1"
                        .into(),
                );
            }
        }
        "None" => {
            if !client.is_null() {
                problems.push(
                    "spec.conversion.webhook.clientConfig: should not be set when strategy is \
                     not set to Webhook"
                        .into(),
                );
            }
            if versions.is_some_and(|v| !v.is_empty()) {
                problems.push(
                    "spec.conversion.webhook.conversionReviewVersions: should not be set when \
                     strategy is not set to Webhook"
                        .into(),
                );
            }
        }
        other => problems.push(format!(
            "spec.conversion.strategy `{other}`: must be `None` or `Webhook`"
        )),
    }
}

/// `ValidateCustomResourceColumnDefinition`: a name, a type and format kubectl knows, a path
/// starting with `.` (where it leads is the generator's check, a warning here).
fn printer_column_problems(version: &Value, index: usize, problems: &mut Vec<String>) {
    const TYPES: [&str; 5] = ["boolean", "date", "integer", "number", "string"];
    const FORMATS: [&str; 8] = [
        "byte",
        "date",
        "date-time",
        "double",
        "float",
        "int32",
        "int64",
        "password",
    ];
    for (i, column) in version["additionalPrinterColumns"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("spec.versions[{index}].additionalPrinterColumns[{i}]");
        if column["name"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("{at}.name: required"));
        }
        let ty = column["type"].as_str().unwrap_or_default();
        if !TYPES.contains(&ty) {
            problems.push(format!(
                "{at}.type `{ty}`: must be one of {}",
                TYPES.join(",")
            ));
        }
        if let Some(format) = column["format"].as_str().filter(|f| !f.is_empty())
            && !FORMATS.contains(&format)
        {
            problems.push(format!(
                "{at}.format `{format}`: must be one of {}",
                FORMATS.join(",")
            ));
        }
        let path = column["jsonPath"].as_str().unwrap_or_default();
        if !path.starts_with('.') {
            problems.push(format!(
                "{at}.jsonPath `{path}`: must be a simple json path starting with ."
            ));
        }
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
    let (text, mut warnings) = super::kubectl_yaml::decode_bytes(bytes);
    let (docs, more) = read_documents(&text)?;
    warnings.extend(more);
    Ok((docs, warnings))
}

fn read_documents_here(text: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    super::kubectl_yaml::read_stream(text)
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
