//! Writing and checking generated files.

use super::Error;
use std::path::Path;

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    /// Content already as generated: not touched.
    Unchanged,
    /// Written (created or replaced).
    Written,
    /// `--check`: the file differs; the unified diff from the file to the generated text.
    Stale(String),
    /// `--check`: the file does not exist.
    Missing,
    /// `--check`: a CRD file this generator wrote for a type that is gone.
    Orphaned,
    /// Such a file, removed.
    Removed,
}

/// Writes `content` to `path` atomically (temporary file + rename in the same directory),
/// leaving a file whose content is already right untouched.
pub fn write_file(path: &Path, content: &str) -> Result<FileStatus, Error> {
    if std::fs::read(path).is_ok_and(|old| old == content.as_bytes()) {
        return Ok(FileStatus::Unchanged);
    }
    let io = |what: &str, p: &Path, e: std::io::Error| {
        Error::Io(format!("cannot {what} {}: {e}", p.display()))
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| io("create directory", dir, e))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, content).map_err(|e| io("write", &tmp, e))?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io("replace", path, e));
    }
    Ok(FileStatus::Written)
}

/// Compares `path` with `content` without writing anything.
pub fn check_file(path: &Path, content: &str) -> Result<FileStatus, Error> {
    match std::fs::read(path) {
        Ok(old) if old == content.as_bytes() => Ok(FileStatus::Unchanged),
        Ok(old) => {
            let old = String::from_utf8_lossy(&old);
            let shown = path.display().to_string();
            let diff = similar::TextDiff::from_lines(old.as_ref(), content)
                .unified_diff()
                .context_radius(3)
                .header(
                    &format!("{shown} (on disk)"),
                    &format!("{shown} (generated)"),
                )
                .to_string();
            Ok(FileStatus::Stale(diff))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileStatus::Missing),
        Err(e) => Err(Error::Io(format!("cannot read {}: {e}", path.display()))),
    }
}
