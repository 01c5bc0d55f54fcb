//! The files of a run: what it produces, where they go, what became of each, and what stands
//! in the way.

use std::path::{Path, PathBuf};

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
    /// `--check`: the file differs, and is not what this generator wrote there (its SHA-256
    /// is not in the ledger): edited by hand. The unified diff, as for [`Stale`](Self::Stale).
    Edited(String),
    /// `--check`: the file does not exist.
    Missing,
    /// `--rbac-from-source`: a file only a rebuild regenerates (CRDs, webhook manifests), left
    /// as it is; whether it matches the sources is not known, and not claimed.
    Unverified,
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
    /// This generator's ledger under the name an earlier version gave it (the binary's): its
    /// files are listed under the package's name now.
    RenamedLedger,
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
    /// An output edited by hand since this generator wrote it: a run regenerates it (the
    /// files are generated) and keeps the edited file beside it, so that the edit is not lost.
    #[error(
        "{} was edited by hand since generator `{generator}` wrote it (its SHA-256 is not the \
         one in the ledger); a run regenerates it and keeps the edited file as {}: make the \
         change in the attributes or the bundle's metadata instead, then delete that copy",
        path.display(),
        backup.display()
    )]
    HandEdited {
        /// The file.
        path: PathBuf,
        /// Where the edited file is kept.
        backup: PathBuf,
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
    /// This generator's ledger in a directory names another package directory that holds a
    /// package: another workspace's generator of the same name wrote there.
    #[error(
        "{} is the ledger of generator `{generator}` of the package at {} (its ledger says so), \
         not of this generator `{generator}`, built from {}: a generator of another workspace \
         does not remove or replace that one's files; run the generator of the workspace \
         {} belongs to, or give this one another directory (or `--generator-name`)",
        ledger.display(),
        theirs.display(),
        ours.display(),
        dir.display()
    )]
    AnotherGeneratorsLedger {
        /// The directory.
        dir: PathBuf,
        /// The ledger.
        ledger: PathBuf,
        /// The name both generators have.
        generator: String,
        /// The package directory the ledger names.
        theirs: PathBuf,
        /// This generator's package directory.
        ours: PathBuf,
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

/// What the generator was doing to a file when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IoAction {
    /// Reading it.
    Read,
    /// Reading the `--header-file`.
    ReadHeader,
    /// Listing a directory.
    List,
    /// Creating a directory.
    CreateDirectory,
    /// Writing a (temporary) file.
    Write,
    /// Renaming a written file over its destination.
    Replace,
    /// Removing a file.
    Remove,
}

impl std::fmt::Display for IoAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IoAction::Read => "read",
            IoAction::ReadHeader => "read --header-file",
            IoAction::List => "list directory",
            IoAction::CreateDirectory => "create directory",
            IoAction::Write => "write",
            IoAction::Replace => "replace",
            IoAction::Remove => "remove",
        })
    }
}

/// A file operation that failed: what was being done, to which file, and why. The runner
/// reports it as the run's `Error::Io`.
#[derive(Debug)]
#[non_exhaustive]
pub struct IoFailure {
    /// What was being done.
    pub action: IoAction,
    /// To which file or directory.
    pub path: PathBuf,
    /// Why it failed.
    pub source: std::io::Error,
}

/// `cannot ACTION PATH`: the words of an [`IoFailure`], which the run's error repeats.
pub(crate) fn cannot(action: IoAction, path: &Path) -> String {
    format!("cannot {action} {}", path.display())
}

impl std::fmt::Display for IoFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&cannot(self.action, &self.path))
    }
}

impl std::error::Error for IoFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl IoFailure {
    /// What `action` on `path` failed with, for `map_err`.
    pub(crate) fn of(
        action: IoAction,
        path: &Path,
    ) -> impl FnOnce(std::io::Error) -> IoFailure + '_ {
        move |source| IoFailure {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Why the files cannot be planned or written; nothing was written. The runner reports it as
/// the run's `Error::Io` or `Error::Outputs`.
#[derive(Debug)]
pub(crate) enum OutputError {
    /// A file could not be read, listed, written or removed.
    Io(IoFailure),
    /// Outputs cannot go where they are asked to.
    Outputs(Vec<OutputProblem>),
}

impl From<IoFailure> for OutputError {
    fn from(e: IoFailure) -> OutputError {
        OutputError::Io(e)
    }
}
