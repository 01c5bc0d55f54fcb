//! `calls`: the `#[rbac]` attributes the linked crates' code needs, placed at the functions that
//! make the kube calls (onboarding an operator that has none yet starts from its own code).

use super::flags::{CommandLine, Parsed};
use std::process::ExitCode;

/// `calls` takes no argument but `--help`.
#[derive(Default)]
pub(crate) struct Args;

/// `calls`' command line.
pub(crate) static COMMAND_LINE: CommandLine<Args> = CommandLine {
    name: "calls",
    summary: "Print the #[rbac] attributes the code's kube calls need, at the functions that make them",
    about: "Print the #[rbac] attributes the kube calls of the linked crates' code need (kube::Api \
            methods, kube-runtime's Controller, watcher, finalizer and event Recorder), placed at \
            the functions that make the calls: each function as file:line, then the attributes to \
            write above it. Calls whose kind the scan cannot tell are listed on stderr.",
    usage: &["[OPTIONS]"],
    positionals: None,
    flags: &[],
    notes: "The same scan as every run's check of the attributes against the calls \
            (docs/least-privilege.md, The RBAC the code needs).\n\
            Exit codes: 0 printed, 1 the workspace could not be read, 2 bad arguments.",
};

/// `<bin> calls`.
pub(crate) fn main(args: &[String]) -> ExitCode {
    let line = &COMMAND_LINE;
    match COMMAND_LINE.parse(&mut Args, args.iter().cloned()) {
        Ok(Parsed::Help) => return super::print_help(line),
        Ok(Parsed::Args) => {}
        Err(e) => return super::usage_error(line, &e),
    }
    let workspace = match crate::input::workspace::Workspace::discover(None) {
        Ok(ws) => ws,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let analysis = crate::check::calls::analyse_workspace(&workspace);
    for unknown in &analysis.unknown {
        eprintln!("note: {unknown}");
    }
    print!("{}", crate::check::calls::onboard::render(&analysis.needed));
    ExitCode::SUCCESS
}
