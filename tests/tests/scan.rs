//! The workspace scan and its cross-check with the registry, on the fixture workspace in
//! `fixtures/scan-ws`: `linked-op` is linked into this test binary, every other member shows
//! one way an attribute can fail to reach a generator.

use kube_markers::codegen::{self, Error, Options, Workspace, cross_check};
use kube_markers::registry::{RbacEntry, rbac_entries};
use std::path::{Path, PathBuf};

// Link the fixture crate, as a generator's `link!` would.
kube_markers::link!(linked_op);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scan-ws")
}

fn workspace() -> Workspace {
    Workspace::discover(Some(&fixture().join("Cargo.toml"))).expect("cargo metadata on the fixture")
}

fn linked_entries() -> Vec<&'static RbacEntry> {
    rbac_entries()
        .into_iter()
        .filter(|e| e.source.crate_name() == "linked_op")
        .collect()
}

/// `file:line` of each finding's subject, relative to the fixture root, for compact asserts.
fn located(messages: &[String]) -> Vec<String> {
    let mut v: Vec<String> = messages
        .iter()
        .map(|m| m.split(": ").next().unwrap_or(m).to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn metadata_selects_members_that_use_kube_markers() {
    let ws = workspace();
    let names: Vec<&str> = ws.packages.iter().map(|p| p.name.as_str()).collect();
    // `optout-op` set `[package.metadata.kube-markers] scan = false`.
    assert_eq!(names, ["bin-op", "linked-op", "renamed-op", "unlinked-op"]);
    let bin = &ws.packages[0];
    assert_eq!(bin.targets.len(), 1);
    assert_eq!(bin.targets[0].0, "bin:bin-op");
}

#[test]
fn scan_follows_the_module_tree_and_records_cfgs() {
    let report = workspace().scan();
    let root = fixture();
    let found: Vec<(String, usize, Vec<String>)> = report
        .attrs
        .iter()
        .map(|a| {
            let rel = a.file.strip_prefix(&root).unwrap().display().to_string();
            (rel, a.lines.0, a.cfgs.clone())
        })
        .collect();
    let none = Vec::<String>::new;
    let expected = vec![
        ("bin-op/src/main.rs".to_string(), 4, none()),
        ("linked-op/src/elsewhere/renamed.rs".to_string(), 1, none()),
        ("linked-op/src/inline/deeper.rs".to_string(), 1, none()),
        ("linked-op/src/lib.rs".to_string(), 9, none()),
        ("linked-op/src/lib.rs".to_string(), 15, none()),
        (
            "linked-op/src/lib.rs".to_string(),
            22,
            vec!["cfg(feature = \"extra\")".to_string()],
        ),
        (
            "linked-op/src/lib.rs".to_string(),
            25,
            vec!["cfg(feature = \"extra\")".to_string()],
        ),
        ("linked-op/src/lib.rs".to_string(), 32, none()),
        (
            "linked-op/src/lib.rs".to_string(),
            40,
            vec!["cfg(test)".to_string()],
        ),
        ("linked-op/src/nested/child.rs".to_string(), 1, none()),
        ("linked-op/src/nested.rs".to_string(), 6, none()),
        ("linked-op/src/nested.rs".to_string(), 12, none()),
        ("unlinked-op/src/lib.rs".to_string(), 4, none()),
    ];
    assert_eq!(found, expected);
    // Arguments are parsed with the macro's own parser.
    let deeper = report
        .attrs
        .iter()
        .find(|a| a.file.ends_with("deeper.rs"))
        .unwrap();
    let marker = deeper.marker.as_ref().unwrap();
    assert_eq!(marker.resources, ["pods/eviction"]);
    // The renamed import is the only scan error; nothing is left unscanned.
    assert_eq!(report.errors.len(), 1, "{:#?}", report.errors);
    assert!(
        report.errors[0].contains("renamed-op/src/lib.rs:2"),
        "{}",
        report.errors[0]
    );
    assert!(
        report.errors[0].contains("imported as `authz`"),
        "{}",
        report.errors[0]
    );
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
}

#[test]
fn registry_matches_the_linked_crate_exactly() {
    let mut ws = workspace();
    ws.packages.retain(|p| p.name == "linked-op");
    let entries = linked_entries();
    assert_eq!(entries.len(), 8, "{entries:#?}");
    let findings = cross_check(&entries, &[], &ws.scan(), &["linked_op"], &ws.root);
    assert!(findings.errors.is_empty(), "{:#?}", findings.errors);
    // Attributes behind inactive cfgs are reported as warnings, naming the cfg.
    assert_eq!(
        located(&findings.warnings),
        [
            "linked-op/src/lib.rs:22",
            "linked-op/src/lib.rs:25",
            "linked-op/src/lib.rs:40"
        ]
    );
    assert!(findings.warnings.iter().any(|w| w.contains("`cfg(test)`")));
}

#[test]
fn an_unlinked_crate_a_binary_and_a_renamed_import_are_errors() {
    let ws = workspace();
    let findings = cross_check(&linked_entries(), &[], &ws.scan(), &["linked_op"], &ws.root);
    assert_eq!(findings.errors.len(), 3, "{:#?}", findings.errors);
    let unlinked = findings
        .errors
        .iter()
        .find(|e| e.starts_with("unlinked-op/src/lib.rs:4"))
        .unwrap();
    assert!(unlinked.contains("crate `unlinked_op`"), "{unlinked}");
    assert!(
        unlinked.contains("add it to `kube_markers::link!(...)`"),
        "{unlinked}"
    );
    let bin = findings
        .errors
        .iter()
        .find(|e| e.starts_with("bin-op/src/main.rs:4"))
        .unwrap();
    assert!(bin.contains("binary target `bin-op`"), "{bin}");
    assert!(
        findings
            .errors
            .iter()
            .any(|e| e.contains("imported as `authz`"))
    );
}

#[test]
fn the_generator_refuses_to_write_when_an_attribute_would_be_lost() {
    let out = tempfile::tempdir().unwrap();
    let mut opts = Options::default();
    opts.manifest_path = Some(fixture().join("Cargo.toml"));
    opts.out_dir = out.path().to_path_buf();
    let err = codegen::run_with(&linked_entries(), &[], &["linked_op"], &opts).unwrap_err();
    let Error::CrossCheck(errors) = &err else {
        panic!("expected a cross-check error, got {err}")
    };
    assert_eq!(errors.len(), 3);
    assert!(
        err.to_string().contains("unlinked-op/src/lib.rs:4"),
        "{err}"
    );
    // Nothing was written.
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn an_entry_that_disagrees_with_its_source_is_an_error() {
    let mut ws = workspace();
    ws.packages.retain(|p| p.name == "linked-op");
    let mut entries = linked_entries();
    let tampered: &'static RbacEntry = Box::leak(Box::new(RbacEntry {
        verbs: &["*"],
        ..*entries[0]
    }));
    entries[0] = tampered;
    let findings = cross_check(&entries, &[], &ws.scan(), &["linked_op"], &ws.root);
    assert_eq!(findings.errors.len(), 1, "{:#?}", findings.errors);
    assert!(findings.errors[0].contains("differs from the #[rbac] in the source"));
}

#[test]
fn an_empty_registry_is_an_error_even_when_the_sources_are_empty() {
    let mut opts = Options::default();
    opts.no_scan = true;
    assert!(matches!(
        codegen::run_with(&[], &[], &[], &opts).unwrap_err(),
        Error::EmptyRegistry
    ));
}

#[test]
fn a_bad_manifest_path_is_named() {
    let err = Workspace::discover(Some(Path::new("/nonexistent/Cargo.toml"))).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/Cargo.toml"), "{err}");
}

#[test]
fn workspace_metadata_can_exclude_members_and_typos_are_caught() {
    let member = |name: &str| {
        serde_json::json!({
            "name": name,
            "dependencies": [{ "name": "kube-markers", "kind": null }],
            "targets": [{ "kind": ["lib"], "name": name, "src_path": format!("/ws/{name}/src/lib.rs") }],
            "metadata": null,
        })
    };
    let metadata = |exclude: &[&str]| {
        serde_json::json!({
            "workspace_root": "/ws",
            "packages": [member("a"), member("b")],
            "metadata": { "kube-markers": { "scan-exclude": exclude } },
        })
    };
    let ws = Workspace::from_metadata(&metadata(&["a"])).unwrap();
    let names: Vec<&str> = ws.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["b"]);
    let err = Workspace::from_metadata(&metadata(&["c"]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("scan-exclude names `c`") && err.contains("members: a, b"),
        "{err}"
    );
}

#[cfg_attr(
    all(),
    kube_markers::rbac(groups = "", resources = "limitranges", verbs = "get")
)]
const _: () = ();

/// A `cfg_attr` spread over several lines: the registry's line must be one the scan reports.
#[test]
fn multi_line_cfg_attr_entries_match_the_scan() {
    let entry = rbac_entries()
        .into_iter()
        .find(|e| e.resources == ["limitranges"])
        .expect("the cfg_attr above is active");
    let this_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scan.rs");
    let ws = Workspace {
        root: Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf(),
        packages: vec![codegen::Package {
            name: "kube-markers-tests".into(),
            targets: vec![("lib".into(), this_file.clone())],
        }],
    };
    let report = ws.scan();
    let found = report
        .attrs
        .iter()
        .find(|a| {
            a.marker
                .as_ref()
                .is_some_and(|m| m.resources == ["limitranges"])
        })
        .unwrap();
    assert_eq!(found.cfgs, ["cfg(all())"]);
    assert!(
        [found.lines.0, found.lines.1].contains(&(entry.source.line as usize)),
        "registry line {} vs scan lines {:?}",
        entry.source.line,
        found.lines
    );
    let findings = cross_check(&[entry], &[], &report, &[], &ws.root);
    assert!(findings.errors.is_empty(), "{:#?}", findings.errors);
}
