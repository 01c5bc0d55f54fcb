//! The real generator binary, as CI and users run it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn codegen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(args)
        .current_dir(workspace_root())
        .output()
        .expect("run codegen")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// CI's freshness check: `rbac-out/` is what the README command generates from the examples.
#[test]
fn rbac_out_is_fresh() {
    let out = codegen(&["--check"]);
    assert!(
        out.status.success(),
        "rbac-out/ is stale: run `cargo run -p codegen` and commit the result.\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("rbac-out/role.yaml is up to date"));
    // The deploy bundle is covered too.
    for file in [
        "kustomization.yaml",
        "role_binding.yaml",
        "manager.yaml",
        "pinned-namespaces/transformers.yaml",
    ] {
        assert!(
            text(&out.stderr).contains(&format!("rbac-out/{file} is up to date")),
            "{file}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn no_bundle_writes_only_the_roles_and_crds() {
    let dir = tempfile::tempdir().unwrap();
    let out = codegen(&["--no-bundle", "--out", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["crd", "role.yaml"]);
}

#[test]
fn the_bundle_takes_its_identity_from_the_generators_cargo_toml_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let out = codegen(&[
        "--out",
        out_dir,
        "--operator-namespace",
        "ops",
        "--image",
        "op:2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    // codegen/Cargo.toml names the operator and opts in to leader election.
    assert!(read("kustomization.yaml").contains("namePrefix: example-operator-\nnamespace: ops\n"));
    assert!(read("manager.yaml").contains("image: op:2\n"));
    assert!(read("leader_election_role.yaml").contains("namespace: ops\n"));
    let bad = codegen(&["--check", "--out", out_dir, "--operator-namespace", "Ops"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr)
            .contains("`--operator-namespace`: `namespace = \"Ops\"` is not a valid namespace"),
        "{}",
        text(&bad.stderr)
    );
    let conflict = codegen(&["--no-bundle", "--image", "x"]);
    assert_eq!(conflict.status.code(), Some(2));
}

#[test]
fn check_reports_a_stale_file_with_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let committed = std::fs::read_to_string(workspace_root().join("rbac-out/role.yaml")).unwrap();
    std::fs::write(
        dir.path().join("role.yaml"),
        committed.replace("- patch\n", ""),
    )
    .unwrap();
    let out = codegen(&["--check", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let diff = text(&out.stdout);
    assert!(
        diff.contains("(on disk)") && diff.contains("+  - patch"),
        "{diff}"
    );
    assert!(
        text(&out.stderr).contains("is stale"),
        "{}",
        text(&out.stderr)
    );
    // --check never writes.
    assert!(
        !std::fs::read_to_string(dir.path().join("role.yaml"))
            .unwrap()
            .contains("- patch")
    );
}

#[test]
fn check_reports_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = codegen(&["--check", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("role.yaml is missing"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn writes_with_role_name_file_name_and_header() {
    let dir = tempfile::tempdir().unwrap();
    let header = dir.path().join("boilerplate.txt");
    std::fs::write(&header, "# Copyright YEAR Example Authors.\n").unwrap();
    let out_dir = dir.path().join("config/rbac");
    let args = [
        "--out",
        out_dir.to_str().unwrap(),
        "--role-name",
        "example-manager",
        "--file-name",
        "generated.yaml",
        "--header-file",
        header.to_str().unwrap(),
        "--year",
        "2026",
    ];
    let out = codegen(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(out_dir.join("generated.yaml")).unwrap();
    assert!(
        written.starts_with("# Copyright 2026 Example Authors.\n---\n"),
        "{written}"
    );
    assert!(written.contains("kind: ClusterRole\nmetadata:\n  name: example-manager\n"));
    // Roles that name themselves keep their names.
    assert!(written.contains("name: mydatabase-tenant\n  namespace: db-tenants\n"));
    // A second run leaves the file alone.
    let again = codegen(&args);
    assert!(
        text(&again.stderr).contains("unchanged"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn help_and_usage_errors() {
    let help = codegen(&["--help"]);
    assert!(help.status.success());
    assert!(text(&help.stdout).contains("--check"));
    let bad = codegen(&["--rolename", "x"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("did you mean `--role-name`?"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn unreadable_header_and_unwritable_output_are_named() {
    let out = codegen(&["--check", "--header-file", "/nonexistent/header.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("/nonexistent/header.txt"),
        "{}",
        text(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "").unwrap();
    let out = codegen(&["--out", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not-a-dir"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn crds_go_to_crd_out_and_orphans_are_removed_or_reported() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let crd_out = dir.path().join("crds");
    std::fs::create_dir_all(&crd_out).unwrap();
    // A CRD we once generated for a type that is gone, and a hand-written file to keep.
    let orphan = crd_out.join("old.example.com_gones.yaml");
    std::fs::write(
        &orphan,
        "---\nmetadata:\n  annotations:\n    kube-markers/version: v0.0.1\n",
    )
    .unwrap();
    let theirs = crd_out.join("hand-written.yaml");
    std::fs::write(&theirs, "kind: Something\n").unwrap();

    let args = [
        "--out",
        out.to_str().unwrap(),
        "--crd-out",
        crd_out.to_str().unwrap(),
    ];
    let check = codegen(&[&args[..], &["--check"]].concat());
    assert_eq!(check.status.code(), Some(1));
    let stderr = text(&check.stderr);
    assert!(
        stderr
            .contains("old.example.com_gones.yaml was generated for a type that no longer exists"),
        "{stderr}"
    );
    assert!(
        stderr.contains("db.example.com_mydatabases.yaml is missing"),
        "{stderr}"
    );
    assert!(orphan.exists());

    let run = codegen(&args);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(!orphan.exists());
    assert!(theirs.exists());
    let mydb = std::fs::read_to_string(crd_out.join("db.example.com_mydatabases.yaml")).unwrap();
    let committed = std::fs::read_to_string(
        workspace_root().join("rbac-out/crd/db.example.com_mydatabases.yaml"),
    )
    .unwrap();
    assert_eq!(mydb, committed);
    assert!(crd_out.join("cache.example.com_memcacheds.yaml").exists());
    assert!(
        text(&run.stderr).contains("2 CRD(s) with 3 version(s)"),
        "{}",
        text(&run.stderr)
    );
}
