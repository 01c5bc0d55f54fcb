//! Reading RBAC objects and ServiceAccounts from multi-document YAML files, remembering where
//! each came from so that answers can name it: what `codegen can-i --from` and
//! `kube_markers::audit` evaluate (features `codegen` or `audit`). A directory with a
//! kustomization is read as `kubectl apply -k` installs it (`kustomize.rs`); a file, or a
//! directory without one, as its YAML documents are.

mod kustomize;
mod transform;

use crate::authorize::Authorizer;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where an object was read: file and 1-based document number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub struct Origin {
    /// The file, as reached from `--from`.
    pub file: PathBuf,
    /// Which `---` document of the file (1-based).
    pub document: usize,
}

impl Origin {
    fn new(file: PathBuf, document: usize) -> Origin {
        Origin { file, document }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (document {})", self.file.display(), self.document)
    }
}

/// Identifies an object: kind, namespace (`""` if cluster-scoped) and name.
pub type ObjectKey = (String, String, String);

/// Everything `can-i` needs from the manifests.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Manifests {
    /// The RBAC objects, in file order.
    pub authorizer: Authorizer,
    /// ServiceAccounts as `(namespace, name)`, with their origin.
    pub service_accounts: Vec<(String, String, Origin)>,
    /// Where each object came from.
    pub origins: BTreeMap<ObjectKey, Origin>,
    /// The name and namespace (`""` for none) an object has in its file, where a
    /// kustomization rendered it under another.
    pub renamed: BTreeMap<ObjectKey, (String, String)>,
    /// The CustomResourceDefinitions, for resolving resource names.
    pub crds: Vec<CrdNames>,
    /// How many YAML files were read.
    pub files: usize,
    /// The kustomization rendered, if `--from` is a directory with one.
    pub kustomization: Option<PathBuf>,
}

/// The names a CustomResourceDefinition gives its resource.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrdNames {
    /// `spec.group`.
    pub group: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `spec.names.singular` (kube-apiserver defaults it to the lowercased kind).
    pub singular: String,
    /// `spec.names.shortNames`.
    pub short_names: Vec<String>,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.scope` is `Namespaced`.
    pub namespaced: bool,
    /// Where it was read.
    pub origin: Origin,
}

/// Why the manifests cannot be read, each naming the file (and document) at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestProblem {
    /// The `--from` path (or a file or directory under it) cannot be read.
    #[error("cannot read {}{}", if *from { "--from " } else { "" }, path.display())]
    Read {
        /// The path.
        path: PathBuf,
        /// `true` for the `--from` path itself.
        from: bool,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A file (or a kustomization) is not YAML.
    #[error("{}: not YAML", path.display())]
    NotYaml {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        #[source]
        error: serde_saphyr::Error,
    },
    /// An RBAC object or ServiceAccount has no `metadata.name`.
    #[error("{kind} in {origin} has no metadata.name")]
    NoName {
        /// Its kind.
        kind: String,
        /// Where it is.
        origin: Origin,
    },
    /// A namespaced object names no namespace, and no kustomization gives it one.
    #[error(
        "{kind} {name:?} in {origin} has no metadata.namespace (and no kustomization.yaml \
         `namespace:` at the root of --from gives it one): cannot tell where it applies"
    )]
    NoNamespace {
        /// Its kind.
        kind: String,
        /// Its name.
        name: String,
        /// Where it is.
        origin: Origin,
    },
    /// An object of this kind, namespace and name was read before.
    #[error("{kind} {name:?} in {origin} is defined again (first in {first})")]
    Duplicate {
        /// Its kind.
        kind: String,
        /// Its name.
        name: String,
        /// Where it is defined again.
        origin: Origin,
        /// Where it was first.
        first: Origin,
    },
    /// A kustomization that cannot be rendered, or that uses what this reader does not render.
    #[error("{}: {what}", path.display())]
    Kustomization {
        /// The kustomization (or the file it lists) at fault.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// An object does not deserialize as its kind.
    #[error("{kind} {name:?} in {origin} is not a valid object")]
    Invalid {
        /// Its kind.
        kind: String,
        /// Its name.
        name: String,
        /// Where it is.
        origin: Origin,
        /// Why.
        #[source]
        error: serde_json::Error,
    },
}

/// The `*.yaml`/`*.yml` files of a directory tree, sorted, or the file itself.
// Called once per load: the size of its error costs nothing.
#[allow(clippy::result_large_err)]
fn yaml_files(path: &Path) -> Result<Vec<PathBuf>, ManifestProblem> {
    let read = |path: &Path, from: bool| {
        let path = path.to_path_buf();
        move |error| ManifestProblem::Read { path, from, error }
    };
    let meta = std::fs::metadata(path).map_err(read(path, true))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(read(&dir, false))?;
        for entry in entries {
            let entry = entry.map_err(read(&dir, false))?;
            let path = entry.path();
            // Symbolic links to directories are not followed (no cycles).
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// A file's YAML documents (`None`, with the problem recorded, if it cannot be read).
fn read_documents(path: &Path, errors: &mut Vec<ManifestProblem>) -> Option<Vec<Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            errors.push(ManifestProblem::Read {
                path: path.to_path_buf(),
                from: false,
                error,
            });
            return None;
        }
    };
    match serde_saphyr::from_multiple::<Value>(&text) {
        Ok(docs) => Some(docs.into_iter().filter(|d| !d.is_null()).collect()),
        Err(error) => {
            errors.push(ManifestProblem::NotYaml {
                path: path.to_path_buf(),
                error,
            });
            None
        }
    }
}

/// Reads every RBAC object, ServiceAccount and CRD under `path`: a directory with a
/// `kustomization.yaml` (or that file itself) as kustomize renders it (namespace, name prefix and suffix, the
/// bundle's transformers, the references they rewrite; overlays too); otherwise every
/// `*.yaml`/`*.yml` file under it, as written. Other objects (Deployments, ...) are skipped.
/// All problems are reported together.
pub fn load(path: &Path) -> Result<Manifests, Vec<ManifestProblem>> {
    let mut errors = Vec::new();
    let mut out = Manifests::default();
    // A kustomization file given itself (`rbac-out/kustomization.yaml`) is its directory's
    // kustomization, rendered as `kubectl apply -k DIR` would (not read as a plain manifest).
    let dir_of_kustomization = path
        .is_file()
        .then(|| path.file_name())
        .flatten()
        .filter(|name| {
            ["kustomization.yaml", "kustomization.yml", "Kustomization"]
                .iter()
                .any(|k| *name == std::ffi::OsStr::new(k))
        })
        .map(|_| match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        });
    let path = dir_of_kustomization.as_deref().unwrap_or(path);
    let objects = match path
        .is_dir()
        .then(|| kustomize::kustomization_file(path))
        .flatten()
    {
        Some(file) => {
            let objects = kustomize::render(path, &mut errors);
            let mut files: Vec<&PathBuf> = objects.iter().map(|o| &o.origin.file).collect();
            files.sort();
            files.dedup();
            out.files = files.len();
            out.kustomization = Some(file);
            objects
        }
        None => {
            let files = yaml_files(path).map_err(|e| vec![e])?;
            out.files = files.len();
            let mut objects = Vec::new();
            for file in &files {
                for (i, doc) in read_documents(file, &mut errors)
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                {
                    let origin = Origin::new(file.clone(), i + 1);
                    let items = if doc["apiVersion"] == "v1" && doc["kind"] == "List" {
                        doc["items"].as_array().cloned().unwrap_or_default()
                    } else {
                        vec![doc]
                    };
                    objects.extend(
                        items
                            .into_iter()
                            .map(|d| kustomize::Object::new(d, origin.clone())),
                    );
                }
            }
            objects
        }
    };
    for object in objects {
        out.add(object, &mut errors);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

impl Manifests {
    fn add(&mut self, object: kustomize::Object, errors: &mut Vec<ManifestProblem>) {
        let api_version = object.api_version().to_string();
        let kind = object.kind().to_string();
        if !kustomize::kept(&api_version, &kind) {
            return;
        }
        let origin = &object.origin;
        let name = object.name().to_string();
        if name.is_empty() {
            errors.push(ManifestProblem::NoName {
                kind,
                origin: origin.clone(),
            });
            return;
        }
        if kind == "CustomResourceDefinition" {
            self.crds.push(crd_names(&object.doc, origin.clone()));
            return;
        }
        let namespaced = matches!(kind.as_str(), "Role" | "RoleBinding" | "ServiceAccount");
        let namespace = if namespaced {
            object.namespace().to_string()
        } else {
            String::new()
        };
        if namespaced && namespace.is_empty() {
            errors.push(ManifestProblem::NoNamespace {
                kind,
                name,
                origin: origin.clone(),
            });
            return;
        }
        let doc = object.doc.clone();
        let key = (kind.clone(), namespace.clone(), name.clone());
        if let Some(first) = self.origins.get(&key) {
            errors.push(ManifestProblem::Duplicate {
                kind,
                name,
                origin: origin.clone(),
                first: first.clone(),
            });
            return;
        }
        self.origins.insert(key.clone(), origin.clone());
        let (file_name, file_namespace) = object.original();
        if *file_name != name || (namespaced && *file_namespace != namespace) {
            self.renamed
                .insert(key, (file_name.clone(), file_namespace.clone()));
        }
        fn typed<T: serde::de::DeserializeOwned>(
            doc: Value,
            (kind, name, origin): (&str, &str, &Origin),
            errors: &mut Vec<ManifestProblem>,
        ) -> Option<T> {
            serde_json::from_value(doc)
                .map_err(|error| {
                    errors.push(ManifestProblem::Invalid {
                        kind: kind.to_string(),
                        name: name.to_string(),
                        origin: origin.clone(),
                        error,
                    })
                })
                .ok()
        }
        let what = (kind.as_str(), name.as_str(), origin);
        let rbac = &mut self.authorizer;
        match kind.as_str() {
            "Role" => rbac.roles.extend(typed::<Role>(doc, what, errors)),
            "ClusterRole" => rbac
                .cluster_roles
                .extend(typed::<ClusterRole>(doc, what, errors)),
            "RoleBinding" => rbac
                .role_bindings
                .extend(typed::<RoleBinding>(doc, what, errors)),
            "ClusterRoleBinding" => rbac
                .cluster_role_bindings
                .extend(typed::<ClusterRoleBinding>(doc, what, errors)),
            _ => self
                .service_accounts
                .push((namespace, name, origin.clone())),
        }
    }

    /// The name and namespace an object has in its file (the `#[rbac]` attributes' names),
    /// for the object kustomize renders as `kind`, `namespace`, `name`.
    pub fn as_in_file(
        &self,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> (String, Option<String>) {
        let key = (
            kind.to_string(),
            namespace.unwrap_or_default().to_string(),
            name.to_string(),
        );
        match self.renamed.get(&key) {
            Some((name, namespace)) => (
                name.clone(),
                (!namespace.is_empty()).then(|| namespace.clone()),
            ),
            None => (name.to_string(), namespace.map(str::to_string)),
        }
    }

    /// Where an object came from, for messages.
    pub fn origin(&self, kind: &str, namespace: Option<&str>, name: &str) -> Option<&Origin> {
        self.origins.get(&(
            kind.to_string(),
            namespace.unwrap_or_default().to_string(),
            name.to_string(),
        ))
    }
}

/// The resource names of a CRD document.
fn crd_names(doc: &Value, origin: Origin) -> CrdNames {
    let names = &doc["spec"]["names"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let kind = text(&names["kind"]);
    let singular = match text(&names["singular"]) {
        s if s.is_empty() => kind.to_lowercase(),
        s => s,
    };
    CrdNames {
        group: text(&doc["spec"]["group"]),
        plural: text(&names["plural"]),
        singular,
        short_names: names["shortNames"]
            .as_array()
            .into_iter()
            .flatten()
            .map(text)
            .collect(),
        kind,
        namespaced: doc["spec"]["scope"] != "Cluster",
        origin,
    }
}

#[cfg(test)]
mod tests;
