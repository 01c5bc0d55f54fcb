//! Why the workspace could not be scanned: `cargo metadata` and the workspace's settings.

use std::path::PathBuf;

/// Why the workspace could not be scanned for attributes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScanError {
    /// `cargo` could not be started.
    #[error(
        "could not run `{cargo} metadata` to find the workspace to scan (run the generator with \
         `cargo run`, or pass --no-scan)"
    )]
    CargoNotRun {
        /// The cargo that was run (`$CARGO` or `cargo`).
        cargo: String,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// `cargo metadata` exited with an error.
    #[error("`cargo metadata` failed{}:\n{stderr}", manifest_path.as_ref().map(|p| format!(" for {}", p.display())).unwrap_or_default())]
    CargoFailed {
        /// `--manifest-path`, if one was given.
        manifest_path: Option<PathBuf>,
        /// What cargo printed.
        stderr: String,
    },
    /// `cargo metadata` printed something that is not its JSON.
    #[error("`cargo metadata` printed invalid JSON")]
    InvalidJson(#[source] serde_json::Error),
    /// `cargo metadata`'s JSON lacks a field every version prints.
    #[error("`cargo metadata` output has no {0}")]
    MissingField(&'static str),
    /// A `[workspace.metadata.kube-markers]` setting is not a list of strings.
    #[error(
        "[workspace.metadata.kube-markers] {key} in {}/Cargo.toml must be a list of strings, \
         found {found}", root.display()
    )]
    NotAStringList {
        /// The setting.
        key: &'static str,
        /// The workspace root.
        root: PathBuf,
        /// What it is instead.
        found: String,
    },
    /// `scan-exclude` names a package that is not a member.
    #[error(
        "[workspace.metadata.kube-markers] scan-exclude names `{name}`, which is not a member \
         of the workspace at {} (members: {})", root.display(), members.join(", ")
    )]
    UnknownExclude {
        /// The name given.
        name: String,
        /// The workspace root.
        root: PathBuf,
        /// The members there are.
        members: Vec<String>,
    },
}
