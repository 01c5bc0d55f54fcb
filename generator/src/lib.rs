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
//! verifies it is fresh. See [`help`] (`codegen --help`) for every flag and subcommand, and
//! `codegen completions bash` (or `zsh`, `fish`) for a shell completion script.
//!
//! Every destination is validated before anything is written. In each directory it writes to,
//! the generator keeps a ledger of the files it wrote and their SHA-256
//! (`.kube-markers-<generator>.sha256`): it removes a file only if the ledger lists it, it no
//! longer generates it, and its content is unchanged, so files it did not write (by hand, or
//! by another generator with another name) are never touched.

pub mod can_i;
pub mod check;
pub mod cli;
mod error;
pub mod explain;
pub mod generate;
pub mod input;
mod invocation;
mod model;
mod options;
pub mod output;
pub mod pipeline;
mod report;
mod timings;
mod usage;
mod warning;

/// RBAC as the generator merges and authorizes it (the `kube-markers-rbac` crate).
#[doc(inline)]
pub use kube_markers_rbac as rbac;

pub use check::{crosscheck, lints, schema_lints};
pub use cli::generate::{Command, help};
pub use error::{Denied, Error, IoAction};
pub use generate::crds::render_crd;
pub use generate::crds::{
    CrdWarning, GeneratedCrd, generate_crds, generate_crds_warning, generate_crds_with_conversions,
};
pub use generate::roles::render_roles;
pub use generate::{bundle, webhooks as webhook};
pub use input::from_source;
pub use input::scan_error::ScanError;
pub use invocation::Invocation;
pub(crate) use kube_markers_core::error_text::with_sources;
pub use options::Options;
pub use output::{FileStatus, FileWarning, Orphan, OutputProblem};
pub use pipeline::{Inputs, Webhooks, run, run_inputs, run_with, run_with_webhooks};
pub use report::Report;
pub use usage::{TargetProblem, UsageError};
pub use warning::Warning;

pub use check::crosscheck::{Activity, Finding, Place, Problem};

/// The workspace scan and its cross-check with the registry, for this repository's own tests:
/// not a stable API.
#[doc(hidden)]
pub mod __internals {
    pub use crate::check::crosscheck::{Findings, cross_check, cross_check_all};
    pub use crate::input::cfg::{CfgEnv, Truth};
    pub use crate::input::sources::{FoundAttr, ScanReport};
    pub use crate::input::workspace::{
        AttrKind, Package, Target, TargetKind, Workspace, metadata_for_tests,
    };

    /// What the generator's `main` prints of a run (for the in-process benchmark of a run).
    pub fn print_report(report: &super::Report, opts: &super::Options) -> bool {
        crate::report::print_report(report, opts)
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

use kube_markers_rbac::{GeneratedRole, generate_roles_counting};
use kube_markers_registry::RbacEntry;
use report::print_report;
use std::process::ExitCode;

/// The roles for these entries, as controller-gen would generate them.
pub fn roles_for(entries: &[&RbacEntry], default_role_name: &str) -> Vec<GeneratedRole> {
    generate_roles_counting(entries.iter().map(|e| &e.marker), default_role_name).0
}

/// The generator's entry point: parses `std::env::args`, runs a subcommand or generates,
/// prints, and returns the exit code (0 done or fresh, 1 failed or stale, 2 bad command line).
pub fn main() -> ExitCode {
    main_with(std::env::args().skip(1).collect())
}

/// [`main`] over `args` (without the program's name): what the installed command runs over a
/// light generator's exported registry (`kube-markers run-generator`).
pub fn main_with(args: Vec<String>) -> ExitCode {
    if let Some(subcommand) = args.first().and_then(|name| cli::subcommand(name)) {
        return (subcommand.main)(&args[1..]);
    }
    let line = &cli::generate::COMMAND_LINE;
    let opts = match Command::parse(args) {
        Ok(Command::Run(opts)) => opts,
        Ok(Command::Help) => return cli::print_help(line),
        Err(e) => return cli::usage_error(line, &e),
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
