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
    assert_eq!(Command::parse(["--help"]).unwrap(), Command::Help);
    assert_eq!(Command::parse(["--check", "-h"]).unwrap(), Command::Help);
}

#[test]
fn bad_flags_are_named() {
    let err = |args: &[&str]| {
        Command::parse(args.iter().copied())
            .unwrap_err()
            .to_string()
    };
    assert!(err(&["--chek"]).contains("did you mean `--check`?"));
    assert!(err(&["--out"]).contains("`--out` needs a value"));
    assert!(err(&["--out", "--check"]).contains("`--out` needs a value"));
    assert!(err(&["--check", "--check"]).contains("more than once"));
    assert!(err(&["--check=yes"]).contains("takes no value"));
    assert!(err(&["--role-name", "Bad_Name"]).contains("not a valid role name"));
    assert!(err(&["--file-name", "a/b.yaml"]).contains("plain file name"));
    assert!(err(&["--no-scan", "--manifest-path", "x"]).contains("conflict"));
    assert!(err(&["stray"]).contains("unexpected argument `stray`"));
}

#[test]
fn writes_atomically_and_leaves_unchanged_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/role.yaml");
    assert_eq!(write_file(&path, "a\n").unwrap(), FileStatus::Written);
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    assert_eq!(write_file(&path, "a\n").unwrap(), FileStatus::Unchanged);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified
    );
    assert_eq!(check_file(&path, "a\n").unwrap(), FileStatus::Unchanged);
    let FileStatus::Stale(diff) = check_file(&path, "b\n").unwrap() else {
        panic!()
    };
    assert!(diff.contains("-a\n+b\n"), "{diff}");
    assert_eq!(
        check_file(&dir.path().join("nope.yaml"), "a").unwrap(),
        FileStatus::Missing
    );
    // No temporary files are left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["role.yaml"]);
}

#[test]
fn unwritable_output_is_an_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let err = write_file(&blocker.join("role.yaml"), "x")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cannot create directory") && err.contains("file"),
        "{err}"
    );
}

#[test]
fn empty_registry_is_an_error() {
    let opts = Options {
        no_scan: true,
        ..Options::default()
    };
    assert_eq!(
        run_with(&[], &[], &[], &opts).unwrap_err(),
        Error::EmptyRegistry
    );
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
    let opts = Options {
        header_file: Some(dir.path().join("nope")),
        ..Options::default()
    };
    assert!(
        read_header(&opts)
            .unwrap_err()
            .to_string()
            .contains("--header-file")
    );
}

fn entry(groups: &'static [&'static str], verbs: &'static [&'static str], line: u32) -> RbacEntry {
    RbacEntry {
        groups,
        resources: &["jobs"],
        resource_names: &[],
        verbs,
        urls: &[],
        namespace: None,
        role_name: None,
        source: crate::registry::Source {
            file: "src/lib.rs",
            line,
            column: 1,
            module_path: "op",
            item: "reconcile",
        },
    }
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
        ..Options::default()
    };
    let report = run_with(&refs, &[], &[], &opts).unwrap();
    assert_eq!(
        report.files,
        [(dir.path().join("role.yaml"), FileStatus::Written)]
    );
    assert_eq!(report.warnings.len(), 1);
    assert!(
        report.warnings[0].contains("1 rule merge(s) collided"),
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
