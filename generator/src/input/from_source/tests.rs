//! Reading the registry a rebuild would make from the sources: the same entries the compiler
//! registers, edits read without a rebuild, and a refusal for everything only the compiler
//! can read.

use super::*;
use crate::{render_roles, roles_for};
use serde_json::json;

/// A workspace on disk and its `cargo metadata`: package `op` (library, binary `tool`,
/// example `demo`), package `other` (a library the generator does not link), and package
/// `skipped` (`scan = false`).
struct Ws {
    dir: tempfile::TempDir,
}

impl Ws {
    fn new(files: &[(&str, &str)]) -> Ws {
        let ws = Ws {
            dir: tempfile::tempdir().unwrap(),
        };
        // Every target's root file exists, empty unless given.
        for root in [
            "op/src/lib.rs",
            "op/src/bin/tool.rs",
            "op/examples/demo.rs",
            "other/src/lib.rs",
            "skipped/src/lib.rs",
        ] {
            ws.write(root, "");
        }
        for (path, text) in files {
            ws.write(path, text);
        }
        ws
    }

    fn root(&self) -> PathBuf {
        canonical(self.dir.path())
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.root().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn workspace(&self) -> Workspace {
        let root = self.root();
        let at = |p: &str| root.join(p).display().to_string();
        let uses_markers = json!([{"name": "kube-markers", "kind": null}]);
        let json = json!({
            "workspace_root": root.display().to_string(),
            "metadata": {"kube-markers": {"cfg": []}},
            "packages": [
                {
                    "name": "op",
                    "manifest_path": at("op/Cargo.toml"),
                    "dependencies": uses_markers,
                    "targets": [
                        {"kind": ["lib"], "name": "op", "src_path": at("op/src/lib.rs")},
                        {"kind": ["bin"], "name": "tool", "src_path": at("op/src/bin/tool.rs")},
                        {"kind": ["example"], "name": "demo", "src_path": at("op/examples/demo.rs")},
                    ],
                },
                {
                    "name": "other",
                    "manifest_path": at("other/Cargo.toml"),
                    "dependencies": uses_markers,
                    "targets": [{"kind": ["lib"], "name": "other", "src_path": at("other/src/lib.rs")}],
                },
                {
                    "name": "skipped",
                    "manifest_path": at("skipped/Cargo.toml"),
                    "dependencies": uses_markers,
                    "metadata": {"kube-markers": {"scan": false}},
                    "targets": [{"kind": ["lib"], "name": "skipped", "src_path": at("skipped/src/lib.rs")}],
                },
            ],
        });
        Workspace::from_metadata(crate::input::workspace::metadata_for_tests(json)).unwrap()
    }

    /// Reads the sources against `last_build`, the generator linking `op` only.
    fn read(&self, last_build: &[&'static RbacEntry]) -> Result<Read, Vec<Refusal>> {
        let workspace = self.workspace();
        let scan = workspace.scan();
        read_entries(&workspace, &scan, last_build, &["op"])
    }
}

/// The entry the compiler registers for `args` on `item` at `file:line:column` of crate `op`.
fn registered(
    file: &'static str,
    (line, column): (u32, u32),
    item: &'static str,
    args: &str,
) -> &'static RbacEntry {
    registered_in("op", file, (line, column), item, args)
}

fn registered_in(
    krate: &'static str,
    file: &'static str,
    (line, column): (u32, u32),
    item: &'static str,
    args: &str,
) -> &'static RbacEntry {
    let marker = kube_markers_core::rbac::parse_marker(args.parse().unwrap()).unwrap();
    crate::testing::leaked(marker, Source::__new(file, line, column, krate, item))
}

const LIB: &str = r#"use kube_markers::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "get;list")]
#[rbac(groups = "", resources = "pods", verbs = "watch")]
pub fn reconcile() {}

pub struct Controller;
impl Controller {
    #[kube_markers::rbac(groups = "", resources = "events", verbs = "create", namespace = "ops")]
    pub fn record(&self) {}
}

#[cfg(all(unix, not(test)))]
#[cfg_attr(all(), rbac(groups = "", resources = "nodes", verbs = "get"))]
pub fn r#match() {}

impl std::fmt::Debug for Controller {
    #[rbac(groups = "", resources = "secrets", verbs = "get")]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Controller")
    }
}
"#;

/// What the compiler registers for [`LIB`], sorted as the registry sorts.
fn lib_as_compiled() -> Vec<&'static RbacEntry> {
    let file = "op/src/lib.rs";
    vec![
        registered(
            file,
            (3, 1),
            "reconcile",
            r#"groups = "apps", resources = "deployments", verbs = "get;list""#,
        ),
        registered(
            file,
            (4, 1),
            "reconcile",
            r#"groups = "", resources = "pods", verbs = "watch""#,
        ),
        registered(
            file,
            (9, 5),
            "record",
            r#"groups = "", resources = "events", verbs = "create", namespace = "ops""#,
        ),
        registered(
            file,
            (14, 19),
            "match",
            r#"groups = "", resources = "nodes", verbs = "get""#,
        ),
        registered(
            file,
            (18, 5),
            "fmt",
            r#"groups = "", resources = "secrets", verbs = "get""#,
        ),
    ]
}

#[test]
fn the_sources_give_the_entries_the_compiler_registers() {
    let ws = Ws::new(&[("op/src/lib.rs", LIB)]);
    let compiled = lib_as_compiled();
    // An entry of a crate outside the workspace (a reconciler from crates.io) is the last
    // build's: nothing in the workspace can change it.
    let outside = registered_in(
        "published",
        "/nowhere/registry/published-1.0.0/src/lib.rs",
        (7, 1),
        "reconcile",
        r#"groups = "batch", resources = "jobs", verbs = "get""#,
    );
    let mut last_build = compiled.clone();
    last_build.push(outside);
    let read = ws
        .read(&last_build)
        .unwrap_or_else(|r| panic!("{}", refused(&r, "cargo run -p codegen")));
    let mut expected = last_build.clone();
    expected.sort_by(|a, b| a.source.cmp(&b.source));
    assert_eq!(read.entries(), expected);
    assert_eq!(
        (
            read.from_sources.len(),
            read.kept.len(),
            read.new_or_changed,
            read.gone
        ),
        (5, 1, 0, 0)
    );
    assert_eq!(
        render_roles(&roles_for(&read.entries(), "manager-role"), ""),
        render_roles(&roles_for(&expected, "manager-role"), "")
    );
    assert!(
        read.note("role.yaml", "cargo run -p codegen")
            .starts_with("role.yaml from the sources (5 #[rbac] attribute(s), and 1 of crates outside the workspace as the last build has them), the same as the last build's"),
        "{}",
        read.note("role.yaml", "cargo run -p codegen")
    );
}

#[test]
fn an_edited_attribute_is_read_without_a_rebuild() {
    // Against the last build of LIB: a comment shifts every line, the deployments verbs
    // change, the pods, nodes and secrets attributes are removed, a configmaps attribute is
    // added.
    let edited = r#"use kube_markers::rbac;

// A comment that moves everything below one line down.
#[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]
pub fn reconcile() {}

pub struct Controller;
impl Controller {
    #[kube_markers::rbac(groups = "", resources = "events", verbs = "create", namespace = "ops")]
    #[rbac(groups = "", resources = "configmaps", verbs = "get")]
    pub fn record(&self) {}
}
"#;
    let ws = Ws::new(&[("op/src/lib.rs", edited)]);
    let read = ws
        .read(&lib_as_compiled())
        .unwrap_or_else(|r| panic!("{}", refused(&r, "cargo run -p codegen")));
    let file = "op/src/lib.rs";
    let expected = vec![
        registered(
            file,
            (4, 1),
            "reconcile",
            r#"groups = "apps", resources = "deployments", verbs = "get;list;watch""#,
        ),
        registered(
            file,
            (9, 5),
            "record",
            r#"groups = "", resources = "events", verbs = "create", namespace = "ops""#,
        ),
        registered(
            file,
            (10, 5),
            "record",
            r#"groups = "", resources = "configmaps", verbs = "get""#,
        ),
    ];
    assert_eq!(read.entries(), expected);
    // Changed and added; the old deployments, pods, nodes and secrets attributes gone.
    assert_eq!((read.new_or_changed, read.gone), (2, 4));
    let role = render_roles(&roles_for(&read.entries(), "manager-role"), "");
    assert!(
        role.contains("  - deployments\n  verbs:\n  - get\n  - list\n  - watch\n"),
        "{role}"
    );
    assert!(role.contains("  - configmaps\n"), "{role}");
    assert!(!role.contains("pods"), "{role}");
    assert!(!role.contains("nodes"), "{role}");
    assert!(
        read.note("role.yaml", "cargo run -p codegen").contains(
            "; 6 differ from the last build (2 new or changed, 4 gone): run `cargo run -p \
             codegen` to verify, and to regenerate CRDs and webhooks"
        ),
        "{}",
        read.note("role.yaml", "cargo run -p codegen")
    );
}

/// Each refusal's text, as the run prints it.
fn refusal_lines(refusals: &[Refusal]) -> Vec<String> {
    refusals.iter().map(ToString::to_string).collect()
}

fn has(lines: &[String], start: &str, part: &str) {
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(start) && l.contains(part)),
        "no `{start}…{part}` in:\n{}",
        lines.join("\n")
    );
}

#[test]
fn every_attribute_only_the_compiler_can_read_is_refused_with_its_place() {
    let lib = r#"#[cfg(debug_assertions)]
#[kube_markers::rbac(groups = "", resources = "a", verbs = "get")]
pub fn unknown_cfg() {}
#[cfg(test)]
#[kube_markers::rbac(groups = "", resources = "b", verbs = "get")]
pub fn off() {}
macro_rules! pass { ($i:item) => { $i }; }
pass! { #[kube_markers::rbac(groups = "", resources = "c", verbs = "get")] pub fn in_macro() {} }
#[kube_markers::rbac(groups = "", resources = "d", verbs = "frobnicate;get")]
pub fn invalid() {}
#[cfg(feature = "extra")]
#[kube_markers::rbac(groups = "", resources = "e", verbs = "get")]
pub fn featured() {}
mod missing;
include!(concat!("a", "b.rs"));
#[kube_markers::rbac(groups = "", resources = "f", verbs = "get")]
pub fn fine() {}
pass! { mod declared; }
pass! { include!("part.inc"); }
pass! { #[path = "elsewhere/renamed.rs"] mod renamed; }
#[cfg(any(unix, not(unix), debug_assertions))]
#[kube_markers::rbac(groups = "", resources = "g", verbs = "get")]
pub fn profile_dependent_however_spelled() {}
"#;
    let attr =
        "#[kube_markers::rbac(groups = \"\", resources = \"x\", verbs = \"get\")]\npub fn f() {}\n";
    let ws = Ws::new(&[
        ("op/src/lib.rs", lib),
        ("op/src/bin/tool.rs", attr),
        ("op/examples/demo.rs", attr),
        ("op/src/stray.rs", attr),
        ("op/src/declared.rs", attr),
        ("op/src/part.inc", attr),
        ("op/src/elsewhere/renamed.rs", attr),
        ("other/src/lib.rs", attr),
        ("skipped/src/lib.rs", attr),
    ]);
    let skipped = registered_in(
        "skipped",
        "skipped/src/lib.rs",
        (1, 1),
        "f",
        r#"groups = "", resources = "x", verbs = "get""#,
    );
    let refusals = match ws.read(&[skipped]) {
        Ok(read) => panic!("read {:?}", read.entries()),
        Err(refusals) => refusals,
    };
    let lines = refusal_lines(&refusals);
    has(
        &lines,
        "op/src/lib.rs:2:1: ",
        "behind `cfg(debug_assertions)`, which the scan cannot evaluate (`debug_assertions` depends on the build profile",
    );
    // Decided true by `unix` or `not(unix)`, but spelled with a cfg the build profile sets:
    // refused as the cross-check refuses it.
    has(
        &lines,
        "op/src/lib.rs:22:1: ",
        "behind `cfg(any(unix, not(unix), debug_assertions))`, which the scan cannot evaluate \
         (`debug_assertions` depends on the build profile",
    );
    has(
        &lines,
        "op/src/lib.rs:5:1: ",
        "behind `cfg(test)`, off in the workspace's build (`test` is not set)",
    );
    has(&lines, "op/src/lib.rs:8:9: ", "in a macro's input");
    // The macro's own message, at the offending value (`"frobnicate;get"`, column 60).
    let message = kube_markers_core::rbac::parse_marker(
        r#"groups = "", resources = "d", verbs = "frobnicate;get""#
            .parse()
            .unwrap(),
    )
    .unwrap_err()
    .to_string();
    has(
        &lines,
        "op/src/lib.rs:9:60: ",
        &format!("#[rbac] does not compile: {message}"),
    );
    has(
        &lines,
        "op/src/lib.rs:12:1: ",
        "behind `cfg(feature = \"extra\")`: the generator's own build decides",
    );
    has(
        &lines,
        "op/src/lib.rs:14: module file for `mod missing;` not found",
        "",
    );
    has(
        &lines,
        "op/src/lib.rs:15: `include!(",
        "names a file the scan cannot compute",
    );
    has(
        &lines,
        "op/src/bin/tool.rs:1:1: ",
        "in target `bin:tool` of package `op`, which the generator cannot link",
    );
    has(
        &lines,
        "op/examples/demo.rs:1:1: ",
        "in target `example:demo` of package `op`",
    );
    has(
        &lines,
        "op/src/stray.rs:1:1: ",
        "in a file of package `op` that no `mod` or `include!` the scan can follow leads to",
    );
    has(
        &lines,
        "other/src/lib.rs:1:1: ",
        "in crate `other`, which the generator does not link",
    );
    has(
        &lines,
        "skipped/src/lib.rs:1:1: ",
        "the last build's #[rbac] on `f` is in crate `skipped`, which the scan does not read",
    );
    has(
        &lines,
        "op/src/declared.rs:1:1: ",
        "in a file reached through `mod declared;` in a macro's input at op/src/lib.rs:18",
    );
    has(
        &lines,
        "op/src/part.inc:1:1: ",
        "in a file reached through an `include!` in a macro's input at op/src/lib.rs:19",
    );
    has(
        &lines,
        "op/src/elsewhere/renamed.rs:1:1: ",
        "in a file reached through `#[path = \"elsewhere/renamed.rs\"]` in a macro's input at \
         op/src/lib.rs:20",
    );
    assert_eq!(lines.len(), 16, "{}", lines.join("\n"));
    assert!(!lines.iter().any(|l| l.contains("lib.rs:16:")));
    let text = refused(&refusals, "cargo run -p codegen");
    assert!(
        text.starts_with(
            "--rbac-from-source: 16 problem(s) only the compiler can settle (nothing was written; \
             run `cargo run -p codegen`"
        ),
        "{text}"
    );
}

#[test]
fn the_custom_cfgs_a_workspace_declares_are_evaluated() {
    // `[workspace.metadata.kube-markers] cfg = []` declares none: `my_custom_cfg` is off.
    let lib = r#"#[cfg(not(my_custom_cfg))]
#[kube_markers::rbac(groups = "", resources = "a", verbs = "get")]
pub fn on() {}
"#;
    let ws = Ws::new(&[("op/src/lib.rs", lib)]);
    let read = ws
        .read(&[])
        .unwrap_or_else(|r| panic!("{}", refused(&r, "cargo run -p codegen")));
    assert_eq!(read.entries().len(), 1);
    assert_eq!(read.entries()[0].marker.resources, ["a"]);
    assert_eq!(read.entries()[0].source.item, "on");
}

/// A conversion entry of the last build at `file:line` of crate `krate`.
fn conversion_at(krate: &'static str, file: &'static str, line: u32) -> &'static ConversionEntry {
    fn crd()
    -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition
    {
        Default::default()
    }
    fn same(v: serde_json::Value) -> Result<serde_json::Value, String> {
        Ok(v)
    }
    Box::leak(Box::new(ConversionEntry::__new(
        crd,
        crd,
        same,
        same,
        "v1::Db",
        "v2::Db",
        Source::__new(file, line, 1, krate, "v1::Db -> v2::Db"),
    )))
}

/// A run from the sources keeps the CRDs and the role's CA-bundle rule that follow the
/// conversions: a file whose `#[conversion]`s the last build counts differently is refused,
/// in the crates the scan reads; moved lines are not a change.
#[test]
fn conversions_added_or_removed_since_the_last_build_are_refused() {
    let ws = Ws::new(&[(
        "op/src/lib.rs",
        "\n\n#[kube_markers::conversion]\nimpl Spoke<v2::Db> for v1::Db {}\n\
         #[kube_markers::conversion]\nimpl Spoke<v2::Db> for v1beta1::Db {}\n",
    )]);
    let workspace = ws.workspace();
    let scan = workspace.scan();
    // Lines moved since the last build: the same conversions.
    let moved = [
        conversion_at("op", "op/src/lib.rs", 1),
        conversion_at("op", "op/src/lib.rs", 2),
    ];
    assert_eq!(conversions_changed(&workspace, &scan, &moved), []);
    // One added in the sources, one removed from another file; a crate outside the
    // workspace is not the scan's.
    let last = [
        conversion_at("op", "op/src/lib.rs", 3),
        conversion_at("op", "op/src/gone.rs", 3),
        conversion_at("dep", "/registry/dep/src/lib.rs", 3),
    ];
    let refused: Vec<String> = conversions_changed(&workspace, &scan, &last)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        refused,
        [
            "op/src/gone.rs:1: 0 #[conversion] in this file, 1 in the last build: the \
             CRDs and the role's rule for their CA bundles follow the conversions, which only a \
             rebuild reads",
            "op/src/lib.rs:3:1: 2 #[conversion] in this file, 1 in the last build: the \
             CRDs and the role's rule for their CA bundles follow the conversions, which only a \
             rebuild reads",
        ]
    );
}
