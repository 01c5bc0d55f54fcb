//! Writing or checking the planned files: staged next to their destinations and renamed into
//! place (`apply`), or compared with what is on disk (`check`).

use crate::output::files::{FileStatus, FileWarning, IoAction, IoFailure, Orphan, Output};
use crate::output::plan::{OrphanState, Plan, orphan_state, parent_dir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Compares every planned file with the disk; touches nothing.
pub(crate) fn check(plan: &Plan) -> Result<Vec<(PathBuf, FileStatus)>, IoFailure> {
    let mut report = Vec::new();
    for o in &plan.outputs {
        let status = match check_file(&o.path, &o.content)? {
            FileStatus::Stale(diff) if plan.edited.contains_key(&o.path) => {
                FileStatus::Edited(diff)
            }
            status => status,
        };
        report.push((o.path.clone(), status));
    }
    for r in &plan.removals {
        report.push((r.path.clone(), FileStatus::Orphaned(r.kind)));
    }
    for o in &plan.ledgers {
        report.push((o.path.clone(), check_file(&o.path, &o.content)?));
    }
    Ok(report)
}

/// Compares `path` with `content` without writing anything.
pub(crate) fn check_file(path: &Path, content: &str) -> Result<FileStatus, IoFailure> {
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
        Err(e) => Err(IoFailure::of(IoAction::Read, path)(e)),
    }
}

/// A file written next to its destination, not yet renamed into place.
#[derive(Debug)]
pub(crate) struct Staged {
    tmp: PathBuf,
    path: PathBuf,
}

/// Files written to temporary names in their destination directories (created as needed).
/// Dropped, it removes the files not renamed into place yet, and the directories it created
/// that nothing was renamed into.
#[derive(Debug, Default)]
pub(crate) struct Staging {
    staged: Vec<Staged>,
    /// Outermost first.
    created_dirs: Vec<PathBuf>,
}

impl Staging {
    /// Writes `content` to a temporary file beside `path`.
    pub(crate) fn stage(&mut self, path: &Path, content: &str) -> Result<(), IoFailure> {
        let dir = parent_dir(path);
        let missing: Vec<PathBuf> = dir
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(dir).map_err(IoFailure::of(IoAction::CreateDirectory, dir))?;
        self.created_dirs.extend(missing.into_iter().rev());
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, content).map_err(IoFailure::of(IoAction::Write, &tmp))?;
        self.staged.push(Staged {
            tmp,
            path: path.to_path_buf(),
        });
        Ok(())
    }

    /// Renames the staged file for `path` into place.
    fn commit_one(&mut self, path: &Path) -> Result<(), IoFailure> {
        let Some(i) = self.staged.iter().position(|s| s.path == path) else {
            return Ok(());
        };
        let staged = self.staged.remove(i);
        std::fs::rename(&staged.tmp, &staged.path).map_err(|e| {
            let _ = std::fs::remove_file(&staged.tmp);
            IoFailure::of(IoAction::Replace, &staged.path)(e)
        })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for s in &self.staged {
            let _ = std::fs::remove_file(&s.tmp);
        }
        for dir in self.created_dirs.iter().rev() {
            // Only empty directories go: a file renamed into one keeps it.
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Carries out a plan: stages every changed file (a failure leaves the tree as it was), then
/// renames the outputs into place, removes the orphans, and renames the ledgers last. Files
/// found changed only at removal time are kept and added to `warnings`.
pub(crate) fn apply(
    plan: Plan,
    warnings: &mut Vec<FileWarning>,
) -> Result<Vec<(PathBuf, FileStatus)>, IoFailure> {
    let unchanged =
        |o: &Output| std::fs::read(&o.path).is_ok_and(|old| old == o.content.as_bytes());
    let mut staging = Staging::default();
    let mut statuses = BTreeMap::new();
    for o in plan.outputs.iter().chain(&plan.ledgers) {
        if unchanged(o) {
            statuses.insert(o.path.clone(), FileStatus::Unchanged);
        } else {
            staging.stage(&o.path, &o.content)?;
            statuses.insert(o.path.clone(), FileStatus::Written);
        }
    }
    // Edited outputs are copied aside before anything is replaced: nothing is lost, and a
    // failure here leaves every file as it was. (The plan chose the copies' names.)
    for (path, backup) in &plan.edited {
        if !backup.exists() {
            std::fs::copy(path, backup).map_err(IoFailure::of(IoAction::Write, backup))?;
        }
    }

    let mut report = Vec::new();
    for o in &plan.outputs {
        staging.commit_one(&o.path)?;
        report.push((o.path.clone(), statuses[&o.path].clone()));
    }
    let (renamed, removals): (Vec<_>, Vec<_>) = plan
        .removals
        .iter()
        .partition(|r| r.kind == Orphan::RenamedLedger);
    for r in removals {
        if r.kind == Orphan::Output {
            // Checked again: the file may have changed since the plan read it.
            match orphan_state(&r.path, &r.hashes, &plan.generator)? {
                OrphanState::Unchanged => {}
                OrphanState::Kept(warning) => {
                    warnings.push(warning);
                    continue;
                }
                OrphanState::Gone => continue,
            }
        }
        std::fs::remove_file(&r.path).map_err(IoFailure::of(IoAction::Remove, &r.path))?;
        report.push((r.path.clone(), FileStatus::Removed(r.kind)));
    }
    for o in &plan.ledgers {
        staging.commit_one(&o.path)?;
        report.push((o.path.clone(), statuses[&o.path].clone()));
    }
    // A ledger of an earlier name goes once the one that replaces it is in place.
    for r in renamed {
        std::fs::remove_file(&r.path).map_err(IoFailure::of(IoAction::Remove, &r.path))?;
        report.push((r.path.clone(), FileStatus::Removed(r.kind)));
    }
    Ok(report)
}
