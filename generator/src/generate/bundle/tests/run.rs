//! The generator: writing, nothing written on bad input, the previous bundle.

use super::*;
use crate::Error;

fn run_entries() -> Vec<RbacEntry> {
    vec![
        entry(None, None, &["carts"], 1),
        entry(Some("tenant-a"), Some("tenant"), &["configmaps"], 2),
    ]
}

fn run_in(
    dir: &Path,
    entries: &[RbacEntry],
    bundle: BundleFlags,
    check: bool,
) -> Result<crate::Report, Error> {
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let opts = Options {
        no_scan: true,
        out_dir: dir.to_path_buf(),
        check,
        bundle,
        ..Options::default()
    };
    run_with(&refs, &[], &[], &opts)
}

fn named(name: &str) -> BundleFlags {
    BundleFlags {
        name: Some(name.into()),
        ..BundleFlags::default()
    }
}

/// The files under `dir`, without the generator's ledgers (`.kube-markers-*.sha256`).
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let ledger = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(".kube-markers-"))
    };
    for entry in walk(dir).into_iter().filter(|p| !ledger(p)) {
        out.push(entry.strip_prefix(dir).unwrap().display().to_string());
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_generator_writes_the_bundle_and_check_covers_it() {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    assert_eq!(
        listing(dir.path()),
        [
            "chart/.helmignore",
            "chart/Chart.yaml",
            "chart/templates/_helpers.tpl",
            "chart/templates/manager.yaml",
            "chart/templates/role.yaml",
            "chart/templates/role_binding.yaml",
            "chart/templates/service_account.yaml",
            "chart/values.yaml",
            "kustomization.yaml",
            "manager.yaml",
            "pinned-namespaces/kustomization.yaml",
            "pinned-namespaces/transformers.yaml",
            "role.yaml",
            "role_binding.yaml",
            "service_account.yaml",
        ]
    );
    let report = run_in(dir.path(), &run_entries(), named("shop"), true).unwrap();
    assert!(!report.is_stale());
    // A hand edit of a bundle file is stale, and said to be an edit (the ledger knows).
    std::fs::write(dir.path().join("manager.yaml"), "edited\n").unwrap();
    let report = run_in(dir.path(), &run_entries(), named("shop"), true).unwrap();
    assert!(report.is_stale());
    assert!(
        report
            .files
            .iter()
            .any(|(p, s)| p.ends_with("manager.yaml") && matches!(s, FileStatus::Edited(_)))
    );
}

#[test]
fn bad_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let clashing = [
        entry(None, Some("audit"), &["pods"], 1),
        entry(None, Some("audit-role"), &["pods"], 2),
    ];
    let err = run_in(dir.path(), &clashing, named("shop"), false).unwrap_err();
    assert!(
        matches!(&err, Error::Bundle(e) if matches!(
            e.as_slice(),
            [BundleProblem::Duplicate { kind: "ClusterRoleBinding", name, .. }]
                if name == "audit-rolebinding"
        )),
        "{err}"
    );
    assert!(
        err.to_string().starts_with(
            "1 problem(s) with the deploy bundle:\n  - the ClusterRoleBinding `audit-rolebinding`"
        ),
        "{err}"
    );
    let err = run_in(dir.path(), &run_entries(), named("Shop"), false).unwrap_err();
    assert!(
        err.to_string()
            .contains("`--operator-name`: `name = \"Shop\"`"),
        "{err}"
    );
    assert_eq!(listing(dir.path()), Vec::<String>::new());
}

#[test]
fn files_of_the_previous_bundle_that_are_no_longer_generated_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    // The tenant Role goes: its namespace is no longer pinned.
    let fewer = &run_entries()[..1];
    let report = run_in(dir.path(), fewer, named("shop"), true).unwrap();
    let orphaned: Vec<String> = report
        .files
        .iter()
        .filter(|(_, s)| matches!(s, FileStatus::Orphaned(_)))
        .map(|(p, _)| p.strip_prefix(dir.path()).unwrap().display().to_string())
        // (The emptied directory's ledger goes too.)
        .filter(|p| !p.contains("/.kube-markers-"))
        .collect();
    assert_eq!(
        orphaned,
        [
            "pinned-namespaces/kustomization.yaml",
            "pinned-namespaces/transformers.yaml"
        ]
    );
    run_in(dir.path(), fewer, named("shop"), false).unwrap();
    assert!(!dir.path().join(PINNED_DIR).join(KUSTOMIZATION).exists());
    // Switching the bundle off removes the rest of it, and nothing else.
    std::fs::write(dir.path().join("notes.yaml"), "mine\n").unwrap();
    let off = BundleFlags {
        off: true,
        ..BundleFlags::default()
    };
    let report = run_in(dir.path(), fewer, off, false).unwrap();
    let removed = |chart: bool| {
        report
            .files
            .iter()
            .filter(|(_, s)| matches!(s, FileStatus::Removed(_)))
            .filter(|(p, _)| !p.to_string_lossy().contains("/.kube-markers-"))
            .filter(|(p, _)| p.starts_with(dir.path().join("chart")) == chart)
            .count()
    };
    assert_eq!(removed(false), 4, "{:#?}", report.files);
    // The chart's files, its ledgers aside.
    assert_eq!(removed(true), 8, "{:#?}", report.files);
    assert_eq!(listing(dir.path()), ["notes.yaml", "role.yaml"]);
}

#[test]
fn with_no_scan_and_no_flags_an_existing_bundle_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    let before = listing(dir.path());
    let report = run_in(dir.path(), &run_entries(), BundleFlags::default(), false).unwrap();
    assert_eq!(listing(dir.path()), before);
    assert!(
        report.warnings.iter().any(|w| matches!(w,
            crate::Warning::Bundle(BundleWarning::KeptWithoutScan { kustomization })
                if *kustomization == dir.path().join(KUSTOMIZATION))
            && w.to_string()
                .contains("with --no-scan the operator's identity in Cargo.toml is not read")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn the_previous_bundle_is_read_from_our_kustomization_only() {
    let dir = tempfile::tempdir().unwrap();
    assert!(kustomize::previous_files(dir.path()).is_empty());
    // A kustomization someone else wrote is not ours to clean up after.
    std::fs::write(dir.path().join(KUSTOMIZATION), "resources:\n- a.yaml\n").unwrap();
    assert!(kustomize::previous_files(dir.path()).is_empty());
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    let previous: Vec<String> = kustomize::previous_files(dir.path())
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(
        previous,
        [
            "kustomization.yaml",
            "role.yaml",
            "service_account.yaml",
            "role_binding.yaml",
            "manager.yaml",
            "pinned-namespaces/kustomization.yaml",
            "pinned-namespaces/transformers.yaml",
        ]
    );
}

#[test]
fn the_command_line_sets_the_bundle_flags() {
    use crate::Command;
    let Command::Run(opts) = Command::parse([
        "--operator-name",
        "shop",
        "--operator-namespace=ops",
        "--image",
        "img:1",
    ])
    .unwrap() else {
        panic!()
    };
    assert_eq!(
        opts.bundle,
        BundleFlags {
            off: false,
            name: Some("shop".into()),
            namespace: Some("ops".into()),
            image: Some("img:1".into()),
        }
    );
    let Command::Run(opts) = Command::parse(["--no-bundle"]).unwrap() else {
        panic!()
    };
    assert!(opts.bundle.off);
    let err = Command::parse(["--no-bundle", "--image", "x"]).unwrap_err();
    assert!(err.to_string().contains("`--no-bundle` conflicts"), "{err}");
    let err = Command::parse(["--operater-name", "x"]).unwrap_err();
    assert!(
        err.to_string().contains("did you mean `--operator-name`?"),
        "{err}"
    );
}
