//! `--rbac-from-source` on this repository's example workspace: the built generator reads the
//! roles from the sources, and writes byte for byte what the full run writes.

use std::path::Path;

mod common;
use common::{codegen, text};
#[allow(dead_code)] // the outside-workspace helpers of tests/tests; only `tree` is used here
#[path = "../../tests/tests/outside/mod.rs"]
mod outside;
use outside::tree;

fn copy_tree(from: &Path, to: &Path) {
    for (path, content) in tree(from) {
        let dest = to.join(path);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, content).unwrap();
    }
}

/// CI's check, from the sources: `rbac-out/` is what they give, ledgers included.
#[test]
fn rbac_out_is_fresh_from_the_sources_too() {
    let out = codegen(&["--rbac-from-source", "--check"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{}{stderr}", text(&out.stdout));
    for file in [
        "role.yaml",
        "role_binding.yaml",
        "kustomization.yaml",
        ".kube-markers-codegen.sha256",
        "crd/.kube-markers-codegen.sha256",
    ] {
        assert!(
            stderr.contains(&format!("rbac-out/{file} is up to date")),
            "{file}: {stderr}"
        );
    }
    // What only a rebuild regenerates is not claimed fresh: the sources of the CRDs and
    // webhooks may have changed since the generator was built.
    for file in [
        "crd/cache.example.com_memcacheds.yaml",
        "webhook/manifests.yaml",
    ] {
        assert!(
            stderr.contains(&format!(
                "rbac-out/{file} not checked: --rbac-from-source reads only the #[rbac] \
                 attributes; `cargo run -p codegen -- --check` checks it"
            )),
            "{file}: {stderr}"
        );
        assert!(
            !stderr.contains(&format!("rbac-out/{file} is up to date")),
            "{stderr}"
        );
    }
    assert!(
        stderr.contains(
            "role.yaml from the sources (9 #[rbac] attribute(s)), the same as the last build's; \
             CRDs and webhooks are left as they are"
        ),
        "{stderr}"
    );
}

#[test]
fn both_ways_write_the_same_files_with_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let header = dir.path().join("header.txt");
    std::fs::write(&header, "# Copyright YEAR the authors.\n").unwrap();
    let (full, fast) = (dir.path().join("full"), dir.path().join("fast"));
    let args = |out: &Path, from_source: bool| {
        let mut args = vec![
            "--out".to_string(),
            out.display().to_string(),
            "--role-name".into(),
            "operator-role".into(),
            "--file-name".into(),
            "rbac.yaml".into(),
            "--header-file".into(),
            header.display().to_string(),
            "--year".into(),
            "2026".into(),
            "--generator-name".into(),
            "gen".into(),
            "--operator-namespace".into(),
            "ops".into(),
        ];
        if from_source {
            args.push("--rbac-from-source".into());
        }
        args
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        codegen(&args)
    };
    let out = run(args(&full, false));
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The earlier run's files, the roles and a bundle file spoiled or gone.
    copy_tree(&full, &fast);
    std::fs::write(fast.join("rbac.yaml"), "stale\n").unwrap();
    std::fs::remove_file(fast.join("role_binding.yaml")).unwrap();
    let out = run(args(&fast, true));
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("wrote "), "{stderr}");
    // The spoiled file was a hand edit, as the ledger shows: kept beside it.
    assert!(
        stderr.contains("rbac.yaml was edited by hand since generator `gen` wrote it"),
        "{stderr}"
    );
    let kept = fast.join("rbac.yaml.edited");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "stale\n");
    std::fs::remove_file(kept).unwrap();
    assert_eq!(tree(&fast), tree(&full));
    // `--check` from the sources, and the full run's, find nothing to do.
    let mut check = args(&fast, true);
    check.push("--check".into());
    let out = run(check);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut check = args(&fast, false);
    check.push("--check".into());
    let out = run(check);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn crds_and_webhooks_are_left_as_they_are_with_a_warning_when_they_differ() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let out = codegen(&["--out", out_dir]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let crd = dir.path().join("crd/cache.example.com_memcacheds.yaml");
    let edited = std::fs::read_to_string(&crd).unwrap() + "# edited by hand\n";
    std::fs::write(&crd, &edited).unwrap();
    let webhooks = dir.path().join("webhook/manifests.yaml");
    std::fs::remove_file(&webhooks).unwrap();
    let out = codegen(&["--out", out_dir, "--rbac-from-source"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(std::fs::read_to_string(&crd).unwrap(), edited);
    assert!(
        stderr.contains(&format!(
            "warning: {} was left as it is, but the last build generates it otherwise; \
             --rbac-from-source writes only the roles and the deploy bundle: run `cargo run -p \
             codegen` to regenerate it",
            crd.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "warning: {} is missing (the last build generates it)",
            webhooks.display()
        )),
        "{stderr}"
    );
    // A missing one is written as the last build generates it (the kustomization lists it).
    assert!(webhooks.is_file());
    let denied = codegen(&["--out", out_dir, "--rbac-from-source", "--deny-warnings"]);
    assert_eq!(denied.status.code(), Some(1));
}

#[test]
fn from_source_needs_the_scan() {
    let out = codegen(&["--rbac-from-source", "--no-scan"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("`--rbac-from-source` and `--no-scan` conflict"),
        "{}",
        text(&out.stderr)
    );
    let out = codegen(&["--rbac-from-sources"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("unknown option `--rbac-from-sources` (did you mean `--rbac-from-source`?)"),
        "{}",
        text(&out.stderr)
    );
}
