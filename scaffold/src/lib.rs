//! `kube-markers init`, `kube-markers create api` and `kube-markers create webhook`: day zero of
//! a kube-rs operator, as kubebuilder's commands are for a Go one.
//!
//! A command reads its flags ([`args`]), checks every name ([`names`]), reads the project's
//! record ([`project`]), plans every file it writes or edits ([`plan`]: a new file never
//! replaces one, a shared file changes only at its `+kube-markers:scaffold:` markers, and
//! nothing is written unless the whole plan holds), writes it, then regenerates `rbac-out/`
//! with the project's generator.

pub mod args;
pub mod create;
pub mod init;
mod markers;
pub mod names;
pub mod plan;
pub mod project;
mod templates;

use std::path::Path;
use std::process::{Command, ExitCode};

/// Why a command refused or failed: what is wrong, where, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The whole message, its last line what to do.
    pub message: String,
    /// 2 for a bad command line, 1 otherwise.
    pub code: u8,
}

impl Error {
    /// A refusal (exit 1).
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            code: 1,
        }
    }

    /// A bad command line (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            code: 2,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Prints a command's outcome and turns it into its exit code.
fn finish(result: Result<(), Error>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.code)
        }
    }
}

/// `cargo run -q -p codegen` in the project: the generator writes `rbac-out/`.
fn regenerate(root: &Path) -> Result<(), Error> {
    eprintln!("running the generator: cargo run -q -p codegen");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["run", "-q", "-p", "codegen"])
        .current_dir(root)
        .env_remove("CARGO_MANIFEST_DIR")
        .status()
        .map_err(|e| {
            Error::new(format!(
                "cannot run cargo in {}: {e}\nInstall Rust (https://rustup.rs), then run \
                 `cargo run -p codegen` there to write rbac-out/.",
                root.display()
            ))
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(Error::new(format!(
            "the files are written, but the generator failed in {} ({status}).\nFix what it \
             reported above, then run `cargo run -p codegen` there to write rbac-out/.",
            root.display()
        )))
    }
}
