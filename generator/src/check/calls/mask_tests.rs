//! The calls the scan's mask must not lose (it blanks, before the parse, the items naming no
//! kube word): a call through a `use` rename of a kube word, in an item naming none
//! (`// VERBS RESOURCE` on its line, `// none` for what makes no request); and a generic
//! function's call site in such an item, in another file of the crate (or through a `use`
//! rename of the function), which fixes the `K` of the function's calls. Each is warned at its line, and the attribute it suggests,
//! pasted, silences it.

use super::tests::{
    MACRO_BODY_CALL, analyse_crate, analyse_on_disk, assert_silenced_once_pasted,
    assert_warned_once_each, expected_needs, pasted, warned,
};
use kube_markers_registry::RbacEntry;
use std::collections::BTreeSet;

const RENAMES: &str = r#"
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
use kube::runtime::events::Recorder as Rec;
use kube::runtime::Controller as Ctl;
use kube::Api as KApi;
use KApi as Handle;
use kube::runtime::watcher::{self as w, watch_object as wo};
use kube_markers::leader_election::LeaderElection as Elector;

pub fn recorder(client: Client, reporter: Reporter) -> Rec {
    Rec::new(client, reporter) // create;patch events.events.k8s.io
}

pub async fn run(client: Client) {
    Ctl::new(KApi::<Pod>::all(client), Default::default()); // list;watch pods
}

pub async fn read(h: Handle<Secret>) {
    h.get("x").await; // get secrets
}

pub async fn follow(h: Handle<ConfigMap>, cfg: Config) {
    w(h, cfg); // list;watch configmaps
}

pub async fn one(h: Handle<Pod>) {
    wo(h, "p"); // list;watch pods
}

pub async fn elect(client: Client) {
    Elector::builder(client, "lease"); // create;get;update leases.coordination.k8s.io
}

pub fn other() -> Map<String, String> {
    Map::new() // none
}
"#;

#[test]
fn a_call_through_a_rename_warns_at_its_line_and_its_attribute_silences_it() {
    let expected = expected_needs(RENAMES, "op/src/lib.rs:");
    assert_eq!(expected.len(), 6);
    let files = [("lib.rs", RENAMES)];
    let analysis = analyse_crate(&files, &[]);
    assert_warned_once_each(&analysis, &expected);

    assert_silenced_once_pasted(&files, &analysis);
}

const HELPER: &str = r#"
use kube::{Api, Client};
use k8s_openapi::api::apps::v1::Deployment;

pub async fn helper<K: Resource>(c: Client) {
    Api::<K>::all(c).list(&Default::default()).await;
}

pub async fn deployments(c: Client) {
    helper::<Deployment>(c).await
}
"#;

/// Names no kube word: its items are parsed only for the sites of `helper`, one through a
/// rename.
const SYNC: &str = r#"
use crate::helper::helper;
use crate::helper::helper as fetch;
use k8s_openapi::api::core::v1::{Pod, Secret};

pub async fn sync(c: Client) {
    helper::<Secret>(c).await
}

pub async fn pods(c: Client) {
    fetch::<Pod>(c).await
}
"#;

/// A generic function of its own fixes `helper`'s `K`; its caller, in a file naming no kube
/// word, fixes its own.
const OUTER: &str = r#"
use crate::helper::helper;
use k8s_openapi::api::core::v1::ConfigMap;

pub async fn outer<T>(c: Client) {
    helper::<T>(c).await
}

pub async fn configmaps(c: Client) {
    outer::<ConfigMap>(c).await
}
"#;

#[test]
fn a_generic_call_site_naming_no_kube_word_fixes_the_kind_at_the_call() {
    let files = [
        ("helper.rs", HELPER),
        ("sync.rs", SYNC),
        ("outer.rs", OUTER),
    ];
    let analysis = analyse_crate(&files, &[]);
    assert_eq!(analysis.unknown, Vec::<String>::new());
    assert_eq!(
        warned(&analysis),
        BTreeSet::from(
            [
                "op/src/helper.rs:6: list configmaps",
                "op/src/helper.rs:6: list deployments.apps",
                "op/src/helper.rs:6: list pods",
                "op/src/helper.rs:6: list secrets",
            ]
            .map(String::from)
        )
    );
    let entries = assert_silenced_once_pasted(&files, &analysis);
    let refs: Vec<&RbacEntry> = entries.iter().collect();

    // A site that does not fix it, naming no kube word either: said, never dropped.
    const VAGUE: &str = "pub async fn vague(c: Client) {\n    helper(c).await\n}\n";
    let files = [("helper.rs", HELPER), ("vague.rs", VAGUE)];
    let analysis = analyse_crate(&files, &refs);
    assert_eq!(analysis.unknown.len(), 1, "{:?}", analysis.unknown);
    assert!(
        analysis.unknown[0].starts_with("op/src/helper.rs:6:")
            && analysis.unknown[0].contains("op/src/vague.rs:2"),
        "{}",
        analysis.unknown[0]
    );
}

/// The generator's own walk of a package reads its files together: the same warnings from a
/// package on disk (its `mod`s followed from `src/lib.rs`, which names no kube word), the
/// renames in a file of their own.
#[test]
fn the_workspace_scan_reads_a_packages_files_together() {
    use crate::input::workspace::{Target, TargetKind};
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let src = root.join("op/src");
    std::fs::create_dir_all(&src).unwrap();
    let files = [
        (
            "lib.rs",
            "pub mod helper;\npub mod sync;\npub mod outer;\npub mod renames;\n",
        ),
        ("helper.rs", HELPER),
        ("sync.rs", SYNC),
        ("outer.rs", OUTER),
        ("renames.rs", RENAMES),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).unwrap();
    }
    let analysis = analyse_on_disk(
        &root,
        vec![Target::new(TargetKind::Lib, src.join("lib.rs"))],
    );
    assert_eq!(analysis.unknown, Vec::<String>::new());
    let generic = analyse_crate(&files[1..4], &[]);
    let renames = analyse_crate(&files[4..], &[]);
    let expected: BTreeSet<String> = warned(&generic)
        .into_iter()
        .chain(
            warned(&renames)
                .into_iter()
                .map(|w| w.replace("op/src/lib.rs", "op/src/renames.rs")),
        )
        .collect();
    assert_eq!(expected.len(), 10);
    assert_eq!(warned(&analysis), expected);
}

/// A call in the body of the crate's own `macro_rules!` is said once, at its place, of unknown
/// kind; the way out the note names (an attribute of its own, `allow(unused, ...)` there)
/// leaves no warning.
#[test]
fn a_call_in_a_macro_rules_body_is_said_and_its_way_out_holds() {
    let lib = MACRO_BODY_CALL;
    let analysis = analyse_crate(&[("lib.rs", lib)], &[]);
    assert_eq!(
        analysis.unknown,
        [
            "op/src/lib.rs:3:36: `fetch!: .get` needs get, but the scan cannot tell on which kind: \
          it is in the body of `macro_rules! fetch`, which the scan does not expand; grant it \
          with an #[rbac] of its own (and allow(unused, reason = \"...\") there)"
        ]
    );
    assert!(analysis.warnings.is_empty() && analysis.unused.is_empty());
    // The way out, as the note says.
    let grant = pasted(
        "#[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"get\", \
         namespace = \"ns\", allow(unused, reason = \"fetch! gets them\"))]",
        5,
    );
    let analysis = analyse_crate(&[("lib.rs", lib)], &[&grant]);
    assert!(analysis.warnings.is_empty(), "{:?}", analysis.warnings);
    assert!(analysis.unused.is_empty(), "{:?}", analysis.unused);
}
