//! The ledger: what the generator may remove, and what it never touches.

use super::*;

#[test]
fn the_ledger_lists_every_written_file_with_its_sha256() {
    assert_eq!(
        ledger::sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    let tmp = tempfile::tempdir().unwrap();
    let generator = Gen::new(tmp.path(), "ops");
    generator.run();
    let crd_dir = generator.crd_dir();
    let text = std::fs::read_to_string(generator.ledger(&crd_dir)).unwrap();
    let hash = |name: &str| ledger::sha256_hex(&std::fs::read(crd_dir.join(name)).unwrap());
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        body,
        [
            format!("{}  {APPLES}", hash(APPLES)),
            format!("{}  {BANANAS}", hash(BANANAS))
        ]
    );
    assert!(text.starts_with("# Files the kube-markers generator `ops` wrote"));
    let out = &generator.opts.out_dir;
    assert_eq!(names_in(out), [".kube-markers-ops.sha256", "role.yaml"]);
    // A second run touches nothing and leaves no temporary file behind.
    let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let before = modified(&out.join("role.yaml"));
    let report = generator.run();
    assert!(
        report
            .files
            .iter()
            .all(|(_, s)| *s == FileStatus::Unchanged),
        "{report:?}"
    );
    assert_eq!(modified(&out.join("role.yaml")), before);
    assert_eq!(
        names_in(&crd_dir),
        [".kube-markers-ops.sha256", APPLES, BANANAS]
    );
    assert!(!generator.check().is_stale());
}

#[test]
fn a_hand_written_file_with_the_annotation_survives_and_check_ignores_it() {
    let tmp = tempfile::tempdir().unwrap();
    let generator = Gen::new(tmp.path(), "ops");
    let crd_dir = generator.crd_dir();
    std::fs::create_dir_all(&crd_dir).unwrap();
    let theirs = crd_dir.join("hand.example.com_things.yaml");
    let text = "---\nmetadata:\n  annotations:\n    kube-markers/version: v0.0.1\n";
    std::fs::write(&theirs, text).unwrap();

    let first = generator.run();
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), text);
    // The first run with a ledger says why it leaves such a file alone.
    assert!(
        first.warnings.iter().any(|w| matches!(w,
            Warning::Files(FileWarning::Unledgered { path, generator }) if *path == theirs && generator == "ops")
            && w.to_string().starts_with(&format!(
            "left {} alone: it carries the kube-markers/version annotation but is in no \
             generator's ledger",
            theirs.display()
        ))),
        "{:?}",
        first.warnings
    );
    assert_eq!(status_of(&first, &theirs), None);
    let second = generator.run();
    assert!(second.warnings.is_empty(), "{:?}", second.warnings);
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), text);
    let check = generator.check();
    assert!(!check.is_stale(), "{check:?}");
    assert_eq!(status_of(&check, &theirs), None);
}

#[test]
fn a_file_the_ledger_does_not_list_is_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    generator.opts.file_name = "first.yaml".into();
    generator.run();
    // A hand-written file where a later output goes, in a directory whose ledger does not
    // list it.
    let out = generator.opts.out_dir.clone();
    let theirs = out.join("role.yaml");
    let text = "# hand-written\nkind: Role\n";
    std::fs::write(&theirs, text).unwrap();
    generator.opts.file_name = "role.yaml".into();
    for check in [false, true] {
        let err = generator.try_run(check).unwrap_err();
        let Error::Outputs(problems) = &err else {
            panic!("expected an output problem, got {err}")
        };
        assert!(
            matches!(&problems[..], [OutputProblem::NotWrittenByThisGenerator { output, .. }] if *output == theirs),
            "{problems:?}"
        );
        assert!(
            err.to_string().contains(&format!(
                "the RBAC manifest would overwrite {}, which this generator did not write (its \
                 ledger {} does not list it)",
                theirs.display(),
                generator.ledger(&out).display()
            )),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), text);
    // The same content as the output is adopted.
    std::fs::remove_file(&theirs).unwrap();
    generator.opts.file_name = "first.yaml".into();
    let first = std::fs::read_to_string(out.join("first.yaml")).unwrap();
    std::fs::write(&theirs, &first).unwrap();
    generator.opts.file_name = "role.yaml".into();
    generator.run();
    assert_eq!(names_in(&out), [".kube-markers-ops.sha256", "role.yaml"]);
}

#[test]
fn two_generators_sharing_directories_keep_each_others_files() {
    let tmp = tempfile::tempdir().unwrap();
    let mut one = Gen::new(tmp.path(), "one");
    one.opts.file_name = "one.yaml".into();
    let mut two = Gen::new(tmp.path(), "two");
    two.opts.file_name = "two.yaml".into();
    two.crds = vec![carrot()];
    for _ in 0..2 {
        for generator in [&one, &two] {
            let report = generator.run();
            assert!(
                !report
                    .files
                    .iter()
                    .any(|(_, s)| matches!(s, FileStatus::Removed(_))),
                "{report:?}"
            );
        }
    }
    assert_eq!(
        names_in(&one.crd_dir()),
        [
            ".kube-markers-one.sha256",
            ".kube-markers-two.sha256",
            APPLES,
            BANANAS,
            CARROTS
        ]
    );
    assert_eq!(
        names_in(&one.opts.out_dir),
        [
            ".kube-markers-one.sha256",
            ".kube-markers-two.sha256",
            "one.yaml",
            "two.yaml"
        ]
    );
    assert!(!one.check().is_stale());
    assert!(!two.check().is_stale());

    // One of them stops generating a CRD: only its own file goes.
    one.crds = vec![apple()];
    one.run();
    assert_eq!(
        names_in(&one.crd_dir()),
        [
            ".kube-markers-one.sha256",
            ".kube-markers-two.sha256",
            APPLES,
            CARROTS
        ]
    );
    assert!(!two.check().is_stale());
}

#[test]
fn a_file_another_generator_wrote_is_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let one = Gen::new(tmp.path(), "one");
    one.run();
    let mut two = Gen::new(tmp.path(), "two");
    two.opts.file_name = "two.yaml".into();
    two.crds = vec![apple(), carrot()];
    let before = std::fs::read_dir(tmp.path().join("out")).unwrap().count();
    let err = two.try_run(false).unwrap_err();
    let Error::Outputs(problems) = &err else {
        panic!("{err}")
    };
    assert_eq!(problems.len(), 1, "{err}");
    let apples = one.crd_dir().join(APPLES);
    assert_eq!(
        problems[0].to_string(),
        format!(
            "the CRD apples.fruit.example.com would overwrite {}, which generator `one` wrote \
             (its ledger {} lists it); give one of the two generators another directory, or \
             delete that ledger if generator `one` is gone",
            apples.display(),
            one.ledger(&one.crd_dir()).display()
        )
    );
    // Nothing of `two` was written, not even its role file.
    assert_eq!(
        std::fs::read_dir(tmp.path().join("out")).unwrap().count(),
        before
    );
    assert!(!one.crd_dir().join(CARROTS).exists());
}

#[test]
fn our_orphan_is_reported_by_check_and_removed_by_a_run() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    generator.run();
    let bananas = generator.crd_dir().join(BANANAS);
    generator.crds = vec![apple()];

    let check = generator.check();
    assert!(check.is_stale());
    assert_eq!(
        status_of(&check, &bananas),
        Some(&FileStatus::Orphaned(Orphan::Output))
    );
    assert!(bananas.exists());

    let run = generator.run();
    assert_eq!(
        status_of(&run, &bananas),
        Some(&FileStatus::Removed(Orphan::Output))
    );
    assert!(!bananas.exists());
    let ledger = std::fs::read_to_string(generator.ledger(&generator.crd_dir())).unwrap();
    assert!(!ledger.contains(BANANAS), "{ledger}");
    assert!(!generator.check().is_stale());
}

#[test]
fn our_orphan_edited_by_hand_is_kept_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    generator.run();
    let bananas = generator.crd_dir().join(BANANAS);
    let edited = std::fs::read_to_string(&bananas).unwrap() + "# keep me\n";
    std::fs::write(&bananas, &edited).unwrap();
    generator.crds = vec![apple()];

    let expected = format!(
        "kept {}: generator `ops` wrote it and no longer generates it, but it was changed since \
         (its SHA-256 is not the one in the ledger); it is dropped from the ledger and never \
         touched again (delete it yourself if nothing needs it)",
        bananas.display()
    );
    // --check: not an orphan to remove, but the ledger would change.
    let kept = Warning::Files(FileWarning::KeptChanged {
        path: bananas.clone(),
        generator: "ops".into(),
        not_a_file: false,
    });
    assert_eq!(kept.to_string(), expected);
    let check = generator.check();
    assert_eq!(status_of(&check, &bananas), None);
    assert_eq!(check.warnings, std::slice::from_ref(&kept));
    let ledger = generator.ledger(&generator.crd_dir());
    assert!(matches!(
        status_of(&check, &ledger),
        Some(FileStatus::Stale(_))
    ));

    let run = generator.run();
    assert_eq!(run.warnings, [kept]);
    assert_eq!(status_of(&run, &bananas), None);
    assert_eq!(std::fs::read_to_string(&bananas).unwrap(), edited);
    // From now on the file is not ours: no warning, never removed.
    let again = generator.run();
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert!(bananas.exists());
    assert!(!generator.check().is_stale());
}

#[test]
fn a_role_file_under_an_earlier_file_name_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    generator.run();
    generator.opts.file_name = "rbac.yaml".into();
    let run = generator.run();
    let out = &generator.opts.out_dir;
    assert_eq!(
        status_of(&run, &out.join("role.yaml")),
        Some(&FileStatus::Removed(Orphan::Output))
    );
    assert_eq!(names_in(out), [".kube-markers-ops.sha256", "rbac.yaml"]);
}

#[test]
fn when_no_crd_is_left_the_crd_files_and_their_ledger_go() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    generator.run();
    let crd_dir = generator.crd_dir();
    generator.crds.clear();
    let check = generator.check();
    assert_eq!(
        status_of(&check, &generator.ledger(&crd_dir)),
        Some(&FileStatus::Orphaned(Orphan::Ledger))
    );
    let run = generator.run();
    assert_eq!(
        status_of(&run, &generator.ledger(&crd_dir)),
        Some(&FileStatus::Removed(Orphan::Ledger))
    );
    assert_eq!(names_in(&crd_dir), Vec::<String>::new());
    assert!(!generator.check().is_stale());
}

#[test]
fn the_first_run_adopts_outputs_of_an_earlier_version_and_keeps_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let generator = Gen::new(tmp.path(), "ops");
    generator.run();
    let crd_dir = generator.crd_dir();
    // As an earlier version left the tree: the same outputs, no ledgers, and a CRD of a type
    // that is gone.
    std::fs::remove_file(generator.ledger(&crd_dir)).unwrap();
    std::fs::remove_file(generator.ledger(&generator.opts.out_dir)).unwrap();
    let old = crd_dir.join("fruit.example.com_cherries.yaml");
    std::fs::write(
        &old,
        "metadata:\n  annotations:\n    kube-markers/version: v0.1.0\n",
    )
    .unwrap();

    let check = generator.check();
    assert_eq!(
        status_of(&check, &generator.ledger(&crd_dir)),
        Some(&FileStatus::Missing)
    );
    assert_eq!(
        status_of(&check, &crd_dir.join(APPLES)),
        Some(&FileStatus::Unchanged)
    );
    let run = generator.run();
    assert_eq!(
        status_of(&run, &crd_dir.join(APPLES)),
        Some(&FileStatus::Unchanged)
    );
    assert!(old.exists());
    assert!(run.warnings.iter().any(|w| matches!(w,
        Warning::Files(FileWarning::Unledgered { path, .. }) if *path == old)));
    assert!(!generator.check().is_stale());
}

#[test]
fn a_malformed_ledger_line_is_a_warning_and_its_file_is_not_ours() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    generator.run();
    let crd_dir = generator.crd_dir();
    let ledger = generator.ledger(&crd_dir);
    // A hash cut short (a bad merge, say), and an entry pointing out of the directory.
    let text = std::fs::read_to_string(&ledger).unwrap();
    let hash = ledger::sha256_hex(&std::fs::read(crd_dir.join(BANANAS)).unwrap());
    let text = text.replace(&hash, &hash[..60]) + &format!("{hash}  ../{BANANAS}\n");
    std::fs::write(&ledger, text).unwrap();
    generator.crds = vec![apple()];

    let run = generator.run();
    assert!(crd_dir.join(BANANAS).exists());
    let problems: Vec<(usize, &str)> = run
        .warnings
        .iter()
        .filter_map(|w| match w {
            Warning::Files(FileWarning::BadLedgerLine {
                ledger: at,
                line,
                why,
            }) if *at == ledger => Some((*line, *why)),
            _ => None,
        })
        .collect();
    assert_eq!(
        problems,
        [
            (5, "not a lowercase hex SHA-256"),
            (6, "not a plain file name of this directory")
        ],
        "{:?}",
        run.warnings
    );
    let texts: Vec<String> = run.warnings.iter().map(ToString::to_string).collect();
    assert!(
        texts
            .iter()
            .any(|w| w.starts_with(&ledger.display().to_string())
                && w.contains(": line 5: not a lowercase hex SHA-256; ignored")),
        "{texts:?}"
    );
}

#[test]
fn an_output_edited_by_hand_is_named_and_the_edit_kept_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut generator = Gen::new(tmp.path(), "ops");
    generator.run();
    let role = generator.opts.out_dir.join("role.yaml");
    let generated = std::fs::read_to_string(&role).unwrap();
    let edited = format!("{generated}# a rule added by hand\n");
    std::fs::write(&role, &edited).unwrap();
    let backup = generator.opts.out_dir.join("role.yaml.edited");
    let warning = Warning::Files(FileWarning::HandEdited {
        path: role.clone(),
        backup: backup.clone(),
        generator: "ops".into(),
    });
    assert_eq!(
        warning.to_string(),
        format!(
            "{} was edited by hand since generator `ops` wrote it (its SHA-256 is not the one \
             in the ledger); a run regenerates it and keeps the edited file as {}: make the \
             change in the attributes or the bundle's metadata instead, then delete that copy",
            role.display(),
            backup.display()
        )
    );

    // --check says it is an edit, not just stale, and touches nothing.
    let check = generator.check();
    assert!(check.is_stale());
    assert!(
        matches!(status_of(&check, &role), Some(FileStatus::Edited(diff)) if diff.contains("-# a rule added by hand")),
        "{check:?}"
    );
    assert_eq!(check.warnings, std::slice::from_ref(&warning));
    assert!(!backup.exists());
    // --deny-warnings stops before writing: the edit stays where it is.
    let mut strict = Gen::new(tmp.path(), "ops");
    strict.opts.deny_warnings = true;
    assert!(matches!(
        strict.try_run(false),
        Err(Error::DeniedWarnings(_))
    ));
    assert_eq!(std::fs::read_to_string(&role).unwrap(), edited);
    assert!(!backup.exists());

    // A run regenerates it and keeps the edit.
    let run = generator.run();
    assert_eq!(run.warnings, std::slice::from_ref(&warning));
    assert_eq!(std::fs::read_to_string(&role).unwrap(), generated);
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), edited);
    // The copy is no output of the generator: the next run says nothing and leaves it.
    let again = generator.run();
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert!(!generator.check().is_stale());
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), edited);
    // Another edit does not replace the first one's copy.
    let second = format!("{generated}# another\n");
    std::fs::write(&role, &second).unwrap();
    let run = generator.run();
    let second_backup = generator.opts.out_dir.join("role.yaml.edited.2");
    assert_eq!(
        run.warnings,
        [Warning::Files(FileWarning::HandEdited {
            path: role.clone(),
            backup: second_backup.clone(),
            generator: "ops".into(),
        })]
    );
    assert_eq!(std::fs::read_to_string(&second_backup).unwrap(), second);
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), edited);

    // A file an earlier run wrote (its hash is in the ledger) is stale, not edited.
    generator.rbac = vec![entry(&["batch"], &["get", "list"], 1)];
    let check = generator.check();
    assert!(
        matches!(status_of(&check, &role), Some(FileStatus::Stale(_))),
        "{check:?}"
    );
    assert!(check.warnings.is_empty(), "{:?}", check.warnings);
    let run = generator.run();
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}
