//! `codegen check-crds --previous OLD NEW`: the CRDs of NEW compared with those of OLD (files,
//! directories, or kubectl's cluster), text and JSON output, the policy, and exit codes; and
//! the exit codes of `check-crds PATH...` alone.

mod common;

use common::{codegen, text};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn crd(maximum: u64, extra: bool) -> Value {
    let mut spec = json!({"type": "object", "properties": {
        "size": {"type": "integer", "maximum": maximum, "description": "how many"}
    }});
    if extra {
        spec["properties"]["extra"] = json!({"type": "string"});
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}}]
        }
    })
}

fn write(dir: &Path, name: &str, crd: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(crd).unwrap()).unwrap();
    path.display().to_string()
}

#[test]
fn a_tightening_is_an_error_a_loosening_passes() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crd(10, false));
    let tighter = write(dir.path(), "tighter.yaml", &crd(5, false));
    let looser = write(dir.path(), "looser.yaml", &crd(20, true));

    let out = codegen(&["check-crds", "--previous", &old, &tighter]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "error[maximum]: widgets.example.com v1 spec.size: maximum decreased: 10 → 5; \
         ratcheting (Kubernetes 1.33+) keeps stored objects updatable while this value is \
         unchanged; creates and changed values must satisfy it\n"
    );
    assert!(
        text(&out.stderr).contains("1 breaking change(s)"),
        "{}",
        text(&out.stderr)
    );

    let out = codegen(&["check-crds", "--previous", &old, &looser]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout), "");

    // The policy: a warning passes; `off` says nothing.
    let out = codegen(&[
        "check-crds",
        "--previous",
        &old,
        &tighter,
        "--policy",
        "maximum=warn",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).starts_with("warn[maximum]: "),
        "{}",
        text(&out.stdout)
    );
    let out = codegen(&[
        "check-crds",
        "--previous",
        &old,
        &tighter,
        "--policy=maximum=off",
    ]);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), String::new())
    );
}

#[test]
fn json_is_a_list_of_findings() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crd(10, true));
    let new = write(dir.path(), "new.yaml", &crd(5, false));
    let out = codegen(&["check-crds", "--previous", &old, &new, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<(&str, &str, &str, &str)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert!(f["message"].is_string());
            (
                f["check"].as_str().unwrap(),
                f["version"].as_str().unwrap(),
                f["path"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("existingFieldRemoval", "v1", "^.spec.extra", "error"),
            ("maximum", "v1", "^.spec.size", "error"),
        ]
    );
    let same = codegen(&["check-crds", "--previous", &old, &new, "-o", "json"]);
    assert_eq!(same.stdout, out.stdout);
}

#[test]
fn directories_compare_by_crd_name() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(a.path(), "widgets.yaml", &crd(10, false));
    let mut gadget = crd(10, false);
    gadget["metadata"]["name"] = json!("gadgets.example.com");
    write(a.path(), "gadgets.yaml", &gadget);
    std::fs::write(a.path().join("README.md"), "not a CRD").unwrap();
    write(b.path(), "renamed-widgets.yaml", &crd(10, false));
    let out = codegen(&[
        "check-crds",
        "--previous",
        &a.path().display().to_string(),
        &b.path().display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "error[servedVersionRemoval]: gadgets.example.com v1: served version v1 removed: \
         clients that use it get 404. It was the storage version. Objects may still be stored \
         at it: once a storage migration has rewritten them (and status.storedVersions no \
         longer lists it), `check-crds --previous cluster` shows whether any are.\n"
    );
}

#[test]
fn bad_arguments_and_unreadable_crds_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crd(10, false));
    let not_crd = dir.path().join("pod.yaml");
    std::fs::write(&not_crd, "kind: Pod\napiVersion: v1\n").unwrap();
    let mut bad = crd(10, false);
    bad["spec"]["versions"][0]["name"] = json!(3);
    let bad = write(dir.path(), "bad.yaml", &bad);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--previous".into(), old.clone()], "missing PATH"),
        (
            vec![old.clone(), "--policy".into(), "maximum=warn".into()],
            "needs `--previous OLD`",
        ),
        (
            vec![
                "--previous".into(),
                old.clone(),
                old.clone(),
                "--policy".into(),
                "maximum".into(),
            ],
            "is not CHECK=LEVEL",
        ),
        (
            vec![
                "--previous".into(),
                old.clone(),
                old.clone(),
                "--policy".into(),
                "maximun=warn".into(),
            ],
            "--policy `checks.maximun`: no check is named `maximun`",
        ),
        (
            vec![
                "--previous".into(),
                old.clone(),
                old.clone(),
                "--policy".into(),
                "maximum=fatal".into(),
            ],
            "must be \"error\", \"warn\" or \"off\"",
        ),
        (
            vec![
                "--previous".into(),
                old.clone(),
                old.clone(),
                "--costs".into(),
            ],
            "`--previous` and `--costs` conflict",
        ),
        (
            vec!["--previous".into(), "no/such/dir".into(), old.clone()],
            "--previous no/such/dir: no/such/dir: no such file or directory",
        ),
        (
            vec![
                "--previous".into(),
                old.clone(),
                not_crd.display().to_string(),
            ],
            "pod.yaml: no apiextensions.k8s.io/v1 CustomResourceDefinition in it",
        ),
        (
            vec!["--previous".into(), old.clone(), bad],
            "widgets.example.com: cannot be decoded as the API server decodes a CRD: \
             spec.versions[0].name: invalid type: integer `3`",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["check-crds".to_string()];
        all.extend(args.iter().cloned());
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = codegen(&refs);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(want),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

/// `--previous cluster` asks kubectl (`$KUBECTL`) for the installed CRDs, with their status;
/// another operator's CRDs in the cluster are not "removed". A stand-in kubectl answers here;
/// the API server itself is envtest's (docs/upgrades.md).
#[test]
fn previous_cluster_reads_kubectls_list_with_stored_versions() {
    let dir = tempfile::tempdir().unwrap();
    let mut installed = crd(10, false);
    installed["spec"]["versions"]
        .as_array_mut()
        .unwrap()
        .insert(
            0,
            json!({"name": "v1beta1", "served": true, "storage": false,
            "schema": {"openAPIV3Schema": {"type": "object"}}}),
        );
    installed["status"] = json!({"storedVersions": ["v1beta1", "v1"]});
    let mut other = crd(10, false);
    other["metadata"]["name"] = json!("others.example.org");
    for item in [&mut installed, &mut other] {
        item.as_object_mut().unwrap().remove("kind");
    }
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [installed, other]});
    std::fs::write(dir.path().join("list.json"), list.to_string()).unwrap();
    let kubectl = dir.path().join("kubectl");
    std::fs::write(
        &kubectl,
        format!(
            "#!/bin/sh\n[ \"$*\" = 'get customresourcedefinitions.apiextensions.k8s.io -o json --show-managed-fields' ] || exit 3\ncat '{}'\n",
            dir.path().join("list.json").display()
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&kubectl)
        .status()
        .unwrap();
    let new = write(dir.path(), "new.yaml", &crd(10, false));
    let out = Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(["check-crds", "--previous", "cluster", &new])
        .env("KUBECTL", &kubectl)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout)
        .lines()
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(lines, ["error[storedVersionRemoval]"]);

    // Migrated: storedVersions no longer lists v1beta1, whose clients get 404: a warning.
    let migrated = list.to_string().replace(r#"["v1beta1","v1"]"#, r#"["v1"]"#);
    assert_ne!(migrated, list.to_string());
    std::fs::write(dir.path().join("list.json"), migrated).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(["check-crds", "--previous", "cluster", &new])
        .env("KUBECTL", &kubectl)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "warn[servedVersionRemoval]: widgets.example.com v1beta1: served version v1beta1 \
         removed: clients that use it get 404. No object is stored at it \
         (status.storedVersions: v1).\n"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(["check-crds", "--previous", "cluster", &new])
        .env("KUBECTL", dir.path().join("no-kubectl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--previous cluster: cannot run"),
        "{}",
        text(&out.stderr)
    );
}

/// `check-crds PATH...`: 0 when every CRD is accepted, 1 when one is refused, 2 when a path's
/// CRDs cannot be read (missing, not YAML, a named file without a CRD), as with `--previous`.
#[test]
fn check_crds_exits_0_accepted_1_refused_2_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.yaml", &crd(10, false));
    let mut refused = crd(10, false);
    refused["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{"rule": "self.nope == 1"}]);
    let refused = write(dir.path(), "refused.yaml", &refused);
    let not_crd = dir.path().join("pod.yaml");
    std::fs::write(&not_crd, "kind: Pod\napiVersion: v1\n").unwrap();
    let not_yaml = dir.path().join("broken.yaml");
    std::fs::write(&not_yaml, "a: [\n").unwrap();
    let missing = dir.path().join("missing.yaml");
    let (not_crd, not_yaml, missing) = (
        not_crd.display().to_string(),
        not_yaml.display().to_string(),
        missing.display().to_string(),
    );
    for (paths, code, want) in [
        (vec![&good], 0, ""),
        (vec![&good, &refused], 1, "undefined field 'nope'"),
        (
            vec![&refused, &missing],
            2,
            "missing.yaml: no such file or directory",
        ),
        (
            vec![&good, &not_crd],
            2,
            "no apiextensions.k8s.io/v1 CustomResourceDefinition in it",
        ),
        (vec![&good, &not_yaml], 2, "broken.yaml: error: not YAML"),
    ] {
        let mut args = vec!["check-crds"];
        args.extend(paths.iter().map(|p| p.as_str()));
        let out = codegen(&args);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{paths:?}: {all}");
        assert!(all.contains(want), "{paths:?}: {want}: {all}");
    }
    // A directory's files without CRDs are skipped: a chart's other manifests.
    let chart = tempfile::tempdir().unwrap();
    write(chart.path(), "crd.yaml", &crd(10, false));
    std::fs::write(chart.path().join("pod.yaml"), "kind: Pod\napiVersion: v1\n").unwrap();
    let out = codegen(&["check-crds", chart.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

/// `--previous` applies the policy of the workspace it runs in, as the generator does, and
/// `--policy` overrides it.
#[test]
fn the_workspace_policy_applies_and_policy_flags_override_it() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("Cargo.toml"),
        "[workspace]\n\n[workspace.metadata.kube-markers.upgrade]\n\
         checks = { maximum = \"warn\" }\n",
    )
    .unwrap();
    let old = write(ws.path(), "old.yaml", &crd(10, false));
    let tighter = write(ws.path(), "tighter.yaml", &crd(5, false));
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_codegen"))
            .args(["check-crds", "--previous", &old, &tighter])
            .args(extra)
            .current_dir(ws.path())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("warn[maximum]: widgets.example.com v1 spec.size"),
        "{}",
        text(&out.stdout)
    );
    let out = run(&["--policy", "maximum=error"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("error[maximum]"));

    // A key the policy does not know, in the workspace, is a bad setting (exit 2) naming it.
    std::fs::write(
        ws.path().join("Cargo.toml"),
        "[workspace]\n\n[workspace.metadata.kube-markers.upgrade]\n\
         checks = { maximun = \"warn\" }\n",
    )
    .unwrap();
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("[workspace.metadata.kube-markers.upgrade] `checks.maximun`"),
        "{}",
        text(&out.stderr)
    );

    // A workspace that does not resolve (a member missing): comparing files needs none of it,
    // and its policy still applies, from a member's directory too (`package.workspace`).
    std::fs::write(
        ws.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"missing\", \"op\"]\n\n\
         [workspace.metadata.kube-markers.upgrade]\nchecks = { maximum = \"warn\" }\n",
    )
    .unwrap();
    let op = ws.path().join("op");
    std::fs::create_dir_all(&op).unwrap();
    std::fs::write(
        op.join("Cargo.toml"),
        "[package]\nname = \"op\"\nworkspace = \"..\"\n",
    )
    .unwrap();
    let in_dir = |dir: &Path| {
        Command::new(env!("CARGO_BIN_EXE_codegen"))
            .args(["check-crds", "--previous", &old, &tighter])
            .current_dir(dir)
            .output()
            .unwrap()
    };
    for dir in [ws.path(), op.as_path()] {
        let out = in_dir(dir);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).starts_with("warn[maximum]"),
            "{}",
            text(&out.stdout)
        );
    }
    // A Cargo.toml that is not TOML: named in a warning, the defaults apply.
    std::fs::write(ws.path().join("Cargo.toml"), "[workspace\n").unwrap();
    let out = in_dir(ws.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("Cargo.toml: not TOML")
            && text(&out.stderr).contains("the default upgrade policy is"),
        "{}",
        text(&out.stderr)
    );
}

/// What a user's file system and pipes hold: a directory with symbolic-link loops and a FIFO is
/// walked once without following the links or opening the FIFO; `| head -1` does not panic;
/// a v1beta1 CRD is refused; a `CustomResourceDefinitionList`'s items are checked; a CRD
/// `--previous` cannot decode exits 2 naming the field.
#[test]
fn odd_files_links_pipes_and_lists() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    write(&tree, "crd.yaml", &crd(10, false));
    std::os::unix::fs::symlink(".", tree.join("a")).unwrap();
    std::os::unix::fs::symlink(".", tree.join("b")).unwrap();
    let fifo = tree.join("pipe.yaml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out = codegen(&["check-crds", tree.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "1 file(s), 1 CRD(s): the API server would accept them\n"
    );

    // A reader that stops early.
    let mut child = Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args([
            "check-crds",
            "--costs",
            tree.join("crd.yaml").to_str().unwrap(),
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );

    let mut old = crd(10, false);
    old["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
    let v1beta1 = write(dir.path(), "v1beta1.yaml", &old);
    let out = codegen(&["check-crds", &v1beta1]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("is an apiextensions.k8s.io/v1beta1 CustomResourceDefinition"),
        "{}",
        text(&out.stdout)
    );

    let mut refused = crd(10, false);
    refused["spec"]["scope"] = json!("Everywhere");
    let list = write(
        dir.path(),
        "list.yaml",
        &json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinitionList",
            "items": [crd(10, false), refused]}),
    );
    let out = codegen(&["check-crds", &list]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("2 CRD(s): 1 the API server would refuse"),
        "{}",
        text(&out.stdout)
    );

    let old = write(dir.path(), "old.yaml", &crd(10, false));
    let mut mistyped = crd(10, false);
    mistyped["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["size"]["maximum"] = json!("x");
    let mistyped = write(dir.path(), "mistyped.yaml", &mistyped);
    let out = codegen(&["check-crds", "--previous", &old, &mistyped]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "widgets.example.com: cannot be decoded as the API server decodes a CRD: \
             spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.maximum: \
             invalid type: string \"x\""
        ),
        "{}",
        text(&out.stderr)
    );
}

/// Files are checked side by side, one thread per core, yet reported in the order of the
/// paths given (a directory's files sorted): file sizes that differ a hundredfold, so that the
/// threads finish out of order, and the same bytes in every run.
#[test]
fn files_checked_side_by_side_report_in_path_order() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..24 {
        let mut refused = crd(10, false);
        let plural = format!("widgets{i:02}");
        refused["metadata"]["name"] = json!(format!("{plural}.example.com"));
        refused["spec"]["names"]["plural"] = json!(plural);
        let spec =
            &mut refused["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        spec["x-kubernetes-validations"] = json!([{"rule": format!("self.nope{i:02} == 1")}]);
        // Every third file a hundred times larger than the others.
        for p in 0..if i % 3 == 0 { 400 } else { 4 } {
            spec["properties"][format!("p{p}")] =
                json!({"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"});
        }
        write(dir.path(), &format!("f{i:02}.yaml"), &refused);
    }
    // A file named after the directory, elsewhere: reported after the directory's files.
    let other = tempfile::tempdir().unwrap();
    let mut last = crd(10, false);
    last["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{"rule": "self.nope99 == 1"}]);
    let last = write(other.path(), "named.json", &last);
    let dir_arg = dir.path().to_str().unwrap();
    let runs: Vec<String> = (0..3)
        .map(|_| {
            let out = codegen(&["check-crds", dir_arg, &last]);
            assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
            text(&out.stdout)
        })
        .collect();
    assert!(runs.iter().all(|r| *r == runs[0]), "{runs:#?}");
    let order: Vec<String> = runs[0]
        .lines()
        .filter_map(|line| {
            line.split_once("undefined field 'nope")
                .map(|(_, n)| n[..2].into())
        })
        .collect();
    let want: Vec<String> = (0..24).chain([99]).map(|i| format!("{i:02}")).collect();
    assert_eq!(order, want, "{}", runs[0]);
    assert!(
        runs[0].starts_with(&format!("{}:", dir.path().join("f00.yaml").display())),
        "{}",
        runs[0]
    );
}
