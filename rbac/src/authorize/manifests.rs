//! Reading RBAC objects and ServiceAccounts from multi-document YAML files, remembering where
//! each came from so that answers can name it: what `codegen can-i --from` and
//! `kube_markers::audit` evaluate (features `codegen` or `audit`).

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
    /// How many YAML files were read.
    pub files: usize,
}

const RBAC_API: &str = "rbac.authorization.k8s.io/v1";

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

/// The `namespace:` of a kustomization at the root of `dir`: what `kubectl apply -k` gives the
/// objects that name none.
fn kustomize_namespace(dir: &Path, errors: &mut Vec<ManifestProblem>) -> Option<String> {
    for name in ["kustomization.yaml", "kustomization.yml", "Kustomization"] {
        let path = dir.join(name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        match serde_saphyr::from_str::<Value>(&text) {
            Ok(doc) => return doc["namespace"].as_str().map(str::to_string),
            Err(error) => errors.push(ManifestProblem::NotYaml { path, error }),
        }
    }
    None
}

/// Reads every RBAC object and ServiceAccount under `path`. Other objects (CRDs, Deployments,
/// the kustomization) are skipped. All problems are reported together.
pub fn load(path: &Path) -> Result<Manifests, Vec<ManifestProblem>> {
    let files = yaml_files(path).map_err(|e| vec![e])?;
    let mut errors = Vec::new();
    let default_namespace = if path.is_dir() {
        kustomize_namespace(path, &mut errors)
    } else {
        None
    };
    let mut out = Manifests {
        files: files.len(),
        ..Manifests::default()
    };
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(error) => {
                errors.push(ManifestProblem::Read {
                    path: file.clone(),
                    from: false,
                    error,
                });
                continue;
            }
        };
        let docs: Vec<Value> = match serde_saphyr::from_multiple(&text) {
            Ok(docs) => docs,
            Err(error) => {
                errors.push(ManifestProblem::NotYaml {
                    path: file.clone(),
                    error,
                });
                continue;
            }
        };
        for (i, doc) in docs.into_iter().enumerate() {
            let origin = Origin {
                file: file.clone(),
                document: i + 1,
            };
            out.add(doc, &origin, default_namespace.as_deref(), &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

impl Manifests {
    fn add(
        &mut self,
        mut doc: Value,
        origin: &Origin,
        default_namespace: Option<&str>,
        errors: &mut Vec<ManifestProblem>,
    ) {
        let api_version = doc["apiVersion"].as_str().unwrap_or_default().to_string();
        let kind = doc["kind"].as_str().unwrap_or_default().to_string();
        if api_version == "v1" && kind == "List" {
            for item in doc["items"].as_array().cloned().unwrap_or_default() {
                self.add(item, origin, default_namespace, errors);
            }
            return;
        }
        let namespaced = match (api_version.as_str(), kind.as_str()) {
            (RBAC_API, "Role" | "RoleBinding") | ("v1", "ServiceAccount") => true,
            (RBAC_API, "ClusterRole" | "ClusterRoleBinding") => false,
            _ => return,
        };
        let name = doc["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if name.is_empty() {
            errors.push(ManifestProblem::NoName {
                kind,
                origin: origin.clone(),
            });
            return;
        }
        let mut namespace = String::new();
        if namespaced {
            namespace = match (doc["metadata"]["namespace"].as_str(), default_namespace) {
                (Some(ns), _) if !ns.is_empty() => ns.to_string(),
                (_, Some(ns)) => {
                    doc["metadata"]["namespace"] = Value::String(ns.to_string());
                    ns.to_string()
                }
                _ => {
                    errors.push(ManifestProblem::NoNamespace {
                        kind,
                        name,
                        origin: origin.clone(),
                    });
                    return;
                }
            };
        }
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
        self.origins.insert(key, origin.clone());
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

    /// Where an object came from, for messages.
    pub fn origin(&self, kind: &str, namespace: Option<&str>, name: &str) -> Option<&Origin> {
        self.origins.get(&(
            kind.to_string(),
            namespace.unwrap_or_default().to_string(),
            name.to_string(),
        ))
    }
}
