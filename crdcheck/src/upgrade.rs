//! Upgrade safety of CRD files: the CRDs a release installs compared with the ones they
//! replace, by `kube-markers-compat`. Both sides are read by the one reader of this crate (as
//! kubectl reads a file, [`crate::files::read_documents`]), so that the previous file is the
//! same CRD here as for [`crate::check_text`] and for the API server.

use crate::files;
use kube_markers_compat::{Finding, Policy};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Whether a document is a CRD the API server serves (`apiextensions.k8s.io/v1`).
fn is_crd(doc: &Value) -> bool {
    doc["kind"] == "CustomResourceDefinition" && doc["apiVersion"] == "apiextensions.k8s.io/v1"
}

/// The v1 CRDs of one file's text (a `List`'s items too), read as kubectl reads it. Errs
/// (with why, not naming the file) when it is not YAML, or a CRD in it cannot be decoded as
/// the API server decodes a CRD: its fields are not what they say, and it cannot be compared.
pub fn crds_in_text(text: &str) -> Result<Vec<Value>, String> {
    let (docs, _) = files::read_documents(text).map_err(|e| format!("not YAML: {e}"))?;
    let mut crds = Vec::new();
    for doc in &docs {
        crds.extend(
            files::objects(doc)
                .into_iter()
                .filter(|o| is_crd(o))
                .cloned(),
        );
    }
    for crd in &crds {
        if let Some(error) = crate::decode::decode(crd).type_error {
            return Err(format!(
                "{}: cannot be decoded as the API server decodes a CRD: {error}",
                crd["metadata"]["name"].as_str().unwrap_or("a CRD")
            ));
        }
    }
    Ok(crds)
}

/// [`crds_in_text`] of a file, its bytes decoded as kubectl decodes them.
pub fn crds_in_file(path: &Path) -> Result<Vec<Value>, String> {
    let (text, _) = files::read_text(path).map_err(|e| format!("cannot read it: {e}"))?;
    crds_in_text(&text)
}

/// Every CRD of the files under `paths`, as `check-crds` finds files ([`files::collect`]): a
/// file given by name without one is an error, files found in a directory without one are
/// skipped. Each error names its file.
pub fn read_crds(paths: &[PathBuf]) -> Result<Vec<Value>, String> {
    let mut crds = Vec::new();
    for (path, named) in files::collect(paths)? {
        let found = crds_in_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if named && found.is_empty() {
            return Err(format!(
                "{}: no apiextensions.k8s.io/v1 CustomResourceDefinition in it",
                path.display()
            ));
        }
        crds.extend(found);
    }
    Ok(crds)
}

/// The CRDs of the files `new` compared with those of `previous`, by `policy`, as
/// [`kube_markers_compat::compare_sets`] compares them: every finding, breaking or not (each
/// with its [`kube_markers_compat::Severity`]).
pub fn compare_files(
    previous: &[PathBuf],
    new: &[PathBuf],
    policy: &Policy,
) -> Result<Vec<Finding>, String> {
    let (old, new) = (read_crds(previous)?, read_crds(new)?);
    kube_markers_compat::compare_sets(&old, &new, policy).map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    })
}
