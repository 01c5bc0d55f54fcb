//! The light generator: a generator binary that links the registry and the operator's types
//! only, and leaves the checks and the writing to the installed `kube-markers` command
//! (docs/command.md, "The light generator"). Its `main` is [`main`](crate::export::main):
//!
//! ```ignore
//! kube_markers::link!(my_operator);
//!
//! fn main() -> std::process::ExitCode {
//!     kube_markers::export::main()
//! }
//! ```
//!
//! Run as the whole generator is (`cargo run -p codegen -- ARGS`), it runs
//! `kube-markers run-generator <this binary> ARGS`; the command asks it for its registry
//! ([`kube_markers_registry::export`]: the attributes' records and each CRD type's CRD, as
//! JSON) and runs the generator's code over it: the same files, messages and exit codes as
//! `kube_markers::codegen::main()`.

use std::io::Write;
use std::process::{Command, ExitCode};

pub use kube_markers_registry::export::{COMMAND_ENV, EXPORT_ENV, to_json};

/// The light generator's entry point: with [`EXPORT_ENV`] set, prints the registry export on
/// standard output; else runs `kube-markers run-generator <this binary> ARGS` and returns its
/// exit code (2 when the command cannot be run, saying how to install it or switch back).
pub fn main() -> ExitCode {
    if std::env::var_os(EXPORT_ENV).is_some() {
        let mut out = std::io::stdout().lock();
        return match out
            .write_all(to_json().as_bytes())
            .and_then(|()| out.flush())
        {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: writing the registry export: {e}");
                ExitCode::from(2)
            }
        };
    }
    let command = std::env::var_os(COMMAND_ENV).unwrap_or_else(|| "kube-markers".into());
    let package = kube_markers_registry::generator().map_or("codegen", |g| g.package);
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: the generator's own path: {e}");
            return ExitCode::from(2);
        }
    };
    match Command::new(&command)
        .arg("run-generator")
        .arg(&exe)
        .args(std::env::args_os().skip(1))
        .status()
    {
        Ok(status) => ExitCode::from(
            status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(2),
        ),
        Err(e) => {
            eprintln!(
                "error: `{}`: {e}\n\
                 {package} is a light generator (kube_markers::export::main): the installed \
                 command `kube-markers` checks and writes what it exports. Install it from the \
                 kube-markers your operator depends on:\n    {}\n\
                 or name it with {COMMAND_ENV}=/path/to/kube-markers; or link the whole \
                 generator instead: `features = [\"codegen\"]` for kube-markers in \
                 {package}/Cargo.toml and `kube_markers::codegen::main()` in its main.rs",
                command.to_string_lossy(),
                kube_markers_registry::export::install_command()
            );
            ExitCode::from(2)
        }
    }
}
