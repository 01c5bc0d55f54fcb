//! A kustomization rendered the way `kubectl apply -k` installs it, for the objects RBAC
//! looks at: `resources` (files, and directories that are kustomizations: overlays), then
//! `namespace`, `namePrefix`/`nameSuffix`, `replacements` and the `transformers` the deploy
//! bundle writes (builtin `PatchTransformer` with JSON 6902 patches, `ReplacementTransformer`),
//! then, once at the top, the name references kustomize rewrites: a binding's `roleRef` and
//! its ServiceAccount subjects follow the objects they name.
//!
//! Each object keeps the names and namespaces it had (kustomize matches references against
//! all of them) and the file it came from, so that answers can name the `#[rbac]` attributes
//! behind a rendered role. What could change a role, a binding or a ServiceAccount and is not
//! rendered here (components, strategic-merge patches of those kinds, plugins, remote
//! resources) is refused, naming the kustomization and the field.

use super::{ManifestProblem, Origin, read_documents};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The kinds `can-i` reads; every other object of a kustomization is dropped after reading.
pub(super) fn kept(api_version: &str, kind: &str) -> bool {
    matches!(
        (api_version, kind),
        (
            "rbac.authorization.k8s.io/v1",
            "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding"
        ) | ("v1", "ServiceAccount")
            | ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
    )
}

/// Kinds a patch could touch that matter to RBAC (a patch whose target is none of these is
/// left out without changing an answer).
pub(super) const RBAC_KINDS: &[&str] = &[
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ServiceAccount",
];

/// An object with the history kustomize keeps of it.
#[derive(Debug, Clone)]
pub(super) struct Object {
    pub doc: Value,
    pub origin: Origin,
    /// Every `(name, namespace)` it had (`""` for no namespace), the file's first, the
    /// current one last.
    pub ids: Vec<(String, String)>,
}

impl Object {
    pub fn new(doc: Value, origin: Origin) -> Object {
        let id = id_of(&doc);
        Object {
            doc,
            origin,
            ids: vec![id],
        }
    }

    pub fn kind(&self) -> &str {
        self.doc["kind"].as_str().unwrap_or_default()
    }

    pub fn api_version(&self) -> &str {
        self.doc["apiVersion"].as_str().unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        self.ids.last().map(|id| id.0.as_str()).unwrap_or_default()
    }

    pub fn namespace(&self) -> &str {
        self.ids.last().map(|id| id.1.as_str()).unwrap_or_default()
    }

    /// The file's name and namespace.
    pub fn original(&self) -> &(String, String) {
        &self.ids[0]
    }

    /// Records the object's name and namespace after a change of its document.
    pub(super) fn record(&mut self) {
        let id = id_of(&self.doc);
        if self.ids.last() != Some(&id) {
            self.ids.push(id);
        }
    }

    fn set_namespace(&mut self, namespace: &str) {
        self.doc["metadata"]["namespace"] = Value::String(namespace.to_string());
        self.record();
    }

    fn set_name(&mut self, name: String) {
        self.doc["metadata"]["name"] = Value::String(name);
        self.record();
    }
}

fn id_of(doc: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (text(&doc["metadata"]["name"]), namespace_of(doc))
}

fn namespace_of(doc: &Value) -> String {
    doc["metadata"]["namespace"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Namespaced, as kustomize's namespace transformer decides for the kinds kept.
pub(super) fn namespaced(kind: &str) -> bool {
    matches!(kind, "Role" | "RoleBinding" | "ServiceAccount")
}

/// The kustomization file of `dir`, if it has one (kustomize's three accepted names).
pub(super) fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    ["kustomization.yaml", "kustomization.yml", "Kustomization"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

fn problem(path: &Path, what: impl Into<String>) -> ManifestProblem {
    ManifestProblem::Kustomization {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// What to do for `kubectl kustomize` renders that this reader refuses.
const RENDER_IT: &str = "render it with `kubectl kustomize DIR > rendered.yaml` and pass \
                         `--from rendered.yaml` (the answers then cannot name the #[rbac] \
                         attributes)";

/// Fields that cannot change a role, binding or ServiceAccount's name, namespace, rules or
/// subjects: read past.
const INERT_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "images",
    "replicas",
    "configurations",
    "crds",
    "generatorOptions",
    "configMapGenerator",
    "secretGenerator",
    "buildMetadata",
    "sortOptions",
    "openapi",
];

/// The kustomization in `dir`, rendered, with its name references fixed: what
/// `kubectl kustomize dir` prints, for the kinds [`kept`].
pub(super) fn render(dir: &Path, errors: &mut Vec<ManifestProblem>) -> Vec<Object> {
    let mut objects = build(dir, &mut Vec::new(), errors);
    fix_back_references(&mut objects, errors);
    objects
}

/// One kustomization and everything under it, without the final name references.
fn build(dir: &Path, stack: &mut Vec<PathBuf>, errors: &mut Vec<ManifestProblem>) -> Vec<Object> {
    let Some(file) = kustomization_file(dir) else {
        errors.push(problem(
            dir,
            "is listed as a kustomize resource, but has no kustomization.yaml",
        ));
        return Vec::new();
    };
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    if stack.contains(&canonical) {
        errors.push(problem(&file, "includes itself (a cycle of resources)"));
        return Vec::new();
    }
    let k = match std::fs::read_to_string(&file) {
        Ok(text) => match serde_saphyr::from_str::<Value>(&text) {
            Ok(k) if k.is_object() => k,
            Ok(_) => {
                errors.push(problem(&file, "is not a mapping"));
                return Vec::new();
            }
            Err(error) => {
                errors.push(ManifestProblem::NotYaml { path: file, error });
                return Vec::new();
            }
        },
        Err(error) => {
            errors.push(ManifestProblem::Read {
                path: file,
                from: false,
                error,
            });
            return Vec::new();
        }
    };
    let before = errors.len();
    for key in k.as_object().into_iter().flat_map(|m| m.keys()) {
        let handled = [
            "resources",
            "bases",
            "namespace",
            "namePrefix",
            "nameSuffix",
            "transformers",
            "replacements",
            "patches",
            "patchesJson6902",
            "patchesStrategicMerge",
        ];
        if !handled.contains(&key.as_str()) && !INERT_FIELDS.contains(&key.as_str()) {
            errors.push(problem(
                &file,
                format!("`{key}` is not rendered by can-i: {RENDER_IT}"),
            ));
        }
    }
    let text = |key: &str| k[key].as_str().filter(|s| !s.is_empty());
    stack.push(canonical);
    let mut objects = Vec::new();
    for key in ["bases", "resources"] {
        for entry in strings(&k, key, &file, errors) {
            resource(dir, &file, &entry, stack, &mut objects, errors);
        }
    }
    stack.pop();
    check_patches(dir, &file, &k, errors);
    if let Some(namespace) = text("namespace") {
        for object in &mut objects {
            if namespaced(object.kind()) {
                object.set_namespace(namespace);
            }
            // kustomize's namespace transformer also moves the subjects that name the
            // ServiceAccount `default`, of every binding (others follow their ServiceAccount
            // through the name references).
            if object.kind().ends_with("Binding") {
                for subject in subjects_mut(&mut object.doc) {
                    if subject["kind"] == "ServiceAccount" && subject["name"] == "default" {
                        subject["namespace"] = Value::String(namespace.to_string());
                    }
                }
            }
        }
    }
    let (prefix, suffix) = (text("namePrefix"), text("nameSuffix"));
    if prefix.is_some() || suffix.is_some() {
        for object in &mut objects {
            // kustomize leaves the names of CRDs (and Namespaces, APIServices) alone.
            if object.kind() != "CustomResourceDefinition" {
                let name = format!(
                    "{}{}{}",
                    prefix.unwrap_or_default(),
                    object.name(),
                    suffix.unwrap_or_default()
                );
                object.set_name(name);
            }
        }
    }
    if let Some(replacements) = k.get("replacements") {
        super::transform::replacements(replacements, &file, dir, &mut objects, errors);
    }
    for entry in strings(&k, "transformers", &file, errors) {
        let path = dir.join(&entry);
        let configs = transformer_configs(&path, &file, &entry, errors);
        for (config, origin) in configs {
            super::transform::apply(&config, &origin, dir, &mut objects, errors);
        }
    }
    if errors.len() > before {
        return Vec::new();
    }
    objects
}

/// The strings of a list field.
fn strings(k: &Value, key: &str, file: &Path, errors: &mut Vec<ManifestProblem>) -> Vec<String> {
    match &k[key] {
        Value::Null => Vec::new(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item.as_str() {
                Some(s) => Some(s.to_string()),
                None => {
                    errors.push(problem(
                        file,
                        format!("`{key}` has an entry that is not a path: {item}"),
                    ));
                    None
                }
            })
            .collect(),
        other => {
            errors.push(problem(file, format!("`{key}` is not a list: {other}")));
            Vec::new()
        }
    }
}

fn remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("github.com/")
        || entry.starts_with("git@")
        || entry.contains("?ref=")
}

/// One entry of `resources`: a file's objects, or a directory's kustomization rendered.
fn resource(
    dir: &Path,
    file: &Path,
    entry: &str,
    stack: &mut Vec<PathBuf>,
    objects: &mut Vec<Object>,
    errors: &mut Vec<ManifestProblem>,
) {
    if remote(entry) {
        errors.push(problem(
            file,
            format!("resource `{entry}` is remote: can-i reads local files only; {RENDER_IT}"),
        ));
        return;
    }
    let path = dir.join(entry);
    if path.is_dir() {
        objects.extend(build(&path, stack, errors));
        return;
    }
    // kustomize's default load restrictor: a file resource lies under its kustomization.
    let root = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    match path.canonicalize() {
        Ok(real) if real.starts_with(&root) => {}
        Ok(_) => {
            errors.push(problem(
                file,
                format!(
                    "resource `{entry}` is outside {} (kustomize refuses files outside the \
                     kustomization's directory)",
                    dir.display()
                ),
            ));
            return;
        }
        Err(error) => {
            errors.push(problem(
                file,
                format!("resource `{entry}` cannot be read: {error}"),
            ));
            return;
        }
    }
    let Some(docs) = read_documents(&path, errors) else {
        return;
    };
    for (i, doc) in docs.into_iter().enumerate() {
        let origin = Origin::new(path.clone(), i + 1);
        let items = if doc["apiVersion"] == "v1" && doc["kind"] == "List" {
            doc["items"].as_array().cloned().unwrap_or_default()
        } else {
            vec![doc]
        };
        for item in items {
            let api_version = item["apiVersion"].as_str().unwrap_or_default();
            let kind = item["kind"].as_str().unwrap_or_default();
            if kept(api_version, kind) {
                objects.push(Object::new(item, origin.clone()));
            }
        }
    }
}

/// The transformer configurations of a `transformers:` entry: a file's documents, or the
/// resources of a directory's kustomization (the deploy bundle's `pinned-namespaces/`).
fn transformer_configs(
    path: &Path,
    file: &Path,
    entry: &str,
    errors: &mut Vec<ManifestProblem>,
) -> Vec<(Value, Origin)> {
    if remote(entry) {
        errors.push(problem(
            file,
            format!("transformer `{entry}` is remote: {RENDER_IT}"),
        ));
        return Vec::new();
    }
    let mut files = Vec::new();
    if !path.exists() {
        errors.push(problem(
            file,
            format!("transformer `{entry}` cannot be read: there is no such file"),
        ));
        return Vec::new();
    }
    if path.is_dir() {
        let Some(inner) = kustomization_file(path) else {
            errors.push(problem(
                file,
                format!("transformer directory `{entry}` has no kustomization.yaml"),
            ));
            return Vec::new();
        };
        let Some(docs) = read_documents(&inner, errors) else {
            return Vec::new();
        };
        let k = docs.into_iter().next().unwrap_or_default();
        for key in k.as_object().into_iter().flat_map(|m| m.keys()) {
            if !["apiVersion", "kind", "resources"].contains(&key.as_str()) {
                errors.push(problem(
                    &inner,
                    format!("`{key}` in a kustomization of transformers is not rendered by can-i: {RENDER_IT}"),
                ));
            }
        }
        for item in strings(&k, "resources", &inner, errors) {
            files.push(path.join(item));
        }
    } else {
        files.push(path.to_path_buf());
    }
    let mut configs = Vec::new();
    for f in files {
        if let Some(docs) = read_documents(&f, errors) {
            for (i, doc) in docs.into_iter().enumerate() {
                configs.push((doc, Origin::new(f.clone(), i + 1)));
            }
        }
    }
    configs
}

/// `patches` (and the older `patchesJson6902`, `patchesStrategicMerge`) are not applied: those
/// that could change a role, binding or ServiceAccount are refused.
fn check_patches(dir: &Path, file: &Path, k: &Value, errors: &mut Vec<ManifestProblem>) {
    for key in ["patches", "patchesJson6902", "patchesStrategicMerge"] {
        for patch in k[key].as_array().into_iter().flatten() {
            let target_kind = patch["target"]["kind"].as_str();
            let kinds: Vec<String> = match target_kind {
                Some(kind) => vec![kind.to_string()],
                None => patched_kinds(dir, patch, errors),
            };
            if kinds.is_empty() || kinds.iter().any(|k| RBAC_KINDS.contains(&k.as_str())) {
                let which = patch["path"]
                    .as_str()
                    .map(|p| format!(" `{p}`"))
                    .unwrap_or_default();
                errors.push(problem(
                    file,
                    format!(
                        "a `{key}` entry{which} may change a role, binding or ServiceAccount, \
                         and can-i does not apply patches: {RENDER_IT}"
                    ),
                ));
            }
        }
    }
}

/// The kinds a strategic-merge patch without a target names in its own documents (empty if
/// they cannot be told).
fn patched_kinds(dir: &Path, patch: &Value, errors: &mut Vec<ManifestProblem>) -> Vec<String> {
    let docs = match (
        patch.as_str(),
        patch["path"].as_str(),
        patch["patch"].as_str(),
    ) {
        (Some(path), _, _) | (None, Some(path), _) if !path.contains('\n') => {
            read_documents(&dir.join(path), errors).unwrap_or_default()
        }
        (Some(text), _, _) | (None, _, Some(text)) => {
            serde_saphyr::from_multiple::<Value>(text).unwrap_or_default()
        }
        _ => Vec::new(),
    };
    docs.iter()
        .map(|d| d["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

pub(super) fn subjects_mut(doc: &mut Value) -> impl Iterator<Item = &mut Value> {
    doc["subjects"].as_array_mut().into_iter().flatten()
}

/// kustomize's last step: a binding's `roleRef`, and its ServiceAccount subjects, name the
/// object they referred to by any of its former names (and namespaces); they are given its
/// final name (and namespace). A Role must be in the binding's namespace. References to
/// objects outside the kustomization (`view`, another operator's ServiceAccount) stay.
/// An object's kind, former names, former namespaces and file.
type Snapshot = (String, Vec<String>, Vec<String>, Origin);

fn fix_back_references(objects: &mut [Object], errors: &mut Vec<ManifestProblem>) {
    let snapshot: Vec<Snapshot> = objects
        .iter()
        .map(|o| {
            (
                o.kind().to_string(),
                o.ids.iter().map(|id| id.0.clone()).collect(),
                o.ids.iter().map(|id| id.1.clone()).collect(),
                o.origin.clone(),
            )
        })
        .collect();
    let current = |i: usize| {
        (
            snapshot[i].1.last().cloned().unwrap_or_default(),
            snapshot[i].2.last().cloned().unwrap_or_default(),
        )
    };
    for object in objects.iter_mut() {
        let kind = object.kind().to_string();
        if kind != "RoleBinding" && kind != "ClusterRoleBinding" {
            continue;
        }
        let binding_namespace = object.namespace().to_string();
        let origin = object.origin.clone();
        let role_kind = object.doc["roleRef"]["kind"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let role_name = object.doc["roleRef"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let roles: Vec<usize> = (0..snapshot.len())
            .filter(|&i| snapshot[i].0 == role_kind && snapshot[i].1.contains(&role_name))
            .filter(|&i| role_kind != "Role" || current(i).1 == binding_namespace)
            .collect();
        match roles.as_slice() {
            [] => {}
            [i] => object.doc["roleRef"]["name"] = Value::String(current(*i).0),
            several => errors.push(ambiguous(
                &origin, &role_kind, &role_name, several, &snapshot,
            )),
        }
        for subject in subjects_mut(&mut object.doc) {
            if subject["kind"] != "ServiceAccount" {
                continue;
            }
            let name = subject["name"].as_str().unwrap_or_default().to_string();
            let namespace = subject["namespace"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let accounts: Vec<usize> = (0..snapshot.len())
                .filter(|&i| snapshot[i].0 == "ServiceAccount" && snapshot[i].1.contains(&name))
                .filter(|&i| namespace.is_empty() || snapshot[i].2.contains(&namespace))
                .collect();
            match accounts.as_slice() {
                [] => {}
                [i] => {
                    let (name, namespace) = current(*i);
                    subject["name"] = Value::String(name);
                    subject["namespace"] = Value::String(namespace);
                }
                several => errors.push(ambiguous(
                    &origin,
                    "ServiceAccount",
                    &name,
                    several,
                    &snapshot,
                )),
            }
        }
    }
}

fn ambiguous(
    origin: &Origin,
    kind: &str,
    name: &str,
    candidates: &[usize],
    snapshot: &[Snapshot],
) -> ManifestProblem {
    let found: Vec<String> = candidates
        .iter()
        .map(|&i| snapshot[i].3.to_string())
        .collect();
    problem(
        &origin.file,
        format!(
            "the binding in {origin} refers to {kind} {name:?}, which could be any of the \
             objects of {} (kustomize refuses it too)",
            found.join(", ")
        ),
    )
}
