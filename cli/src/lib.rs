//! `kube-markers`, the installed command (`cargo install --path cli` from a checkout): the
//! checks anyone can run on their own files, without a Rust workspace, and the operator's edit
//! loop.
//!
//! `check-crds`, `can-i` and `explain` are the generator's subcommands of the same name, the
//! same code; `generate` is the command's own: the workspace's generator, rebuilt only when
//! something other than `#[rbac]` attributes changed (docs/command.md).

use std::process::ExitCode;

mod generate;
mod run_generator;

/// A subcommand: its name and its `main` over the arguments after the name.
struct Subcommand {
    name: &'static str,
    summary: &'static str,
    main: fn(&[String]) -> ExitCode,
}

/// Every subcommand, in the order `--help` lists them.
static SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "check-crds",
        summary: "Check CRD files as kube-apiserver would, or a release against the one it replaces",
        main: kube_markers_codegen::cli::check_crds::main,
    },
    Subcommand {
        name: "can-i",
        summary: "Whether an identity may do something, by RBAC manifests or a kustomization",
        main: kube_markers_codegen::cli::can_i::main,
    },
    Subcommand {
        name: "generate",
        summary: "Run the workspace's generator; no rebuild when only #[rbac] attributes changed",
        main: generate::main,
    },
    Subcommand {
        name: "run-generator",
        summary: "Check and write what a light generator (kube_markers::export::main) exports",
        main: run_generator::main,
    },
    Subcommand {
        name: "explain",
        summary: "The rule, role and binding of RBAC manifests that allow something (--from)",
        main: kube_markers_codegen::cli::explain::main,
    },
    Subcommand {
        name: "init",
        summary: "Write a new operator's workspace in the current directory",
        main: kube_markers_scaffold::init::main,
    },
    Subcommand {
        name: "create",
        summary: "Add a kind (`create api`) or its admission webhooks (`create webhook`)",
        main: kube_markers_scaffold::create::main,
    },
];

/// Parses `std::env::args`, runs the subcommand, and returns its exit code (0 done, 1 findings,
/// 2 bad command line).
pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args)
}

/// Runs the command line `args` (without the program's name).
pub fn run(args: &[String]) -> ExitCode {
    let Some(first) = args.first() else {
        eprint!("{}", help());
        return ExitCode::from(2);
    };
    match first.as_str() {
        "-h" | "--help" | "help" => {
            print!("{}", help());
            return ExitCode::SUCCESS;
        }
        "-V" | "--version" => {
            println!("kube-markers {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    match SUBCOMMANDS.iter().find(|s| s.name == first) {
        Some(sub) => (sub.main)(&args[1..]),
        None => {
            eprintln!(
                "error: unknown subcommand `{first}`\n\nRun `kube-markers --help` for the list."
            );
            ExitCode::from(2)
        }
    }
}

/// The command's help: its subcommands, one line each.
fn help() -> String {
    let mut text = String::from(
        "kube-markers: Kubernetes CRD and RBAC checks on any files\n\nUsage: kube-markers <COMMAND> [ARGS]...\n\nCommands:\n",
    );
    let width = SUBCOMMANDS.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for sub in SUBCOMMANDS {
        text.push_str(&format!("  {:width$}  {}\n", sub.name, sub.summary));
    }
    text.push_str("\nRun `kube-markers <COMMAND> --help` for a command's flags.\n");
    text
}
