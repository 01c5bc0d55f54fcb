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

mod cli;
mod crosscheck;
mod scan;
mod write;

pub use cli::{Command, HELP, Options};
pub use crosscheck::{Findings, cross_check};
pub use scan::{FoundAttr, Package, ScanReport, Workspace};
pub use write::{FileStatus, check_file, write_file};

use crate::rbac::{GeneratedRole, Marker, generate_roles, merge_collisions};
use crate::registry::{self, RbacEntry};
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
            Error::EmptyRegistry => f.write_str(
                "no #[rbac] entries are linked into this generator: name the crates that carry \
                 them with `kube_markers::link!(crate_a, crate_b)` in its main.rs",
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
        self.files
            .iter()
            .any(|(_, s)| matches!(s, FileStatus::Stale(_) | FileStatus::Missing))
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
    run_with(&registry::rbac_entries(), &registry::linked_crates(), opts)
}

/// Runs the generator over the given entries (the registry, or a test's own).
pub fn run_with(
    entries: &[&RbacEntry],
    linked_crates: &[&str],
    opts: &Options,
) -> Result<Report, Error> {
    let mut warnings = Vec::new();
    if !opts.no_scan {
        let workspace = Workspace::discover(opts.manifest_path.as_deref())?;
        let scan = workspace.scan();
        let findings = cross_check(entries, &scan, linked_crates, &workspace.root);
        if !findings.errors.is_empty() {
            return Err(Error::CrossCheck(findings.errors));
        }
        warnings = findings.warnings;
    }
    if entries.is_empty() {
        return Err(Error::EmptyRegistry);
    }

    let header = read_header(opts)?;
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
    let file = GeneratedFile {
        path: PathBuf::from(&opts.file_name),
        content: render_roles(&roles, &header),
    };

    let mut report = Report {
        warnings,
        summary: summarize(&roles, entries.len()),
        ..Report::default()
    };
    let target = opts.out_dir.join(&file.path);
    let status = if opts.check {
        check_file(&target, &file.content)?
    } else {
        write_file(&target, &file.content)?
    };
    report.files.push((target, status));
    Ok(report)
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
    let command = match Command::parse(std::env::args().skip(1)) {
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
                    FileStatus::Unchanged if opts.check => {
                        eprintln!("{shown} is up to date ({})", report.summary)
                    }
                    FileStatus::Unchanged => eprintln!("{shown} unchanged ({})", report.summary),
                    FileStatus::Written => eprintln!("wrote {shown} ({})", report.summary),
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
                }
            }
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
