//! Upgrade safety of CRD files: the CRDs a release installs compared with the ones they
//! replace, by `kube-markers-compat`. Both sides are read by the one reader of this crate (as
//! kubectl reads a file, [`crate::files::read_documents`]), so that the previous file is the
//! same CRD here as for [`crate::check_text`] and for the API server.

use crate::files;
use crate::kubectl_yaml::{self, Lines};
use kube_markers_compat::{Finding, Policy};
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// Whether a document is a CRD the API server serves (`apiextensions.k8s.io/v1`).
fn is_crd(doc: &Value) -> bool {
    doc["kind"] == "CustomResourceDefinition" && doc["apiVersion"] == "apiextensions.k8s.io/v1"
}

/// One CRD read from a file, with where its nodes are.
struct Read {
    crd: Value,
    lines: Lines,
    /// Its JSON pointer in its document (`/items/0` in a `List`).
    pointer: String,
}

/// The v1 CRDs of one file's text, each with where it is. Errs as [`crds_in_text`].
fn read_text(text: &str) -> Result<Vec<Read>, String> {
    let (docs, _) =
        kubectl_yaml::read_stream_located(text).map_err(|e| format!("not YAML: {e}"))?;
    let mut crds = Vec::new();
    for (doc, lines) in &docs {
        for (pointer, object) in files::objects_at(doc) {
            if !is_crd(object) {
                continue;
            }
            if let Some(error) = crate::decode::decode(object).type_error {
                return Err(format!(
                    "{}: cannot be decoded as the API server decodes a CRD: {error}",
                    object["metadata"]["name"].as_str().unwrap_or("a CRD")
                ));
            }
            crds.push(Read {
                crd: object.clone(),
                lines: lines.clone(),
                pointer,
            });
        }
    }
    Ok(crds)
}

/// The v1 CRDs of one file's text (a `List`'s items too), read as kubectl reads it. Errs
/// (with why, not naming the file) when it is not YAML, or a CRD in it cannot be decoded as
/// the API server decodes a CRD: its fields are not what they say, and it cannot be compared.
pub fn crds_in_text(text: &str) -> Result<Vec<Value>, String> {
    kube_markers_cel::on_large_stack(|| read_text(text))
        .map(|crds| crds.into_iter().map(|r| r.crd).collect())
}

/// [`crds_in_text`] of a file, its bytes decoded as kubectl decodes them.
pub fn crds_in_file(path: &Path) -> Result<Vec<Value>, String> {
    let (text, _) = files::read_text(path).map_err(|e| format!("cannot read it: {e}"))?;
    crds_in_text(&text)
}

/// The CRDs of the files under `paths`, each with its file.
fn read_paths(paths: &[PathBuf]) -> Result<Vec<(String, Read)>, String> {
    let mut crds = Vec::new();
    for (path, named) in files::collect(paths)? {
        let file = path.display().to_string();
        let found = files::read_text(&path)
            .map_err(|e| format!("cannot read it: {e}"))
            .and_then(|(text, _)| kube_markers_cel::on_large_stack(|| read_text(&text)))
            .map_err(|e| format!("{file}: {e}"))?;
        if named && found.is_empty() {
            return Err(format!(
                "{file}: no apiextensions.k8s.io/v1 CustomResourceDefinition in it"
            ));
        }
        crds.extend(found.into_iter().map(|r| (file.clone(), r)));
    }
    Ok(crds)
}

/// Every CRD of the files under `paths`, as `check-crds` finds files ([`files::collect`]): a
/// file given by name without one is an error, files found in a directory without one are
/// skipped. Each error names its file.
pub fn read_crds(paths: &[PathBuf]) -> Result<Vec<Value>, String> {
    Ok(read_paths(paths)?.into_iter().map(|(_, r)| r.crd).collect())
}

/// A finding of the comparison, with the file and line of the node it is about: in the new
/// CRD, or in the previous one for a CRD or version no longer there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Change {
    pub finding: Finding,
    /// The file, as it was named.
    pub file: String,
    /// The 1-based line of the changed node (of the version when the node is not there any
    /// more; of the CRD's name when the change is about the CRD as a whole, or its version is
    /// gone from both files).
    pub line: usize,
    /// The 1-based column of its key (or list item), in characters; none where the line is
    /// the document's first, or the CRD was not found (`file` is then empty).
    pub column: Option<usize>,
}

impl Change {
    /// `finding` placed nowhere: its CRD is in none of the files.
    pub fn unplaced(finding: Finding) -> Change {
        Change {
            finding,
            file: String::new(),
            line: 1,
            column: None,
        }
    }
}

/// `file:line: severity[check]: crd version path: message`.
impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.finding.line())
    }
}

/// The CRDs of the files `new` compared with those of `previous`, by `policy`, as
/// [`kube_markers_compat::compare_sets`] compares them: every finding, breaking or not (each
/// with its [`kube_markers_compat::Severity`]), with its file and line.
pub fn compare_files(
    previous: &[PathBuf],
    new: &[PathBuf],
    policy: &Policy,
) -> Result<Vec<Change>, String> {
    let (old, new) = (read_paths(previous)?, read_paths(new)?);
    let values = |set: &[(String, Read)]| set.iter().map(|(_, r)| r.crd.clone()).collect();
    let (old_values, new_values): (Vec<Value>, Vec<Value>) = (values(&old), values(&new));
    let findings =
        kube_markers_compat::compare_sets(&old_values, &new_values, policy).map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        })?;
    Ok(findings
        .into_iter()
        .map(|finding| locate(finding, &new, &old))
        .collect())
}

/// Where each of `findings` (of a comparison made otherwise, with the cluster's CRDs say) is
/// in the files under `paths`, the new CRDs: as [`compare_files`] places its findings, with
/// no previous files to fall back on.
pub fn locate_in(findings: Vec<Finding>, paths: &[PathBuf]) -> Result<Vec<Change>, String> {
    let new = read_paths(paths)?;
    Ok(findings
        .into_iter()
        .map(|finding| locate(finding, &new, &[]))
        .collect())
}

/// Where `finding` is: its version and node in the new CRD of its name if they are there,
/// else in the previous one; the CRD's name for what is about the CRD as a whole.
fn locate(finding: Finding, new: &[(String, Read)], old: &[(String, Read)]) -> Change {
    let version = finding.version.rsplit(" -> ").next().unwrap_or_default();
    let Some((file, read)) = find(new, &finding.crd, Some(version))
        .or_else(|| find(old, &finding.crd, Some(version)))
        .or_else(|| find(new, &finding.crd, None))
        .or_else(|| find(old, &finding.crd, None))
    else {
        return Change::unplaced(finding);
    };
    let mut pointer = read.pointer.clone();
    let versions = read.crd["spec"]["versions"].as_array();
    if let Some(i) = versions
        .into_iter()
        .flatten()
        .position(|v| v["name"] == version)
    {
        pointer.push_str(&format!("/spec/versions/{i}"));
        let schema = &read.crd["spec"]["versions"][i]["schema"]["openAPIV3Schema"];
        match finding.path.strip_prefix('^') {
            Some(path) => {
                pointer.push_str("/schema/openAPIV3Schema");
                pointer.push_str(&crate::located::schema_pointer(schema, path));
            }
            // The version as a whole: where it is named.
            None => pointer.push_str("/name"),
        }
    } else {
        pointer.push_str("/metadata/name");
    }
    let (line, column) = read.lines.place(&pointer);
    Change {
        line,
        column,
        file: file.clone(),
        finding,
    }
}

/// The CRD named `name` in `set`, with `version` if given.
fn find<'a>(
    set: &'a [(String, Read)],
    name: &str,
    version: Option<&str>,
) -> Option<&'a (String, Read)> {
    set.iter().find(|(_, r)| {
        r.crd["metadata"]["name"] == name
            && version.is_none_or(|version| {
                r.crd["spec"]["versions"]
                    .as_array()
                    .is_some_and(|vs| vs.iter().any(|v| v["name"] == version))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(size: &str) -> String {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
             metadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  \
             names: {{plural: widgets, kind: Widget}}\n  scope: Namespaced\n  versions:\n  \
             - name: v1\n    served: true\n    storage: true\n    schema:\n      \
             openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            \
             type: object\n            properties:\n              size:\n                {size}\n"
        )
    }

    /// Each change names the new file and the line of the node changed; `0x10` is 16, as
    /// kubectl reads it.
    #[test]
    fn a_change_is_placed_at_its_node_in_the_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new) = (dir.path().join("old.yaml"), dir.path().join("new.yaml"));
        std::fs::write(&old, crd("{type: integer, maximum: 0x10}")).unwrap();
        std::fs::write(&new, crd("{type: integer, maximum: 15}")).unwrap();
        let changes = compare_files(
            std::slice::from_ref(&old),
            std::slice::from_ref(&new),
            &Policy::default(),
        )
        .unwrap();
        assert_eq!(changes.len(), 1, "{changes:?}");
        let change = &changes[0];
        assert_eq!(change.finding.old.as_deref(), Some("16"));
        assert_eq!(
            (change.file.as_str(), change.line, change.column),
            (new.to_str().unwrap(), 19, Some(15))
        );
        assert!(
            change
                .to_string()
                .starts_with(&format!("{}:19: ", new.display())),
            "{change}"
        );
        std::fs::write(&new, crd("{type: integer, maximum: 16}")).unwrap();
        let same = compare_files(
            std::slice::from_ref(&old),
            std::slice::from_ref(&new),
            &Policy::default(),
        )
        .unwrap();
        assert_eq!(same, []);
        // A change of the CRD as a whole is placed at its name; so are the findings of a
        // comparison made otherwise (`locate_in`), and one of a CRD the files lack is placed
        // nowhere.
        std::fs::write(
            &new,
            crd("{type: integer, maximum: 16}").replace("scope: Namespaced", "scope: Cluster"),
        )
        .unwrap();
        let scope = compare_files(&[old], std::slice::from_ref(&new), &Policy::default()).unwrap();
        assert_eq!(scope.len(), 1, "{scope:?}");
        assert_eq!((scope[0].line, scope[0].column), (3, Some(12)));
        let finding = scope[0].finding.clone();
        let placed = locate_in(vec![finding.clone()], std::slice::from_ref(&new)).unwrap();
        assert_eq!(placed, scope);
        let elsewhere = dir.path().join("other.yaml");
        std::fs::write(
            &elsewhere,
            crd("{}").replace("widgets.example.com", "x.example.com"),
        )
        .unwrap();
        let nowhere = locate_in(vec![finding], &[elsewhere]).unwrap();
        assert_eq!((nowhere[0].file.as_str(), nowhere[0].column), ("", None));
    }
}
