//! The generator: registry → cross-check with the sources → aggregate → render → write.
//!
//! A generator is a binary that links the crates carrying attributes and calls [`main`]:
//!
//! ```ignore
//! // codegen/src/main.rs
//! kube_markers::link!(memcached_operator, mydatabase_operator);
//!
//! fn main() -> std::process::ExitCode {
//!     kube_markers::codegen::main()
//! }
//! ```
//!
//! `cargo run -p codegen` then writes `rbac-out/role.yaml`; `cargo run -p codegen -- --check`
//! verifies it is fresh. See [`HELP`] for every flag.
//!
//! Every destination is validated before anything is written. In each directory it writes to,
//! the generator keeps a ledger of the files it wrote and their SHA-256
//! (`.kube-markers-<generator>.sha256`): it removes a file only if the ledger lists it, it no
//! longer generates it, and its content is unchanged, so files it did not write (by hand, or
//! by another generator with another name) are never touched.

pub mod can_i;
pub mod check;
pub mod cli;
pub mod explain;
pub mod generate;
pub mod input;
pub mod output;
mod warning;

/// RBAC as the generator merges and authorizes it (the `kube-markers-rbac` crate).
#[doc(inline)]
pub use kube_markers_rbac as rbac;

pub use check::{crosscheck, lints};
pub use cli::generate::{Command, HELP, Options, TargetProblem, UsageError};
pub use generate::crds::{GeneratedCrd, generate_crds};
pub use generate::{bundle, webhooks as webhook};
pub use input::from_source;
pub use output::write::{FileStatus, FileWarning, Orphan, OutputProblem};
pub use warning::Warning;

use check::crosscheck::cross_check_all;
pub use check::crosscheck::{Activity, Finding, Place, Problem};
use input::workspace::Workspace;

/// The workspace scan and its cross-check with the registry, for this repository's own tests:
/// not a stable API.
#[doc(hidden)]
pub mod __internals {
    pub use crate::check::crosscheck::{Findings, cross_check, cross_check_all};
    pub use crate::input::cfg::{CfgEnv, Truth};
    pub use crate::input::workspace::{AttrKind, FoundAttr, Package, ScanReport, Workspace};

    /// What the generator's `main` prints of a run (for the in-process benchmark of a run).
    pub fn print_report(report: &super::Report, opts: &super::Options) -> bool {
        super::print_report(report, opts)
    }

    /// `#[webhook(...)]`'s arguments, as the macro parses and validates them.
    pub fn parse_webhook(args: &str) -> Result<crate::generate::webhooks::WebhookMarker, String> {
        let tokens: proc_macro2::TokenStream = args.parse().map_err(|e| format!("{e}"))?;
        kube_markers_core::webhook::parse_marker(tokens).map_err(|e| {
            e.into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }
}

use input::workspace::AttrKind;
use kube_markers_rbac::{GeneratedRole, generate_roles_counting};
use kube_markers_registry::{
    self as registry, CrdEntry, RbacEntry, WebhookConfigurationEntry, WebhookEntry,
};
use output::write::{self, Destination, Output};
use std::path::PathBuf;
use std::process::ExitCode;

/// An error's message, then each of its sources after `: `: how lists of problems print each
/// one (a problem's own message leaves out its source, as `std::error::Error` asks).
pub(crate) fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

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
    #[error("cannot {action} {}", path.display())]
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
        "{}{}",
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
    #[error("{}", from_source::refused(.0))]
    FromSource(Vec<from_source::Refusal>),
    /// Nothing was linked.
    #[error(
        "no #[rbac], #[crd] or #[webhook] entries are linked into this generator: name the crates \
         that carry them with `kube_markers::link!(crate_a, crate_b)` in its main.rs"
    )]
    EmptyRegistry,
}

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

/// A heading with the count, then one `  - ` line per problem (with its sources).
/// `list` of what comes after an error's own list, on the lines below it; nothing if empty.
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
        text.push_str(&format!("\n  - {}", crate::with_sources(item)));
    }
    text
}

/// What `--deny-warnings` refused: a lint of an `#[rbac]` attribute, or a warning of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Denied {
    /// A lint no `allow(...)` accepts.
    Lint(lints::LintWarning),
    /// A warning of the run.
    Warning(Warning),
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Denied::Lint(lint) => lint.fmt(f),
            Denied::Warning(warning) => write!(f, "warning: {warning}"),
        }
    }
}

impl std::error::Error for Denied {}

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
    /// Summary of what the role file contains.
    pub summary: String,
}

impl Report {
    /// `--check` found a stale or missing file, or one to remove.
    pub fn is_stale(&self) -> bool {
        self.files.iter().any(|(_, s)| {
            matches!(
                s,
                FileStatus::Stale(_) | FileStatus::Missing | FileStatus::Orphaned(_)
            )
        })
    }
}

/// The roles for these entries, as controller-gen would generate them.
pub fn roles_for(entries: &[&RbacEntry], default_role_name: &str) -> Vec<GeneratedRole> {
    generate_roles_counting(entries.iter().map(|e| &e.marker), default_role_name).0
}

/// The text of the RBAC manifest: the header, then one `---` document per role.
pub fn render_roles(roles: &[GeneratedRole], header: &str) -> String {
    crate::generate::roles::render_roles(roles, header)
}

fn read_header(opts: &Options) -> Result<String, Error> {
    let Some(path) = &opts.header_file else {
        return Ok(String::new());
    };
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        action: IoAction::ReadHeader,
        path: path.clone(),
        source,
    })?;
    Ok(text.replace(" YEAR", &format!(" {}", opts.year)))
}

/// Runs the generator over this binary's registry.
pub fn run(opts: &Options) -> Result<Report, Error> {
    if opts.rbac_from_source {
        return from_source::run(opts);
    }
    let webhooks = Webhooks {
        webhooks: &registry::webhook_entries(),
        configurations: &registry::webhook_configuration_entries(),
    };
    run_with_webhooks(
        &registry::rbac_entries(),
        &registry::crd_entries(),
        webhooks,
        &registry::linked_crates(),
        opts,
    )
}

/// The webhook entries a run generates from.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct Webhooks<'a> {
    /// `#[webhook]`s.
    pub webhooks: &'a [&'a WebhookEntry],
    /// `#[webhook_configuration]`s.
    pub configurations: &'a [&'a WebhookConfigurationEntry],
}

impl<'a> Webhooks<'a> {
    /// Webhooks and configuration names.
    pub fn new(
        webhooks: &'a [&'a WebhookEntry],
        configurations: &'a [&'a WebhookConfigurationEntry],
    ) -> Self {
        Webhooks {
            webhooks,
            configurations,
        }
    }

    fn is_empty(&self) -> bool {
        self.webhooks.is_empty() && self.configurations.is_empty()
    }
}

/// Runs the generator over the given entries (the registry, or a test's own), without
/// webhooks.
pub fn run_with(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    linked_crates: &[&str],
    opts: &Options,
) -> Result<Report, Error> {
    run_with_webhooks(entries, crds, Webhooks::default(), linked_crates, opts)
}

/// Runs the generator over the given entries, webhooks included.
pub fn run_with_webhooks(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    webhooks: Webhooks<'_>,
    linked_crates: &[&str],
    opts: &Options,
) -> Result<Report, Error> {
    let mut timings = Timings::from_env();
    let mut warnings = Vec::new();
    let mut metadata = None;
    if !opts.no_scan {
        let workspace = Workspace::discover(opts.manifest_path.as_deref())?;
        timings.lap("cargo metadata");
        let scan = workspace.scan();
        timings.lap("scan");
        let others: Vec<(AttrKind, registry::Source)> = webhooks
            .webhooks
            .iter()
            .map(|w| (AttrKind::Webhook, w.attribute.source.clone()))
            .chain(
                webhooks
                    .configurations
                    .iter()
                    .map(|c| (AttrKind::WebhookConfiguration, c.source.clone())),
            )
            .collect();
        let findings = cross_check_all(
            entries,
            crds,
            &others,
            &scan,
            linked_crates,
            &workspace.root,
            &workspace.cfg_env(),
        );
        if !findings.errors.is_empty() {
            return Err(Error::CrossCheck {
                errors: findings.errors,
                warnings: findings.warnings,
            });
        }
        timings.lap("cross-check");
        warnings = findings
            .warnings
            .into_iter()
            .map(Warning::CrossCheck)
            .collect();
        metadata = Some(workspace.metadata);
    }
    let before = Before {
        metadata,
        warnings,
        timings,
    };
    generate(
        entries,
        crds,
        webhooks,
        linked_crates,
        opts,
        before,
        OtherFiles::Generate,
    )
}

/// What a run knows before it generates: the workspace's `cargo metadata` (none with
/// `--no-scan`), the warnings so far, and its clock.
struct Before {
    metadata: Option<serde_json::Value>,
    warnings: Vec<Warning>,
    timings: Timings,
}

/// Whether a run writes the files `#[rbac]` does not make (CRDs, webhook manifests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OtherFiles {
    /// Generated, as always.
    Generate,
    /// Left as they are (`--rbac-from-source`).
    LeaveAsTheyAre,
}

/// Generates every output from the entries, plans the files and writes (or checks) them.
fn generate(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    webhooks: Webhooks<'_>,
    linked_crates: &[&str],
    opts: &Options,
    before: Before,
    other_files: OtherFiles,
) -> Result<Report, Error> {
    let Before {
        metadata,
        mut warnings,
        mut timings,
    } = before;
    if entries.is_empty() && crds.is_empty() && webhooks.is_empty() {
        return Err(Error::EmptyRegistry);
    }

    // Everything is generated, and every destination validated, before anything is written:
    // a bad CRD or a bad path leaves no half-updated tree.
    let header = read_header(opts)?;
    let mut outputs: Vec<Output> = Vec::new();
    let mut summary = Vec::new();
    let mut roles = Vec::new();
    let lint_warnings = lints::check_entries(entries, &opts.role_name);
    timings.lap("lints");
    if !entries.is_empty() {
        let collisions;
        (roles, collisions) =
            generate_roles_counting(entries.iter().map(|e| &e.marker), &opts.role_name);
        if collisions > 0 {
            warnings.push(Warning::Collisions { count: collisions });
        }
        summary.push(summarize(&roles, entries.len()));
        timings.lap("aggregate");
        outputs.push(Output {
            path: opts.out_dir.join(&opts.file_name),
            content: render_roles(&roles, &header),
            what: "the RBAC manifest".into(),
            option: "--out",
        });
        timings.lap("render roles");
    }
    let generated_crds = if crds.is_empty() {
        Vec::new()
    } else {
        generate_crds(crds).map_err(Error::Crd)?
    };
    if !generated_crds.is_empty() {
        let versions: usize = generated_crds
            .iter()
            .map(|c| c.crd.spec.versions.len())
            .sum();
        summary.push(format!(
            "{} CRD(s) with {versions} version(s)",
            generated_crds.len()
        ));
    }
    timings.lap("CRDs");
    let crd_dir = opts.crd_dir();
    for crd in &generated_crds {
        let path = crd_dir.join(&crd.file_name);
        let mut content = render_crd(crd, &header);
        if other_files == OtherFiles::LeaveAsTheyAre {
            content = from_source::left_as_it_is(&path, content, &mut warnings);
        }
        outputs.push(Output {
            path,
            content,
            what: format!(
                "the CRD {}",
                crd.crd.metadata.name.as_deref().unwrap_or(&crd.file_name)
            ),
            option: "--crd-out",
        });
    }
    let listed: Vec<PathBuf> = outputs
        .iter()
        .filter_map(|o| o.path.strip_prefix(&opts.out_dir).ok().map(PathBuf::from))
        .collect();
    // controller-gen writes no file when there are no webhooks. The deploy bundle lists the
    // webhooks only when asked to (`webhooks = true`): without their Service and certificates,
    // a `failurePolicy: Fail` webhook would refuse every request it matches.
    let merged = webhook::configurations(
        &webhooks
            .webhooks
            .iter()
            .map(|w| &w.attribute)
            .collect::<Vec<_>>(),
        webhooks.configurations,
    )
    .map_err(Error::Webhook)?;
    warnings.extend(merged.warnings.iter().cloned().map(Warning::Webhook));
    let webhook_dir = opts.webhook_dir();
    if !merged.documents.is_empty() {
        summary.push(format!(
            "{} webhook(s) in {} configuration(s)",
            webhooks.webhooks.len(),
            merged.documents.len()
        ));
        let path = webhook_dir.join(webhook::FILE_NAME);
        let mut content = webhook::render(&merged, &header);
        if other_files == OtherFiles::LeaveAsTheyAre {
            content = from_source::left_as_it_is(&path, content, &mut warnings);
        }
        outputs.push(Output {
            path,
            content,
            what: "the webhook manifests".into(),
            option: "--webhook-out",
        });
    }
    let webhook_file = webhook_dir
        .join(webhook::FILE_NAME)
        .strip_prefix(&opts.out_dir)
        .ok()
        .map(PathBuf::from);
    let bundle_input = bundle::Input {
        roles: &roles,
        entries,
        default_role_name: &opts.role_name,
        crds: &generated_crds,
        listed_files: &listed,
        header: &header,
        webhook_configurations: &merged.documents,
        webhook_file: webhook_file.as_deref(),
    };
    // Files of an earlier bundle that this one does not generate are removed through the
    // ledger, like every other output.
    let bundle = bundle::plan(opts, &bundle_input, linked_crates, metadata.as_ref())?;
    for (path, content) in bundle.files {
        let what = format!(
            "the deploy bundle's {}",
            path.strip_prefix(&opts.out_dir).unwrap_or(&path).display()
        );
        outputs.push(Output {
            path,
            content,
            what,
            option: "--out",
        });
    }
    for path in bundle.kept {
        if outputs.iter().any(|o| o.path == path) {
            continue;
        }
        let content = std::fs::read_to_string(&path).map_err(|source| Error::Io {
            action: IoAction::Read,
            path: path.clone(),
            source,
        })?;
        let what = format!("the deploy bundle's {}", path.display());
        outputs.push(Output {
            path,
            content,
            what,
            option: "--out",
        });
    }
    warnings.extend(bundle.warnings.into_iter().map(Warning::Bundle));

    // Both directories are ours to keep tidy even when nothing goes there any more.
    let destinations = [
        Destination {
            dir: opts.out_dir.clone(),
            option: "--out",
        },
        Destination {
            dir: crd_dir,
            option: "--crd-out",
        },
    ];
    // The bundle's own subdirectory, to tidy even when the bundle no longer writes there.
    let pinned = opts.out_dir.join(bundle::PINNED_DIR);
    // The webhook directories, default and chosen, to tidy when they hold an earlier run's
    // file (a run with webhooks has its output there anyway).
    let webhook_dirs = [
        (opts.out_dir.join("webhook"), "--out"),
        (webhook_dir, "--webhook-out"),
    ];
    let destinations: Vec<Destination> = destinations
        .into_iter()
        .chain(pinned.is_dir().then_some(Destination {
            dir: pinned,
            option: "--out",
        }))
        .chain(
            webhook_dirs
                .into_iter()
                .filter(|(dir, _)| dir.is_dir())
                .map(|(dir, option)| Destination { dir, option }),
        )
        .collect();
    let mut plan = write::plan(
        outputs,
        &destinations,
        &opts.generator_name,
        opts.header_file.as_deref(),
    )?;
    warnings.extend(plan.warnings.drain(..).map(Warning::Files));
    timings.lap("bundle + plan");
    if opts.deny_warnings && !(lint_warnings.is_empty() && warnings.is_empty()) {
        let denied = lint_warnings
            .iter()
            .cloned()
            .map(Denied::Lint)
            .chain(warnings.iter().cloned().map(Denied::Warning))
            .collect();
        return Err(Error::DeniedWarnings(denied));
    }
    let files = if opts.check {
        write::check(&plan)?
    } else {
        let mut kept = Vec::new();
        let files = write::apply(plan, &mut kept)?;
        warnings.extend(kept.into_iter().map(Warning::Files));
        files
    };
    timings.lap("write or check");
    Ok(Report {
        files,
        warnings,
        lints: lint_warnings,
        summary: summary.join("; "),
    })
}

/// With `KUBE_MARKERS_TIMINGS=1`, the time each step of a run took, printed to stderr: for
/// profiling the generator where users run it (`cargo run -p codegen`). Wall time, and where
/// Linux tells (`/proc/thread-self/schedstat`) the time the thread ran on a CPU, which other
/// processes of a loaded machine do not inflate (to the scheduler's tick, a few ms).
struct Timings(Option<(std::time::Instant, Option<u64>)>);

impl Timings {
    fn from_env() -> Self {
        let on = std::env::var_os("KUBE_MARKERS_TIMINGS").is_some_and(|v| v == "1");
        Timings(on.then(|| (std::time::Instant::now(), Self::cpu_nanos())))
    }

    fn cpu_nanos() -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        stat.split_whitespace().next()?.parse().ok()
    }

    fn lap(&mut self, step: &str) {
        if let Some((start, cpu_start)) = &mut self.0 {
            let cpu = Self::cpu_nanos();
            let on_cpu = match (*cpu_start, cpu) {
                (Some(from), Some(to)) => {
                    format!(" ({:.1} ms on CPU)", to.saturating_sub(from) as f64 / 1e6)
                }
                _ => String::new(),
            };
            eprintln!(
                "timing: {step}: {:.1} ms{on_cpu}",
                start.elapsed().as_secs_f64() * 1000.0
            );
            *start = std::time::Instant::now();
            *cpu_start = cpu;
        }
    }
}

/// A CRD file: the header, then the object after `---`.
pub fn render_crd(crd: &GeneratedCrd, header: &str) -> String {
    crate::output::yaml::render_documents(header, &[crd.to_value()])
}

fn summarize(roles: &[GeneratedRole], attributes: usize) -> String {
    let cluster = roles.iter().filter(|r| r.is_cluster_role()).count();
    let namespaced = roles.len() - cluster;
    let rules: usize = roles.iter().map(|r| r.rules.len()).sum();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{}, {} with {} from {}",
        plural(cluster, "ClusterRole", "ClusterRoles"),
        plural(namespaced, "Role", "Roles"),
        plural(rules, "rule", "rules"),
        plural(attributes, "#[rbac] attribute", "#[rbac] attributes"),
    )
}

/// Prints what a run did: its lints and warnings, each file's status and the summary, to
/// stderr in one write (thousands of lint warnings are one buffer, not a write each); a stale
/// file's diff to stdout. Returns whether `--check` found a file stale, missing or orphaned.
fn print_report(report: &Report, opts: &Options) -> bool {
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
    for w in &report.warnings {
        let _ = writeln!(text, "warning: {w}");
    }
    let generator = &opts.generator_name;
    let mut stale = false;
    for (path, status) in &report.files {
        let shown = path.display();
        let _ = match status {
            FileStatus::Unchanged if opts.check => writeln!(text, "{shown} is up to date"),
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

/// The generator's entry point: parses `std::env::args`, runs, prints, and returns the exit
/// code (0 done or fresh, 1 failed or stale, 2 bad command line).
pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("can-i") => return can_i::main(&args[1..]),
        Some("explain") => return explain::main(&args[1..]),
        _ => {}
    }
    let command = match Command::parse(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}\n\nRun with --help for usage.");
            return ExitCode::from(2);
        }
    };
    let opts = match command {
        Command::Help => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Command::Run(opts) => opts,
    };
    match run(&opts) {
        Ok(report) => {
            if print_report(&report, &opts) {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {}", crate::with_sources(&e));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
