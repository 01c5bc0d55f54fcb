//! Where files go: every destination checked before anything is written.

use super::*;

#[test]
fn crd_out_at_a_file_fails_before_the_role_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    let file = tmp.path().join("not-a-dir");
    std::fs::write(&file, "").unwrap();
    generator.opts.crd_out_dir = Some(file.clone());
    let problems = outputs_error(&generator);
    assert_eq!(
        problems,
        [OutputProblem::NotADirectory {
            dir: file.clone(),
            what: "the CRD apples.fruit.example.com, the CRD bananas.fruit.example.com".into(),
            blocker: file.clone(),
            option: "--crd-out",
        }]
    );
    let err = Error::Outputs(problems).to_string();
    assert!(
        err.starts_with("1 problem(s) with where the files go (nothing was written):"),
        "{err}"
    );
    assert!(!generator.opts.out_dir.exists());
    // --check validates too.
    assert!(matches!(
        generator.try_run(true).unwrap_err(),
        Error::Outputs(_)
    ));
}

#[test]
fn out_under_a_file_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    let file = tmp.path().join("file");
    std::fs::write(&file, "").unwrap();
    generator.opts.out_dir = file.join("deeper");
    let problems = outputs_error(&generator);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].to_string(),
        format!(
            "cannot write the RBAC manifest to {} (--out): {} is a file, not a directory",
            file.join("deeper").display(),
            file.display()
        )
    );
    assert!(!generator.crd_dir().exists());
}

#[test]
fn two_outputs_on_one_path_and_directories_in_the_way_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    // The role file named like a CRD, in the same directory (spelled differently).
    generator.opts.crd_out_dir = Some(tmp.path().join("out/./"));
    generator.opts.file_name = APPLES.into();
    let problems = outputs_error(&generator);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .to_string()
            .starts_with("the RBAC manifest and the CRD apples.fruit.example.com would both be at"),
        "{}",
        problems[0]
    );

    // A directory where the role file goes; the header file as an output.
    let mut generator = Gen::new(tmp.path(), "ops2");
    generator.opts.out_dir = tmp.path().join("out2");
    std::fs::create_dir_all(tmp.path().join("out2/role.yaml")).unwrap();
    let header = generator.crd_dir().join(BANANAS);
    std::fs::create_dir_all(generator.crd_dir()).unwrap();
    std::fs::write(&header, "# header\n").unwrap();
    generator.opts.header_file = Some(header.clone());
    let problems = outputs_error(&generator);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems.contains(&OutputProblem::IsADirectory {
        output: tmp.path().join("out2/role.yaml"),
        what: "the RBAC manifest".into(),
    }));
    assert!(problems.contains(&OutputProblem::SamePath {
        path: header.clone(),
        first: "the --header-file".into(),
        second: "the CRD bananas.fruit.example.com".into(),
    }));
    assert_eq!(std::fs::read_to_string(&header).unwrap(), "# header\n");
}

#[test]
fn a_failed_staging_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let first = tmp.path().join("new/dirs/a.yaml");
    {
        let mut staging = Staging::default();
        staging.stage(&first, "a\n").unwrap();
        assert_eq!(names_in(&tmp.path().join("new/dirs")).len(), 1);
        let err = staging
            .stage(&blocker.join("b.yaml"), "b\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!("cannot create directory {}", blocker.display())
        );
    }
    // The temporary file and the directories made for it are gone.
    assert_eq!(names_in(tmp.path()), ["file"]);
}
