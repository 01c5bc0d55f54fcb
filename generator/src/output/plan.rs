//! Planning a run's writes: every destination validated and every orphan decided before the
//! first byte is written. Files this generator wrote (its ledger in each directory says which)
//! and no longer generates are removed only while unchanged; files it did not write are never
//! touched.

use crate::output::files::{
    Destination, FileWarning, IoAction, IoFailure, Orphan, Output, OutputError, OutputProblem,
};
use crate::output::ledger::{self, Ledger};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A file to remove.
#[derive(Debug, Clone)]
pub(super) struct Removal {
    pub(super) path: PathBuf,
    pub(super) kind: Orphan,
    /// For [`Orphan::Output`]: the hashes the ledger lists for it, checked again right before
    /// removing.
    pub(super) hashes: BTreeSet<String>,
}

/// What became of a file this generator wrote and no longer generates.
pub(super) enum OrphanState {
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
    pub(super) outputs: Vec<Output>,
    pub(super) removals: Vec<Removal>,
    /// Written last, so that a run that stops halfway still has the old ledger and finishes
    /// the removals next time.
    pub(super) ledgers: Vec<Output>,
    /// Files kept although this generator no longer generates them, and other news.
    pub(crate) warnings: Vec<FileWarning>,
    pub(super) generator: String,
    /// Outputs (as spelled) whose file on disk is not what this generator wrote there, as its
    /// ledger proves: edited by hand. Each with where a run keeps the edited file.
    pub(super) edited: BTreeMap<PathBuf, PathBuf>,
}

/// The same path for the same file however it is spelled: absolute, without `.` and `..`,
/// symbolic links resolved as far as the path exists.
fn identity(path: &Path) -> PathBuf {
    let clean = ledger::lexical_absolute(path);
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

pub(super) fn parent_dir(path: &Path) -> &Path {
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

/// Plans writing `outputs`: each directory once however spelled (the `destinations`, kept tidy
/// even when nothing goes there any more, and every output's), its ledger read, the outputs
/// checked against what is there, the orphans decided. Every problem is reported together,
/// and nothing is touched.
pub(crate) fn plan(
    outputs: Vec<Output>,
    destinations: &[Destination],
    owner: &ledger::Owner,
    header_file: Option<&Path>,
) -> Result<Plan, OutputError> {
    let generator = owner.name.as_str();
    let mut planning = Planning {
        outputs: &outputs,
        generator,
        owner,
        problems: Vec::new(),
        warnings: Vec::new(),
        ledgers: Vec::new(),
        removals: Vec::new(),
        edited: BTreeMap::new(),
    };
    for (destination, in_dir) in directories(&outputs, destinations).values() {
        planning.directory(destination, in_dir)?;
    }
    let Planning {
        mut problems,
        warnings,
        ledgers,
        removals,
        edited,
        ..
    } = planning;
    problems.extend(same_paths(&outputs, &ledgers, header_file));
    if !problems.is_empty() {
        return Err(OutputError::Outputs(problems));
    }
    Ok(Plan {
        outputs,
        removals,
        ledgers,
        warnings,
        generator: generator.to_string(),
        edited,
    })
}

/// Directories, each once however spelled, with the outputs that go there (by index).
fn directories(
    outputs: &[Output],
    destinations: &[Destination],
) -> BTreeMap<PathBuf, (Destination, Vec<usize>)> {
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
    dirs
}

/// No two things on one path; the header file is read, never overwritten.
fn same_paths(
    outputs: &[Output],
    ledgers: &[Output],
    header_file: Option<&Path>,
) -> Vec<OutputProblem> {
    let mut problems = Vec::new();
    let mut taken: BTreeMap<PathBuf, &str> = BTreeMap::new();
    if let Some(header) = header_file {
        taken.insert(identity(header), "the --header-file");
    }
    for o in outputs.iter().chain(ledgers) {
        if let Some(first) = taken.insert(identity(&o.path), &o.what) {
            problems.push(OutputProblem::SamePath {
                path: o.path.clone(),
                first: first.to_string(),
                second: o.what.clone(),
            });
        }
    }
    problems
}

/// A plan as it is made, directory by directory.
struct Planning<'a> {
    outputs: &'a [Output],
    generator: &'a str,
    owner: &'a ledger::Owner,
    problems: Vec<OutputProblem>,
    warnings: Vec<FileWarning>,
    ledgers: Vec<Output>,
    removals: Vec<Removal>,
    edited: BTreeMap<PathBuf, PathBuf>,
}

impl Planning<'_> {
    /// One directory and the outputs that go there (`in_dir`, indices into the outputs).
    fn directory(
        &mut self,
        destination: &Destination,
        in_dir: &[usize],
    ) -> Result<(), OutputError> {
        let dir = &destination.dir;
        if let Some(blocker) = blocker(dir) {
            let whats: Vec<&str> = in_dir
                .iter()
                .map(|&i| self.outputs[i].what.as_str())
                .collect();
            self.problems.push(OutputProblem::NotADirectory {
                dir: dir.clone(),
                what: if whats.is_empty() {
                    "files".to_string()
                } else {
                    whats.join(", ")
                },
                blocker,
                option: destination.option,
            });
            return Ok(());
        }
        for &i in in_dir {
            let o = &self.outputs[i];
            if o.path.is_dir() {
                self.problems.push(OutputProblem::IsADirectory {
                    output: o.path.clone(),
                    what: o.what.clone(),
                });
            }
        }
        let ledger_path = dir.join(ledger::file_name(self.generator));
        let (ours, adopted) = self.own_ledger(dir, &ledger_path)?;
        let package = match self.package_spelling(dir, ours.as_ref()) {
            Ok(package) => package,
            Err((theirs, ours)) => {
                self.problems.push(OutputProblem::AnotherGeneratorsLedger {
                    dir: dir.to_path_buf(),
                    ledger: adopted.unwrap_or(ledger_path),
                    generator: self.generator.to_string(),
                    theirs,
                    ours,
                });
                return Ok(());
            }
        };
        let adopted_name = adopted
            .as_ref()
            .and_then(|p| p.file_name()?.to_str().map(str::to_string));
        let foreign = foreign_ledgers(dir, self.generator, adopted_name.as_deref())?;
        self.owners(in_dir, ours.as_ref(), &foreign, &ledger_path);
        let names: BTreeSet<&str> = in_dir
            .iter()
            .filter_map(|&i| self.outputs[i].path.file_name()?.to_str())
            .collect();
        if let Some(ours) = &ours {
            self.edited_by_hand(in_dir, ours)?;
        }
        match &ours {
            Some(ours) => self.orphans(dir, ours, &names, &foreign)?,
            None => self.warnings.extend(unledgered_outputs_of_earlier_versions(
                dir,
                &names,
                &foreign,
                self.generator,
            )),
        }
        if !in_dir.is_empty() {
            let files = in_dir.iter().map(|&i| {
                let o = &self.outputs[i];
                let name = o.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                (name, o.content.as_str())
            });
            self.ledgers.push(Output {
                path: ledger_path,
                content: ledger::render(self.generator, package.as_deref(), files),
                what: format!("the ledger of generator `{}`", self.generator),
                option: destination.option,
            });
            if let Some(earlier) = adopted {
                self.removals.push(Removal {
                    path: earlier,
                    kind: Orphan::RenamedLedger,
                    hashes: BTreeSet::new(),
                });
            }
        } else if ours.is_some() {
            self.removals.push(Removal {
                path: adopted.unwrap_or(ledger_path),
                kind: Orphan::Ledger,
                hashes: BTreeSet::new(),
            });
        }
        Ok(())
    }

    /// This generator's ledger in `dir`: under its name, else (written by an earlier version,
    /// which named it after the binary) under an earlier name, then adopted, with its path.
    fn own_ledger(
        &mut self,
        dir: &Path,
        ledger_path: &Path,
    ) -> Result<(Option<Ledger>, Option<PathBuf>), OutputError> {
        if let Some(ours) = self.read_ledger(ledger_path)? {
            return Ok((Some(ours), None));
        }
        for earlier in &self.owner.earlier_names {
            let path = dir.join(ledger::file_name(earlier));
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            // A ledger that names its package is of a generator of that name now.
            if Ledger::parse(&text).0.package.is_none() {
                return Ok((self.read_ledger(&path)?, Some(path)));
            }
        }
        Ok((None, None))
    }

    /// How this run's ledger in `dir` names the generator's package: as `ours` spells it when
    /// that is this generator's package (so that a clone, or a copy beside a link to the
    /// package, keeps its text), else from `dir`. Refused, with (the package directory `ours`
    /// names, this generator's), when `ours` names another package that is there: another
    /// workspace's generator of this name wrote it.
    fn package_spelling(
        &self,
        dir: &Path,
        ours: Option<&Ledger>,
    ) -> Result<Option<String>, (PathBuf, PathBuf)> {
        let Some(package_dir) = &self.owner.package_dir else {
            return Ok(None);
        };
        if let Some(recorded) = ours.and_then(|l| l.package.as_deref()) {
            let theirs = dir.join(recorded);
            if ledger::same_dir(&theirs, package_dir) {
                return Ok(Some(recorded.to_string()));
            }
            // A package directory that is gone (the package moved, or this is a copy): the
            // ledger has no other generator to belong to.
            if theirs.join("Cargo.toml").is_file() {
                return Err((ledger::lexical_absolute(&theirs), package_dir.clone()));
            }
        }
        Ok(Some(ledger::relative_path(dir, package_dir)))
    }

    /// This generator's ledger in the directory, if it has one; its bad lines are warnings.
    fn read_ledger(&mut self, ledger_path: &Path) -> Result<Option<Ledger>, OutputError> {
        match std::fs::read_to_string(ledger_path) {
            Ok(text) => {
                let (parsed, bad_lines) = Ledger::parse(&text);
                self.warnings
                    .extend(
                        bad_lines
                            .into_iter()
                            .map(|(line, why)| FileWarning::BadLedgerLine {
                                ledger: ledger_path.to_path_buf(),
                                line,
                                why,
                            }),
                    );
                Ok(Some(parsed))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(IoFailure::of(IoAction::Read, ledger_path)(e).into()),
        }
    }

    /// Outputs that would overwrite a file another generator wrote, or (with a ledger here) one
    /// this generator did not write.
    fn owners(
        &mut self,
        in_dir: &[usize],
        ours: Option<&Ledger>,
        foreign: &[Foreign],
        ledger_path: &Path,
    ) {
        let claimed_by = |name: &str| foreign.iter().find(|f| f.files.files.contains_key(name));
        for &i in in_dir {
            let o = &self.outputs[i];
            let name = o.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if let Some(other) = claimed_by(name) {
                self.problems
                    .push(OutputProblem::WrittenByAnotherGenerator {
                        output: o.path.clone(),
                        what: o.what.clone(),
                        generator: other.generator.clone(),
                        ledger: other.ledger.clone(),
                    });
            } else if let Some(ours) = ours
                && !ours.files.contains_key(name)
                && o.path.is_file()
                && std::fs::read(&o.path).map_or(true, |old| old != o.content.as_bytes())
            {
                // With a ledger here, everything this generator wrote is listed: a file it
                // does not list is someone else's. (Without one, the first run adopts the
                // files of earlier versions; identical content is adopted too.)
                self.problems
                    .push(OutputProblem::NotWrittenByThisGenerator {
                        output: o.path.clone(),
                        what: o.what.clone(),
                        ledger: ledger_path.to_path_buf(),
                    });
            }
        }
    }

    /// Outputs whose file is listed in the ledger but holds something this generator never
    /// wrote there, nor generates now: a person's edit, which a run must not replace silently.
    fn edited_by_hand(&mut self, in_dir: &[usize], ours: &Ledger) -> Result<(), OutputError> {
        for &i in in_dir {
            let o = &self.outputs[i];
            let name = o.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let Some(hashes) = ours.files.get(name) else {
                continue;
            };
            let Ok(on_disk) = std::fs::read(&o.path) else {
                continue;
            };
            if on_disk == o.content.as_bytes() || hashes.contains(&ledger::sha256_hex(&on_disk)) {
                continue;
            }
            let backup = copy_of_edit(&o.path, &on_disk)?;
            self.warnings.push(FileWarning::HandEdited {
                path: o.path.clone(),
                backup: backup.clone(),
                generator: self.generator.to_string(),
            });
            self.edited.insert(o.path.clone(), backup);
        }
        Ok(())
    }

    /// Files the ledger lists that this run does not generate: removed while unchanged, kept
    /// (with a warning) otherwise.
    fn orphans(
        &mut self,
        dir: &Path,
        ours: &Ledger,
        names: &BTreeSet<&str>,
        foreign: &[Foreign],
    ) -> Result<(), OutputError> {
        let claimed = |name: &str| foreign.iter().any(|f| f.files.files.contains_key(name));
        for (name, hashes) in &ours.files {
            // Another generator's ledger listing it too makes it not ours alone: keep it.
            if names.contains(name.as_str()) || claimed(name) {
                continue;
            }
            let path = dir.join(name);
            match orphan_state(&path, hashes, self.generator)? {
                OrphanState::Unchanged => self.removals.push(Removal {
                    path,
                    kind: Orphan::Output,
                    hashes: hashes.clone(),
                }),
                OrphanState::Kept(warning) => self.warnings.push(warning),
                OrphanState::Gone => {}
            }
        }
        Ok(())
    }
}

/// Where a run keeps the hand-edited `path` (holding `edited`): `<name>.edited` beside it, or
/// `<name>.edited.2`, ... when that holds another edit (the same edit is kept once). Not a
/// `.yaml` name, so that `kubectl apply -f <dir>` does not pick it up; no ledger lists it, so
/// no run touches it.
fn copy_of_edit(path: &Path, edited: &[u8]) -> Result<PathBuf, OutputError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = parent_dir(path);
    let mut n = 1u64;
    loop {
        let copy = match n {
            1 => dir.join(format!("{name}.edited")),
            n => dir.join(format!("{name}.edited.{n}")),
        };
        match std::fs::read(&copy) {
            Ok(kept) if kept == edited => return Ok(copy),
            Ok(_) => n += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(copy),
            Err(e) => return Err(IoFailure::of(IoAction::Read, &copy)(e).into()),
        }
    }
}

/// The ledgers of other generators in `dir` (not `generator`'s, nor the one of an earlier
/// version it adopted, `adopted`).
fn foreign_ledgers(
    dir: &Path,
    generator: &str,
    adopted: Option<&str>,
) -> Result<Vec<Foreign>, OutputError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(IoFailure::of(IoAction::List, dir)(e).into()),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(IoFailure::of(IoAction::List, dir))?;
        let file_name = entry.file_name();
        let Some(other) = file_name.to_str().and_then(ledger::generator_of) else {
            continue;
        };
        if other == generator || file_name.to_str() == adopted {
            continue;
        }
        let path = entry.path();
        let text = std::fs::read_to_string(&path).map_err(IoFailure::of(IoAction::Read, &path))?;
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
pub(super) fn orphan_state(
    path: &Path,
    hashes: &BTreeSet<String>,
    generator: &str,
) -> Result<OrphanState, IoFailure> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(OrphanState::Gone),
        Err(e) => return Err(IoFailure::of(IoAction::Read, path)(e)),
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
    let content = std::fs::read(path).map_err(IoFailure::of(IoAction::Read, path))?;
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
