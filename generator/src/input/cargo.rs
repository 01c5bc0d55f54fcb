//! Asking cargo: `cargo metadata`, for the workspace, its cache and the build's cfgs.

use crate::input::scan_error::ScanError;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// `cargo metadata` as JSON, with extra arguments (`--no-deps`, `--filter-platform`).
pub(crate) fn cargo_metadata(
    manifest_path: Option<&Path>,
    args: &[&str],
) -> Result<Value, ScanError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.args(["metadata", "--format-version", "1"]).args(args);
    if let Some(path) = manifest_path {
        cmd.arg("--manifest-path").arg(path);
    }
    let output = cmd.output().map_err(|source| ScanError::CargoNotRun {
        cargo: cargo.to_string_lossy().into_owned(),
        source,
    })?;
    if !output.status.success() {
        return Err(ScanError::CargoFailed {
            manifest_path: manifest_path.map(Path::to_path_buf),
            stderr: String::from_utf8_lossy(&output.stderr)
                .trim_end()
                .to_string(),
        });
    }
    serde_json::from_slice(&output.stdout).map_err(ScanError::InvalidJson)
}
