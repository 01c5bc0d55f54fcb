//! The light generator (`kube_markers::export::main`, feature `export`) in a user's workspace
//! outside this one: the installed command checks and writes what it exports, and the files,
//! messages and exit codes are the whole generator's (`kube_markers::codegen::main()`), on an
//! operator with two versions of a CRD and their conversion, an admission webhook, roles and
//! the deploy bundle.

#[allow(dead_code)] // the outside-workspace helpers of tests/tests; this test uses a few
#[path = "../../tests/tests/outside/mod.rs"]
mod outside;
use outside::{build_package, built, quick_start_workspace, tree, write};
#[allow(dead_code)] // the command tests' helpers; each test file uses some
mod common;
use common::{cargo_env, generate_in, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LIB: &str = r#"use kube_markers::rbac;

pub mod v1alpha1 {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A widget.
    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(group = "example.com", version = "v1alpha1", kind = "Widget", namespaced)]
    pub struct WidgetSpec {
        /// How many.
        #[k8s(minimum = 1, maximum = 5)]
        pub size: i32,
    }

    #[kube_markers::conversion]
    impl kube_markers::conversion::Spoke<crate::v1::Widget> for Widget {
        type Error = String;

        fn to_hub(self) -> Result<crate::v1::Widget, String> {
            Ok(crate::v1::Widget {
                metadata: self.metadata,
                spec: crate::v1::WidgetSpec { replicas: self.spec.size, shape: None },
            })
        }

        fn from_hub(hub: crate::v1::Widget) -> Result<Self, String> {
            Ok(Widget { metadata: hub.metadata, spec: WidgetSpec { size: hub.spec.replicas } })
        }
    }
}

pub mod v1 {
    use kube::core::admission::{AdmissionRequest, AdmissionResponse};
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A widget.
    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
    pub struct WidgetSpec {
        /// How many.
        #[k8s(minimum = 1, maximum = 5)]
        pub replicas: i32,
        /// Its shape, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub shape: Option<String>,
    }

    #[kube_markers::webhook(
        name = "vwidget.example.com", mutating = false, path = "/validate-example-com-v1-widget",
        failure_policy = "Fail", side_effects = "None", groups = "example.com",
        resources = "widgets", verbs = "create;update", versions = "v1",
        admission_review_versions = "v1",
    )]
    pub async fn validate(req: AdmissionRequest<Widget>) -> AdmissionResponse {
        AdmissionResponse::from(&req)
    }
}

#[rbac(groups = "example.com", resources = "widgets", verbs = "get;list;watch;patch")]
#[rbac(groups = "apps", resources = "deployments", verbs = "list;watch;create;patch")]
pub async fn reconcile() {}
"#;

const BUNDLE: &str = "\n[package.metadata.kube-markers.bundle]\nname = \"widget-operator\"\n\
                      image = \"ghcr.io/me/widget-operator:1.0.0\"\n";

/// The user's workspace: the quick start's, with the operator above and the bundle's metadata.
fn workspace(dir: &str) -> PathBuf {
    let ws = quick_start_workspace(dir, LIB);
    let manifest = ws.join("my-operator/Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap();
    let with_webhook = toml.replace(
        r#"features = ["health"]"#,
        r#"features = ["health", "webhook"]"#,
    );
    assert_ne!(toml, with_webhook);
    write(&manifest, &with_webhook);
    let manifest = ws.join("codegen/Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap();
    write(&manifest, &format!("{toml}{BUNDLE}"));
    ws
}

/// The generator made light as docs/command.md says: feature `export`, `export::main`.
fn make_light(ws: &Path) {
    edit(
        ws,
        "codegen/Cargo.toml",
        r#"features = ["codegen"]"#,
        r#"features = ["export"]"#,
    );
    edit(
        ws,
        "codegen/src/main.rs",
        "kube_markers::codegen::main()",
        "kube_markers::export::main()",
    );
}

fn edit(ws: &Path, file: &str, from: &str, to: &str) {
    let path = ws.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file}: {text}");
    write(&path, &text.replace(from, to));
}

fn build(ws: &Path) {
    let out = build_package(ws, &["-p", "codegen"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The built generator run as `cargo run` runs it, with `command` as the installed command.
fn run(ws: &Path, command: &Path, args: &[&str]) -> Output {
    Command::new(built(ws, "codegen"))
        .args(args)
        .current_dir(ws)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .env("KUBE_MARKERS_COMMAND", command)
        .output()
        .unwrap()
}

/// What a run says and does: its exit code, standard output and error, and the files it left.
type Outcome = (Option<i32>, String, String, Vec<(PathBuf, String)>);

/// The runs both generators must agree on: a first run, `--check` when fresh, a hand edit
/// refused by the ledger and `--check` then, and `explain` over the registry.
fn outcomes(ws: &Path, command: &Path) -> Vec<Outcome> {
    let _ = std::fs::remove_dir_all(ws.join("rbac-out"));
    let role = ws.join("rbac-out/role.yaml");
    let mut outcomes = Vec::new();
    let mut outcome = |args: &[&str]| {
        let out = run(ws, command, args);
        outcomes.push((
            out.status.code(),
            text(&out.stdout),
            text(&out.stderr),
            tree(&ws.join("rbac-out")),
        ));
    };
    outcome(&[]);
    outcome(&["--check"]);
    let edited = std::fs::read_to_string(&role)
        .unwrap()
        .replace("- patch", "- delete");
    write(&role, &edited);
    outcome(&["--check"]);
    outcome(&[]);
    outcome(&["explain"]);
    outcomes
}

#[test]
fn the_light_generator_writes_what_the_whole_one_writes() {
    let command = Path::new(env!("CARGO_BIN_EXE_kube-markers"));
    let ws = workspace("cli-light-generator");
    make_light(&ws);
    build(&ws);
    let light = outcomes(&ws, command);
    let (code, _, stderr, files) = &light[0];
    assert_eq!(*code, Some(0), "{stderr}");
    let names: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    for expected in [
        "role.yaml",
        "crd/example.com_widgets.yaml",
        "webhook/manifests.yaml",
        "kustomization.yaml",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    let crd = &files
        .iter()
        .find(|(p, _)| p.ends_with("crd/example.com_widgets.yaml"))
        .unwrap()
        .1;
    assert!(
        crd.contains("strategy: Webhook") && crd.contains("maximum: 5"),
        "{crd}"
    );
    assert_eq!(
        light[2].0,
        Some(1),
        "the hand edit is stale: {}",
        light[2].2
    );

    // Without the command, the light generator says how to install it or switch back.
    let out = run(&ws, Path::new("/nonexistent/kube-markers"), &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The checkout the workspace depends on, by the path its dependency names (a link to
    // this checkout).
    let cli = ws.parent().unwrap().join("kube-markers/cli");
    assert_eq!(
        cli.canonicalize().unwrap(),
        checkout_cli().canonicalize().unwrap()
    );
    let install = format!("cargo install --locked --path {}", cli.display());
    for way_out in [
        &format!("Install it from the kube-markers your operator depends on:\n    {install}\n"),
        r#"`features = ["codegen"]` for kube-markers in codegen/Cargo.toml"#,
        "`kube_markers::codegen::main()` in its main.rs",
    ] {
        assert!(stderr.contains(way_out), "{way_out}: {stderr}");
    }
    // The registry export carries the same line, for a command of another version to print.
    let export = Command::new(built(&ws, "codegen"))
        .env("KUBE_MARKERS_EXPORT", "1")
        .output()
        .unwrap();
    let export: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    assert_eq!(export["install"], install.as_str());

    // Switched back as the message says: the whole generator, the same outcomes, byte for byte.
    edit(
        &ws,
        "codegen/Cargo.toml",
        r#"features = ["export"]"#,
        r#"features = ["codegen"]"#,
    );
    edit(
        &ws,
        "codegen/src/main.rs",
        "kube_markers::export::main()",
        "kube_markers::codegen::main()",
    );
    build(&ws);
    let whole = outcomes(&ws, Path::new("/nonexistent/kube-markers"));
    assert_eq!(light.len(), whole.len());
    for (i, (l, w)) in light.iter().zip(&whole).enumerate() {
        assert_eq!(l, w, "run {i}");
    }
}

#[test]
fn kube_markers_generate_runs_the_light_generator() {
    let ws = workspace("cli-light-generate");
    make_light(&ws);
    let env = cargo_env(&ws);
    // The target directory outlives the workspace (its builds are reused): not its record.
    let _ = std::fs::remove_dir_all(env[1].1.join("kube-markers"));
    let generate = || generate_in(&ws, &[], &env);
    let out = generate();
    let stderr = text(&out.stderr);
    // Found by its feature `export`, built, and run over this command (not one on PATH).
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("kube-markers: building codegen: "),
        "{stderr}"
    );
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert!(role.contains("- deployments"), "{role}");
    assert!(ws.join("rbac-out/webhook/manifests.yaml").exists());

    // An `#[rbac]` edit: regenerated from the sources over the light generator's registry of
    // the last build, without a build.
    edit(
        &ws,
        "my-operator/src/lib.rs",
        r#"verbs = "get;list;watch;patch")]"#,
        r#"verbs = "get;list;watch;patch;delete")]"#,
    );
    let out = generate();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("kube-markers: no rebuild of codegen: only #[rbac] attributes changed"),
        "{stderr}"
    );
    assert!(!stderr.contains("Compiling"), "{stderr}");
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert!(role.contains("- delete"), "{role}");
}

/// This checkout's `cli/`, whose path a light generator depending on it names.
fn checkout_cli() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The install line printed for a kube-markers that is a path dependency installs this
/// command: `cargo install --locked --path <this checkout>/cli`. Run as printed, it builds the
/// release profile (about 19 minutes on CI's two cores); this test holds what the command
/// needs instead: the path holds the package `kube-markers-cli` with the binary
/// `kube-markers`, and its workspace's lock file is up to date (what `--locked` requires).
#[test]
fn the_printed_install_line_names_this_command_s_package() {
    let install = kube_markers_registry::export::install_command();
    let path = install
        .strip_prefix("cargo install --locked --path ")
        .unwrap_or_else(|| panic!("not a path install: {install}"));
    let path = Path::new(path);
    assert!(path.is_absolute(), "{install}");
    assert_eq!(
        path.canonicalize().unwrap(),
        checkout_cli().canonicalize().unwrap()
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--locked",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(path.join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = path.join("Cargo.toml");
    let package = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest.as_path()))
        .unwrap_or_else(|| panic!("no package at {}", manifest.display()));
    assert_eq!(package["name"], "kube-markers-cli");
    assert!(
        package["targets"].as_array().unwrap().iter().any(|t| {
            t["name"] == "kube-markers" && t["kind"].as_array().unwrap().iter().any(|k| k == "bin")
        }),
        "{package}"
    );
}

/// A light generator of another kube-markers: the command refuses its export, naming both
/// versions and the install line of the generator's kube-markers (from its export; crates.io
/// at its version for an export without one).
#[test]
fn a_generator_of_another_kube_markers_is_refused_naming_both_versions_and_the_way_out() {
    let command = Path::new(env!("CARGO_BIN_EXE_kube-markers"));
    let dir = tempfile::tempdir().unwrap();
    let ours = env!("CARGO_PKG_VERSION");
    for (export, install) in [
        (
            r#"{"format":1,"kube-markers":"0.0.9","install":"cargo install --locked --path /src/kube-markers-0.0.9/cli"}"#,
            "cargo install --locked --path /src/kube-markers-0.0.9/cli",
        ),
        (
            r#"{"format":7,"kube-markers":"0.0.9"}"#,
            "cargo install --locked kube-markers-cli@0.0.9",
        ),
    ] {
        let generator = dir.path().join("codegen");
        let _ = std::fs::remove_file(&generator);
        write(
            &generator,
            &format!(
                "#!/bin/sh\n[ -n \"$KUBE_MARKERS_EXPORT\" ] && exec printf '%s' '{export}'\nexit 3\n"
            ),
        );
        std::fs::set_permissions(
            &generator,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let out = Command::new(command)
            .arg("run-generator")
            .arg(&generator)
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        let format = if export.contains(r#""format":7"#) {
            7
        } else {
            1
        };
        assert_eq!(
            stderr,
            format!(
                "error: {}: the generator links kube-markers 0.0.9 (export format {format}), this \
                 command is kube-markers {ours} (format 1): they must be the same.\nInstall the \
                 command of the generator's kube-markers:\n    {install}\nor name one of that \
                 version with KUBE_MARKERS_COMMAND=/path/to/kube-markers.\n",
                generator.display()
            )
        );
    }
}
