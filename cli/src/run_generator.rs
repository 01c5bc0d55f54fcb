//! `kube-markers run-generator BINARY [ARGS...]`: the generator's run over a light
//! generator's registry (`kube_markers::export::main`, which runs this). The binary prints
//! its registry (the attributes' records and each CRD type's CRD) when asked with
//! `KUBE_MARKERS_EXPORT`; this process loads it in place of its own, empty, link sections
//! and runs the generator's code (`kube_markers_codegen::main_with`) over `ARGS`: the same
//! files, messages and exit codes as the whole generator linked into the binary.

use kube_markers_registry::export;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

const HELP: &str = "\
Run the generator's checks and writing over a light generator's registry: what a generator
binary whose main is kube_markers::export::main runs when it is run (cargo run -p codegen).

Usage: kube-markers run-generator BINARY [GENERATOR-ARGS...]
";

/// `kube-markers run-generator ...`.
pub fn main(args: &[String]) -> ExitCode {
    let Some((binary, generator_args)) = args.split_first() else {
        eprint!("error: the generator binary is missing\n\n{HELP}");
        return ExitCode::from(2);
    };
    if binary == "-h" || binary == "--help" {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    if let Err(e) = load(Path::new(binary)) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    kube_markers_codegen::main_with(generator_args.to_vec())
}

/// The registry of `binary`, loaded in place of this process's.
fn load(binary: &Path) -> Result<(), String> {
    let output = Command::new(binary)
        .env(export::EXPORT_ENV, "1")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} did not export its registry ({})",
            binary.display(),
            output.status
        ));
    }
    let json = String::from_utf8(output.stdout)
        .map_err(|_| format!("{}: its registry export is not UTF-8", binary.display()))?;
    export::load(&json, binary).map_err(|e| format!("{}: {e}", binary.display()))
}
