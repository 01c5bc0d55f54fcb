//! The workspace scan and its cross-check with the registry, on the fixture workspace in
//! `fixtures/scan-ws`: `linked-op` is linked into this test binary, every other member shows
//! one way an attribute can fail to reach a generator.

use kube_markers::codegen::__internals::{self as scan, Workspace, cross_check};
use kube_markers::codegen::{self, Error, Finding, Options, Problem};
use kube_markers::registry::{RbacEntry, rbac_entries};
use std::path::{Path, PathBuf};

// Link the fixture crate, as a generator's `link!` would.
kube_markers::link!(linked_op);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scan-ws")
}

fn workspace() -> Workspace {
    // Evaluating cfgs resolves the fixture's dependencies (`cargo metadata` with features):
    // seed its lockfile with this workspace's, so that resolves to crates already here.
    let lock = fixture().join("Cargo.lock");
    if !lock.exists() {
        let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
        let _ = std::fs::copy(ours, &lock);
    }
    Workspace::discover(Some(&fixture().join("Cargo.toml"))).expect("cargo metadata on the fixture")
}

fn linked_entries() -> Vec<&'static RbacEntry> {
    rbac_entries()
        .into_iter()
        .filter(|e| e.source.crate_name() == "linked_op")
        .collect()
}

/// `file:line` of each finding's subject, relative to the fixture root, for compact asserts.
/// `file:line` of each finding, sorted.
fn located(findings: &[Finding]) -> Vec<String> {
    let mut v: Vec<String> = findings
        .iter()
        .map(|f| {
            let place = f.place.as_ref().expect("a located finding");
            format!("{}:{}", place.file, place.line)
        })
        .collect();
    v.sort();
    v
}

/// Each finding as the generator prints it.
fn texts(findings: &[Finding]) -> Vec<String> {
    findings.iter().map(Finding::to_string).collect()
}

#[test]
fn metadata_selects_members_that_use_kube_markers() {
    let ws = workspace();
    let names: Vec<&str> = ws.packages.iter().map(|p| p.name.as_str()).collect();
    // `optout-op` set `[package.metadata.kube-markers] scan = false`.
    assert_eq!(names, ["bin-op", "linked-op", "unlinked-op"]);
    let bin = &ws.packages[0];
    assert_eq!(bin.targets.len(), 1);
    assert_eq!(bin.targets[0].kind.to_string(), "bin:bin-op");
}

/// `(file, line, column, cfgs, target)` of every attribute found, relative to the fixture.
fn found(report: &scan::ScanReport) -> Vec<(String, usize, usize, Vec<String>, String)> {
    let root = fixture();
    report
        .attrs
        .iter()
        .map(|a| {
            let rel = a.file.strip_prefix(&root).unwrap().display().to_string();
            let cfgs = a.cfgs.iter().map(|c| c.to_string()).collect();
            let target = a
                .target
                .as_ref()
                .map_or_else(|| "-".into(), |t| t.to_string());
            (rel, a.line, a.column, cfgs, target)
        })
        .collect()
}

#[test]
fn scan_follows_modules_and_includes_and_records_cfgs() {
    let report = workspace().scan();
    let row = |file: &str, line: usize, column: usize, cfgs: &[&str], target: &str| {
        let cfgs = cfgs.iter().map(|c| c.to_string()).collect();
        (file.to_string(), line, column, cfgs, target.to_string())
    };
    let expected = vec![
        row("bin-op/src/main.rs", 4, 1, &[], "bin:bin-op"),
        // Not reached by any `mod`: found by the sweep of `src/`, with no target.
        row("linked-op/src/dead.rs", 2, 1, &[], "-"),
        row("linked-op/src/elsewhere/renamed.rs", 1, 1, &[], "lib"),
        row("linked-op/src/included.rs", 1, 1, &[], "lib"),
        row("linked-op/src/inline/deeper.rs", 1, 1, &[], "lib"),
        row("linked-op/src/lib.rs", 9, 1, &[], "lib"),
        row("linked-op/src/lib.rs", 15, 5, &[], "lib"),
        row(
            "linked-op/src/lib.rs",
            22,
            1,
            &["feature = \"extra\""],
            "lib",
        ),
        row(
            "linked-op/src/lib.rs",
            27,
            5,
            &["feature = \"extra\""],
            "lib",
        ),
        row("linked-op/src/lib.rs", 32, 5, &[], "lib"),
        row("linked-op/src/lib.rs", 40, 5, &["test"], "lib"),
        row("linked-op/src/lib.rs", 47, 1, &["feature = \"on\""], "lib"),
        row("linked-op/src/lib.rs", 51, 1, &["not(test)"], "lib"),
        row("linked-op/src/lib.rs", 54, 19, &["all()"], "lib"),
        row("linked-op/src/lib.rs", 61, 1, &[], "lib"),
        row("linked-op/src/lib.rs", 62, 19, &["all()"], "lib"),
        row("linked-op/src/lib.rs", 67, 5, &["all()"], "lib"),
        row("linked-op/src/lib.rs", 68, 5, &["all()"], "lib"),
        row("linked-op/src/nested/child.rs", 1, 1, &[], "lib"),
        row("linked-op/src/nested.rs", 6, 5, &[], "lib"),
        row("linked-op/src/nested.rs", 12, 1, &[], "lib"),
        row("unlinked-op/examples/demo.rs", 2, 1, &[], "example:demo"),
        row("unlinked-op/src/lib.rs", 5, 1, &[], "lib"),
        row("unlinked-op/src/lib.rs", 10, 1, &["feature = \"x\""], "lib"),
        row("unlinked-op/src/lib.rs", 14, 1, &["not(test)"], "lib"),
        row("unlinked-op/src/lib.rs", 17, 19, &["all()"], "lib"),
        row("unlinked-op/src/lib.rs", 22, 1, &["tokio_unstable"], "lib"),
        row(
            "unlinked-op/src/lib.rs",
            27,
            1,
            &["feature = \"off\""],
            "lib",
        ),
        row("unlinked-op/src/lib.rs", 35, 5, &[], "lib"),
        row("unlinked-op/src/lib.rs", 48, 5, &[], "lib"),
        row("unlinked-op/src/lib.rs", 55, 1, &[], "lib"),
        row("unlinked-op/src/lib.rs", 55, 62, &[], "lib"),
        row("unlinked-op/src/part.rs", 1, 1, &[], "lib"),
        row("unlinked-op/src/part2.rs", 1, 1, &[], "lib"),
        row("unlinked-op/src/stray.rs", 3, 1, &[], "-"),
    ];
    assert_eq!(found(&report), expected);
    // Arguments are parsed with the macro's own parser.
    let deeper = report
        .attrs
        .iter()
        .find(|a| a.file.ends_with("deeper.rs"))
        .unwrap();
    let marker = deeper.marker().unwrap();
    assert_eq!(marker.resources, ["pods/eviction"]);
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
}

#[test]
fn registry_matches_the_linked_crate_exactly() {
    let mut ws = workspace();
    ws.packages.retain(|p| p.name == "linked-op");
    let entries = linked_entries();
    // The compiler put these at their `cfg_attr`'s `#` (see the fixture): matched there.
    let placed = |resource: &str| {
        let e = entries
            .iter()
            .find(|e| e.marker.resources == [resource])
            .unwrap();
        (e.source.line, e.source.column)
    };
    assert_eq!(placed("pods/exec"), (62, 1));
    assert_eq!(placed("pods/attach"), (67, 5));
    assert_eq!(placed("pods/portforward"), (65, 1));
    assert_eq!(entries.len(), 16, "{entries:#?}");
    let findings = cross_check(
        &entries,
        &[],
        &ws.scan(),
        &["linked_op"],
        &ws.root,
        &ws.cfg_env(),
    );
    // A file no `mod` leads to is an error: it may be compiled in a build the generator's is
    // not (a `mod` from a macro, under a feature), and its attribute would be lost.
    assert_eq!(
        located(&findings.errors),
        ["linked-op/src/dead.rs:2"],
        "{:#?}",
        findings.errors
    );
    // Attributes behind cfgs that are off are warnings.
    assert_eq!(
        located(&findings.warnings),
        [
            "linked-op/src/lib.rs:22",
            "linked-op/src/lib.rs:27",
            "linked-op/src/lib.rs:40"
        ]
    );
    // The whole text of one, as printed (messages are checked word for word somewhere).
    assert_eq!(
        texts(&findings.errors),
        [
            "linked-op/src/dead.rs:2:1: #[rbac] in a file that no `mod` or `include!` of package \
          `linked-op` leads to, and not in the registry: if the file is compiled in some build (a \
          `mod` declared by a macro, under a feature the generator's dependency lacks), its \
          attributes are lost; if it is not compiled, delete it"
        ]
    );
    assert!(
        texts(&findings.warnings)
            .iter()
            .any(|w| w.contains("`cfg(test)`") && w.contains("`test` is not set")),
        "{:#?}",
        findings.warnings
    );
    assert!(
        texts(&findings.warnings)
            .iter()
            .any(|w| w.contains("feature `extra` of `linked-op` is off")),
        "{:#?}",
        findings.warnings
    );
}

#[test]
fn every_compiled_attribute_of_an_unlinked_crate_or_a_binary_is_an_error() {
    let ws = workspace();
    let findings = cross_check(
        &linked_entries(),
        &[],
        &ws.scan(),
        &["linked_op"],
        &ws.root,
        &ws.cfg_env(),
    );
    assert_eq!(
        located(&findings.errors),
        [
            "bin-op/src/main.rs:4",
            "linked-op/src/dead.rs:2",
            "unlinked-op/src/lib.rs:10",
            "unlinked-op/src/lib.rs:14",
            "unlinked-op/src/lib.rs:17",
            "unlinked-op/src/lib.rs:22",
            "unlinked-op/src/lib.rs:35",
            "unlinked-op/src/lib.rs:48",
            "unlinked-op/src/lib.rs:5",
            "unlinked-op/src/lib.rs:55",
            "unlinked-op/src/lib.rs:55",
            "unlinked-op/src/part.rs:1",
            "unlinked-op/src/part2.rs:1",
            "unlinked-op/src/stray.rs:3",
        ],
        "{:#?}",
        findings.errors
    );
    let error_at = |at: &str| {
        texts(&findings.errors)
            .iter()
            .find(|e| e.starts_with(&format!("{at}:")))
            .unwrap()
            .clone()
    };
    // Two attributes on one line are told apart by their columns.
    let same_line: Vec<String> = texts(&findings.errors)
        .into_iter()
        .filter(|e| e.starts_with("unlinked-op/src/lib.rs:55:"))
        .map(|e| e[..e.find(": ").unwrap()].to_string())
        .collect();
    assert_eq!(
        same_line,
        [
            "unlinked-op/src/lib.rs:55:1",
            "unlinked-op/src/lib.rs:55:62"
        ]
    );
    let plain = error_at("unlinked-op/src/lib.rs:5");
    assert!(plain.contains("crate `unlinked_op`"), "{plain}");
    assert!(
        plain.contains("add it to `kube_markers::link!(...)`"),
        "{plain}"
    );
    // Active cfgs are named as active, not as "not in this build".
    let feature = error_at("unlinked-op/src/lib.rs:10");
    assert!(
        feature.contains("`cfg(feature = \"x\")` is active"),
        "{feature}"
    );
    // A custom cfg the scan cannot evaluate says so, and how to declare it.
    let custom = error_at("unlinked-op/src/lib.rs:22");
    assert!(
        custom.contains("cannot tell") && custom.contains("[workspace.metadata.kube-markers] cfg"),
        "{custom}"
    );
    let stray = error_at("unlinked-op/src/stray.rs:3");
    assert!(stray.contains("no `mod` or `include!`"), "{stray}");
    let bin = error_at("bin-op/src/main.rs:4");
    assert!(bin.contains("binary target `bin-op`"), "{bin}");
    // An example's attribute is reported, not an error: examples are not the operator.
    assert!(
        texts(&findings.warnings)
            .iter()
            .any(|w| w.starts_with("unlinked-op/examples/demo.rs:2:")
                && w.contains("example `demo`")),
        "{:#?}",
        findings.warnings
    );
    // The attribute behind a feature that is off is only a warning.
    assert!(
        texts(&findings.warnings)
            .iter()
            .any(|w| w.starts_with("unlinked-op/src/lib.rs:27:") && w.contains("feature `off`")),
        "{:#?}",
        findings.warnings
    );
}

#[test]
fn declared_custom_cfgs_are_evaluated() {
    let mut ws = workspace();
    ws.packages.retain(|p| p.name == "unlinked-op");
    let mut errors_at_22 = |custom: Option<Vec<String>>| {
        ws.custom_cfgs = custom;
        let findings = cross_check(&[], &[], &ws.scan(), &[], &ws.root, &ws.cfg_env());
        texts(&findings.errors)
            .iter()
            .any(|e| e.starts_with("unlinked-op/src/lib.rs:22:"))
    };
    assert!(errors_at_22(None));
    assert!(errors_at_22(Some(vec!["tokio_unstable".into()])));
    // Declared as the complete list, without it: the cfg is off.
    assert!(!errors_at_22(Some(vec![])));
}

#[test]
fn the_generator_refuses_to_write_when_an_attribute_would_be_lost() {
    let out = tempfile::tempdir().unwrap();
    let mut opts = Options::default();
    opts.manifest_path = Some(fixture().join("Cargo.toml"));
    opts.out_dir = out.path().to_path_buf();
    let err = codegen::run_with(&linked_entries(), &[], &["linked_op"], &opts).unwrap_err();
    let Error::CrossCheck { errors, .. } = &err else {
        panic!("expected a cross-check error, got {err}")
    };
    assert_eq!(errors.len(), 14, "{errors:#?}");
    assert!(
        err.to_string().contains("unlinked-op/src/lib.rs:5"),
        "{err}"
    );
    // The fixture's attributes behind cfgs that are off are reported with the errors, since
    // the run stops before it prints warnings.
    let Error::CrossCheck { warnings, .. } = &err else {
        unreachable!()
    };
    assert!(!warnings.is_empty());
    assert!(
        err.to_string().contains(&format!(
            "{} warning(s) of the same cross-check",
            warnings.len()
        )),
        "{err}"
    );
    // Nothing was written.
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn an_entry_that_disagrees_with_its_source_is_an_error() {
    let mut ws = workspace();
    ws.packages.retain(|p| p.name == "linked-op");
    let scan = ws.scan();
    // A stale entry: other verbs, with the argument text the older build kept, or none (the
    // cross-check then compares parsed markers only).
    for args in ["verbs = \"*\"", ""] {
        let mut entries = linked_entries();
        let mut tampered = entries[0].clone();
        tampered.marker.verbs = vec!["*".into()];
        tampered.args = args.into();
        entries[0] = &tampered;
        let findings = cross_check(
            &entries,
            &[],
            &scan,
            &["linked_op"],
            &ws.root,
            &ws.cfg_env(),
        );
        let stale: Vec<&Finding> = findings
            .errors
            .iter()
            .filter(|f| !matches!(f.problem, Problem::NotCompiled { .. }))
            .collect();
        assert_eq!(stale.len(), 1, "{args}: {:#?}", findings.errors);
        assert_eq!(stale[0].problem, Problem::Stale);
        assert!(
            stale[0]
                .to_string()
                .contains("differs from the #[rbac] in the source")
        );
    }
}

#[test]
fn argument_text_written_otherwise_is_compared_parsed_not_reported() {
    let mut ws = workspace();
    ws.packages.retain(|p| p.name == "linked-op");
    let scan = ws.scan();
    let mut entries = linked_entries();
    // The macro's text of each entry is the scan's text of its attribute: the cheap
    // comparison decides.
    let mut same_text = 0;
    for e in &entries {
        let at_place = scan.attrs.iter().find(|a| {
            a.line == e.source.line as usize
                && a.column == e.source.column as usize
                && a.file.ends_with(&*e.source.file)
        });
        if let Some(attr) = at_place {
            assert_eq!(attr.args_text().as_deref(), Some(&*e.args), "{attr:?}");
            same_text += 1;
        }
    }
    assert!(same_text >= 3, "{same_text} entries compared by text");
    // The same arguments under a text the scan's normalization would not produce (say, an
    // older macro's): parsed and found equal, no error.
    let mut respelled = entries[0].clone();
    respelled.args = "some other text".into();
    entries[0] = &respelled;
    let findings = cross_check(
        &entries,
        &[],
        &scan,
        &["linked_op"],
        &ws.root,
        &ws.cfg_env(),
    );
    assert!(
        findings
            .errors
            .iter()
            .all(|f| matches!(f.problem, Problem::NotCompiled { .. })),
        "{:#?}",
        findings.errors
    );
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
            "manifest_path": format!("/ws/{name}/Cargo.toml"),
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
    let ws = Workspace::from_metadata(scan::metadata_for_tests(metadata(&["a"]))).unwrap();
    let names: Vec<&str> = ws.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["b"]);
    let err = Workspace::from_metadata(scan::metadata_for_tests(metadata(&["c"])))
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

/// A `cfg_attr` spread over several lines: the registry's line and column are the ones the
/// scan reports.
#[test]
fn multi_line_cfg_attr_entries_match_the_scan() {
    let entry = rbac_entries()
        .into_iter()
        .find(|e| e.marker.resources == ["limitranges"] && e.source.crate_name() != "linked_op")
        .expect("the cfg_attr above is active");
    let this_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scan.rs");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let ws = Workspace {
        packages: vec![scan::Package {
            name: "kube-markers-tests".into(),
            dir: root.join("tests"),
            lib_crate: "kube_markers_tests".into(),
            targets: vec![scan::Target::new(scan::TargetKind::Lib, this_file.clone())],
        }],
        ..Workspace::at(root)
    };
    let report = ws.scan();
    let found = report
        .attrs
        .iter()
        .find(|a| a.file == this_file && a.marker().is_some_and(|m| m.resources == ["limitranges"]))
        .unwrap();
    assert_eq!(found.cfgs.len(), 1);
    assert_eq!(found.cfgs[0].to_string(), "all()");
    assert_eq!(
        (found.line, found.column),
        (entry.source.line as usize, entry.source.column as usize)
    );
    let findings = cross_check(&[entry], &[], &report, &[], &ws.root, &ws.cfg_env());
    // (The sweep of `tests/` also finds the other test files' attributes: not this test's.)
    let here: Vec<String> = texts(&findings.errors)
        .into_iter()
        .filter(|e| e.starts_with("tests/tests/scan.rs:"))
        .collect();
    assert!(here.is_empty(), "{here:#?}");
}

/// `link!` names a library by its crate name: `[lib] name` when the package sets one.
#[test]
fn a_renamed_library_is_known_by_its_crate_name() {
    let metadata = serde_json::json!({
        "workspace_root": "/ws",
        "packages": [{
            "name": "my-op",
            "manifest_path": "/ws/my-op/Cargo.toml",
            "dependencies": [{ "name": "kube-markers", "kind": null }],
            "targets": [
                { "kind": ["lib"], "name": "op_core", "src_path": "/ws/my-op/src/lib.rs" },
                { "kind": ["bin"], "name": "my-op", "src_path": "/ws/my-op/src/main.rs" }
            ],
            "metadata": null,
        }],
    });
    let ws = Workspace::from_metadata(scan::metadata_for_tests(metadata)).unwrap();
    assert_eq!(ws.packages[0].lib_crate, "op_core");
}

/// A facade crate that re-exports kube-markers, depended on under the name `kube_markers`,
/// compiles the attributes' `::kube_markers::…` paths: its users are scanned.
#[test]
fn a_facade_renamed_to_kube_markers_is_scanned() {
    let package = |name: &str, dependency: serde_json::Value| {
        serde_json::json!({
            "name": name,
            "manifest_path": format!("/ws/{name}/Cargo.toml"),
            "dependencies": [dependency],
            "targets": [{ "kind": ["lib"], "name": name, "src_path": format!("/ws/{name}/src/lib.rs") }],
            "metadata": null,
        })
    };
    let metadata = serde_json::json!({
        "workspace_root": "/ws",
        "packages": [
            package("facade-user", serde_json::json!(
                { "name": "platform-facade", "rename": "kube_markers", "kind": null })),
            package("unrelated", serde_json::json!(
                { "name": "platform-facade", "rename": null, "kind": null })),
            package("test-only", serde_json::json!(
                { "name": "kube-markers", "rename": null, "kind": "dev" })),
        ],
    });
    let ws = Workspace::from_metadata(scan::metadata_for_tests(metadata)).unwrap();
    let names: Vec<&str> = ws.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["facade-user"]);
}

/// A proc-macro crate compiles `#[rbac]` but runs inside the compiler: nothing it registers
/// reaches a program, so its attributes are errors naming the package, like a binary's.
#[test]
fn an_attribute_in_a_proc_macro_crate_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("pm/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "use kube_markers::rbac;\n\n#[rbac(groups = \"\", resources = \"nodes\", verbs = \"delete\")]\nfn helper() {}\n",
    )
    .unwrap();
    let metadata = serde_json::json!({
        "workspace_root": dir.path(),
        "packages": [{
            "name": "pm",
            "manifest_path": dir.path().join("pm/Cargo.toml"),
            "dependencies": [{ "name": "kube-markers", "kind": null }],
            "targets": [
                { "kind": ["proc-macro"], "name": "pm", "src_path": src.join("lib.rs") }
            ],
            "metadata": null,
        }],
    });
    let ws = Workspace::from_metadata(scan::metadata_for_tests(metadata)).unwrap();
    assert_eq!(
        ws.packages[0].targets[0].kind.to_string(),
        "unlinkable:proc-macro"
    );
    let findings = cross_check(&[], &[], &ws.scan(), &[], &ws.root, &ws.cfg_env());
    assert_eq!(
        texts(&findings.errors),
        [
            "pm/src/lib.rs:3:1: #[rbac] in package `pm` (crate type `proc-macro`) cannot reach \
             the generator: only `lib`/`rlib` crates can be linked into it; move the code into a \
             library crate"
        ]
    );
}

/// Writes `files` under a temporary package `op` (a library, plus a cdylib-only `plugin`) and
/// scans it as `cargo metadata` would describe it.
fn scan_package(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let package = |name: &str, kind: &str| {
        serde_json::json!({
            "name": name,
            "manifest_path": dir.path().join(name).join("Cargo.toml"),
            "dependencies": [{ "name": "kube-markers", "kind": null }],
            "targets": [{ "kind": [kind], "name": name, "src_path": dir.path().join(name).join("src/lib.rs") }],
            "metadata": null,
        })
    };
    let metadata = serde_json::json!({
        "workspace_root": dir.path(),
        "packages": [package("op", "lib"), package("plugin", "cdylib")],
    });
    let ws = Workspace::from_metadata(scan::metadata_for_tests(metadata)).unwrap();
    (dir, ws)
}

/// Module and include forms the scan must follow, each seen by an outside attack: a file
/// reached only by one of them used to be swept (or missed) and its lost attribute reported as
/// "not compiled", or not at all. With `op` unlinked, every attribute is an error.
#[test]
fn the_scan_follows_every_way_a_file_is_compiled() {
    const RULE: &str = "#[kube_markers::rbac(groups = \"\", resources = \"pods\", verbs = \"get\")]\npub fn f() {}\n";
    const HOOK: &str = "#[kube_markers::webhook(path = \"/v\", mutating = false, failure_policy = \"fail\", side_effects = \"None\", groups = \"\", resources = \"pods\", verbs = \"create\", versions = \"v1\", name = \"v.example.com\", admission_review_versions = \"v1\")]\npub async fn v() {}\n";
    let lib = "\
#[cfg_attr(feature = \"extra\", path = \"extra_on.rs\")]
mod extra;
cfg_if::cfg_if! {
    if #[cfg(unix)] {
        mod in_cfg_if;
        #[path = \"renamed.rs\"]
        pub(crate) mod with_path;
    }
}
pass! { include!(\"../perm.inc\"); }
#[cfg(test)]
#[path = \"handlers.rs\"]
mod handlers_in_tests;
pub mod handlers;
#[cfg(unix,)]
mod trailing_comma;
pub type Buf = ty! {
    #[kube_markers::rbac(groups = \"\", resources = \"secrets\", verbs = \"list\")]
    const _: () = ();
};
";
    let (dir, ws) = scan_package(&[
        ("op/src/lib.rs", lib),
        ("op/src/extra_on.rs", RULE),
        ("op/src/extra.rs", ""),
        ("op/src/in_cfg_if.rs", RULE),
        ("op/src/renamed.rs", RULE),
        ("op/perm.inc", RULE),
        ("op/src/handlers.rs", RULE),
        ("op/src/trailing_comma.rs", RULE),
        ("op/src/hooks/unreached.rs", HOOK),
        ("plugin/src/lib.rs", RULE),
    ]);
    let findings = cross_check(&[], &[], &ws.scan(), &[], &ws.root, &ws.cfg_env());
    let mut errors = texts(&findings.errors);
    errors.sort();
    assert_eq!(
        located(&findings.errors),
        [
            "op/perm.inc:1",
            "op/src/handlers.rs:1",
            "op/src/hooks/unreached.rs:1",
            "op/src/in_cfg_if.rs:1",
            "op/src/lib.rs:18",
            "op/src/renamed.rs:1",
            "op/src/trailing_comma.rs:1",
            "plugin/src/lib.rs:1",
        ],
        "{errors:#?}\nwarnings: {:#?}",
        texts(&findings.warnings)
    );
    // `handlers.rs` is compiled unconditionally through its second `mod`, whatever the first
    // says; the file reached by no `mod` is named as such; the feature behind the
    // `cfg_attr(path)` does not exist here, so that file is off (a warning).
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("op/src/hooks/unreached.rs:1:1: #[webhook] in a file that no"))
    );
    assert_eq!(
        located(&findings.warnings),
        ["op/src/extra_on.rs:1"],
        "{:#?}",
        findings.warnings
    );
    drop(dir);
}

/// A facade renamed in code, `extern crate facade as kube_markers;` at the crate root, compiles
/// the attributes as well as a rename in Cargo.toml does: its package is scanned.
#[test]
fn a_facade_renamed_by_extern_crate_is_scanned() {
    let dir = tempfile::tempdir().unwrap();
    let package = |name: &str, root: &str| {
        let src = dir.path().join(name).join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("lib.rs"), root).unwrap();
        serde_json::json!({
            "name": name,
            "manifest_path": dir.path().join(name).join("Cargo.toml"),
            "dependencies": [{ "name": "facade", "rename": null, "kind": null }],
            "targets": [{ "kind": ["lib"], "name": name, "src_path": src.join("lib.rs") }],
            "metadata": null,
        })
    };
    let metadata = serde_json::json!({
        "workspace_root": dir.path(),
        "packages": [
            package("via-facade", "extern crate facade as kube_markers;\nuse kube_markers::rbac;\n\n#[rbac(groups = \"apps\", resources = \"deployments\", verbs = \"delete\")]\npub fn scale_down() {}\n"),
            package("other-name", "extern crate facade as platform;\npub fn f() {}\n"),
            // kube-markers' own root names itself so.
            package("itself", "extern crate self as kube_markers;\npub fn f() {}\n"),
        ],
    });
    let ws = Workspace::from_metadata(scan::metadata_for_tests(metadata)).unwrap();
    let names: Vec<&str> = ws.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["via-facade"]);
    let findings = cross_check(&[], &[], &ws.scan(), &[], &ws.root, &ws.cfg_env());
    assert_eq!(located(&findings.errors), ["via-facade/src/lib.rs:4"]);
}
