use super::*;
use crate::input::scan::calls::{CrateFile, scan_calls};
use crate::input::sources::FoundCalls;
use kube_markers_core::model::Source;
use kube_markers_registry::RbacEntry;
use std::path::Path;

const OPERATOR: &str = r#"
use k8s_openapi::api::apps::v1::Deployment;
use kube::runtime::{Controller, finalizer::finalizer, events::Recorder};
use kube::{Api, api::{Patch, PatchParams}};

pub async fn run(client: Client) {
    let docs = Api::<Document>::all(client.clone());
    Controller::new(docs, Default::default())
        .owns(Api::<Deployment>::all(client.clone()), Default::default())
        .run(reconcile, policy, ctx);
}

pub async fn reconcile(doc: Arc<Document>, ctx: Arc<Ctx>) -> Result<Action> {
    let docs: Api<Document> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&docs, "f", doc, |e| async { Ok(()) }).await;
    let deploys: Api<Deployment> = Api::namespaced(ctx.client.clone(), &ns);
    deploys.patch("d", &PatchParams::apply("m"), &Patch::Apply(d)).await;
    docs.patch_status("d", &pp, &Patch::Merge(s)).await;
    let dynamic: Api<DynamicObject> = Api::all_with(c, &ar);
    dynamic.delete("x", &dp).await;
}
"#;

fn found(text: &str) -> Vec<FoundCalls> {
    vec![FoundCalls {
        package: "op".into(),
        krate: "op".into(),
        file: "/ws/op/src/lib.rs".into(),
        calls: scan_calls(text).unwrap(),
    }]
}

/// The calls of `files` (path under `op/src/`, which tells its module as rustc finds it:
/// `lib.rs`, `a.rs`, `a/mod.rs`, `a/b.rs`; text), read together as the generator reads one
/// crate, held against `entries`; a file without calls counts as read (the crate has no call).
/// Each attribute `analysis` printed, pasted where it says, into `files` analysed again: no
/// warning and no `unused` is left. The pasted entries, for more analyses.
pub(super) fn assert_silenced_once_pasted(
    files: &[(&str, &str)],
    analysis: &Analysis,
) -> Vec<RbacEntry> {
    let entries = pasted_all(analysis);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let again = analyse_crate(files, &refs);
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert!(again.unused.is_empty(), "{:?}", again.unused);
    entries
}

/// A request method's call in the body of the crate's own `macro_rules!`, the macro used
/// with an `Api` binding (said at the call in the macro, of unknown kind).
pub(super) const MACRO_BODY_CALL: &str = r#"
macro_rules! fetch {
    ($api:expr, $n:expr) => { $api.get($n).await? };
}
pub async fn p_macro(c: Client) -> Result<(), E> {
    let deploys: Api<Deployment> = Api::namespaced(c, "ns");
    let _d = fetch!(deploys, "x");
    Ok(())
}
"#;

pub(super) fn analyse_crate(files: &[(&str, &str)], entries: &[&RbacEntry]) -> Analysis {
    let crate_files: Vec<CrateFile<'_>> = files
        .iter()
        .map(|(path, text)| CrateFile::at(path, text))
        .collect();
    let found: Vec<FoundCalls> = files
        .iter()
        .zip(crate::input::scan::calls::scan_crate_files(
            &crate_files,
            None,
        ))
        .map(|((file, _), calls)| FoundCalls {
            package: "op".into(),
            krate: "op".into(),
            file: Path::new("/ws/op/src").join(file),
            calls: calls.unwrap_or_default(),
        })
        .collect();
    compare::analyse_kinds(
        &found,
        entries,
        &Kinds::new(&[]),
        &["op"],
        Path::new("/ws"),
        "manager-role",
    )
}

/// What a fixture's comments say each line needs (`// VERBS RESOURCE`; `// none` for a call
/// that needs nothing of its own), as `PREFIXLINE: VERBS RESOURCE`.
pub(super) fn expected_needs(fixture: &str, prefix: &str) -> std::collections::BTreeSet<String> {
    fixture
        .lines()
        .enumerate()
        .filter_map(|(i, line)| Some((i + 1, line.split_once("// ")?.1)))
        .filter(|(_, need)| *need != "none")
        .map(|(line, need)| format!("{prefix}{line}: {need}"))
        .collect()
}

/// Each warning as `file:line: verbs resource`.
pub(super) fn warned(analysis: &Analysis) -> std::collections::BTreeSet<String> {
    analysis
        .warnings
        .iter()
        .map(|w| {
            format!(
                "{}:{}: {} {}",
                w.needed.file,
                w.needed.line,
                w.missing.join(";"),
                resource_text(&w.needed.group, &w.needed.resource)
            )
        })
        .collect()
}

/// The package `op` at `root/op` (its sources written there), with `targets`, walked as the
/// generator walks a workspace and its calls analysed, no attribute granting them.
pub(super) fn analyse_on_disk(
    root: &Path,
    targets: Vec<crate::input::workspace::Target>,
) -> Analysis {
    use crate::input::workspace::{Package, Workspace};
    let mut ws = Workspace::at(root);
    ws.packages.push(Package {
        name: "op".into(),
        dir: root.join("op"),
        lib_crate: "op".into(),
        targets,
    });
    let report = ws.scan_with_calls(&["op"]);
    compare::analyse_kinds(
        &report.calls,
        &[],
        &Kinds::new(&[]),
        &["op"],
        root,
        "manager-role",
    )
}

/// Each warning's attribute, as printed, pasted at the function it names.
pub(super) fn pasted_all(analysis: &Analysis) -> Vec<RbacEntry> {
    analysis
        .warnings
        .iter()
        .map(|w| {
            let (_, line) = w.needed.function.clone().expect("in a function");
            pasted(&w.needed.attribute(&w.missing), line as u32)
        })
        .collect()
}

/// No call of unknown kind, and exactly one warning for each of `expected`.
pub(super) fn assert_warned_once_each(
    analysis: &Analysis,
    expected: &std::collections::BTreeSet<String>,
) {
    assert_eq!(analysis.unknown, Vec::<String>::new());
    assert_eq!(&warned(analysis), expected);
    assert_eq!(
        analysis.warnings.len(),
        expected.len(),
        "one warning a call"
    );
}

/// The attribute text of a warning (`#[kube_markers::rbac(ARGS)]`) as the macro registers it.
pub(super) fn pasted(attribute: &str, line: u32) -> RbacEntry {
    let args = attribute
        .strip_prefix("#[kube_markers::rbac(")
        .and_then(|a| a.strip_suffix(")]"))
        .expect("an attribute");
    let marker = kube_markers_core::rbac::parse_marker(args.parse().unwrap()).expect("parses");
    crate::testing::rbac(
        marker,
        Source::new("op/src/lib.rs", line, 1, "op", "reconcile"),
    )
}

/// `Document` is a CRD of group `kube.rs`, plural `documents`: the CRDs resolve by type name.
fn kinds_with_document() -> Kinds<'static> {
    let kinds = Kinds::new(&[]);
    kinds.crds.borrow_mut().insert(
        "Document".into(),
        Some(Resolved {
            group: "kube.rs".into(),
            plural: "documents".into(),
            namespaced: true,
        }),
    );
    kinds
}

#[test]
fn kinds_resolve_through_crds_and_k8s_openapi() {
    let kinds = kinds_with_document();
    let r = |p: &str| {
        kinds
            .resolve(p)
            .map(|r| format!("{} {} {}", r.group, r.plural, r.namespaced))
    };
    assert_eq!(r("k8s_openapi::api::core::v1::Pod").unwrap(), " pods true");
    assert_eq!(r("Deployment").unwrap(), "apps deployments true");
    assert_eq!(r("crate::v1::Document").unwrap(), "kube.rs documents true");
    assert_eq!(r("events::v1::Event").unwrap(), "events.k8s.io events true");
    assert_eq!(r("Namespace").unwrap(), " namespaces false");
    assert!(r("Event").unwrap_err().contains("`api::core::v1::Event`"));
    assert!(
        r("Widget")
            .unwrap_err()
            .contains("neither a linked CRD's type")
    );
    assert!(r("k8s_openapi::api::core::v1::Nope").is_err());
}

fn analyse_with(kinds: Kinds<'static>, entries: &[&RbacEntry]) -> Analysis {
    compare::analyse_kinds(
        &found(OPERATOR),
        entries,
        &kinds,
        &["op"],
        Path::new("/ws"),
        "manager-role",
    )
}

#[test]
fn every_call_not_granted_is_named_with_the_attribute_to_paste() {
    let analysis = analyse_with(kinds_with_document(), &[]);
    let shown: Vec<String> = analysis.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        shown,
        [
            "[ungranted-call] op/src/lib.rs:8:17 (run): `Controller::new` needs list, watch on documents.kube.rs cluster-wide (`Api::all`) (kube-runtime's watcher lists, then watches), and no #[rbac] grants it; add to `run` (op/src/lib.rs:6): #[kube_markers::rbac(groups = \"kube.rs\", resources = \"documents\", verbs = \"list;watch\")]",
            "[ungranted-call] op/src/lib.rs:9:10 (run): `.owns` needs list, watch on deployments.apps cluster-wide (`Api::all`) (kube-runtime's watcher lists, then watches), and no #[rbac] grants it; add to `run` (op/src/lib.rs:6): #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"list;watch\")]",
            "[ungranted-call] op/src/lib.rs:15:5 (reconcile): `finalizer` needs patch on documents.kube.rs in a namespace chosen at run time (`finalizer` adds and removes its finalizer with JSON patches), and no #[rbac] grants it; add to `reconcile` (op/src/lib.rs:13): #[kube_markers::rbac(groups = \"kube.rs\", resources = \"documents\", verbs = \"patch\")]",
            "[ungranted-call] op/src/lib.rs:17:13 (reconcile): `deploys.patch` needs create, patch on deployments.apps in a namespace chosen at run time (a server-side apply (`Patch::Apply`) creates the object when it does not exist, which kube-apiserver authorizes as `create`), and no #[rbac] grants it; add to `reconcile` (op/src/lib.rs:13): #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"create;patch\")]",
            "[ungranted-call] op/src/lib.rs:18:10 (reconcile): `docs.patch_status` needs patch on documents.kube.rs/status in a namespace chosen at run time, and no #[rbac] grants it; add to `reconcile` (op/src/lib.rs:13): #[kube_markers::rbac(groups = \"kube.rs\", resources = \"documents/status\", verbs = \"patch\")]",
        ]
    );
    assert_eq!(analysis.unknown.len(), 1);
    assert!(
        analysis.unknown[0].starts_with(
            "op/src/lib.rs:20:13: `dynamic.delete` needs delete, but the scan cannot tell on which kind: `Api<DynamicObject>`"
        ),
        "{}",
        analysis.unknown[0]
    );

    // Each attribute pasted as the warning writes it: the warnings are gone.
    let entries: Vec<RbacEntry> = analysis
        .warnings
        .iter()
        .enumerate()
        .map(|(i, w)| pasted(&w.needed.attribute(&w.missing), 100 + i as u32))
        .collect();
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let again = analyse_with(kinds_with_document(), &refs);
    assert_eq!(again.warnings, []);
    assert_eq!(again.unused, []);
}

#[test]
fn a_role_in_another_namespace_or_for_a_cluster_wide_call_does_not_grant() {
    let role = pasted(
        r#"#[kube_markers::rbac(groups = "kube.rs", resources = "documents", verbs = "list;watch;patch", namespace = "a")]"#,
        1,
    );
    let analysis = analyse_with(kinds_with_document(), &[&role]);
    let calls: Vec<&str> = analysis
        .warnings
        .iter()
        .map(|w| w.needed.call.as_str())
        .collect();
    // The finalizer's namespace is chosen at run time: the Role may be where it runs.
    assert!(calls.contains(&"Controller::new"));
    assert!(!calls.contains(&"finalizer"));
}

#[test]
fn a_verb_no_call_needs_is_the_unused_lint_and_allow_accepts_it() {
    let over = pasted(
        r#"#[kube_markers::rbac(groups = "apps", resources = "deployments", verbs = "list;watch;create;patch;delete;get")]"#,
        1,
    );
    let analysis = analyse_with(kinds_with_document(), &[&over]);
    let shown: Vec<String> = analysis.unused.iter().map(|w| w.to_string()).collect();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].starts_with(
            "warning[unused]: op/src/lib.rs:1:1 (reconcile): grants get on deployments.apps in ClusterRole \"manager-role\", which no kube call the scan found in crate `op` needs"
        ),
        "{}",
        shown[0]
    );
    // `delete` may be the unknown `dynamic.delete`'s: not reported.
    assert!(!shown[0].contains("delete"));
    // The way out the message names, written as it says.
    let allowed = pasted(
        r#"#[kube_markers::rbac(groups = "apps", resources = "deployments", verbs = "list;watch;create;patch;delete;get", allow(unused, reason = "kubectl-style get in the CLI crate"))]"#,
        1,
    );
    assert_eq!(analyse_with(kinds_with_document(), &[&allowed]).unused, []);
}

#[test]
fn onboarding_places_the_attributes_at_the_functions() {
    let analysis = analyse_with(kinds_with_document(), &[]);
    assert_eq!(
        onboard::render(&analysis.needed),
        "op/src/lib.rs:6: fn run
#[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"list;watch\")]
#[kube_markers::rbac(groups = \"kube.rs\", resources = \"documents\", verbs = \"list;watch\")]
op/src/lib.rs:13: fn reconcile
#[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"create;patch\")]
#[kube_markers::rbac(groups = \"kube.rs\", resources = \"documents\", verbs = \"patch\")]
#[kube_markers::rbac(groups = \"kube.rs\", resources = \"documents/status\", verbs = \"patch\")]
"
    );
}

#[test]
fn explain_puts_the_calls_beside_the_attributes() {
    let granted = pasted(
        r#"#[kube_markers::rbac(groups = "apps", resources = "deployments", verbs = "list;watch;create;patch")]"#,
        40,
    );
    let analysis = analyse_with(kinds_with_document(), &[&granted]);
    let text = explain::render(&analysis, &[&granted]);
    assert!(
        text.contains(
            "  create on deployments.apps
    needed by op/src/lib.rs:17:13 (reconcile): `deploys.patch`, in a namespace chosen at run time
    granted by op/src/lib.rs:40:1 (reconcile)
"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  patch on documents.kube.rs/status
    needed by op/src/lib.rs:18:10 (reconcile): `docs.patch_status`, in a namespace chosen at run time
    granted by: no attribute
"
        ),
        "{text}"
    );
}

/// A server-side apply needs `patch` and `create`: the warning (its text and its attribute),
/// `calls` and `explain` write them in one order, a role's (`rbac-out/`'s: alphabetical).
#[test]
fn calls_the_warning_and_explain_write_the_verbs_in_one_order() {
    let analysis = analyse_with(kinds_with_document(), &[]);
    let apply = analysis
        .warnings
        .iter()
        .find(|w| w.needed.call == "deploys.patch")
        .unwrap();
    let attribute = apply.needed.attribute(&apply.missing);
    assert_eq!(
        attribute,
        r#"#[kube_markers::rbac(groups = "apps", resources = "deployments", verbs = "create;patch")]"#
    );
    assert!(
        apply.to_string().contains("needs create, patch on"),
        "{apply}"
    );
    let calls = onboard::render(&analysis.needed);
    assert!(
        calls.contains(&format!("fn reconcile\n{attribute}\n")),
        "{calls}"
    );
    let explained = explain::render(&analysis, &[]);
    let at = |permission: &str| {
        explained
            .find(permission)
            .unwrap_or_else(|| panic!("{explained}"))
    };
    assert!(at("  create on deployments.apps\n") < at("  patch on deployments.apps\n"));
    assert!(at("  list on deployments.apps\n") < at("  watch on deployments.apps\n"));
}

#[test]
fn field_calls_resolve_across_the_crates_files_and_other_fields_are_no_calls() {
    let state = "pub struct State { pub docs: kube::Api<Document>, pub cache: HashMap<String, u8> }\n\
                 impl State { pub fn pods(&self) -> Api<Pod> { todo!() } }";
    let calls = "impl State {\n    fn go(&self) {\n        self.docs.delete(\"x\", &dp);\n        self.cache.get(\"x\");\n        \
                 self.pods().evict(\"x\", &ep);\n        self.client().patch(\"x\", &PatchParams::default(), &p);\n    }\n}\n";
    let files = vec![
        FoundCalls {
            package: "op".into(),
            krate: "op".into(),
            file: "/ws/op/src/state.rs".into(),
            calls: scan_calls(state).unwrap(),
        },
        FoundCalls {
            package: "op".into(),
            krate: "op".into(),
            file: "/ws/op/src/calls.rs".into(),
            calls: scan_calls(calls).unwrap(),
        },
    ];
    let analysis = compare::analyse_kinds(
        &files,
        &[],
        &kinds_with_document(),
        &["op"],
        Path::new("/ws"),
        "manager-role",
    );
    let shown: Vec<String> = analysis.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert!(
        shown[0].starts_with(
            "[ungranted-call] op/src/calls.rs:3:19 (go): `self.docs.delete` needs delete on documents.kube.rs"
        ),
        "{shown:?}"
    );
    assert!(
        shown[1].starts_with(
            "[ungranted-call] op/src/calls.rs:5:21 (go): `self.pods().evict` needs create on pods/eviction"
        ),
        "{shown:?}"
    );
    // Kube's parameters on a receiver the crate does not type: said, not guessed.
    assert_eq!(analysis.unknown.len(), 1, "{:?}", analysis.unknown);
    assert!(
        analysis.unknown[0].starts_with(
            "op/src/calls.rs:6:23: `self.client().patch` needs patch, but the scan cannot tell on which kind: its receiver `client` is no field, function or method the crate types as `Api<K>`"
        ),
        "{:?}",
        analysis.unknown
    );
}

/// A generic `K` takes the kinds the crate's call sites fix (by argument or turbofish, through
/// another generic function, across files); one no call site fixes is said once, unknown.
#[test]
fn generic_kinds_are_resolved_where_the_crate_calls_them() {
    let helpers = r#"
use kube::{Api, api::{Patch, PatchParams}};
pub async fn apply<K: Resource>(api: &Api<K>, obj: &K) {
    api.patch("x", &PatchParams::apply("m"), &Patch::Apply(obj)).await;
}
pub async fn ensure<K: Resource>(api: &Api<K>, obj: &K) {
    apply(api, obj).await;
    api.get("x").await;
}
pub async fn delete_all<T: Resource>(client: Client) {
    Api::<T>::all(client).delete_collection(&dp, &lp).await;
}
pub async fn never_fixed<K: Resource>(api: Api<K>) {
    api.list(&lp).await;
}
pub async fn unfixed<K: Resource>(api: &Api<K>) {
    api.delete("x", &dp).await;
}
pub async fn untyped<K: Resource>(api: Api<K>) {
    api.get("x").await;
}
"#;
    let lib = r#"
use k8s_openapi::api::{apps::v1::Deployment, core::v1::ConfigMap};
pub async fn reconcile(client: Client, cm: ConfigMap) {
    let deploys: Api<Deployment> = Api::all(client.clone());
    apply(&deploys, &d).await;
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "web");
    ensure(&cms, &cm).await;
    delete_all::<ConfigMap>(client.clone()).await;
    unfixed(&ctx.dynamic_api).await;
    untyped(make_api()).await;
}
"#;
    // Read together, as the generator reads a crate: a call site is read where it names a
    // generic function of another file.
    let read = crate::input::scan::calls::scan_crate_calls(&[helpers, lib]);
    let found: Vec<FoundCalls> = ["helpers.rs", "lib.rs"]
        .iter()
        .zip(read)
        .map(|(name, calls)| FoundCalls {
            package: "op".into(),
            krate: "op".into(),
            file: format!("/ws/op/src/{name}").into(),
            calls: calls.unwrap_or_default(),
        })
        .collect();
    let analysis = compare::analyse_kinds(
        &found,
        &[],
        &Kinds::new(&[]),
        &["op"],
        Path::new("/ws"),
        "manager-role",
    );
    let needed: Vec<String> = analysis
        .needed
        .iter()
        .map(|n| {
            format!(
                "{}:{} {} {} {}",
                n.file,
                n.line,
                n.call,
                n.verbs.join(";"),
                resource_text(&n.group, &n.resource)
            )
        })
        .collect();
    assert_eq!(
        needed,
        [
            "op/src/helpers.rs:4 api.patch create;patch deployments.apps",
            "op/src/helpers.rs:4 api.patch create;patch configmaps",
            "op/src/helpers.rs:8 api.get get configmaps",
            "op/src/helpers.rs:11 Api::<T>::all.delete_collection deletecollection configmaps",
        ]
    );
    assert_eq!(
        analysis.unknown,
        [
            "op/src/helpers.rs:14:9: `api.list` needs list, but the scan cannot tell on which kind: its kind is the generic `K` of `never_fixed`, and no call of it in the crate fixes it; grant it with an #[rbac] of its own (and allow(unused, reason = \"...\") there)",
            "op/src/helpers.rs:17:9: `api.delete` needs delete, but the scan cannot tell on which kind: its kind is the generic `K` of `unfixed`, and its call at op/src/lib.rs:9 passes `dynamic_api`, which the crate types as no `Api<K>`; grant it with an #[rbac] of its own (and allow(unused, reason = \"...\") there)",
            "op/src/helpers.rs:20:9: `api.get` needs get, but the scan cannot tell on which kind: its kind is the generic `K` of `untyped`, and its call at op/src/lib.rs:10 does not fix it; grant it with an #[rbac] of its own (and allow(unused, reason = \"...\") there)",
        ]
    );
}
