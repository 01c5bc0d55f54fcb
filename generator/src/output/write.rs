//! Writing and checking generated files: every destination is validated and every orphan
//! decided before the first byte is written ([`plan`]); then the files are staged next to
//! their destinations and renamed into place ([`apply`]), or compared ([`check`]).

use crate::output::ledger::{self, Ledger};
use crate::{Error, IoAction};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileStatus {
    /// Content already as generated: not touched.
    Unchanged,
    /// Written (created or replaced).
    Written,
    /// `--check`: the file differs; the unified diff from the file to the generated text.
    Stale(String),
    /// `--check`: the file does not exist.
    Missing,
    /// `--check`: a file this generator wrote and no longer generates; a run removes it.
    Orphaned(Orphan),
    /// Such a file, removed.
    Removed(Orphan),
}

/// Which kind of file this generator no longer generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Orphan {
    /// An output whose source is gone (a CRD whose type was removed, a role file under an
    /// earlier `--file-name`), unchanged since this generator wrote it, as its ledger proves.
    Output,
    /// This generator's ledger, in a directory it no longer writes anything to.
    Ledger,
}

/// Files of earlier runs left alone, and ledger lines that were ignored: never a reason to
/// stop, always said.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FileWarning {
    /// A line of this generator's ledger that is not `<sha256>  <file name>`.
    #[error(
        "{}: line {line}: {why}; ignored, so the file it names is not treated as written by \
         this generator",
        ledger.display()
    )]
    BadLedgerLine {
        /// The ledger.
        ledger: PathBuf,
        /// The line (1-based).
        line: usize,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A file this generator wrote and no longer generates, kept because it changed.
    #[error(
        "kept {}: generator `{generator}` wrote it and no longer generates it, but {}; it is \
         dropped from the ledger and never touched again (delete it yourself if nothing needs \
         it)",
        path.display(),
        if *not_a_file { "it is no longer a regular file" }
        else { "it was changed since (its SHA-256 is not the one in the ledger)" }
    )]
    KeptChanged {
        /// The file.
        path: PathBuf,
        /// The generator (`--generator-name`).
        generator: String,
        /// It is no longer a regular file (else: its content changed).
        not_a_file: bool,
    },
    /// A file with the version annotation that no ledger lists, met on the first run with a
    /// ledger in its directory.
    #[error(
        "left {} alone: it carries the {} annotation but is in no generator's ledger (this is \
         generator `{generator}`'s first run with a ledger here); delete it if it is an output \
         of an earlier version for a type that is gone",
        path.display(),
        kube_markers_registry::crd::VERSION_ANNOTATION
    )]
    Unledgered {
        /// The file.
        path: PathBuf,
        /// The generator (`--generator-name`).
        generator: String,
    },
}

/// Why an output cannot go where it is asked to. Found before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OutputProblem {
    /// A directory on the way to a destination directory is a file.
    #[error(
        "cannot write {what} to {} ({option}): {} is a file, not a directory",
        dir.display(),
        blocker.display()
    )]
    NotADirectory {
        /// The destination directory.
        dir: PathBuf,
        /// What would go there, for the message.
        what: String,
        /// The file standing where a directory must be.
        blocker: PathBuf,
        /// The option that names the directory.
        option: &'static str,
    },
    /// A directory stands where the output file goes.
    #[error("cannot write {what} to {}: it is a directory", output.display())]
    IsADirectory {
        /// The output.
        output: PathBuf,
        /// What it is.
        what: String,
    },
    /// Two outputs (or an output and the header file) on one path.
    #[error("{first} and {second} would both be at {}", path.display())]
    SamePath {
        /// The path.
        path: PathBuf,
        /// The first thing at it.
        first: String,
        /// The second.
        second: String,
    },
    /// Another generator's ledger lists this output: two generators writing one file undo
    /// each other's work.
    #[error(
        "{what} would overwrite {}, which generator `{generator}` wrote (its ledger {} lists it); \
         give one of the two generators another directory, or delete that ledger if generator \
         `{generator}` is gone",
        output.display(),
        ledger.display()
    )]
    WrittenByAnotherGenerator {
        /// The output.
        output: PathBuf,
        /// What it is.
        what: String,
        /// The other generator.
        generator: String,
        /// Its ledger.
        ledger: PathBuf,
    },
    /// A file this generator's ledger does not list stands where an output goes, with other
    /// content: hand-written, or another tool's.
    #[error(
        "{what} would overwrite {}, which this generator did not write (its ledger {} does not \
         list it): move that file away, or delete it if it is an old copy of this output",
        output.display(),
        ledger.display()
    )]
    NotWrittenByThisGenerator {
        /// The output.
        output: PathBuf,
        /// What it is.
        what: String,
        /// This generator's ledger in that directory.
        ledger: PathBuf,
    },
}

/// One file a run produces.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    /// Where it goes, as the options spell it (messages show this).
    pub(crate) path: PathBuf,
    /// Full text.
    pub(crate) content: String,
    /// What it is, for messages: `the RBAC manifest`, `the CRD memcacheds.cache.example.com`.
    pub(crate) what: String,
    /// The option that places it (`--out`, `--crd-out`), for messages.
    pub(crate) option: &'static str,
}

/// A directory the generator owns files in.
#[derive(Debug, Clone)]
pub(crate) struct Destination {
    /// As the options spell it.
    pub(crate) dir: PathBuf,
    /// The option that names it.
    pub(crate) option: &'static str,
}

/// A file to remove.
#[derive(Debug, Clone)]
struct Removal {
    path: PathBuf,
    kind: Orphan,
    /// For [`Orphan::Output`]: the hashes the ledger lists for it, checked again right before
    /// removing.
    hashes: BTreeSet<String>,
}

/// What became of a file this generator wrote and no longer generates.
enum OrphanState {
    /// Exactly what the ledger says was written: to remove.
    Unchanged,
    /// Changed since, or no longer a regular file: kept, with this warning.
    Kept(FileWarning),
    /// Already gone.
    Gone,
}

/// Everything a run will do, decided before anything is touched.
#[derive(Debug)]
pub(crate) struct Plan {
    outputs: Vec<Output>,
    removals: Vec<Removal>,
    /// Written last, so that a run that stops halfway still has the old ledger and finishes
    /// the removals next time.
    ledgers: Vec<Output>,
    /// Files kept although this generator no longer generates them, and other news.
    pub(crate) warnings: Vec<FileWarning>,
    generator: String,
}

fn io(action: IoAction, path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The same path for the same file however it is spelled: absolute, without `.` and `..`,
/// symbolic links resolved as far as the path exists.
fn identity(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut clean = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    let mut existing = clean.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        let (Some(name), Some(parent)) = (existing.file_name(), existing.parent()) else {
            break;
        };
        rest.push(name);
        existing = parent;
    }
    let mut key = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    key.extend(rest.iter().rev());
    key
}

fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The first thing on the way to `dir` (itself included) that exists but is not a directory.
fn blocker(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .find(|a| a.exists())
        .filter(|a| !a.is_dir())
        .map(Path::to_path_buf)
}

/// Another generator's ledger and what it lists.
struct Foreign {
    generator: String,
    ledger: PathBuf,
    files: Ledger,
}

/// Plans a run: validates every destination, reads this generator's ledger in each
/// destination directory to find what it wrote and no longer generates, and prepares the new
/// ledgers. Problems with the destinations are all reported together; nothing is touched.
pub(crate) fn plan(
    outputs: Vec<Output>,
    destinations: &[Destination],
    generator: &str,
    header_file: Option<&Path>,
) -> Result<Plan, Error> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();

    // Directories, each once however spelled, with the outputs that go there.
    let mut dirs: BTreeMap<PathBuf, (Destination, Vec<usize>)> = BTreeMap::new();
    for d in destinations {
        dirs.entry(identity(&d.dir))
            .or_insert_with(|| (d.clone(), Vec::new()));
    }
    for (i, o) in outputs.iter().enumerate() {
        let dir = parent_dir(&o.path);
        dirs.entry(identity(dir))
            .or_insert_with(|| {
                let destination = Destination {
                    dir: dir.to_path_buf(),
                    option: o.option,
                };
                (destination, Vec::new())
            })
            .1
            .push(i);
    }

    let mut ledgers = Vec::new();
    let mut removals = Vec::new();
    for (destination, in_dir) in dirs.values() {
        let dir = &destination.dir;
        if let Some(blocker) = blocker(dir) {
            let whats: Vec<&str> = in_dir.iter().map(|&i| outputs[i].what.as_str()).collect();
            problems.push(OutputProblem::NotADirectory {
                dir: dir.clone(),
                what: if whats.is_empty() {
                    "files".to_string()
                } else {
                    whats.join(", ")
                },
                blocker,
                option: destination.option,
            });
            continue;
        }
        for &i in in_dir {
            let o = &outputs[i];
            if o.path.is_dir() {
                problems.push(OutputProblem::IsADirectory {
                    output: o.path.clone(),
                    what: o.what.clone(),
                });
            }
        }

        let ledger_path = dir.join(ledger::file_name(generator));
        let ours = match std::fs::read_to_string(&ledger_path) {
            Ok(text) => {
                let (parsed, bad_lines) = Ledger::parse(&text);
                warnings.extend(bad_lines.into_iter().map(|(line, why)| {
                    FileWarning::BadLedgerLine {
                        ledger: ledger_path.clone(),
                        line,
                        why,
                    }
                }));
                Some(parsed)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io(IoAction::Read, &ledger_path)(e)),
        };
        let foreign = foreign_ledgers(dir, generator)?;
        let claimed_by = |name: &str| foreign.iter().find(|f| f.files.files.contains_key(name));

        let names: BTreeSet<&str> = in_dir
            .iter()
            .filter_map(|&i| outputs[i].path.file_name()?.to_str())
            .collect();
        for &i in in_dir {
            let o = &outputs[i];
            let name = o.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if let Some(other) = claimed_by(name) {
                problems.push(OutputProblem::WrittenByAnotherGenerator {
                    output: o.path.clone(),
                    what: o.what.clone(),
                    generator: other.generator.clone(),
                    ledger: other.ledger.clone(),
                });
            } else if let Some(ours) = &ours
                && !ours.files.contains_key(name)
                && o.path.is_file()
                && std::fs::read(&o.path).map_or(true, |old| old != o.content.as_bytes())
            {
                // With a ledger here, everything this generator wrote is listed: a file it
                // does not list is someone else's. (Without one, the first run adopts the
                // files of earlier versions; identical content is adopted too.)
                problems.push(OutputProblem::NotWrittenByThisGenerator {
                    output: o.path.clone(),
                    what: o.what.clone(),
                    ledger: ledger_path.clone(),
                });
            }
        }

        if let Some(ours) = &ours {
            for (name, hashes) in &ours.files {
                // Another generator's ledger listing it too makes it not ours alone: keep it.
                if names.contains(name.as_str()) || claimed_by(name).is_some() {
                    continue;
                }
                let path = dir.join(name);
                match orphan_state(&path, hashes, generator)? {
                    OrphanState::Unchanged => removals.push(Removal {
                        path,
                        kind: Orphan::Output,
                        hashes: hashes.clone(),
                    }),
                    OrphanState::Kept(warning) => warnings.push(warning),
                    OrphanState::Gone => {}
                }
            }
        } else {
            warnings.extend(unledgered_outputs_of_earlier_versions(
                dir, &names, &foreign, generator,
            ));
        }

        if !in_dir.is_empty() {
            let files = in_dir.iter().map(|&i| {
                let o = &outputs[i];
                let name = o.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                (name, o.content.as_str())
            });
            ledgers.push(Output {
                path: ledger_path,
                content: ledger::render(generator, files),
                what: format!("the ledger of generator `{generator}`"),
                option: destination.option,
            });
        } else if ours.is_some() {
            removals.push(Removal {
                path: ledger_path,
                kind: Orphan::Ledger,
                hashes: BTreeSet::new(),
            });
        }
    }

    // No two things on one path; the header file is read, never overwritten.
    let mut taken: BTreeMap<PathBuf, &str> = BTreeMap::new();
    if let Some(header) = header_file {
        taken.insert(identity(header), "the --header-file");
    }
    for o in outputs.iter().chain(&ledgers) {
        if let Some(first) = taken.insert(identity(&o.path), &o.what) {
            problems.push(OutputProblem::SamePath {
                path: o.path.clone(),
                first: first.to_string(),
                second: o.what.clone(),
            });
        }
    }

    if !problems.is_empty() {
        return Err(Error::Outputs(problems));
    }
    Ok(Plan {
        outputs,
        removals,
        ledgers,
        warnings,
        generator: generator.to_string(),
    })
}

/// The ledgers of other generators in `dir`.
fn foreign_ledgers(dir: &Path, generator: &str) -> Result<Vec<Foreign>, Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(IoAction::List, dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io(IoAction::List, dir))?;
        let file_name = entry.file_name();
        let Some(other) = file_name.to_str().and_then(ledger::generator_of) else {
            continue;
        };
        if other == generator {
            continue;
        }
        let path = entry.path();
        let text = std::fs::read_to_string(&path).map_err(io(IoAction::Read, &path))?;
        out.push(Foreign {
            generator: other.to_string(),
            files: Ledger::parse(&text).0,
            ledger: path,
        });
    }
    out.sort_by(|a, b| a.generator.cmp(&b.generator));
    Ok(out)
}

/// Whether a file our ledger lists (with `hashes`), and that we no longer generate, may be
/// removed.
fn orphan_state(
    path: &Path,
    hashes: &BTreeSet<String>,
    generator: &str,
) -> Result<OrphanState, Error> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(OrphanState::Gone),
        Err(e) => return Err(io(IoAction::Read, path)(e)),
    };
    let kept = |not_a_file| {
        OrphanState::Kept(FileWarning::KeptChanged {
            path: path.to_path_buf(),
            generator: generator.to_string(),
            not_a_file,
        })
    };
    if !metadata.is_file() {
        return Ok(kept(true));
    }
    let content = std::fs::read(path).map_err(io(IoAction::Read, path))?;
    Ok(if hashes.contains(&ledger::sha256_hex(&content)) {
        OrphanState::Unchanged
    } else {
        kept(false)
    })
}

/// Before this generator had a ledger in `dir`, it removed every YAML file carrying its
/// version annotation; now such a file is not provably its own. Say so once, on the run that
/// creates the ledger.
fn unledgered_outputs_of_earlier_versions(
    dir: &Path,
    outputs: &BTreeSet<&str>,
    foreign: &[Foreign],
    generator: &str,
) -> Vec<FileWarning> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let marker = format!("{}: ", kube_markers_registry::crd::VERSION_ANNOTATION);
    let mut found: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".yaml") && !outputs.contains(name.as_str()))
        .filter(|name| !foreign.iter().any(|f| f.files.files.contains_key(name)))
        .filter(|name| {
            std::fs::read_to_string(dir.join(name)).is_ok_and(|text| text.contains(&marker))
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|name| FileWarning::Unledgered {
            path: dir.join(name),
            generator: generator.to_string(),
        })
        .collect()
}

/// Compares every planned file with the disk; touches nothing.
pub(crate) fn check(plan: &Plan) -> Result<Vec<(PathBuf, FileStatus)>, Error> {
    let mut report = Vec::new();
    for o in &plan.outputs {
        report.push((o.path.clone(), check_file(&o.path, &o.content)?));
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
pub(crate) fn check_file(path: &Path, content: &str) -> Result<FileStatus, Error> {
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
        Err(e) => Err(io(IoAction::Read, path)(e)),
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
    pub(crate) fn stage(&mut self, path: &Path, content: &str) -> Result<(), Error> {
        let dir = parent_dir(path);
        let missing: Vec<PathBuf> = dir
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(dir).map_err(io(IoAction::CreateDirectory, dir))?;
        self.created_dirs.extend(missing.into_iter().rev());
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, content).map_err(io(IoAction::Write, &tmp))?;
        self.staged.push(Staged {
            tmp,
            path: path.to_path_buf(),
        });
        Ok(())
    }

    /// Renames the staged file for `path` into place.
    fn commit_one(&mut self, path: &Path) -> Result<(), Error> {
        let Some(i) = self.staged.iter().position(|s| s.path == path) else {
            return Ok(());
        };
        let staged = self.staged.remove(i);
        std::fs::rename(&staged.tmp, &staged.path).map_err(|e| {
            let _ = std::fs::remove_file(&staged.tmp);
            io(IoAction::Replace, &staged.path)(e)
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
) -> Result<Vec<(PathBuf, FileStatus)>, Error> {
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

    let mut report = Vec::new();
    for o in &plan.outputs {
        staging.commit_one(&o.path)?;
        report.push((o.path.clone(), statuses[&o.path].clone()));
    }
    for r in &plan.removals {
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
        std::fs::remove_file(&r.path).map_err(io(IoAction::Remove, &r.path))?;
        report.push((r.path.clone(), FileStatus::Removed(r.kind)));
    }
    for o in &plan.ledgers {
        staging.commit_one(&o.path)?;
        report.push((o.path.clone(), statuses[&o.path].clone()));
    }
    Ok(report)
}
