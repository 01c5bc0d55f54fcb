//! A run: its flags, its errors and what it writes, end to end.

use super::*;

#[test]
fn flags_parse_with_defaults_and_both_spellings() {
    let Command::Run(o) = Command::parse(Vec::<String>::new()).unwrap() else {
        panic!()
    };
    assert_eq!(o, Options::default());
    assert_eq!(o.out_dir, PathBuf::from("rbac-out"));
    let Command::Run(o) = Command::parse([
        "--out",
        "x",
        "--role-name=my-role",
        "--file-name",
        "r.yaml",
        "--header-file",
        "h.txt",
        "--year",
        "2026",
        "--check",
        "--manifest-path",
        "ws/Cargo.toml",
        "--generator-name",
        "tenant-roles",
    ])
    .unwrap() else {
        panic!()
    };
    assert_eq!(o.out_dir, PathBuf::from("x"));
    assert_eq!(o.role_name, "my-role");
    assert_eq!(o.file_name, "r.yaml");
    assert_eq!(o.header_file, Some(PathBuf::from("h.txt")));
    assert_eq!(o.year, "2026");
    assert!(o.check);
    assert_eq!(o.generator_name, "tenant-roles");
    assert_eq!(Command::parse(["--help"]).unwrap(), Command::Help);
    assert_eq!(Command::parse(["--check", "-h"]).unwrap(), Command::Help);
}

#[test]
fn the_default_generator_name_is_the_package_never_the_binarys() {
    // This test binary (`kube_markers_codegen-<hash>`) has no `link!`: no package to name it.
    let name = Options::default().generator_name;
    assert_eq!(name, "kube-markers");
    assert!(ledger::check_generator_name(&name).is_ok());
    // With `link!`'s record, its package, whatever the binary is called.
    let invocation = crate::Invocation {
        package: Some("xtask".into()),
        bin: "gen".into(),
        package_dir: None,
    };
    assert_eq!(invocation.generator_name(), "xtask");
}

#[test]
fn bad_flags_are_named() {
    let err = |args: &[&str]| Command::parse(args.iter().copied()).unwrap_err();
    assert_eq!(
        err(&["--chek"]),
        UsageError::UnknownOption {
            arg: "--chek".into(),
            suggestion: Some("check".into())
        }
    );
    let text = |args: &[&str]| err(args).to_string();
    assert!(text(&["--chek"]).contains("did you mean `--check`?"));
    assert!(text(&["--out"]).contains("`--out` needs a value"));
    assert!(text(&["--out", "--check"]).contains("`--out` needs a value"));
    assert!(text(&["--check", "--check"]).contains("more than once"));
    assert!(text(&["--check=yes"]).contains("takes no value"));
    assert!(text(&["--role-name", "Bad_Name"]).contains("not a valid role name"));
    assert!(text(&["--file-name", "a/b.yaml"]).contains("plain file name"));
    assert!(text(&["--no-scan", "--manifest-path", "x"]).contains("conflict"));
    assert!(text(&["stray"]).contains("unexpected argument `stray`"));
    assert_eq!(
        text(&["--generator-name", "../x"]),
        "`--generator-name ../x` is not a valid generator name: it starts with `.`"
    );
    assert!(text(&["--generator-name", "a/b"]).contains("only ASCII letters"));
    // A usage error is an `Error` too.
    let e: Error = err(&["--chek"]).into();
    assert!(matches!(e, Error::Usage(UsageError::UnknownOption { .. })));
}

#[test]
fn check_file_diffs_against_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("role.yaml");
    std::fs::write(&path, "a\n").unwrap();
    assert_eq!(check_file(&path, "a\n").unwrap(), FileStatus::Unchanged);
    let FileStatus::Stale(diff) = check_file(&path, "b\n").unwrap() else {
        panic!()
    };
    assert!(diff.contains("-a\n+b\n"), "{diff}");
    assert_eq!(
        check_file(&dir.path().join("nope.yaml"), "a").unwrap(),
        FileStatus::Missing
    );
}

#[test]
fn empty_registry_is_an_error() {
    let opts = Options {
        no_scan: true,
        ..Options::default()
    };
    assert!(matches!(
        run_with(&[], &[], &[], &opts).unwrap_err(),
        Error::EmptyRegistry
    ));
}

#[test]
fn header_year_is_replaced_and_missing_header_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let header = dir.path().join("h.txt");
    std::fs::write(&header, "# Copyright YEAR The Authors.\n").unwrap();
    let opts = Options {
        header_file: Some(header),
        year: "2026".into(),
        ..Options::default()
    };
    assert_eq!(
        read_header(&opts).unwrap(),
        "# Copyright 2026 The Authors.\n"
    );
    let missing = dir.path().join("nope");
    let opts = Options {
        header_file: Some(missing.clone()),
        ..Options::default()
    };
    let err = read_header(&opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot read --header-file {}", missing.display())
    );
    // The OS's reason is the source, and `main` prints it after the message.
    let source = std::error::Error::source(&err).unwrap();
    assert!(source.downcast_ref::<std::io::Error>().is_some());
    assert!(crate::with_sources(&err).ends_with(&format!(": {source}")));
}

#[test]
fn problem_lists_are_headed_by_what_they_are_about() {
    let lost = |file: &str, line, column| Finding {
        place: Some(Place {
            file: file.into(),
            line,
            column: Some(column),
        }),
        attribute: Some("rbac"),
        problem: Problem::NotLinked {
            krate: "op".into(),
            active: Activity::Unconditional,
        },
    };
    let e = Error::CrossCheck {
        errors: vec![lost("a.rs", 1, 1), lost("b.rs", 2, 5)],
        warnings: Vec::new(),
    };
    assert_eq!(
        e.to_string(),
        "2 problem(s) between the sources and the registry:\n  \
         - a.rs:1:1: #[rbac] in crate `op` is missing from the registry: the generator does not \
         link crate `op`; add it to `kube_markers::link!(...)` in the generator's main.rs (and \
         to its [dependencies])\n  \
         - b.rs:2:5: #[rbac] in crate `op` is missing from the registry: the generator does not \
         link crate `op`; add it to `kube_markers::link!(...)` in the generator's main.rs (and \
         to its [dependencies])"
    );
    assert!(!e.to_string().lines().next().unwrap().contains("#[rbac]"));
    // A registry older than the sources (after `--rbac-from-source`, say) says so first: no
    // file was checked, and none is claimed up to date.
    let stale = Finding {
        problem: Problem::Stale,
        ..lost("a.rs", 1, 1)
    };
    let e = Error::CrossCheck {
        errors: vec![stale],
        warnings: Vec::new(),
    };
    assert!(
        e.to_string().starts_with(
            "this generator was built from older sources than the workspace's, so nothing was \
             checked or written: run it with `cargo run`, which rebuilds it first\n1 problem(s) \
             between the sources and the registry:\n  - a.rs:1:1: the registry entry differs"
        ),
        "{e}"
    );
    // The run stops at the errors, before it prints warnings: the cross-check's own warnings
    // come with them.
    let off = Finding {
        place: Some(Place {
            file: "c.rs".into(),
            line: 3,
            column: Some(1),
        }),
        attribute: Some("rbac"),
        problem: Problem::CfgOff {
            cfgs: "feature = \"x\"".into(),
            why: "feature `x` is not enabled".into(),
        },
    };
    let e = Error::CrossCheck {
        errors: vec![lost("a.rs", 1, 1)],
        warnings: vec![off.clone()],
    };
    let text = e.to_string();
    let (errors, warnings) = text
        .split_once("\n1 warning(s) of the same cross-check:\n  - ")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(errors.starts_with("1 problem(s) between the sources and the registry:"));
    assert!(errors.contains("a.rs:1:1"), "{errors}");
    assert_eq!(warnings, off.to_string());
    let ty = |line| {
        kube_markers_registry::crd::CrdType::new(
            "Db",
            kube_markers_registry::Source::__new("src/lib.rs", line, 1, "op", "DbSpec"),
        )
    };
    let e = Error::Crd(vec![kube_markers_registry::crd::CrdProblem::VersionTwice {
        group: "db.example.com".into(),
        kind: "Db".into(),
        version: "v1".into(),
        first: ty(1),
        second: ty(2),
    }]);
    assert_eq!(
        e.to_string(),
        "1 problem(s) with the CRDs:\n  - db.example.com/Db: version v1 is defined twice, by \
         src/lib.rs:1 (Db) and src/lib.rs:2 (Db)"
    );
}

#[test]
fn writes_the_role_and_warns_where_controller_gen_would_differ() {
    let dir = tempfile::tempdir().unwrap();
    let entries = [
        entry(&["batch"], &["create"], 1),
        entry(&["cron"], &["create"], 2),
        entry(&["batch", "cron"], &["get"], 3),
    ];
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let opts = Options {
        no_scan: true,
        out_dir: dir.path().to_path_buf(),
        generator_name: "gen".into(),
        ..Options::default()
    };
    let report = run_with(&refs, &[], &[], &opts).unwrap();
    assert_eq!(
        report.files,
        [
            (dir.path().join("role.yaml"), FileStatus::Written),
            (
                dir.path().join(".kube-markers-gen.sha256"),
                FileStatus::Written
            )
        ]
    );
    assert_eq!(report.warnings, [Warning::Collisions { count: 1 }]);
    assert!(
        report.warnings[0]
            .to_string()
            .starts_with("1 rule merge(s) collided"),
        "{:?}",
        report.warnings
    );
    assert_eq!(
        report.summary,
        "1 ClusterRole, 0 Roles with 1 rule from 3 #[rbac] attributes"
    );
    let written = std::fs::read_to_string(dir.path().join("role.yaml")).unwrap();
    assert!(
        written.contains("  verbs:\n  - create\n  - get\n"),
        "{written}"
    );
    // Without the collision, no warning.
    let report = run_with(&refs[..2], &[], &[], &opts).unwrap();
    assert!(report.warnings.is_empty());
}

#[test]
fn webhooks_go_to_their_directory_are_checked_and_removed_with_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        out_dir: dir.path().join("out"),
        no_scan: true,
        bundle: bundle::BundleFlags {
            off: true,
            ..Default::default()
        },
        ..Options::default()
    };
    let hook = webhook_entry("v.example.com", false);
    let named = webhook_configuration(
        false,
        Some("op-validating"),
        Source::__new("src/lib.rs", 2, 1, "op", "_"),
    );
    let hooks = [&hook];
    let names = [&named];
    let webhooks = Webhooks::new(&hooks, &names);
    let manifest = opts.out_dir.join("webhook/manifests.yaml");

    // Webhooks alone are enough to run; the file is controller-gen's.
    let report = run_with_webhooks(&[], &[], webhooks, &[], &opts).unwrap();
    assert!(
        report
            .summary
            .contains("1 webhook(s) in 1 configuration(s)"),
        "{}",
        report.summary
    );
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.starts_with("---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: op-validating\n"), "{text}");
    assert!(
        text.contains("  failurePolicy: Fail\n  name: v.example.com\n"),
        "{text}"
    );

    // --check: fresh, then stale after an edit.
    let check = Options {
        check: true,
        ..opts.clone()
    };
    let report = run_with_webhooks(&[], &[], webhooks, &[], &check).unwrap();
    assert!(!report.is_stale());
    std::fs::write(&manifest, text.replace("Fail", "Ignore")).unwrap();
    let report = run_with_webhooks(&[], &[], webhooks, &[], &check).unwrap();
    assert!(report.is_stale());
    std::fs::write(&manifest, &text).unwrap();

    // --webhook-out moves it; the old file, unchanged and in the ledger, is removed.
    let moved = Options {
        webhook_out_dir: Some(dir.path().join("hooks")),
        ..opts.clone()
    };
    let hook2 = webhook_entry("m.example.com", true);
    let hooks2 = [&hook2];
    run_with_webhooks(&[], &[], Webhooks::new(&hooks2, &[]), &[], &moved).unwrap();
    assert!(!manifest.exists());
    let text = std::fs::read_to_string(dir.path().join("hooks/manifests.yaml")).unwrap();
    assert!(
        text.contains("name: mutating-webhook-configuration"),
        "{text}"
    );

    // Two configuration names of one kind: an error naming both places.
    let other = webhook_configuration(
        false,
        Some("other"),
        Source::__new("src/other.rs", 9, 1, "op", "_"),
    );
    let two = [&named, &other];
    let err = run_with_webhooks(&[], &[], Webhooks::new(&hooks, &two), &[], &opts).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("src/lib.rs:2") && text.contains("src/other.rs:9"),
        "{text}"
    );
}

#[test]
fn lints_are_reported_and_deny_warnings_fails_before_writing() {
    let root = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(root.path(), "codegen");
    // `*` on jobs: wildcard-verbs and workload-write; the second attribute is redundant.
    generator.rbac = vec![entry(&["batch"], &["*"], 1), entry(&["batch"], &["get"], 2)];
    let report = generator.run();
    let fired: Vec<(u32, &str)> = report
        .lints
        .iter()
        .map(|w| (w.source.line, w.lint.name()))
        .collect();
    assert_eq!(
        fired,
        [
            (1, "wildcard-verbs"),
            (1, "workload-write"),
            (2, "redundant")
        ]
    );
    // Without --deny-warnings the files are written anyway.
    assert!(root.path().join("out/role.yaml").is_file());

    let fresh = tempfile::tempdir().unwrap();
    let mut denied = Gen::new(fresh.path(), "codegen");
    denied.rbac = generator.rbac.clone();
    denied.opts.deny_warnings = true;
    let Err(Error::DeniedWarnings(warnings)) = denied.try_run(false) else {
        panic!("--deny-warnings must fail");
    };
    let denied_lints: Vec<(u32, &str)> = warnings
        .iter()
        .map(|d| match d {
            Denied::Lint(w) => (w.source.line, w.lint.name()),
            other => panic!("only lints are denied here: {other}"),
        })
        .collect();
    assert_eq!(denied_lints, fired);
    assert!(
        warnings[0]
            .to_string()
            .starts_with("warning[wildcard-verbs]: src/lib.rs:1:1 (reconcile): ")
    );
    assert!(
        warnings[2]
            .to_string()
            .contains("already granted by the attribute at src/lib.rs:1:1 on the same item")
    );
    // Nothing written: no role, no CRD, no ledger.
    assert!(!fresh.path().join("out").exists() && !fresh.path().join("crds").exists());

    // Each accepted with a reason: the run passes.
    let mut accepted = denied;
    let allow = |lint: &'static str, reason: &'static str| Allow {
        lint: lint.into(),
        reason: reason.into(),
    };
    accepted.rbac[0].marker.allow = vec![
        allow("wildcard-verbs", "the Job controller's own verbs"),
        allow("workload-write", "runs the backups"),
    ];
    accepted.rbac[1].marker.allow = vec![allow("redundant", "documents the reader")];
    let report = accepted.try_run(false).unwrap();
    assert!(report.lints.is_empty());
    assert!(fresh.path().join("out/role.yaml").is_file());
}
