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

pub mod can_i;
mod cli;
mod crosscheck;
mod scan;
mod write;

pub use cli::{Command, HELP, Options};
pub use crosscheck::{Findings, cross_check};
pub use scan::{AttrKind, FoundAttr, Package, ScanReport, Workspace};
pub use write::{FileStatus, check_file, write_file};

use crate::crd::{GeneratedCrd, VERSION_ANNOTATION, generate_crds};
use crate::rbac::{GeneratedRole, Marker, generate_roles, merge_collisions};
use crate::registry::{self, CrdEntry, RbacEntry};
use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

/// Why a run failed. Every message names the input it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Bad command line.
    Usage(String),
    /// The workspace could not be scanned.
    Scan(String),
    /// Reading or writing a file failed.
    Io(String),
    /// The registry disagrees with the sources: attributes that would be lost.
    CrossCheck(Vec<String>),
    /// A CRD could not be generated, or the API server would reject it.
    Crd(Vec<String>),
    /// Nothing was linked.
    EmptyRegistry,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) | Error::Scan(msg) | Error::Io(msg) => f.write_str(msg),
            Error::CrossCheck(errors) => {
                writeln!(
                    f,
                    "{} #[rbac] problem(s) between the sources and the registry:",
                    errors.len()
                )?;
                for e in errors {
                    writeln!(f, "  - {e}")?;
                }
                Ok(())
            }
            Error::Crd(errors) => {
                writeln!(f, "{} CRD problem(s):", errors.len())?;
                for e in errors {
                    writeln!(f, "  - {e}")?;
                }
                Ok(())
            }
            Error::EmptyRegistry => f.write_str(
                "no #[rbac] or #[crd] entries are linked into this generator: name the crates \
                 that carry them with `kube_markers::link!(crate_a, crate_b)` in its main.rs",
            ),
        }
    }
}

impl std::error::Error for Error {}

/// A file to generate, relative to the output directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path under `--out`.
    pub path: PathBuf,
    /// Full text.
    pub content: String,
}

/// The outcome of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Each file under the output directory and what happened to it.
    pub files: Vec<(PathBuf, FileStatus)>,
    /// Things worth a look that did not stop the run.
    pub warnings: Vec<String>,
    /// Summary of what the role file contains.
    pub summary: String,
}

impl Report {
    /// `--check` found a stale or missing file.
    pub fn is_stale(&self) -> bool {
        self.files.iter().any(|(_, s)| {
            matches!(
                s,
                FileStatus::Stale(_) | FileStatus::Missing | FileStatus::Orphaned
            )
        })
    }
}

/// The roles for these entries, as controller-gen would generate them.
pub fn roles_for(entries: &[&RbacEntry], default_role_name: &str) -> Vec<GeneratedRole> {
    let markers: Vec<Marker> = entries.iter().map(|e| Marker::from(*e)).collect();
    generate_roles(&markers, default_role_name)
}

/// The text of the RBAC manifest: the header, then one `---` document per role.
pub fn render_roles(roles: &[GeneratedRole], header: &str) -> String {
    let docs: Vec<serde_json::Value> = roles.iter().map(|r| r.to_object().to_value()).collect();
    crate::yaml::render_documents(header, &docs)
}

fn read_header(opts: &Options) -> Result<String, Error> {
    let Some(path) = &opts.header_file else {
        return Ok(String::new());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read --header-file {}: {e}", path.display())))?;
    Ok(text.replace(" YEAR", &format!(" {}", opts.year)))
}

/// Runs the generator over this binary's registry.
pub fn run(opts: &Options) -> Result<Report, Error> {
    run_with(
        &registry::rbac_entries(),
        &registry::crd_entries(),
        &registry::linked_crates(),
        opts,
    )
}

/// Runs the generator over the given entries (the registry, or a test's own).
pub fn run_with(
    entries: &[&RbacEntry],
    crds: &[&CrdEntry],
    linked_crates: &[&str],
    opts: &Options,
) -> Result<Report, Error> {
    let mut warnings = Vec::new();
    if !opts.no_scan {
        let workspace = Workspace::discover(opts.manifest_path.as_deref())?;
        let scan = workspace.scan();
        let findings = cross_check(entries, crds, &scan, linked_crates, &workspace.root);
        if !findings.errors.is_empty() {
            return Err(Error::CrossCheck(findings.errors));
        }
        warnings = findings.warnings;
    }
    if entries.is_empty() && crds.is_empty() {
        return Err(Error::EmptyRegistry);
    }

    // Everything is generated before anything is written: a bad CRD leaves no half-updated tree.
    let header = read_header(opts)?;
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    let mut summary = Vec::new();
    if !entries.is_empty() {
        let markers: Vec<Marker> = entries.iter().map(|e| Marker::from(*e)).collect();
        let roles = generate_roles(&markers, &opts.role_name);
        let collisions = merge_collisions(&markers, &opts.role_name);
        if collisions > 0 {
            warnings.push(format!(
                "{collisions} rule merge(s) collided: controller-gen would keep only one of the \
                 colliding rules (at random) for these attributes, so its output would differ from \
                 this one, which keeps the verbs of both"
            ));
        }
        summary.push(summarize(&roles, entries.len()));
        files.push((
            opts.out_dir.join(&opts.file_name),
            render_roles(&roles, &header),
        ));
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
    let crd_dir = opts.crd_dir();
    for crd in &generated_crds {
        files.push((crd_dir.join(&crd.file_name), render_crd(crd, &header)));
    }

    let mut report = Report {
        warnings,
        summary: summary.join("; "),
        ..Report::default()
    };
    for (path, content) in &files {
        let status = if opts.check {
            check_file(path, content)?
        } else {
            write_file(path, content)?
        };
        report.files.push((path.clone(), status));
    }
    // CRD files this generator wrote earlier for types that are gone.
    for path in orphaned_crds(&crd_dir, &files)? {
        if opts.check {
            report.files.push((path, FileStatus::Orphaned));
        } else {
            std::fs::remove_file(&path)
                .map_err(|e| Error::Io(format!("cannot remove {}: {e}", path.display())))?;
            report.files.push((path, FileStatus::Removed));
        }
    }
    Ok(report)
}

/// A CRD file: the header, then the object after `---`.
pub fn render_crd(crd: &GeneratedCrd, header: &str) -> String {
    crate::yaml::render_documents(header, &[crd.to_value()])
}

/// Files in the CRD directory that carry our annotation but are no longer generated.
fn orphaned_crds(
    dir: &std::path::Path,
    generated: &[(PathBuf, String)],
) -> Result<Vec<PathBuf>, Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::Io(format!("cannot read {}: {e}", dir.display()))),
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "yaml") || generated.iter().any(|(p, _)| *p == path)
        {
            continue;
        }
        let ours = std::fs::read_to_string(&path)
            .is_ok_and(|text| text.contains(&format!("{VERSION_ANNOTATION}: ")));
        if ours {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
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

/// The generator's entry point: parses `std::env::args`, runs, prints, and returns the exit
/// code (0 done or fresh, 1 failed or stale, 2 bad command line).
pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "can-i") {
        return can_i::main(&args[1..]);
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
            for w in &report.warnings {
                eprintln!("warning: {w}");
            }
            let mut stale = false;
            for (path, status) in &report.files {
                let shown = path.display();
                match status {
                    FileStatus::Unchanged if opts.check => eprintln!("{shown} is up to date"),
                    FileStatus::Unchanged => eprintln!("{shown} unchanged"),
                    FileStatus::Written => eprintln!("wrote {shown}"),
                    FileStatus::Removed => eprintln!("removed {shown} (its type no longer exists)"),
                    FileStatus::Stale(diff) => {
                        print!("{diff}");
                        eprintln!(
                            "error: {shown} is stale; run the generator without --check to update it"
                        );
                        stale = true;
                    }
                    FileStatus::Missing => {
                        eprintln!(
                            "error: {shown} is missing; run the generator without --check to create it"
                        );
                        stale = true;
                    }
                    FileStatus::Orphaned => {
                        eprintln!(
                            "error: {shown} was generated for a type that no longer exists; run the \
                             generator without --check to remove it"
                        );
                        stale = true;
                    }
                }
            }
            eprintln!("{}", report.summary);
            if stale {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests;
