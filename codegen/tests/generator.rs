//! The real generator binary, as CI and users run it.

use std::path::{Path, PathBuf};

mod common;
use common::{codegen, text, workspace_root};

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
        "chart/values.yaml",
        "chart/templates/manager.yaml",
    ] {
        assert!(
            text(&out.stderr).contains(&format!("rbac-out/{file} is up to date")),
            "{file}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn no_bundle_writes_only_the_roles_crds_webhooks_and_docs() {
    let dir = tempfile::tempdir().unwrap();
    let out = codegen(&["--no-bundle", "--out", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".kube-markers-codegen.sha256",
            "crd",
            "docs",
            "role.yaml",
            "webhook"
        ]
    );
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

/// Every subcommand answers `-h`, the generator's help lists them, and `completions` writes a
/// script for the binary as its user names it.
#[test]
fn every_subcommand_has_help_and_completions() {
    let help = text(&codegen(&["-h"]).stdout);
    for (name, usage) in [
        ("explain", "Usage: codegen explain"),
        ("can-i", "Usage: codegen can-i VERB"),
        ("completions", "Usage: codegen completions SHELL"),
    ] {
        assert!(help.contains(&format!("\n  {name} ")), "{help}");
        let out = codegen(&[name, "-h"]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert!(text(&out.stdout).contains(usage), "{}", text(&out.stdout));
    }
    for shell in ["bash", "zsh", "fish"] {
        let out = codegen(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        for flag in ["--check", "--namespace", "--as-group", "--format"] {
            assert!(
                script.contains(flag.trim_start_matches('-')),
                "{shell}: {flag}"
            );
        }
    }
    assert!(
        text(&codegen(&["completions", "bash"]).stdout).contains("complete -F _codegen codegen")
    );
    let bad = codegen(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("`tcsh` is not a shell")
            && text(&bad.stderr).contains("Run `codegen completions --help` for usage."),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn unreadable_header_and_unwritable_output_are_named() {
    let out = codegen(&["--check", "--header-file", "/nonexistent/header.txt"]);
    assert_eq!(out.status.code(), Some(1));
    // The path, then the OS's reason.
    assert!(
        text(&out.stderr).contains(
            "error: cannot read --header-file /nonexistent/header.txt: No such file or directory"
        ),
        "{}",
        text(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "").unwrap();
    let out = codegen(&["--no-bundle", "--out", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(&format!(
            "cannot write the RBAC manifest to {} (--out): {} is a file, not a directory",
            file.display(),
            file.display()
        )),
        "{}",
        text(&out.stderr)
    );
}

/// Every destination is validated before anything is written.
#[test]
fn crd_out_at_a_file_fails_before_role_yaml_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let file = dir.path().join("crds.yaml");
    std::fs::write(&file, "kind: Something\n").unwrap();
    let run = codegen(&[
        "--out",
        out.to_str().unwrap(),
        "--crd-out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("problem(s) with where the files go (nothing was written)")
            && stderr.contains(&format!(
                "({}): {} is a file, not a directory",
                "--crd-out",
                file.display()
            )),
        "{stderr}"
    );
    assert!(!out.exists(), "role.yaml was written: {stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kind: Something\n");
}

/// The committed `rbac-out/` in a temporary directory, ledgers included, as a fresh clone has it:
/// beside a link to the generator's package, which the ledgers name (`../codegen`).
fn copy_rbac_out(to: &Path) {
    let package = to.parent().unwrap().join("codegen");
    if !package.exists() {
        std::os::unix::fs::symlink(workspace_root().join("codegen"), package).unwrap();
    }
    for sub in [
        "",
        "crd",
        "docs",
        "pinned-namespaces",
        "webhook",
        "chart",
        "chart/templates",
        "chart/templates/crd",
        "chart/templates/webhook",
    ] {
        let from = workspace_root().join("rbac-out").join(sub);
        std::fs::create_dir_all(to.join(sub)).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), to.join(sub).join(entry.file_name())).unwrap();
            }
        }
    }
}

const HAND_WRITTEN: &str = "---\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    \
                            kube-markers/version: v0.0.1\n  name: things.hand.example.com\n";

/// Another generator (`--generator-name other`) writes its role file and ledger into `dir`.
/// Returns the file and the ledger's text.
fn other_generator_writes_into(dir: &Path, scratch: &Path) -> (PathBuf, String) {
    let run = codegen(&[
        "--no-bundle",
        "--generator-name",
        "other",
        "--out",
        dir.to_str().unwrap(),
        "--crd-out",
        scratch.to_str().unwrap(),
        "--webhook-out",
        scratch.join("webhook").to_str().unwrap(),
        "--docs-out",
        scratch.join("docs").to_str().unwrap(),
        "--file-name",
        "other-role.yaml",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let ledger = std::fs::read_to_string(dir.join(".kube-markers-other.sha256")).unwrap();
    assert!(ledger.contains("  other-role.yaml\n"), "{ledger}");
    (dir.join("other-role.yaml"), ledger)
}

#[test]
fn check_is_fresh_beside_files_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    copy_rbac_out(&out);
    let crd_dir = out.join("crd");
    std::fs::write(crd_dir.join("hand.example.com_things.yaml"), HAND_WRITTEN).unwrap();
    other_generator_writes_into(&crd_dir, &dir.path().join("scratch"));
    let check = codegen(&["--check", "--out", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );
    let stderr = text(&check.stderr);
    assert!(!stderr.contains("hand.example.com"), "{stderr}");
    assert!(!stderr.contains("other"), "{stderr}");
    assert!(
        stderr.contains("crd/.kube-markers-codegen.sha256 is up to date"),
        "{stderr}"
    );
}

#[test]
fn crds_go_to_crd_out_and_only_our_own_orphans_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let crd_out = dir.path().join("crds");
    let crd_out_arg = crd_out.to_str().unwrap();
    // (No bundle: it would warn that kustomize cannot reach CRDs outside --out.)
    let args = [
        "--no-bundle",
        "--out",
        out.to_str().unwrap(),
        "--crd-out",
        crd_out_arg,
    ];
    std::fs::create_dir_all(&crd_out).unwrap();
    let hand_written = crd_out.join("hand.example.com_things.yaml");
    std::fs::write(&hand_written, HAND_WRITTEN).unwrap();
    let (theirs, their_ledger) = other_generator_writes_into(&crd_out, &dir.path().join("scratch"));

    // Earlier runs put the role file into the CRD directory, under names it no longer uses;
    // one of those files was edited by hand since.
    let edited = crd_out.join("db.example.com_edits.yaml");
    let orphan = crd_out.join("db.example.com_olds.yaml");
    let earlier = |file_name: &str| {
        let run = codegen(&[
            "--out",
            crd_out_arg,
            "--crd-out",
            crd_out_arg,
            "--file-name",
            file_name,
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        text(&run.stderr)
    };
    let first = earlier("db.example.com_edits.yaml");
    // The first run with a ledger leaves the hand-written file alone, and says so.
    assert!(
        first.contains(&format!(
            "warning: left {} alone: it carries the kube-markers/version annotation but is in \
             no generator's ledger",
            hand_written.display()
        )),
        "{first}"
    );
    std::fs::write(&edited, "# edited by hand\n").unwrap();
    let second = earlier("db.example.com_olds.yaml");
    assert!(
        second.contains(&format!(
            "warning: kept {}: generator `codegen` wrote it and no longer generates it, but it \
             was changed since",
            edited.display()
        )),
        "{second}"
    );
    assert!(!second.contains("hand.example.com"), "{second}");

    // --check names our orphan, and only it.
    let check = codegen(&[&args[..], &["--check"]].concat());
    assert_eq!(check.status.code(), Some(1));
    let stderr = text(&check.stderr);
    assert!(
        stderr.contains(&format!(
            "error: {} was written by generator `codegen`, which no longer generates it",
            orphan.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("hand.example.com"), "{stderr}");
    assert!(!stderr.contains("edits"), "{stderr}");
    assert!(!stderr.contains("other"), "{stderr}");
    assert!(orphan.exists());

    let run = codegen(&args);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "removed {}: generator `codegen` wrote it, no longer generates it, and it is \
             unchanged since",
            orphan.display()
        )),
        "{stderr}"
    );
    assert!(!orphan.exists());
    assert_eq!(
        std::fs::read_to_string(&edited).unwrap(),
        "# edited by hand\n"
    );
    assert_eq!(
        std::fs::read_to_string(&hand_written).unwrap(),
        HAND_WRITTEN
    );
    assert!(theirs.exists());
    assert_eq!(
        std::fs::read_to_string(crd_out.join(".kube-markers-other.sha256")).unwrap(),
        their_ledger
    );
    let mydb = std::fs::read_to_string(crd_out.join("db.example.com_mydatabases.yaml")).unwrap();
    let committed = std::fs::read_to_string(
        workspace_root().join("rbac-out/crd/db.example.com_mydatabases.yaml"),
    )
    .unwrap();
    assert_eq!(mydb, committed);
    assert!(crd_out.join("cache.example.com_memcacheds.yaml").exists());
    assert!(stderr.contains("2 CRD(s) with 3 version(s)"), "{stderr}");
    // The same ledger as the committed one's, but for the package line: it names the
    // generator's package from where the ledger stands.
    let package_line = "# The generator's package, from this directory: ";
    let without_package = |text: String| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with(package_line))
            .map(str::to_string)
            .collect()
    };
    let ours = std::fs::read_to_string(crd_out.join(".kube-markers-codegen.sha256")).unwrap();
    let package = ours
        .lines()
        .find_map(|l| l.strip_prefix(package_line))
        .unwrap();
    assert_eq!(
        std::fs::canonicalize(crd_out.join(package)).unwrap(),
        std::fs::canonicalize(workspace_root().join("codegen")).unwrap()
    );
    assert_eq!(
        without_package(ours),
        without_package(
            std::fs::read_to_string(
                workspace_root().join("rbac-out/crd/.kube-markers-codegen.sha256")
            )
            .unwrap()
        )
    );
    // Now fresh, and quiet about the files that are not ours.
    let check = codegen(&[&args[..], &["--check"]].concat());
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(
        !text(&check.stderr).contains("warning"),
        "{}",
        text(&check.stderr)
    );
}
