//! The project's record: `[workspace.metadata.kube-markers.scaffold]` in the workspace's
//! `Cargo.toml`, written by `init` (kubebuilder's `PROJECT` file); `create` reads it to know
//! that it stands in a project of ours, its domain and its operator crate.

use crate::Error;
use std::path::{Path, PathBuf};

/// What `init` recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The workspace's root.
    pub root: PathBuf,
    /// API groups are `<group>.<domain>`.
    pub domain: String,
    /// The operator crate (a member directory of the same name).
    pub operator: String,
}

impl Project {
    /// The operator crate's name in Rust code.
    pub fn ident(&self) -> String {
        crate::names::crate_ident(&self.operator)
    }

    /// Finds the project whose root is `dir` or one of its ancestors.
    pub fn find(dir: &Path) -> Result<Project, Error> {
        for candidate in dir.ancestors() {
            let manifest = candidate.join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let value: toml::Table = text.parse().map_err(|e| {
                Error::new(format!(
                    "{} is not valid TOML: {e}\nFix it, then run the command again.",
                    manifest.display()
                ))
            })?;
            let record = value
                .get("workspace")
                .and_then(|w| w.get("metadata"))
                .and_then(|m| m.get("kube-markers"))
                .and_then(|k| k.get("scaffold"));
            let Some(record) = record else {
                if value.contains_key("workspace") {
                    break;
                }
                continue;
            };
            let field = |key: &str| {
                record.get(key).and_then(|v| v.as_str()).map(str::to_string).ok_or_else(|| {
                    Error::new(format!(
                        "{}: [workspace.metadata.kube-markers.scaffold] has no `{key}` string.\n\
                         Put back the line `kube-markers init` wrote (`{key} = \"...\"`).",
                        manifest.display()
                    ))
                })
            };
            return Ok(Project {
                root: candidate.to_path_buf(),
                domain: field("domain")?,
                operator: field("operator")?,
            });
        }
        Err(Error::new(format!(
            "{} is not in a workspace made by `kube-markers init` (no Cargo.toml with \
             [workspace.metadata.kube-markers.scaffold] here or above).\nRun `kube-markers init \
             --domain example.com` in an empty directory first, or run this command inside such \
             a project.",
            dir.display()
        )))
    }
}

/// The record's lines, as `init` writes them into the workspace's `Cargo.toml`.
pub fn record(domain: &str, operator: &str) -> String {
    format!(
        "# Written by `kube-markers init`; `kube-markers create` reads it (kubebuilder's PROJECT).\n\
         [workspace.metadata.kube-markers.scaffold]\n\
         domain = \"{domain}\"\n\
         operator = \"{operator}\"\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_from_a_member_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            format!(
                "[workspace]\nmembers = []\n\n{}",
                record("example.com", "my-op")
            ),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("my-op/src")).unwrap();
        let p = Project::find(&dir.path().join("my-op/src")).unwrap();
        assert_eq!(p.root, dir.path());
        assert_eq!(p.domain, "example.com");
        assert_eq!(p.ident(), "my_op");
    }

    #[test]
    fn a_workspace_not_of_ours_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        let e = Project::find(dir.path()).unwrap_err();
        assert!(
            e.message
                .contains("is not in a workspace made by `kube-markers init`")
        );
        assert!(
            e.message
                .contains("Run `kube-markers init --domain example.com`")
        );
    }
}
