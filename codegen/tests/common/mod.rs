//! What the tests of the real `codegen` binary share: where it runs, and how.
#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's workspace, where `cargo run -p codegen` runs.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs the generator binary in the workspace with these arguments.
pub fn codegen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(args)
        .current_dir(workspace_root())
        .output()
        .expect("run codegen")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
