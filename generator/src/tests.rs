use super::*;
use crate::output::ledger;
use crate::output::write::{Staging, check_file};
use crate::pipeline::read_header;
use crate::testing::{marker, rbac, texts, webhook, webhook_configuration};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_core::model::{Allow, WebhookClient, WebhookMarker};
use kube_markers_registry::Source;
use kube_markers_registry::{CrdEntry, WebhookEntry};
use std::path::Path;
use std::path::PathBuf;

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
fn the_default_generator_name_is_the_binarys() {
    // This test binary is `kube_markers_codegen-<hash>`.
    let name = Options::default().generator_name;
    assert!(name.starts_with("kube_markers_codegen-"), "{name}");
    assert!(ledger::check_generator_name(&name).is_ok());
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

fn entry(groups: &'static [&'static str], verbs: &'static [&'static str], line: u32) -> RbacEntry {
    rbac(
        marker(groups, &["jobs"], verbs),
        Source::__new("src/lib.rs", line, 1, "op", "reconcile"),
    )
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

// ---------------------------------------------------------------------------------------------
// Where files go, and which files the generator may remove.

mod kinds {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "fruit.example.com",
        version = "v1",
        kind = "Apple",
        namespaced
    )]
    pub struct AppleSpec {
        pub size: i32,
    }

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "fruit.example.com",
        version = "v1",
        kind = "Banana",
        namespaced
    )]
    pub struct BananaSpec {
        pub length: i32,
    }

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "veg.example.com", version = "v1", kind = "Carrot", namespaced)]
    pub struct CarrotSpec {
        pub color: String,
    }
}

fn crd_entry(crd: fn() -> CustomResourceDefinition, type_name: &'static str) -> CrdEntry {
    CrdEntry::__new(
        crd,
        false,
        "{}",
        type_name,
        Source::__new("src/kinds.rs", 1, 1, "op::kinds", type_name),
    )
}

fn apple() -> CrdEntry {
    crd_entry(<kinds::Apple as kube::CustomResourceExt>::crd, "Apple")
}
fn banana() -> CrdEntry {
    crd_entry(<kinds::Banana as kube::CustomResourceExt>::crd, "Banana")
}
fn carrot() -> CrdEntry {
    crd_entry(<kinds::Carrot as kube::CustomResourceExt>::crd, "Carrot")
}

const APPLES: &str = "fruit.example.com_apples.yaml";
const BANANAS: &str = "fruit.example.com_bananas.yaml";
const CARROTS: &str = "veg.example.com_carrots.yaml";

/// A generator: its name, its entries and its options over one temporary tree.
struct Gen {
    rbac: Vec<RbacEntry>,
    crds: Vec<CrdEntry>,
    opts: Options,
}

impl Gen {
    fn new(root: &Path, name: &str) -> Gen {
        Gen {
            rbac: vec![entry(&["batch"], &["get"], 1)],
            crds: vec![apple(), banana()],
            opts: Options {
                no_scan: true,
                out_dir: root.join("out"),
                crd_out_dir: Some(root.join("crds")),
                generator_name: name.into(),
                ..Options::default()
            },
        }
    }

    fn try_run(&self, check: bool) -> Result<Report, Error> {
        let rbac: Vec<&RbacEntry> = self.rbac.iter().collect();
        let crds: Vec<&CrdEntry> = self.crds.iter().collect();
        let opts = Options {
            check,
            ..self.opts.clone()
        };
        run_with(&rbac, &crds, &[], &opts)
    }

    fn run(&self) -> Report {
        self.try_run(false).unwrap()
    }

    fn check(&self) -> Report {
        self.try_run(true).unwrap()
    }

    fn crd_dir(&self) -> PathBuf {
        self.opts.crd_dir()
    }

    fn ledger(&self, dir: &Path) -> PathBuf {
        dir.join(format!(".kube-markers-{}.sha256", self.opts.generator_name))
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn status_of<'a>(report: &'a Report, path: &Path) -> Option<&'a FileStatus> {
    report
        .files
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, status)| status)
}

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

// ---------------------------------------------------------------------------------------------
// Every destination is validated before anything is written.

fn outputs_error(generator: &Gen) -> Vec<OutputProblem> {
    match generator.try_run(false).unwrap_err() {
        Error::Outputs(problems) => problems,
        other => panic!("expected output problems, got {other}"),
    }
}

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

/// A webhook entry as `#[webhook]` on `const _` registers it.
fn webhook_entry(name: &'static str, mutating: bool) -> WebhookEntry {
    let marker = WebhookMarker {
        name: name.into(),
        mutating,
        failure_policy: "Fail".into(),
        side_effects: Some("None".into()),
        groups: texts(&[""]),
        resources: texts(&["pods"]),
        verbs: texts(&["CREATE"]),
        versions: texts(&["v1"]),
        client: WebhookClient::Service {
            name: None,
            namespace: None,
            port: None,
            path: "/hook".into(),
        },
        admission_review_versions: texts(&["v1"]),
        ..WebhookMarker::default()
    };
    webhook(marker, Source::__new("src/lib.rs", 1, 1, "op", "_"))
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
            .contains("already granted by the attribute at src/lib.rs:1:1")
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
