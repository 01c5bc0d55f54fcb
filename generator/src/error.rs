//! Why a run fails: one variant per kind of problem, every message naming the input it is
//! about; lists of problems print one per line, each with its sources.

use crate::check::crosscheck::Finding;
use crate::check::lints;
use crate::generate::webhooks as webhook;
use crate::generate::{GenerateError, bundle};
use crate::input::from_source::{self, CollectError};
use crate::input::workspace::AnotherWorkspacesGenerator;
use crate::output::OutputProblem;
pub use crate::output::files::IoAction;
use crate::output::files::{IoFailure, OutputError, cannot};
use crate::usage::UsageError;
use crate::warning::Warning;
use std::path::PathBuf;

use crate::input::scan_error::ScanError;
use kube_markers_core::error_text::with_sources;

/// Why a run failed. Every message names the input it is about.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bad command line.
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// The workspace could not be scanned.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// Reading, writing or removing a file failed.
    #[error("{}", cannot(*action, path))]
    Io {
        /// What was being done.
        action: IoAction,
        /// To which file or directory.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// The registry disagrees with the sources: attributes that would be lost.
    #[error(
        "{}{}{}",
        built_from_other_sources(errors, warnings),
        list(errors, "between the sources and the registry"),
        also(warnings, "warning(s) of the same cross-check")
    )]
    CrossCheck {
        /// What would be lost.
        errors: Vec<Finding>,
        /// The same cross-check's warnings (attributes the build leaves out on purpose),
        /// reported with the errors since the run stops before printing warnings.
        warnings: Vec<Finding>,
    },
    /// A CRD could not be generated, or the API server would reject it.
    #[error("{}", list(.0, "with the CRDs"))]
    Crd(Vec<kube_markers_registry::crd::CrdProblem>),
    /// A CRD breaks the one this generator wrote before; nothing was written.
    #[error("{}", crate::check::upgrade::breaking_report(.0))]
    Breaking(Vec<crate::check::upgrade::UpgradeFinding>),
    /// The CRDs written before, or the upgrade policy, cannot be read.
    #[error(transparent)]
    Upgrade(#[from] crate::check::upgrade::UpgradeProblem),
    /// The webhooks cannot be merged into their configurations.
    #[error("{}", list(.0, "with the webhooks"))]
    Webhook(Vec<webhook::WebhookProblem>),
    /// Outputs cannot go where they are asked to; nothing was written.
    #[error("{}", list(.0, "with where the files go (nothing was written)"))]
    Outputs(Vec<OutputProblem>),
    /// The deploy bundle's identity or names are wrong; nothing was written.
    #[error("{}", list(.0, "with the deploy bundle"))]
    Bundle(Vec<bundle::BundleProblem>),
    /// `--deny-warnings`, and the run had warnings; nothing was written.
    #[error(
        "{}",
        list(.0, "denied by --deny-warnings (nothing was written; fix them, or accept a lint on its attribute with allow(LINT, reason = \"...\"))")
    )]
    DeniedWarnings(Vec<Denied>),
    /// `--rbac-from-source`: attributes only the compiler can read; nothing was written.
    #[error("{}", from_source::refused(refusals, rerun))]
    FromSource {
        /// What the compiler alone can read.
        refusals: Vec<from_source::Refusal>,
        /// The command that rebuilds the generator (`cargo run -p codegen`).
        rerun: String,
    },
    /// `[workspace.metadata.kube-markers.lints]` cannot be read.
    #[error(transparent)]
    LintConfig(crate::check::schema_lints::ConfigError),
    /// Nothing was linked, and `--no-scan` leaves nothing to tell a new project from a
    /// generator that links the wrong crates.
    #[error(
        "no #[rbac], #[crd] or #[webhook] entries are linked into this generator: name the crates \
         that carry them with `kube_markers::link!(crate_a, crate_b)` in its main.rs (without \
         --no-scan, a workspace with no attributes yet generates its bundle alone)"
    )]
    EmptyRegistry,
    /// The workspace scanned has its own package of the generator's name: this generator was
    /// built from another workspace (a shared target directory, a binary run from elsewhere).
    #[error(
        "this generator is package `{package}` of {}, but the workspace it scans ({}) has its \
         own package `{package}` at {}: it would write this workspace's outputs from another \
         workspace's attributes and bundle. Run this workspace's generator (`cargo run -p \
         {package}` in {}), or pass --manifest-path to scan the generator's own workspace",
        ours.display(),
        workspace.display(),
        theirs.display(),
        workspace.parent().unwrap_or(workspace).display()
    )]
    AnotherWorkspacesGenerator {
        /// The generator's package name.
        package: String,
        /// The `Cargo.toml` the generator was built from.
        ours: std::path::PathBuf,
        /// The workspace's package of that name.
        theirs: std::path::PathBuf,
        /// The scanned workspace's `Cargo.toml`.
        workspace: std::path::PathBuf,
    },
}

/// A heading with the count, then one `  - ` line per problem (with its sources).
/// `list` of what comes after an error's own list, on the lines below it; nothing if empty.
/// The headline when the registry is older than the sources (an entry that differs from its
/// attribute, or one with no attribute at its place: the sources were edited after the
/// generator was built, e.g. after `--rbac-from-source`): the run checked and wrote nothing,
/// and no file's freshness can be told before a rebuild.
fn built_from_other_sources(errors: &[Finding], warnings: &[Finding]) -> &'static str {
    use crate::check::crosscheck::Problem;
    let older = errors
        .iter()
        .chain(warnings)
        .any(|f| matches!(f.problem, Problem::Stale | Problem::NoAttribute { .. }));
    if older {
        "this generator was built from older sources than the workspace's, so nothing was \
         checked or written: run it with `cargo run`, which rebuilds it first\n"
    } else {
        ""
    }
}

fn also<T: std::error::Error>(items: &[T], topic: &str) -> String {
    if items.is_empty() {
        return String::new();
    }
    format!("\n{}", counted(items, topic))
}

fn list<T: std::error::Error>(problems: &[T], topic: &str) -> String {
    counted(problems, &format!("problem(s) {topic}"))
}

/// `N heading:` and one indented line per item.
fn counted<T: std::error::Error>(items: &[T], heading: &str) -> String {
    let mut text = format!("{} {heading}:", items.len());
    for item in items {
        text.push_str(&format!("\n  - {}", with_sources(item)));
    }
    text
}

/// What `--deny-warnings` refused: a lint of an `#[rbac]` attribute, or a warning of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Denied {
    /// A lint no `allow(...)` accepts.
    Lint(lints::LintWarning),
    /// An API-convention lint no `#[k8s(allow(...))]` accepts.
    SchemaLint(crate::check::schema_lints::SchemaLintWarning),
    /// A warning of the run.
    Warning(Warning),
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Denied::Lint(lint) => lint.fmt(f),
            Denied::SchemaLint(lint) => lint.fmt(f),
            Denied::Warning(warning) => write!(f, "warning: {warning}"),
        }
    }
}

impl std::error::Error for Denied {}

impl From<IoFailure> for Error {
    fn from(
        IoFailure {
            action,
            path,
            source,
        }: IoFailure,
    ) -> Error {
        Error::Io {
            action,
            path,
            source,
        }
    }
}

impl From<OutputError> for Error {
    fn from(e: OutputError) -> Error {
        match e {
            OutputError::Io(e) => e.into(),
            OutputError::Outputs(problems) => Error::Outputs(problems),
        }
    }
}

impl From<AnotherWorkspacesGenerator> for Error {
    fn from(e: AnotherWorkspacesGenerator) -> Error {
        let AnotherWorkspacesGenerator {
            package,
            ours,
            theirs,
            workspace,
        } = e;
        Error::AnotherWorkspacesGenerator {
            package,
            ours,
            theirs,
            workspace,
        }
    }
}

impl From<CollectError> for Error {
    fn from(e: CollectError) -> Error {
        match e {
            CollectError::Scan(e) => Error::Scan(e),
            CollectError::AnotherWorkspacesGenerator(e) => e.into(),
            CollectError::FromSource { refusals, rerun } => Error::FromSource { refusals, rerun },
        }
    }
}

impl From<GenerateError> for Error {
    fn from(e: GenerateError) -> Error {
        match e {
            GenerateError::Io(e) => e.into(),
            GenerateError::Crd(problems) => Error::Crd(problems),
            GenerateError::Webhook(problems) => Error::Webhook(problems),
            GenerateError::Bundle(problems) => Error::Bundle(problems),
        }
    }
}
