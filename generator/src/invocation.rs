//! Who this generator is and how the user runs it: its package, binary and package directory,
//! as the `kube_markers::link!` in its `main.rs` recorded them at compile time. The package
//! names the generator's ledgers and finds its `[package.metadata.kube-markers.bundle]`,
//! whatever the binary is called or wherever it runs from; advice names `cargo run -p
//! <package>` (an `xtask`, a `gen` binary), not this repository's `codegen`.

use std::path::{Path, PathBuf};

/// The running generator, as its user declared and invokes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The package whose binary this is, when `link!` recorded it.
    pub package: Option<String>,
    /// The binary's name: `link!`'s, else the executable's file name (for messages only).
    pub bin: String,
    /// The package's directory when it was built (`CARGO_MANIFEST_DIR` at `link!`), when
    /// `link!` recorded it: what tells this generator from another workspace's package of the
    /// same name.
    pub package_dir: Option<PathBuf>,
}

/// Where the generator's package stands in the workspace a run scans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PackageInWorkspace {
    /// No `link!` recorded the package: nothing to look for.
    Unknown,
    /// A member, at the generator's own directory.
    Member,
    /// A member of the same name at another directory: this is another workspace's generator
    /// (a shared target directory, a binary run from elsewhere).
    Another {
        /// That member's `Cargo.toml`.
        theirs: PathBuf,
        /// The `Cargo.toml` this generator was built from.
        ours: PathBuf,
        /// The workspace's `Cargo.toml`.
        workspace: PathBuf,
    },
    /// Not a member: the generator lives outside the workspace it scans.
    Outside {
        /// The `Cargo.toml` this generator was built from.
        ours: PathBuf,
        /// The workspace's `Cargo.toml`.
        workspace: PathBuf,
    },
}

/// The generator's executable: this process's, or the light generator's whose registry the
/// installed command loaded (`kube_markers_registry::export::binary`).
pub(crate) fn executable() -> Option<PathBuf> {
    match kube_markers_registry::export::binary() {
        Some(binary) => Some(binary.to_path_buf()),
        None => std::env::current_exe().ok(),
    }
}

/// The executable's file name, without what Linux appends to the path of a file replaced
/// while it runs (`codegen (deleted)`): for messages only, never an identity.
fn executable_name() -> Option<String> {
    let exe = executable()?;
    let name = exe.file_name()?.to_str()?;
    let name = name.strip_suffix(" (deleted)").unwrap_or(name);
    let stem = Path::new(name).file_stem()?.to_str()?;
    Some(stem.to_string())
}

impl Invocation {
    /// This process: the registry's record of its `link!`, else its executable's name.
    pub fn current() -> Invocation {
        match kube_markers_registry::generator() {
            Some(record) => Invocation {
                package: Some(record.package.to_string()),
                bin: record
                    .bin
                    .map(str::to_string)
                    .or_else(executable_name)
                    .unwrap_or_else(|| record.package.to_string()),
                package_dir: Some(PathBuf::from(record.manifest_dir)),
            },
            None => Invocation {
                package: None,
                bin: executable_name().unwrap_or_else(|| "codegen".to_string()),
                package_dir: None,
            },
        }
    }

    /// The binary `bin` of the package of the same name.
    pub fn cargo(package: &str) -> Invocation {
        Invocation {
            package: Some(package.to_string()),
            bin: package.to_string(),
            package_dir: None,
        }
    }

    /// The ledgers' generator name: the package's, else `kube-markers` (a generator without
    /// `link!` links no attributes, and has nothing to write).
    pub fn generator_name(&self) -> String {
        self.package
            .clone()
            .unwrap_or_else(|| "kube-markers".to_string())
    }

    /// Where the generator's package stands in the workspace `metadata` describes.
    pub(crate) fn in_workspace(&self, metadata: &cargo_metadata::Metadata) -> PackageInWorkspace {
        let (Some(package), Some(dir)) = (&self.package, &self.package_dir) else {
            return PackageInWorkspace::Unknown;
        };
        let ours = dir.join("Cargo.toml");
        let workspace = metadata.workspace_root.as_std_path().join("Cargo.toml");
        let same = |a: &Path, b: &Path| {
            a == b
                || matches!(
                    (std::fs::canonicalize(a), std::fs::canonicalize(b)),
                    (Ok(a), Ok(b)) if a == b
                )
        };
        let named: Vec<&Path> = metadata
            .packages
            .iter()
            .filter(|p| p.name.as_str() == package)
            .map(|p| p.manifest_path.as_std_path())
            .collect();
        if named.iter().any(|m| same(m, &ours)) {
            PackageInWorkspace::Member
        } else if let Some(theirs) = named.first() {
            PackageInWorkspace::Another {
                theirs: theirs.to_path_buf(),
                ours,
                workspace,
            }
        } else {
            PackageInWorkspace::Outside { ours, workspace }
        }
    }

    /// The command that rebuilds and runs it: `cargo run -p <package>` (with `--bin` when the
    /// binary is named otherwise), or the binary itself when its package is unknown.
    pub fn rerun(&self) -> String {
        match &self.package {
            Some(package) if *package == self.bin => format!("cargo run -p {package}"),
            Some(package) => format!("cargo run -p {package} --bin {}", self.bin),
            None => self.bin.clone(),
        }
    }

    /// The command that runs it with `args` (`cargo run -p codegen -- --check`).
    pub fn rerun_with(&self, args: &str) -> String {
        match &self.package {
            Some(_) => format!("{} -- {args}", self.rerun()),
            None => format!("{} {args}", self.bin),
        }
    }
}

impl Default for Invocation {
    fn default() -> Self {
        Invocation::current()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_names_the_package_and_binary() {
        assert_eq!(Invocation::cargo("codegen").rerun(), "cargo run -p codegen");
        let xtask = Invocation {
            package: Some("xtask".into()),
            bin: "gen".into(),
            package_dir: None,
        };
        assert_eq!(xtask.rerun(), "cargo run -p xtask --bin gen");
        assert_eq!(
            xtask.rerun_with("--check"),
            "cargo run -p xtask --bin gen -- --check"
        );
        let bare = Invocation {
            package: None,
            bin: "gen".into(),
            package_dir: None,
        };
        assert_eq!(bare.rerun_with("--check"), "gen --check");
        // This test binary links no `link!`: it is named by its file.
        assert_eq!(Invocation::current().package, None);
    }
}
