//! A workspace of a new user's own, outside this one, made as the README's quick start tells:
//! depending on kube-markers by path, with the README's own `Cargo.toml` lines and generator
//! `main.rs`. Shared by `quick_start.rs`, `envtest/tests/outside_crds.rs` and (for [`tree`])
//! `codegen/tests/from_source.rs`.
//!
//! The outside workspace compiles into this build's directory (`CARGO_BUILD_BUILD_DIR`), so
//! the dependencies this test suite already built are reused; its own binaries go elsewhere
//! and cannot replace this workspace's `codegen`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The fenced block of the README that starts with the line `first` (its content, without the
/// fences and without that line's indentation).
pub fn readme_block(first: &str) -> String {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == first)
        .unwrap_or_else(|| panic!("the README has no block starting with `{first}`"));
    let indent = lines[start].len() - lines[start].trim_start().len();
    lines[start..]
        .iter()
        .take_while(|l| l.trim() != "```")
        .map(|l| l.get(indent..).unwrap_or("").to_string() + "\n")
        .collect()
}

/// Every file under `dir` with its text, sorted: two runs' whole output, compared.
pub fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), text));
            }
        }
    }
    files.sort();
    files
}

pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Where the user's workspace's binaries go: one directory per test's projects, so that no
/// test runs another's generator.
fn target_dir(workspace: &Path) -> PathBuf {
    let projects = workspace.parent().unwrap().file_name().unwrap();
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-target", projects.to_str().unwrap()))
}

/// The generator [`run_generator`] built, run again without cargo: the edit loop's
/// `--rbac-from-source`.
pub fn run_built_generator(workspace: &Path, args: &[&str]) -> Output {
    run_built(workspace, "codegen", args)
}

/// The binary `bin` that [`run_package`] built, run without cargo.
pub fn run_built(workspace: &Path, bin: &str, args: &[&str]) -> Output {
    Command::new(target_dir(workspace).join("debug").join(bin))
        .args(args)
        .current_dir(workspace)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

/// `cargo build <args>` in the user's workspace; the binaries land in [`built`]'s directory.
pub fn build_package(workspace: &Path, args: &[&str]) -> Output {
    cargo(workspace, &["build", "-q"], args)
}

/// Where [`build_package`] and [`run_package`] put the binary `bin`.
pub fn built(workspace: &Path, bin: &str) -> PathBuf {
    target_dir(workspace).join("debug").join(bin)
}

/// `cargo run -p codegen -- args` in the user's workspace.
pub fn run_generator(workspace: &Path, args: &[&str]) -> Output {
    run_package(workspace, &["-p", "codegen"], args)
}

/// `cargo run -q <which> -- args` in the user's workspace (`which`: `-p xtask --bin gen`).
pub fn run_package(workspace: &Path, which: &[&str], args: &[&str]) -> Output {
    run_package_in(workspace, workspace, which, args)
}

/// [`run_package`] with `dir`, a directory of the workspace (a member's), as the current
/// directory.
pub fn run_package_in(workspace: &Path, dir: &Path, which: &[&str], args: &[&str]) -> Output {
    let mut run = which.to_vec();
    run.push("--");
    run.extend(args);
    cargo_in(workspace, dir, &["run", "-q"], &run)
}

/// `cargo <command> <args>` in the user's workspace, building into this build's directory.
fn cargo(workspace: &Path, command: &[&str], args: &[&str]) -> Output {
    cargo_in(workspace, workspace, command, args)
}

/// [`cargo`] with `dir`, a directory of the workspace, as the current directory.
fn cargo_in(workspace: &Path, dir: &Path, command: &[&str], args: &[&str]) -> Output {
    let target_tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let build_dir = target_tmp.parent().unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Command::new(cargo)
        .args(command)
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .env("CARGO_BUILD_BUILD_DIR", build_dir)
        .env("CARGO_TARGET_DIR", target_dir(workspace))
        .output()
        .unwrap()
}

/// Steps 1 and 3 of the README's quick start, in `<tmp>/<dir>/`: `projects/kube-markers` (this
/// repository) beside `projects/my-operator` (the user's workspace: the `my-operator` library,
/// whose `src/lib.rs` is `operator_lib`, and the `codegen` binary). Returns the user's
/// workspace.
pub fn quick_start_workspace(dir: &str, operator_lib: &str) -> PathBuf {
    let projects = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&projects);
    std::fs::create_dir_all(&projects).unwrap();
    std::os::unix::fs::symlink(repo_root(), projects.join("kube-markers")).unwrap();
    let ws = projects.join("my-operator");

    // This build's profiles, so that its compiled dependencies are reused; and its lock file,
    // so that the same versions are.
    write(
        &ws.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"my-operator\", \"codegen\"]\n\n\
         [profile.dev]\ndebug = \"line-tables-only\"\n\n\
         [profile.dev.package.\"*\"]\ndebug = false\n",
    );
    std::fs::copy(repo_root().join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();

    // Step 1 of the README (the dependency lines as printed there), with its CRD dependencies.
    write(
        &ws.join("my-operator/Cargo.toml"),
        &format!(
            "[package]\nname = \"my-operator\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{}{}",
            readme_step1().replace(
                r#"features = ["latest"] }"#,
                r#"features = ["latest", "schemars"] }"#
            ),
            readme_crd_dependencies()
        ),
    );
    write(&ws.join("my-operator/src/lib.rs"), operator_lib);
    // Step 3: the generator, its Cargo.toml lines and main.rs as printed.
    write(
        &ws.join("codegen/Cargo.toml"),
        &format!(
            "[package]\nname = \"codegen\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{}",
            readme_block("# codegen/Cargo.toml")
        ),
    );
    write(
        &ws.join("codegen/src/main.rs"),
        &readme_block("// codegen/src/main.rs"),
    );
    ws
}

/// Step 1's dependency lines, as printed in the README.
pub fn readme_step1() -> String {
    readme_block("# my-operator/Cargo.toml")
}

/// The README's lines for CRDs, less `k8s-openapi`, which step 1 names already.
fn readme_crd_dependencies() -> String {
    readme_block(
        r#"kube = { version = "5", features = ["derive", "runtime"] }   # "runtime": the Controller of step 6"#,
    )
    .lines()
    .filter(|l| !l.starts_with("k8s-openapi"))
    .map(|l| format!("{l}\n"))
    .collect()
}
