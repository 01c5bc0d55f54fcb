//! What the command's tests share: output as text, and `kube-markers generate` run in a user's
//! workspace outside this one as the user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// This build's directory for the user's workspace (its dependencies are reused), and the
/// user's own target directory, as `tests/tests/outside/mod.rs` builds it.
pub fn cargo_env(ws: &Path) -> [(&'static str, PathBuf); 2] {
    let target_tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let projects = ws.parent().unwrap().file_name().unwrap().to_str().unwrap();
    [
        (
            "CARGO_BUILD_BUILD_DIR",
            target_tmp.parent().unwrap().to_path_buf(),
        ),
        (
            "CARGO_TARGET_DIR",
            target_tmp.join(format!("{projects}-target")),
        ),
    ]
}

/// `kube-markers generate ARGS` in `ws` with cargo's environment `env` only: this test's
/// `CARGO_*` and `KUBE_MARKERS_COMMAND` are not the user's.
pub fn generate_in(ws: &Path, args: &[&str], env: &[(&str, PathBuf)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kube-markers"));
    command.arg("generate").args(args).current_dir(ws);
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO_") || k == "KUBE_MARKERS_COMMAND" {
            command.env_remove(k);
        }
    }
    command.envs(env.iter().cloned()).output().unwrap()
}
