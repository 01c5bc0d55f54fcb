//! The run: collect → check → generate → write.
//!
//! An input collects what a run generates from ([`Inputs`]: the linked registry, checked
//! against the workspace's sources; or, with `--rbac-from-source`, the `#[rbac]` attributes
//! read from the sources, [`crate::input::from_source`]) and what it learned on the way
//! (`Collected`). The runner then lints the attributes, loops over the generators
//! ([`crate::generate::GENERATORS`]: each reads the inputs and what the ones before it made),
//! checks the CRDs they made (against the kube calls and the CRDs written before), plans
//! every file against what is on disk, and writes or checks. Everything is generated, and
//! every destination validated, before anything is written: a bad CRD or a bad path leaves no
//! half-updated tree.

use crate::check::crosscheck::{Finding, cross_check_all};
use crate::check::lints;
use crate::error::Denied;
use crate::error::Error;
use crate::error::IoAction;
use crate::generate::bundle;
use crate::generate::{self, Artifact, Artifacts, Context, GENERATORS, Generated};
use crate::input::workspace::{AttrKind, Workspace};
use crate::input::{Collected, from_source};
pub use crate::input::{Inputs, Webhooks};
use crate::options::Options;
use crate::output::FileStatus;
use crate::output::{Destination, Output, plan, write};
use crate::report::Report;
use crate::timings::Timings;
use crate::warning::Warning;
use kube_markers_registry::{self as registry, CrdEntry, RbacEntry};

/// Runs the generator over this binary's registry, or with `--rbac-from-source` over the
/// `#[rbac]` attributes of the workspace's sources.
pub fn run(opts: &Options) -> Result<Report, Error> {
    if opts.rbac_from_source {
        let (read, collected) = from_source::collect(opts)?;
        let entries = read.entries();
        return generate_and_write(&read.inputs(&entries), collected, Vec::new(), opts);
    }
    let webhooks = Webhooks {
        webhooks: &registry::webhook_entries(),
        configurations: &registry::webhook_configuration_entries(),
    };
    let (rbac, crds, conversions, linked) = (
        registry::rbac_entries(),
        registry::crd_entries(),
        registry::conversion_entries(),
        registry::linked_crates(),
    );
    let inputs = Inputs {
        conversions: &conversions,
        ..Inputs::new(&rbac, &crds, webhooks, &linked)
    };
    run_inputs(&inputs, opts)
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

/// Runs the generator over the given entries, webhooks included: the registry as the input,
/// checked against the workspace's sources unless `--no-scan`.
pub fn run_with_webhooks(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    webhooks: Webhooks<'_>,
    linked_crates: &[&str],
    opts: &Options,
) -> Result<Report, Error> {
    run_inputs(&Inputs::new(entries, crds, webhooks, linked_crates), opts)
}

/// Runs the generator over `inputs`: checked against the workspace's sources unless
/// `--no-scan`.
pub fn run_inputs(inputs: &Inputs, opts: &Options) -> Result<Report, Error> {
    let (collected, cross_check) = collect_registry(inputs, opts)?;
    generate_and_write(inputs, collected, cross_check, opts)
}

/// The registry's part of a run before it generates: unless `--no-scan`, the workspace's
/// sources scanned and every attribute they hold checked against the registry (with the
/// cross-check's warnings).
fn collect_registry(inputs: &Inputs, opts: &Options) -> Result<(Collected, Vec<Finding>), Error> {
    let mut collected = Collected {
        metadata: None,
        workspace_root: None,
        outside: None,
        note: None,
        calls: None,
        timings: Timings::from_env(),
    };
    if opts.no_scan {
        return Ok((collected, Vec::new()));
    }
    let workspace = Workspace::discover(opts.manifest_path.as_deref())?;
    let outside =
        crate::input::workspace::check_generator_in(&opts.invocation, &workspace.metadata)?;
    collected.timings.lap("cargo metadata");
    // The linked crates' kube calls are read in the same walk: each file is read and lexed
    // once (a walk of its own on another thread cost more CPU than it saved in wall time).
    let mut scan = workspace.scan_with_calls(inputs.linked_crates);
    collected.calls = Some(std::mem::take(&mut scan.calls));
    collected.timings.lap("scan");
    let webhooks = inputs.webhooks;
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
        .chain(
            inputs
                .conversions
                .iter()
                .map(|c| (AttrKind::Conversion, c.source.clone())),
        )
        .collect();
    let findings = cross_check_all(
        inputs.rbac,
        inputs.crds,
        &others,
        &scan,
        inputs.linked_crates,
        &workspace.root,
        &workspace.cfg_env(),
    );
    if !findings.errors.is_empty() {
        return Err(Error::CrossCheck {
            errors: findings.errors,
            warnings: findings.warnings,
        });
    }
    collected.timings.lap("cross-check");
    collected.outside = outside;
    collected.metadata = Some(workspace.metadata);
    collected.workspace_root = Some(workspace.root);
    Ok((collected, findings.warnings))
}

/// What the generators made so far, in the order their files are reported.
#[derive(Default)]
struct Made {
    files: Vec<Output>,
    summary: Vec<String>,
    warnings: Vec<Warning>,
    /// Files kept as they are on disk because the input cannot vouch for them.
    unverified: Vec<std::path::PathBuf>,
}

impl Made {
    /// Takes a generator's files, summary and warnings, keeping its files as they are on disk
    /// when the input cannot vouch for `artifact`, and records which files it made.
    fn take(
        &mut self,
        artifact: Artifact,
        generated: Generated,
        artifacts: &mut Artifacts,
        inputs: &Inputs,
        rerun: &str,
    ) {
        self.summary.extend(generated.summary);
        self.warnings
            .extend(generated.warnings.into_iter().map(Warning::from));
        for mut file in generated.files {
            if inputs.kept.contains(&artifact) {
                self.unverified.push(file.path.clone());
                let (content, warning) = from_source::left_as_it_is(
                    &file.path,
                    std::mem::take(&mut file.content),
                    rerun,
                );
                file.content = content;
                self.warnings.extend(warning.map(Warning::LeftAsItIs));
            }
            artifacts.files.push((artifact, file.path.clone()));
            self.files.push(file);
        }
    }
}

/// What this run's deploy bundle grants besides the attributes, and where the generator's
/// `Cargo.toml` is (its `[package.metadata.kube-markers.bundle]` can declare more).
fn bundle_grants(
    bundle: &bundle::Decided,
    opts: &Options,
    metadata: Option<&cargo_metadata::Metadata>,
    workspace_root: Option<&std::path::Path>,
) -> crate::check::calls::BundleGrants {
    let manifest = opts
        .invocation
        .package_dir
        .as_ref()
        .map(|dir| dir.join("Cargo.toml"))
        .or_else(|| {
            let package = opts.invocation.package.as_deref()?;
            metadata?
                .packages
                .iter()
                .find(|p| p.name.as_str() == package)
                .map(|p| p.manifest_path.clone().into_std_path_buf())
        });
    crate::check::calls::BundleGrants {
        leader_election: matches!(
            bundle,
            bundle::Decided::Made(id) if id.leader_election
        ),
        generator_manifest: manifest.map(|m| {
            workspace_root
                .and_then(|root| m.strip_prefix(root).ok())
                .unwrap_or(&m)
                .display()
                .to_string()
        }),
    }
}

/// Lints, generates every artifact, plans the files and writes (or checks) them; the
/// cross-check's warnings (`cross_check`) come first in the report.
pub(crate) fn generate_and_write(
    inputs: &Inputs,
    collected: Collected,
    cross_check: Vec<Finding>,
    opts: &Options,
) -> Result<Report, Error> {
    let Collected {
        metadata,
        workspace_root,
        outside,
        mut note,
        calls,
        mut timings,
    } = collected;
    let resolved;
    let opts = match &workspace_root {
        Some(root) => {
            resolved = opts.out_in_workspace(root);
            &resolved
        }
        None => opts,
    };
    // Nothing linked is a mistake only where nothing says otherwise: with the scan, the
    // cross-check has refused every attribute of the workspace the registry lacks, so an empty
    // registry is a workspace with no attributes yet (a new project), whose bundle stands alone.
    if inputs.is_empty() && opts.no_scan {
        return Err(Error::EmptyRegistry);
    }
    let header = read_header(opts)?;
    let mut lint_warnings = lints::check_entries(inputs.rbac, &opts.role_name);
    let schema_lint_warnings = crate::check::schema_lints::check(
        inputs.crds,
        &registry::schema_types(),
        &schema_lint_levels(metadata.as_ref())?,
    );
    timings.lap("lints");

    let mut made = Made {
        warnings: cross_check
            .into_iter()
            .map(Warning::CrossCheck)
            .chain(outside.map(Warning::from))
            .collect(),
        ..Made::default()
    };
    let rerun = opts.invocation.rerun();
    // The command, when `link!` recorded the generator's package (always, in an operator's
    // generator); else the text names no binary, whose name would change with every build.
    let regenerate = match &opts.invocation.package {
        Some(_) => format!("`{rerun}`"),
        None => "the generator".to_string(),
    };
    let context = Context {
        inputs,
        opts,
        header: &header,
        regenerate: &regenerate,
        metadata: metadata.as_ref(),
    };
    let mut artifacts = Artifacts::default();
    for (artifact, generator) in GENERATORS {
        let generated = generator(&context, &mut artifacts)?;
        made.take(artifact, generated, &mut artifacts, inputs, &rerun);
        timings.lap(artifact.name());
    }
    let crds = &artifacts.crds;
    let calls = calls.unwrap_or_default();
    if !calls.is_empty() {
        let analysis = crate::check::calls::analyse_kinds(
            &calls,
            inputs.rbac,
            &crate::check::calls::Kinds::generated(crds),
            inputs.linked_crates,
            workspace_root
                .as_deref()
                .unwrap_or(std::path::Path::new("")),
            &opts.role_name,
        )
        .with_bundle(&bundle_grants(
            &artifacts.bundle,
            opts,
            metadata.as_ref(),
            workspace_root.as_deref(),
        ));
        made.warnings
            .extend(analysis.warnings.into_iter().map(Warning::Call));
        lint_warnings.extend(analysis.unused);
        if !analysis.unknown.is_empty() {
            let unknown = format!(
                "{} kube call(s) of unknown kind, not checked against the attributes:\n  {}",
                analysis.unknown.len(),
                analysis.unknown.join("\n  ")
            );
            note = Some(match note {
                Some(n) => format!("{n}\n{unknown}"),
                None => unknown,
            });
        }
        timings.lap("call check");
    }
    let allowed = upgrade_check(crds, inputs, opts, metadata.as_ref(), &mut made.warnings)?;
    made.summary.extend(allowed);
    timings.lap("upgrade check");

    let Made {
        files,
        summary,
        mut warnings,
        unverified,
    } = made;
    let mut plan = plan::plan(
        files,
        &destinations(opts),
        &crate::output::ledger::Owner::of(opts),
        opts.header_file.as_deref(),
    )?;
    warnings.extend(plan.warnings.drain(..).map(Warning::Files));
    timings.lap("plan");
    if opts.deny_warnings
        && !(lint_warnings.is_empty() && schema_lint_warnings.is_empty() && warnings.is_empty())
    {
        let denied = lint_warnings
            .iter()
            .cloned()
            .map(Denied::Lint)
            .chain(schema_lint_warnings.iter().cloned().map(Denied::SchemaLint))
            .chain(warnings.iter().cloned().map(Denied::Warning))
            .collect();
        return Err(Error::DeniedWarnings(denied));
    }
    let mut files = if opts.check {
        write::check(&plan)?
    } else {
        let mut kept = Vec::new();
        let files = write::apply(plan, &mut kept)?;
        warnings.extend(kept.into_iter().map(Warning::Files));
        files
    };
    // A file kept as it is matches what the last build made, which says nothing about the
    // sources: no "up to date" for it.
    for (path, status) in &mut files {
        if *status == FileStatus::Unchanged && unverified.contains(path) {
            *status = FileStatus::Unverified;
        }
    }
    timings.lap("write or check");
    let mut summary = summary.join("; ");
    if let Some(note) = note {
        summary.push('\n');
        summary.push_str(&note);
    }
    Ok(Report {
        files,
        warnings,
        lints: lint_warnings,
        schema_lints: schema_lint_warnings,
        summary,
    })
}

/// The API-convention lints the workspace's `[workspace.metadata.kube-markers.lints]` turns on
/// (the defaults without a workspace: `--no-scan`).
fn schema_lint_levels(
    metadata: Option<&cargo_metadata::Metadata>,
) -> Result<crate::check::schema_lints::LintLevels, Error> {
    let Some(metadata) = metadata else {
        return Ok(Default::default());
    };
    let manifest = metadata.workspace_root.join("Cargo.toml");
    crate::check::schema_lints::LintLevels::from_metadata(
        &metadata.workspace_metadata["kube-markers"]["lints"],
        manifest.as_str(),
    )
    .map_err(Error::LintConfig)
}

/// Compares the CRDs with those this generator wrote before: breaking changes fail the run
/// (or, with `--allow-breaking`, are listed in the summary, which this returns); findings at
/// `warn` are warnings.
fn upgrade_check(
    crds: &[generate::crds::GeneratedCrd],
    inputs: &Inputs,
    opts: &Options,
    metadata: Option<&cargo_metadata::Metadata>,
    warnings: &mut Vec<Warning>,
) -> Result<Option<String>, Error> {
    use crate::check::upgrade;
    // Kept as they are on disk (`--rbac-from-source`): nothing new to compare.
    if crds.is_empty() || inputs.kept.contains(&Artifact::Crds) {
        return Ok(None);
    }
    let settings = metadata
        .map(|m| m.workspace_metadata["kube-markers"].clone())
        .unwrap_or_default();
    let policy = upgrade::policy(&settings)?;
    let compared = upgrade::compare(
        crds,
        inputs.crds,
        &registry::schema_types(),
        &opts.crd_dir(),
        &crate::output::ledger::listed(&opts.crd_dir(), &opts.generator_name),
        &policy,
    )?;
    warnings.extend(compared.warnings.into_iter().map(Warning::Upgrade));
    if !compared.errors.is_empty() && !opts.allow_breaking {
        return Err(Error::Breaking(compared.errors));
    }
    // What the run lets through says so, each change with what accepted it.
    let mut summary = Vec::new();
    if !compared.allowed.is_empty() {
        let mut text = format!(
            "{} CRD change(s) accepted by #[k8s(allow(...))]:",
            compared.allowed.len()
        );
        for (finding, allow) in &compared.allowed {
            text.push_str(&format!(
                "\n  - {finding}; allowed at {}:{}: {}",
                allow.source.file, allow.source.line, allow.reason
            ));
        }
        summary.push(text);
    }
    if !compared.relaxed.is_empty() {
        let mut text = format!(
            "{} CRD change(s) to alpha versions, warnings only as the upgrade policy's alpha = \
             \"off\" relaxes them:",
            compared.relaxed.len()
        );
        for finding in &compared.relaxed {
            text.push_str(&format!("\n  - warning: {finding}"));
        }
        summary.push(text);
    }
    if !compared.errors.is_empty() {
        let mut text = format!(
            "{} breaking CRD change(s) allowed by --allow-breaking:",
            compared.errors.len()
        );
        for e in &compared.errors {
            text.push_str(&format!("\n  - {e}"));
        }
        summary.push(text);
    }
    Ok((!summary.is_empty()).then(|| summary.join("\n")))
}

/// The directories the generator keeps tidy: `--out` and `--crd-out` even when nothing goes
/// there any more, the bundle's own subdirectory, and the webhook directories (default and
/// chosen) when they hold an earlier run's file.
fn destinations(opts: &Options) -> Vec<Destination> {
    let mut destinations = vec![
        Destination {
            dir: opts.out_dir.clone(),
            option: "--out",
        },
        Destination {
            dir: opts.crd_dir(),
            option: "--crd-out",
        },
    ];
    // Kept tidy when it exists, so that `--no-docs` removes the pages an earlier run wrote.
    for (dir, option) in [
        (opts.out_dir.join(generate::docs::DIR), "--out"),
        (opts.docs_dir(), "--docs-out"),
    ] {
        if dir.is_dir() {
            destinations.push(Destination { dir, option });
        }
    }
    let pinned = opts.out_dir.join(bundle::PINNED_DIR);
    if pinned.is_dir() {
        destinations.push(Destination {
            dir: pinned,
            option: "--out",
        });
    }
    // The chart's directories, so that its files go when it is switched off.
    for dir in generate::chart::directories(&opts.out_dir) {
        destinations.push(Destination {
            dir,
            option: "--out",
        });
    }
    for (dir, option) in [
        (opts.out_dir.join("webhook"), "--out"),
        (opts.webhook_dir(), "--webhook-out"),
    ] {
        if dir.is_dir() {
            destinations.push(Destination { dir, option });
        }
    }
    destinations
}

/// `--header-file`'s text, ` YEAR` replaced by `--year`.
pub(crate) fn read_header(opts: &Options) -> Result<String, Error> {
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
