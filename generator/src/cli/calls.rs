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
    let analysis = analyse_workspace(&workspace);
    for unknown in &analysis.unknown {
        eprintln!("note: {unknown}");
    }
    print!("{}", crate::check::calls::onboard::render(&analysis.needed));
    ExitCode::SUCCESS
}

/// [`analyse`] on the linked crates of `workspace`, with the registry's attributes and CRDs:
/// what `calls` and `explain` print.
pub(super) fn analyse_workspace(
    workspace: &crate::input::workspace::Workspace,
) -> crate::check::calls::Analysis {
    let (rbac, crds, linked) = (
        kube_markers_registry::rbac_entries(),
        kube_markers_registry::crd_entries(),
        kube_markers_registry::linked_crates(),
    );
    let scan = workspace.scan_with_calls(&linked);
    // The bundle as this generator's run would resolve it (its flags aside).
    let invocation = crate::invocation::Invocation::current();
    let identity = crate::generate::bundle::resolve(
        &Default::default(),
        Some(&workspace.metadata),
        invocation.package.as_deref(),
        &linked,
    );
    let bundle = crate::check::calls::BundleGrants {
        leader_election: matches!(identity, Ok(Some(id)) if id.leader_election),
        generator_manifest: invocation.package_dir.map(|dir| {
            let manifest = dir.join("Cargo.toml");
            manifest
                .strip_prefix(&workspace.root)
                .unwrap_or(&manifest)
                .display()
                .to_string()
        }),
    };
    crate::check::calls::analyse(
        &scan.calls,
        &rbac,
        &crds,
        &linked,
        &workspace.root,
        kube_markers_rbac::DEFAULT_ROLE_NAME,
    )
    .with_bundle(&bundle)
}
