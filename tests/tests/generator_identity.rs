//! The generator's identity (issue 31), in workspaces of a user's own outside this one: the
//! package `kube_markers::link!` records, never the path its binary runs from. A binary
//! replaced while it starts (Linux names it `codegen (deleted)`), copied or renamed
//! (`[[bin]] name = "gen"`) still knows its ledgers and its bundle; another workspace's
//! generator of the same name is refused, and removes nothing of this one's.

#[allow(dead_code)] // shared with quick_start.rs and the others
mod outside;
use outside::{built, quick_start_workspace, run_generator, run_package, tree, write};
use std::path::{Path, PathBuf};
use std::process::Output;

const LIB: &str = r#"use kube_markers::rbac;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    pub size: i32,
}

#[rbac(groups = "example.com", resources = "widgets", verbs = "get;list;watch;patch")]
pub async fn reconcile() {}
"#;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The user's workspace with the bundle declared in the generator's `Cargo.toml`, as
/// docs/bundle.md shows (`extra`: more of it).
fn workspace(dir: &str, name: &str, extra: &str) -> PathBuf {
    let ws = quick_start_workspace(dir, LIB);
    let manifest = ws.join("codegen/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap()
        + &format!("\n[package.metadata.kube-markers.bundle]\nname = \"{name}\"\n{extra}");
    write(&manifest, &text);
    ws
}

/// `binary` run in `dir` without cargo, as a user runs a built generator.
fn run_binary(binary: &Path, dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(binary)
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

/// A run that found every file as it is: nothing written, nothing removed.
fn assert_unchanged(out: &Output, what: &str) {
    let text = stderr(out);
    assert!(out.status.success(), "{what}: {text}");
    assert!(!text.contains("wrote "), "{what}: {text}");
    assert!(!text.contains("removed "), "{what}: {text}");
    assert!(
        text.contains("rbac-out/chart/Chart.yaml unchanged")
            || text.contains("rbac-out/chart/Chart.yaml is up to date"),
        "{what}: {text}"
    );
}

#[test]
fn the_generator_is_its_package_whatever_its_binary_is_called() {
    let ws = workspace("identity-binary", "widget-operator", "");
    let out = run_generator(&ws, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rbac_out = ws.join("rbac-out");
    let first = tree(&rbac_out);
    let names: Vec<String> = first.iter().map(|(p, _)| p.display().to_string()).collect();
    for file in [
        "kustomization.yaml",
        "chart/Chart.yaml",
        ".kube-markers-codegen.sha256",
        "crd/.kube-markers-codegen.sha256",
    ] {
        assert!(names.contains(&file.to_string()), "{file}: {names:?}");
    }
    // The ledger names the package, from where it stands.
    let ledger =
        std::fs::read_to_string(rbac_out.join("crd/.kube-markers-codegen.sha256")).unwrap();
    assert!(
        ledger.contains("\n# The generator's package, from this directory: ../../codegen\n"),
        "{ledger}"
    );

    // The binary as Linux names it when a rebuild replaced it while it started, and copied
    // under another name: the same generator, its files all as they are.
    let copies = ws.parent().unwrap().join("copies");
    std::fs::create_dir_all(&copies).unwrap();
    for name in ["codegen (deleted)", "gen"] {
        let copy = copies.join(name);
        std::fs::copy(built(&ws, "codegen"), &copy).unwrap();
        assert_unchanged(&run_binary(&copy, &ws, &[]), name);
        assert_unchanged(&run_binary(&copy, &ws, &["--check"]), name);
        assert_eq!(tree(&rbac_out), first, "{name}");
    }

    // The binary renamed in Cargo.toml: the bundle is still found, the ledgers keep their
    // names, and the advice names the binary.
    let manifest = ws.join("codegen/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap()
        + "\n[[bin]]\nname = \"gen\"\npath = \"src/main.rs\"\n";
    write(&manifest, &text);
    let renamed = run_package(&ws, &["-p", "codegen", "--bin", "gen"], &[]);
    let text = stderr(&renamed);
    assert!(renamed.status.success(), "{text}");
    assert!(!text.contains("removed "), "{text}");
    // The same files under the same ledgers; only the bundle's "run ... instead" line now
    // names the binary.
    let expected: Vec<(PathBuf, String)> = first
        .iter()
        .map(|(path, content)| {
            let content =
                content.replace("`cargo run -p codegen`", "`cargo run -p codegen --bin gen`");
            (path.clone(), content)
        })
        .collect();
    let after = tree(&rbac_out);
    let is_ledger = |p: &Path| p.to_string_lossy().contains(".kube-markers-");
    assert_eq!(
        after.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        first.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    for ((path, content), (_, wanted)) in after.iter().zip(&expected) {
        if !is_ledger(path) {
            assert_eq!(content, wanted, "{}", path.display());
        }
    }
    let check = run_package(&ws, &["-p", "codegen", "--bin", "gen"], &["--check"]);
    assert_unchanged(&check, "--check of [[bin]] name = \"gen\"");
}

#[test]
fn another_workspaces_generator_of_the_same_name_is_refused_and_removes_nothing() {
    // Two checkouts of one operator, two releases: the second without a chart.
    let ours = workspace("identity-ours", "widget-operator", "");
    let theirs = workspace("identity-theirs", "widget-operator", "chart = false\n");
    for ws in [&ours, &theirs] {
        let out = run_generator(ws, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let rbac_out = ours.join("rbac-out");
    let before = tree(&rbac_out);
    assert!(rbac_out.join("chart/Chart.yaml").is_file());
    let their_generator = built(&theirs, "codegen");

    // Their generator run here: this workspace has its own package `codegen`.
    let out = run_binary(&their_generator, &ours, &[]);
    let text = stderr(&out);
    assert!(!out.status.success(), "{text}");
    let expected = format!(
        "this generator is package `codegen` of {}, but the workspace it scans ({}) has its \
         own package `codegen` at {}",
        theirs.join("codegen/Cargo.toml").display(),
        ours.join("Cargo.toml").display(),
        ours.join("codegen/Cargo.toml").display()
    );
    assert!(text.contains(&expected), "{expected}\n---\n{text}");
    assert_eq!(tree(&rbac_out), before);

    // Their generator, in their workspace, writing into ours: our ledgers name our package.
    let out_arg = rbac_out.display().to_string();
    for args in [
        vec!["--out", &out_arg],
        vec!["--out", &out_arg, "--no-bundle"],
        vec!["--out", &out_arg, "--no-scan", "--no-bundle"],
        vec!["--out", &out_arg, "--check"],
    ] {
        let out = run_binary(&their_generator, &theirs, &args);
        let text = stderr(&out);
        assert!(!out.status.success(), "{args:?}: {text}");
        let expected = format!(
            "{} is the ledger of generator `codegen` of the package at {} (its ledger says so), \
             not of this generator `codegen`, built from {}",
            rbac_out
                .join("chart/.kube-markers-codegen.sha256")
                .display(),
            ours.join("codegen").display(),
            theirs.join("codegen").display()
        );
        assert!(
            text.contains(&expected),
            "{args:?}: {expected}\n---\n{text}"
        );
        assert_eq!(tree(&rbac_out), before, "{args:?}");
    }
    // Ours still is ours.
    let out = run_generator(&ours, &["--check"]);
    assert!(out.status.success(), "{}", stderr(&out));
}
