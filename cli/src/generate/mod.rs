//! `kube-markers generate`: the operator's generator run, without the rebuild when the only
//! edits since its last build are in `#[rbac]` attributes.
//!
//! The generator's own `--rbac-from-source` reads the `#[rbac]` attributes from the sources
//! and writes the roles and the deploy bundle from them, keeping the CRDs and webhook
//! manifests as they are: what a rebuild and run writes when nothing but `#[rbac]` attributes
//! changed. This command proves that condition before taking it: each file the last build read
//! ([`record`]) is compared with its tokens, `#[rbac]` attributes left out ([`strip`]); any
//! other change (a function body, a field, a `cfg`, a macro, `#[webhook]`, a `Cargo.toml`, the
//! lock file, a `build.rs` appearing, the flags of the build) takes `cargo build`, named.

mod record;
mod strip;

use record::{Change, FileState, Record};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// The ledger's line naming the generator's package, relative to the output directory.
const PACKAGE_LINE: &str = "# The generator's package, from this directory: ";
/// The ledger's file name in an output directory.
const LEDGER: &str = ".kube-markers-codegen.sha256";

const HELP: &str = "\
Run the operator's generator: rebuilt by cargo when anything it is built from changed, or
regenerated from the sources at once (the generator's --rbac-from-source) when the only edits
since its last build are in #[rbac] attributes.

Usage: kube-markers generate [OPTIONS] [-- GENERATOR-ARGS...]

Options:
      --package GEN  The generator's package (default: the one named by rbac-out's ledger, else
                     the workspace member that depends on kube-markers with feature codegen
                     or export)
      --bin NAME     The generator's binary, when its package has several
      --check        Pass --check to the generator: exit 1 if a generated file is not fresh
                     (after #[rbac] edits, this builds: only the full run checks CRDs and
                     webhook manifests)
      --build        Always build (cargo build -p GEN), then run
      --dry-run      Say whether it would build or regenerate from the sources, and why; run
                     nothing
  -h, --help         Print help

What counts as an #[rbac]-only edit: the tokens of each file the last build read, with every
#[rbac], #[kube_markers::rbac] and #[::kube_markers::rbac] attribute left out (not one inside a
macro's input or a cfg_attr), are the same; comments and spacing do not count. Anything else
builds, and the command says which file made it build. It also builds when
--rbac-from-source cannot read an attribute (a cfg it cannot decide, an attribute in a macro's
input), or finds a CRD or webhook file that differs from what the generator writes.

The record of the last build is in <target dir>/kube-markers/generate/GEN.json, the target
directory found as cargo finds it: CARGO_TARGET_DIR, CARGO_BUILD_TARGET_DIR, else
build.target-dir in .cargo/config.toml (or .cargo/config) from the current directory up, then
in $CARGO_HOME/config.toml, else the workspace's target/.

Exit status: the generator's (0 written or fresh, 1 findings or stale with --check), 2 for a
bad command line, a workspace without a generator, or a failed build.
";

/// What the command line gives.
#[derive(Debug, Default, PartialEq, Eq)]
struct Args {
    package: Option<String>,
    bin: Option<String>,
    check: bool,
    build: bool,
    dry_run: bool,
    /// After `--`: the generator's own arguments.
    generator_args: Vec<String>,
}

fn parse(args: &[String]) -> Result<Option<Args>, String> {
    let mut parsed = Args::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("`{name}` needs a value"))
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--package" | "-p" => parsed.package = Some(value("--package")?),
            "--bin" => parsed.bin = Some(value("--bin")?),
            "--check" => parsed.check = true,
            "--build" => parsed.build = true,
            "--dry-run" => parsed.dry_run = true,
            "--" => {
                parsed.generator_args = it.cloned().collect();
                break;
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}` (the generator's own arguments go after `--`: \
                     `kube-markers generate -- {other}`)"
                ));
            }
        }
    }
    Ok(Some(parsed))
}

/// `kube-markers generate ...`.
pub fn main(args: &[String]) -> ExitCode {
    let args = match parse(args) {
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Ok(Some(args)) => args,
        Err(e) => {
            eprintln!("error: {e}\n\nRun `kube-markers generate --help` for usage.");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The workspace around the current directory: the nearest directory with a `Cargo.toml`
/// holding `[workspace]`, else the nearest with a `Cargo.toml`.
fn workspace_root() -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let mut nearest = None;
    for dir in cwd.ancestors() {
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        nearest.get_or_insert_with(|| dir.to_path_buf());
        if text
            .parse::<toml::Table>()
            .is_ok_and(|t| t.contains_key("workspace"))
        {
            return Ok(dir.to_path_buf());
        }
    }
    nearest.ok_or_else(|| {
        format!(
            "{}: no Cargo.toml here or above: run `kube-markers generate` in the operator's \
             workspace",
            cwd.display()
        )
    })
}

/// The generator's package: `--package`, else the one the ledger of the output directory
/// names (`--out` among the generator's arguments, else the workspace's `rbac-out`), else the
/// member that depends on kube-markers with feature `codegen` (the whole generator) or
/// `export` (the light one).
fn generator_package(args: &Args, root: &Path) -> Result<String, String> {
    if let Some(package) = &args.package {
        return Ok(package.clone());
    }
    let out = out_dir(&args.generator_args).unwrap_or_else(|| root.join("rbac-out"));
    if let Some(package) = package_of_ledger(&out)? {
        return Ok(package);
    }
    let output = Command::new(cargo())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("`cargo metadata`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo metadata` in {} failed: give the generator's package with --package",
            root.display()
        ));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("`cargo metadata`: {e}"))?;
    let generators: Vec<&str> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| {
            p["dependencies"].as_array().into_iter().flatten().any(|d| {
                d["name"] == "kube-markers"
                    && d["features"]
                        .as_array()
                        .is_some_and(|f| f.iter().any(|f| f == "codegen" || f == "export"))
            }) && p["targets"].as_array().into_iter().flatten().any(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "bin"))
            })
        })
        .filter_map(|p| p["name"].as_str())
        .collect();
    match generators.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Err(format!(
            "no generator in the workspace at {}: no member with a binary depends on \
             kube-markers with feature `codegen` or `export` (give it with --package)",
            root.display()
        )),
        several => Err(format!(
            "several generators in the workspace ({}): choose one with --package",
            several.join(", ")
        )),
    }
}

/// `--out DIR` among the generator's arguments.
fn out_dir(generator_args: &[String]) -> Option<PathBuf> {
    let mut it = generator_args.iter();
    while let Some(arg) = it.next() {
        if arg == "--out" {
            return it.next().map(PathBuf::from);
        }
        if let Some(dir) = arg.strip_prefix("--out=") {
            return Some(PathBuf::from(dir));
        }
    }
    None
}

/// The package the ledger of `out` names (its `Cargo.toml`'s name), if it has a ledger.
fn package_of_ledger(out: &Path) -> Result<Option<String>, String> {
    let ledger = out.join(LEDGER);
    let Ok(text) = std::fs::read_to_string(&ledger) else {
        return Ok(None);
    };
    let Some(dir) = text.lines().find_map(|l| l.strip_prefix(PACKAGE_LINE)) else {
        return Ok(None);
    };
    let manifest = out.join(dir.trim()).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| {
        format!(
            "{} names the generator's package at {}, which cannot be read: {e} (give it with \
             --package)",
            ledger.display(),
            manifest.display()
        )
    })?;
    let table = text
        .parse::<toml::Table>()
        .map_err(|e| format!("{}: not TOML: {}", manifest.display(), e.message()))?;
    Ok(table
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(toml::Value::as_str)
        .map(str::to_string))
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// The target directory cargo builds into, found as cargo finds it (without running cargo:
/// the fast path's speed is its point): `CARGO_TARGET_DIR`, then `CARGO_BUILD_TARGET_DIR`
/// (relative to the current directory), then `build.target-dir` in the nearest
/// `.cargo/config.toml` (or `.cargo/config`) from the current directory (where the build runs)
/// up, then in `$CARGO_HOME/config.toml` (relative to the directory holding `.cargo/`), else
/// the workspace's `target`.
fn target_dir(root: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| root.to_path_buf());
    target_dir_in(&cwd, root, |var| std::env::var_os(var))
}

/// [`target_dir`] from `cwd`, with the environment `env`.
fn target_dir_in(
    cwd: &Path,
    root: &Path,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> PathBuf {
    for var in ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
        if let Some(dir) = env(var).filter(|d| !d.is_empty()) {
            return cwd.join(dir);
        }
    }
    let cargo_home = env("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(|h| cwd.join(h))
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let configs = cwd
        .ancestors()
        .map(|dir| dir.join(".cargo"))
        .chain(cargo_home);
    for dot_cargo in configs {
        // Cargo reads `config` when both it and `config.toml` are there.
        let Some(text) = ["config", "config.toml"]
            .iter()
            .find_map(|name| std::fs::read_to_string(dot_cargo.join(name)).ok())
        else {
            continue;
        };
        let dir = text.parse::<toml::Table>().ok().and_then(|t| {
            t.get("build")?
                .get("target-dir")?
                .as_str()
                .map(PathBuf::from)
        });
        if let Some(dir) = dir {
            // Relative to the directory holding `.cargo/`.
            return dot_cargo.parent().unwrap_or(&dot_cargo).join(dir);
        }
    }
    root.join("target")
}

/// What the run will do, and why.
#[derive(Debug, PartialEq, Eq)]
enum Plan {
    /// Nothing changed since the build: run the binary as it is.
    Run(PathBuf),
    /// Only `#[rbac]` attributes changed, in these files: `--rbac-from-source`.
    FromSource(PathBuf, Vec<PathBuf>),
    /// Build first, because of this.
    Build(String),
}

fn plan(record_path: &Path) -> Plan {
    let Ok(text) = std::fs::read_to_string(record_path) else {
        return Plan::Build("no record of the generator's last build by kube-markers yet".into());
    };
    let Ok(record) = serde_json::from_str::<Record>(&text) else {
        return Plan::Build(format!(
            "{}: not a record of this version",
            record_path.display()
        ));
    };
    if record::stamp(&record.executable) != Some(record.executable_stamp) {
        return Plan::Build(format!(
            "{} was built or removed since the record",
            record.executable.display()
        ));
    }
    if record.env != record::build_env() {
        return Plan::Build(
            "the build's environment (RUSTFLAGS, CARGO_BUILD_*, CARGO_PROFILE_*, ...) changed"
                .into(),
        );
    }
    let mut rbac_only = Vec::new();
    for file in &record.files {
        match file.change() {
            Change::None => {}
            Change::RbacOnly => rbac_only.push(file.path.clone()),
            Change::Other(what) => {
                return Plan::Build(format!("{}: {what}", file.path.display()));
            }
        }
    }
    if rbac_only.is_empty() {
        Plan::Run(record.executable)
    } else {
        Plan::FromSource(record.executable, rbac_only)
    }
}

fn run(args: &Args) -> Result<ExitCode, String> {
    let root = workspace_root()?;
    let package = generator_package(args, &root)?;
    let record_path = target_dir(&root)
        .join("kube-markers")
        .join("generate")
        .join(format!("{package}.json"));
    let mut generator_args = args.generator_args.clone();
    if args.check {
        generator_args.push("--check".into());
    }
    let plan = if args.build {
        Plan::Build("--build".into())
    } else {
        plan(&record_path)
    };
    let shown = |p: &Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
    let plan = match plan {
        // `--rbac-from-source --check` does not check the CRD and webhook files: only the
        // full run's `--check` says that everything is fresh.
        Plan::FromSource(..) if args.check => Plan::Build(
            "--check with #[rbac] edits since the build: the full run checks CRDs and webhooks \
             too"
            .into(),
        ),
        plan => plan,
    };
    if args.dry_run {
        match &plan {
            Plan::Run(_) => println!("run: nothing changed since {package} was built"),
            Plan::FromSource(_, files) => {
                let files: Vec<String> = files.iter().map(|f| shown(f)).collect();
                println!(
                    "regenerate from the sources: only #[rbac] attributes changed ({})",
                    files.join(", ")
                );
            }
            Plan::Build(why) => {
                println!(
                    "build {package}: {}",
                    why.replace(&format!("{}/", root.display()), "")
                );
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let executable = match plan {
        Plan::Run(executable) => executable,
        Plan::FromSource(executable, files) => {
            let files: Vec<String> = files.iter().map(|f| shown(f)).collect();
            eprintln!(
                "kube-markers: no rebuild of {package}: only #[rbac] attributes changed since \
                 its build ({}); regenerating from the sources",
                files.join(", ")
            );
            let mut fast_args = vec!["--rbac-from-source".to_string()];
            fast_args.extend(generator_args.iter().cloned());
            match run_from_source(&executable, &fast_args)? {
                FromSource::Done(code) => return Ok(code),
                FromSource::NeedsBuild(why) => {
                    eprintln!("kube-markers: building {package}: {why}");
                    build(&package, args.bin.as_deref(), &root, &record_path)?
                }
            }
        }
        Plan::Build(why) => {
            let why = why.replace(&format!("{}/", root.display()), "");
            eprintln!("kube-markers: building {package}: {why}");
            build(&package, args.bin.as_deref(), &root, &record_path)?
        }
    };
    let status = generator(&executable)
        .args(&generator_args)
        .status()
        .map_err(|e| format!("{}: {e}", executable.display()))?;
    Ok(exit_code(status))
}

/// The generator's command: a light generator (`kube_markers::export::main`) runs this
/// command's `run-generator`, not another `kube-markers` on `PATH`.
fn generator(executable: &Path) -> Command {
    let mut command = Command::new(executable);
    if let Ok(this) = std::env::current_exe() {
        command.env(kube_markers_registry::export::COMMAND_ENV, this);
    }
    command
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    match status.code() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(2)),
        None => ExitCode::from(2),
    }
}

/// How the fast path ended.
enum FromSource {
    /// As the full run would have: its exit code.
    Done(ExitCode),
    /// Not as the full run would have: build and run it.
    NeedsBuild(&'static str),
}

/// `--rbac-from-source`, its messages passed on. Two of its outcomes differ from the full
/// run's, and take the build: attributes only the compiler can read (it writes nothing), and a
/// CRD or webhook file on disk that differs from what the generator writes (it keeps it; the
/// full run writes it, the hand edit kept beside it).
fn run_from_source(executable: &Path, args: &[String]) -> Result<FromSource, String> {
    let output = generator(executable)
        .args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{}: {e}", executable.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprint!("{stderr}");
    if stderr.contains("only the compiler can settle") {
        return Ok(FromSource::NeedsBuild(
            "--rbac-from-source cannot read every #[rbac] attribute (above)",
        ));
    }
    if stderr.contains("was left as it is, but the last build generates it otherwise") {
        return Ok(FromSource::NeedsBuild(
            "a CRD or webhook file differs from what the generator writes (above)",
        ));
    }
    Ok(FromSource::Done(exit_code(output.status)))
}

/// `cargo build -p PACKAGE`, then the record of what it was built from; returns the binary.
fn build(
    package: &str,
    bin: Option<&str>,
    root: &Path,
    record_path: &Path,
) -> Result<PathBuf, String> {
    let started = std::time::SystemTime::now();
    let mut command = Command::new(cargo());
    command.args([
        "build",
        "-p",
        package,
        "--message-format=json-render-diagnostics",
    ]);
    if let Some(bin) = bin {
        command.args(["--bin", bin]);
    }
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("`cargo build -p {package}`: {e}"))?;
    if !output.status.success() {
        return Err(format!("`cargo build -p {package}` failed"));
    }
    let executables: Vec<PathBuf> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| {
            m["reason"] == "compiler-artifact"
                && m["target"]["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "bin"))
                && m["package_id"]
                    .as_str()
                    .is_some_and(|id| package_id_names(id, package))
        })
        .filter_map(|m| m["executable"].as_str().map(PathBuf::from))
        .collect();
    let executable = match executables.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(format!(
                "`cargo build -p {package}` built no binary of {package}"
            ));
        }
        _ => {
            return Err(format!(
                "{package} has several binaries: choose the generator with --bin"
            ));
        }
    };
    write_record(&executable, root, record_path, started);
    Ok(executable)
}

/// Whether a cargo package id (`path+file:///w/codegen#0.1.0`, `path+file:///w/x#name@0.1.0`,
/// or the older `name 0.1.0 (path+...)`) is `package`'s.
fn package_id_names(id: &str, package: &str) -> bool {
    if let Some((_, rest)) = id.rsplit_once('#') {
        return match rest.split_once('@') {
            Some((name, _)) => name == package,
            // `#0.1.0`: the name is the path's last segment.
            None => id
                .split_once('#')
                .is_some_and(|(path, _)| path.rsplit('/').next() == Some(package)),
        };
    }
    id.split(' ').next() == Some(package)
}

/// Writes the record of the build of `executable`, unless a file it lists was written after
/// `started` (an edit during the build, which the binary may not have; not the lock file,
/// which cargo writes): the next run then builds again. A record that cannot be written only costs the next run a build.
fn write_record(
    executable: &Path,
    root: &Path,
    record_path: &Path,
    started: std::time::SystemTime,
) {
    let dep_info = executable.with_file_name(format!(
        "{}.d",
        executable
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    let Ok(text) = std::fs::read_to_string(&dep_info) else {
        return;
    };
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let mut skip: Vec<PathBuf> = cargo_home.into_iter().collect();
    skip.push(target_dir(root));
    if let Some(profile_dir) = executable.parent().and_then(Path::parent) {
        skip.push(profile_dir.to_path_buf());
    }
    // The dep-info of this executable (not of a copy of the target directory elsewhere).
    let Some(built_from) = record::dep_info_files(&text, executable) else {
        return;
    };
    let files = record::watched_files(&built_from, root, &skip);
    let started_ns = started
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let files: Vec<FileState> = files.iter().map(|f| FileState::read(f)).collect();
    // Cargo.lock is written by the build itself (a lock file brought up to date).
    if files.iter().any(|f| {
        f.stamp.is_some_and(|s| s.modified_ns >= started_ns)
            && f.path.file_name().is_none_or(|n| n != "Cargo.lock")
    }) {
        return;
    }
    let Some(executable_stamp) = record::stamp(executable) else {
        return;
    };
    let record = Record {
        executable: executable.to_path_buf(),
        executable_stamp,
        env: record::build_env(),
        files,
    };
    if let Some(dir) = record_path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let json = serde_json::to_string(&record).expect("a record serializes");
    let _ = std::fs::write(record_path, json);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Result<Option<Args>, String> {
        parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn command_line() {
        assert_eq!(
            args(&["--package=gen", "--check", "--", "--out", "x", "--check"]),
            Ok(Some(Args {
                package: Some("gen".into()),
                check: true,
                generator_args: vec!["--out".into(), "x".into(), "--check".into()],
                ..Args::default()
            }))
        );
        assert_eq!(args(&["-h"]), Ok(None));
        assert!(args(&["--out", "x"]).unwrap_err().contains("after `--`"));
        assert!(args(&["--package"]).unwrap_err().contains("needs a value"));
        assert_eq!(
            out_dir(&["--check".into(), "--out=deploy".into()]),
            Some(PathBuf::from("deploy"))
        );
    }

    /// The refusals that name `--package` are left by it, exactly as they say.
    #[test]
    fn package_is_the_way_out_of_several_or_no_generators() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
        let member = |name: &str, features: &str| {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.join("src")).unwrap();
            std::fs::write(path.join("src/main.rs"), "fn main() {}\n").unwrap();
            std::fs::write(
                path.join("Cargo.toml"),
                format!(
                    "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
                     [dependencies]\nkube-markers = {{ path = {:?}{features} }}\n",
                    runtime.display()
                ),
            )
            .unwrap();
        };
        let workspace = |members: &str| {
            std::fs::write(
                dir.path().join("Cargo.toml"),
                format!("[workspace]\nresolver = \"3\"\nmembers = [{members}]\n"),
            )
            .unwrap();
        };
        member("gen-a", ", features = [\"codegen\"]");
        member("gen-b", ", features = [\"export\"]");
        member("operator", "");
        let given = |line: &[&str]| args(line).unwrap().unwrap();

        workspace("\"gen-a\", \"gen-b\", \"operator\"");
        let err = generator_package(&given(&[]), dir.path()).unwrap_err();
        assert_eq!(
            err,
            "several generators in the workspace (gen-a, gen-b): choose one with --package"
        );
        let chosen = generator_package(&given(&["--package", "gen-b"]), dir.path());
        assert_eq!(chosen.as_deref(), Ok("gen-b"));

        // A generator that gets feature `codegen` through the operator's own feature is not
        // recognized: `--package` names it.
        let gen_c = dir.path().join("gen-c");
        std::fs::create_dir_all(gen_c.join("src")).unwrap();
        std::fs::write(gen_c.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(
            gen_c.join("Cargo.toml"),
            "[package]\nname = \"gen-c\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]\noperator = { path = \"../operator\", features = [\"codegen\"] }\n",
        )
        .unwrap();
        let manifest = dir.path().join("operator/Cargo.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(
            &manifest,
            format!("{text}\n[features]\ncodegen = [\"kube-markers/codegen\"]\n"),
        )
        .unwrap();
        workspace("\"gen-c\", \"operator\"");
        let err = generator_package(&given(&[]), dir.path()).unwrap_err();
        assert!(err.ends_with("(give it with --package)"), "{err}");
        let chosen = generator_package(&given(&["--package", "gen-c"]), dir.path());
        assert_eq!(chosen.as_deref(), Ok("gen-c"));
    }

    /// Cargo's order: the environment, then the nearest `.cargo/config[.toml]` from the
    /// current directory up (its paths relative to the directory holding `.cargo/`), then
    /// `$CARGO_HOME/config.toml`, else the workspace's `target`.
    #[test]
    fn the_target_dir_is_found_as_cargo_finds_it() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let ws = top.join("ws");
        let member = ws.join("member");
        let home = top.join("home/.cargo");
        for d in [&member, &home] {
            std::fs::create_dir_all(d).unwrap();
        }
        let config = |at: &Path, name: &str, text: &str| {
            std::fs::create_dir_all(at.join(".cargo")).unwrap();
            std::fs::write(at.join(".cargo").join(name), text).unwrap();
        };
        let env_of = |vars: &'static [(&'static str, &'static str)]| {
            let home = home.clone();
            move |var: &str| {
                if var == "CARGO_HOME" {
                    return Some(home.clone().into_os_string());
                }
                vars.iter()
                    .find(|(k, _)| *k == var)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let none = env_of(&[]);
        assert_eq!(target_dir_in(&member, &ws, &none), ws.join("target"));
        std::fs::write(
            home.join("config.toml"),
            "[build]\ntarget-dir = \"/home-target\"\n",
        )
        .unwrap();
        assert_eq!(
            target_dir_in(&member, &ws, &none),
            Path::new("/home-target")
        );
        config(
            top,
            "config.toml",
            "[build]\njobs = 1\ntarget-dir = \"shared\"\n",
        );
        assert_eq!(target_dir_in(&member, &ws, &none), top.join("shared"));
        config(&ws, "config.toml", "build.target-dir = \"../ws-target\"\n");
        assert_eq!(target_dir_in(&member, &ws, &none), ws.join("../ws-target"));
        // A config without target-dir nearer the current directory leaves the outer one.
        config(&member, "config.toml", "[net]\nretry = 2\n");
        assert_eq!(target_dir_in(&member, &ws, &none), ws.join("../ws-target"));
        // `config` wins over `config.toml` in the same directory.
        config(&member, "config", "[build]\ntarget-dir = \"t\"\n");
        assert_eq!(target_dir_in(&member, &ws, &none), member.join("t"));
        // The environment over any file, relative to the current directory.
        let build = env_of(&[("CARGO_BUILD_TARGET_DIR", "b")]);
        assert_eq!(target_dir_in(&member, &ws, &build), member.join("b"));
        let both = env_of(&[("CARGO_BUILD_TARGET_DIR", "b"), ("CARGO_TARGET_DIR", "/t")]);
        assert_eq!(target_dir_in(&member, &ws, &both), Path::new("/t"));
    }

    #[test]
    fn package_ids() {
        assert!(package_id_names("path+file:///w/codegen#0.1.0", "codegen"));
        assert!(package_id_names(
            "path+file:///w/gen#my-gen@0.1.0",
            "my-gen"
        ));
        assert!(!package_id_names("path+file:///w/gen#my-gen@0.1.0", "gen"));
        assert!(package_id_names(
            "codegen 0.1.0 (path+file:///w/codegen)",
            "codegen"
        ));
    }
}
