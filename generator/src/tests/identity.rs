//! The generator's identity in its ledgers: its package (as `link!` records it), told from
//! another workspace's package of the same name by the package directory each ledger names,
//! and the ledgers of earlier versions (no package line, or the binary's name) still its own.

use super::*;
use crate::Invocation;

/// A generator of package `package` (binary `bin`) built from `<root>/<dir>`, a package
/// directory with a `Cargo.toml`.
fn built_from(root: &Path, dir: &str, package: &str, bin: &str) -> Gen {
    let package_dir = root.join(dir);
    std::fs::create_dir_all(&package_dir).unwrap();
    std::fs::write(
        package_dir.join("Cargo.toml"),
        format!("[package]\nname = \"{package}\"\n"),
    )
    .unwrap();
    let mut generator = Gen::new(root, package);
    generator.opts.invocation = Invocation {
        package: Some(package.into()),
        bin: bin.into(),
        package_dir: Some(package_dir),
    };
    generator
}

const PACKAGE_LINE: &str = "# The generator's package, from this directory: ";

fn package_line(ledger: &Path) -> Option<String> {
    std::fs::read_to_string(ledger)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(PACKAGE_LINE).map(str::to_string))
}

#[test]
fn the_ledger_names_the_package_directory_from_where_it_stands() {
    let tmp = tempfile::tempdir().unwrap();
    let generator = built_from(tmp.path(), "a/codegen", "codegen", "codegen");
    generator.run();
    assert_eq!(
        package_line(&generator.ledger(&generator.opts.out_dir)).as_deref(),
        Some("../a/codegen")
    );
    assert_eq!(
        package_line(&generator.ledger(&generator.crd_dir())).as_deref(),
        Some("../a/codegen")
    );
    assert!(!generator.check().is_stale());
    // Renamed binary, same package: the same ledgers, recognised, nothing rewritten.
    let mut renamed = built_from(tmp.path(), "a/codegen", "codegen", "gen");
    renamed.crds = vec![apple()];
    let report = renamed.run();
    assert_eq!(
        status_of(&report, &renamed.crd_dir().join(BANANAS)),
        Some(&FileStatus::Removed(Orphan::Output))
    );
    assert_eq!(
        names_in(&renamed.crd_dir()),
        [".kube-markers-codegen.sha256", APPLES]
    );
}

#[test]
fn another_workspaces_generator_of_the_same_name_is_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    let ours = built_from(tmp.path(), "a/codegen", "codegen", "codegen");
    ours.run();
    let before = names_in(&ours.crd_dir());
    // Workspace b's `codegen`, which generates less, into a's directories.
    let mut theirs = built_from(tmp.path(), "b/codegen", "codegen", "codegen");
    theirs.crds = vec![apple()];
    theirs.rbac = vec![entry(&["batch"], &["list"], 1)];
    let problems = outputs_error(&theirs);
    let crd_ledger = ours.ledger(&ours.crd_dir());
    assert!(
        problems.iter().any(|p| matches!(p,
            OutputProblem::AnotherGeneratorsLedger { ledger, generator, theirs: named, ours: built, .. }
                if *ledger == crd_ledger
                    && generator == "codegen"
                    && *named == tmp.path().join("a/codegen")
                    && *built == tmp.path().join("b/codegen"))),
        "{problems:?}"
    );
    let text = Error::Outputs(problems).to_string();
    assert!(
        text.contains(&format!(
            "{} is the ledger of generator `codegen` of the package at {} (its ledger says so), \
             not of this generator `codegen`, built from {}",
            crd_ledger.display(),
            tmp.path().join("a/codegen").display(),
            tmp.path().join("b/codegen").display()
        )),
        "{text}"
    );
    // Nothing removed, nothing rewritten; `--check` refuses the same way.
    assert_eq!(names_in(&ours.crd_dir()), before);
    assert!(matches!(theirs.try_run(true), Err(Error::Outputs(_))));
    assert!(!ours.check().is_stale());
}

#[test]
fn a_ledger_whose_package_directory_is_gone_is_adopted() {
    // A copy of the tree elsewhere, or a package moved within its workspace.
    let tmp = tempfile::tempdir().unwrap();
    let old = built_from(tmp.path(), "old/codegen", "codegen", "codegen");
    old.run();
    std::fs::remove_dir_all(tmp.path().join("old")).unwrap();
    let mut moved = built_from(tmp.path(), "tools/codegen", "codegen", "codegen");
    moved.crds = vec![apple()];
    assert!(moved.check().is_stale());
    let report = moved.run();
    assert_eq!(
        status_of(&report, &moved.crd_dir().join(BANANAS)),
        Some(&FileStatus::Removed(Orphan::Output))
    );
    assert_eq!(
        package_line(&moved.ledger(&moved.crd_dir())).as_deref(),
        Some("../tools/codegen")
    );
}

#[test]
fn a_ledger_of_an_earlier_version_is_its_names_and_gains_the_package_line() {
    let tmp = tempfile::tempdir().unwrap();
    // As an earlier version wrote it: no package line.
    let earlier = Gen::new(tmp.path(), "codegen");
    earlier.run();
    let crd_ledger = earlier.ledger(&earlier.crd_dir());
    assert_eq!(package_line(&crd_ledger), None);
    let mut now = built_from(tmp.path(), "codegen", "codegen", "codegen");
    now.crds = vec![apple()];
    let report = now.run();
    assert_eq!(
        status_of(&report, &now.crd_dir().join(BANANAS)),
        Some(&FileStatus::Removed(Orphan::Output))
    );
    assert_eq!(package_line(&crd_ledger).as_deref(), Some("../codegen"));
}

#[test]
fn a_ledger_named_after_the_binary_by_an_earlier_version_is_adopted_and_renamed() {
    let tmp = tempfile::tempdir().unwrap();
    // Package `xtask`, binary `gen`: earlier versions named its ledgers `gen`.
    let earlier = Gen::new(tmp.path(), "gen");
    earlier.run();
    let crd_dir = earlier.crd_dir();
    assert_eq!(
        names_in(&crd_dir),
        [".kube-markers-gen.sha256", APPLES, BANANAS]
    );
    let mut now = built_from(tmp.path(), "xtask", "xtask", "gen");
    now.crds = vec![apple()];
    let check = now.check();
    assert!(check.is_stale());
    assert_eq!(
        status_of(&check, &crd_dir.join(".kube-markers-gen.sha256")),
        Some(&FileStatus::Orphaned(Orphan::RenamedLedger))
    );
    let report = now.run();
    assert_eq!(
        status_of(&report, &crd_dir.join(".kube-markers-gen.sha256")),
        Some(&FileStatus::Removed(Orphan::RenamedLedger))
    );
    // Its files are its own: the one it no longer generates removed, the rest listed anew.
    assert_eq!(names_in(&crd_dir), [".kube-markers-xtask.sha256", APPLES]);
    assert_eq!(
        names_in(&now.opts.out_dir),
        [".kube-markers-xtask.sha256", "role.yaml"]
    );
    assert!(!now.check().is_stale());
}

#[test]
fn a_ledger_of_the_binarys_name_that_names_a_package_is_another_generators() {
    let tmp = tempfile::tempdir().unwrap();
    // A generator whose package is `gen` writes its ledgers, package line included.
    let gen_package = built_from(tmp.path(), "gen", "gen", "gen");
    gen_package.run();
    // `xtask`'s binary `gen` does not take them for its own earlier ledgers.
    let xtask = built_from(tmp.path(), "xtask", "xtask", "gen");
    let problems = outputs_error(&xtask);
    assert!(
        problems.iter().any(|p| matches!(p,
            OutputProblem::WrittenByAnotherGenerator { generator, .. } if generator == "gen")),
        "{problems:?}"
    );
    assert!(
        std::fs::exists(gen_package.ledger(&gen_package.crd_dir())).unwrap(),
        "the other generator's ledger stays"
    );
}
