//! What a run did: its [`Report`], and how the generator prints it.

use crate::check::lints;
use crate::options::Options;
use crate::output::FileStatus;
use crate::output::Orphan;
use crate::warning::Warning;
use std::path::PathBuf;

/// The outcome of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Each file the run wrote, checked or removed, and what happened to it: the outputs,
    /// files this generator no longer generates, then its ledgers.
    pub files: Vec<(PathBuf, FileStatus)>,
    /// Things worth a look that did not stop the run.
    pub warnings: Vec<Warning>,
    /// What the lints found in the `#[rbac]` attributes (those no `allow(...)` accepts).
    pub lints: Vec<lints::LintWarning>,
    /// What the API-convention lints found in the CRD types (those no `#[k8s(allow(...))]`
    /// accepts).
    pub schema_lints: Vec<crate::check::schema_lints::SchemaLintWarning>,
    /// Summary of what the role file contains.
    pub summary: String,
}

impl Report {
    /// `--check` found a stale or missing file, or one to remove.
    pub fn is_stale(&self) -> bool {
        self.files.iter().any(|(_, s)| {
            matches!(
                s,
                FileStatus::Stale(_)
                    | FileStatus::Edited(_)
                    | FileStatus::Missing
                    | FileStatus::Orphaned(_)
            )
        })
    }
}

/// Prints what a run did: its lints and warnings, each file's status and the summary, to
/// stderr in one write (thousands of lint warnings are one buffer, not a write each); a stale
/// file's diff to stdout. Returns whether `--check` found a file stale, missing or orphaned.
pub(crate) fn print_report(report: &Report, opts: &Options) -> bool {
    use std::fmt::Write as _;
    use std::io::Write as _;
    let mut text = String::new();
    let flush = |text: &mut String| {
        // A closed stderr is no reason to fail the run: the files are written.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
        text.clear();
    };
    for lint in &report.lints {
        let _ = writeln!(text, "{lint}");
    }
    for lint in &report.schema_lints {
        let _ = writeln!(text, "{lint}");
    }
    for w in &report.warnings {
        let _ = writeln!(text, "warning: {w}");
    }
    let generator = &opts.generator_name;
    let mut stale = false;
    for (path, status) in &report.files {
        let shown = path.display();
        let _ = match status {
            FileStatus::Unchanged if opts.check => writeln!(text, "{shown} is up to date"),
            FileStatus::Unverified if opts.check => writeln!(
                text,
                "{shown} not checked: --rbac-from-source reads only the #[rbac] attributes; \
                 `{}` checks it",
                opts.invocation.rerun_with("--check")
            ),
            FileStatus::Unverified => writeln!(
                text,
                "{shown} left as it is: --rbac-from-source reads only the #[rbac] attributes; \
                 `{}` regenerates it",
                opts.invocation.rerun()
            ),
            FileStatus::Unchanged => writeln!(text, "{shown} unchanged"),
            FileStatus::Written => writeln!(text, "wrote {shown}"),
            FileStatus::Removed(Orphan::Output) => writeln!(
                text,
                "removed {shown}: generator `{generator}` wrote it, no longer generates \
                 it, and it is unchanged since (its ledger says so)"
            ),
            FileStatus::Removed(Orphan::Ledger) => writeln!(
                text,
                "removed {shown}: generator `{generator}` writes nothing to this \
                 directory any more"
            ),
            FileStatus::Removed(Orphan::RenamedLedger) => writeln!(
                text,
                "removed {shown}: the ledger of generator `{generator}` under the binary's \
                 name, which earlier versions gave it; its files are listed in \
                 .kube-markers-{generator}.sha256 now, named after the generator's package"
            ),
            FileStatus::Stale(diff) => {
                // The diff goes to stdout: what is on stderr so far comes first.
                flush(&mut text);
                print!("{diff}");
                stale = true;
                writeln!(
                    text,
                    "error: {shown} is stale; run the generator without --check to update it"
                )
            }
            FileStatus::Edited(diff) => {
                flush(&mut text);
                print!("{diff}");
                stale = true;
                writeln!(
                    text,
                    "error: {shown} was edited by hand since generator `{generator}` wrote it \
                     (its SHA-256 is not the one in the ledger); the generator would replace \
                     the edit: make the change in the attributes or the bundle's metadata instead"
                )
            }
            FileStatus::Missing => {
                stale = true;
                writeln!(
                    text,
                    "error: {shown} is missing; run the generator without --check to create it"
                )
            }
            FileStatus::Orphaned(Orphan::Output) => {
                stale = true;
                writeln!(
                    text,
                    "error: {shown} was written by generator `{generator}`, which no \
                     longer generates it; run the generator without --check to remove it"
                )
            }
            FileStatus::Orphaned(Orphan::RenamedLedger) => {
                stale = true;
                writeln!(
                    text,
                    "error: {shown} is the ledger of generator `{generator}` under the binary's \
                     name, which earlier versions gave it; run the generator without --check \
                     to name it after the generator's package"
                )
            }
            FileStatus::Orphaned(Orphan::Ledger) => {
                stale = true;
                writeln!(
                    text,
                    "error: {shown} is the ledger of generator `{generator}`, which writes \
                     nothing to this directory any more; run the generator without \
                     --check to remove it"
                )
            }
        };
    }
    let _ = writeln!(text, "{}", report.summary);
    flush(&mut text);
    stale
}
