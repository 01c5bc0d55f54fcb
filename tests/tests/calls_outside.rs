//! The RBAC the code needs, from outside this workspace (a workspace made as the README's quick
//! start tells, `outside/mod.rs`): a working operator (a Controller owning Deployments, a
//! finalizer, a server-side apply, an event Recorder) with its attributes comes out clean;
//! with one attribute removed, the generator names each call that needed it, at its
//! `file:line`, with the attribute to paste; pasted as printed, above the function printed, the
//! warnings are gone; a verb no call needs is the `unused` lint, and `allow(unused, reason =
//! ...)` written as the message says accepts it; `calls` prints the attributes for the crate;
//! kube-markers' own leader election is named without the bundle's `leader-election = true`,
//! and each way out the warning prints (that line, or the attribute) silences it (`explain`
//! then shows the call beside the bundle's grant); a call
//! through a name another file gives (a prelude's rename and type alias, imported by a glob)
//! is named, and its attribute, pasted as printed, silences it; a call on a receiver the scan
//! cannot type, bound with its type by the line docs/least-privilege.md writes, compiles and
//! is named, and its attribute grants it; a rename another crate of the workspace gives is not
//! followed, and the doc's way out (the rename written in the calling crate) makes its calls
//! named; so do the ways out of three calls of unknown kind (an inferred `K`, a receiver that
//! is no binding, a subresource that is no literal), as the note and the doc write them.

#[allow(dead_code)] // shared with the other outside-workspace tests
mod outside;
use outside::{quick_start_workspace, run_built_generator, run_generator, write};
use std::path::Path;
use std::process::Output;

const LIB: &str = r#"use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::finalizer::{Event, finalizer};
use kube::runtime::watcher;
use kube::{Api, Client, CustomResource, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "shop.example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    pub size: i32,
}

pub struct Ctx {
    pub client: Client,
    pub recorder: Recorder,
}

#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

#[kube_markers::rbac(groups = "shop.example.com", resources = "widgets", verbs = "list;watch;patch")]
//DEPLOYMENTS
#[kube_markers::rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
pub async fn run(client: Client) {
    let widgets = Api::<Widget>::all(client.clone());
    let reporter = Reporter {
        controller: "widgets".into(),
        instance: None,
    };
    let recorder = Recorder::new(client.clone(), reporter);
    let _stream = Controller::new(widgets, watcher::Config::default())
        .owns(Api::<Deployment>::all(client.clone()), watcher::Config::default())
        .run(reconcile, error_policy, Arc::new(Ctx { client, recorder }));
}

pub async fn reconcile(widget: Arc<Widget>, ctx: Arc<Ctx>) -> Result<Action, Error> {
    let ns = widget.namespace().unwrap_or_default();
    let widgets: Api<Widget> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&widgets, "shop.example.com/cleanup", widget, |event| async {
        match event {
            Event::Apply(w) => apply(&w, &ctx.client).await,
            Event::Cleanup(_) => Ok(Action::await_change()),
        }
    })
    .await
    .map_err(|e| Error(e.to_string()))
}

async fn apply(widget: &Widget, client: &Client) -> Result<Action, Error> {
    let ns = widget.namespace().unwrap_or_default();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    deployments
        .patch(&widget.name_any(), &PatchParams::apply("widgets"), &Patch::Apply(Deployment::default()))
        .await
        .map_err(|e| Error(e.to_string()))?;
    Ok(Action::await_change())
}

pub fn error_policy(_w: Arc<Widget>, _e: &Error, _ctx: Arc<Ctx>) -> Action {
    Action::await_change()
}
"#;

const DEPLOYMENTS: &str = r#"#[kube_markers::rbac(groups = "apps", resources = "deployments", verbs = "list;watch;create;patch", allow(workload-write, reason = "it runs each widget as a Deployment"))]"#;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The 1-based line of `LIB` holding `needle` (the same with the Deployments' attribute in
/// place of its marker line).
fn line_of(needle: &str) -> usize {
    line_in(LIB, needle)
}

fn lib_path(ws: &Path) -> std::path::PathBuf {
    ws.join("my-operator/src/lib.rs")
}

/// The warnings of one kind (`[ungranted-call]`, `warning[unused]`) in a run's stderr.
fn lines_with<'a>(text: &'a str, what: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(what)).collect()
}

/// The generator run with `args`, succeeding: its stderr and its `[ungranted-call]` warnings.
fn ungranted_calls(ws: &Path, args: &[&str]) -> (String, Vec<String>) {
    let out = run_generator(ws, args);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    let ungranted = lines_with(&text, "[ungranted-call]")
        .into_iter()
        .map(str::to_string)
        .collect();
    (text, ungranted)
}

/// The 1-based line of `text` holding `needle`.
fn line_in(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn a_removed_attribute_is_named_at_the_calls_that_need_it() {
    let ws = quick_start_workspace("kube-calls", &LIB.replace("//DEPLOYMENTS", DEPLOYMENTS));
    // The whole operator granted: no call warning, no unused verb.
    let out = run_generator(&ws, &["--deny-warnings"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        lines_with(&stderr(&out), "[ungranted-call]"),
        Vec::<&str>::new()
    );

    // Onboarding: the attributes the code needs, at its functions.
    let calls = run_built_generator(&ws, &["calls"]);
    let printed = String::from_utf8_lossy(&calls.stdout).into_owned();
    assert!(calls.status.success(), "{}", stderr(&calls));
    let (run, reconcile, apply) = (
        line_of("pub async fn run"),
        line_of("pub async fn reconcile"),
        line_of("async fn apply"),
    );
    assert_eq!(
        printed,
        format!(
            "my-operator/src/lib.rs:{run}: fn run\n\
             #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"list;watch\")]\n\
             #[kube_markers::rbac(groups = \"events.k8s.io\", resources = \"events\", verbs = \"create;patch\")]\n\
             #[kube_markers::rbac(groups = \"shop.example.com\", resources = \"widgets\", verbs = \"list;watch\")]\n\
             my-operator/src/lib.rs:{reconcile}: fn reconcile\n\
             #[kube_markers::rbac(groups = \"shop.example.com\", resources = \"widgets\", verbs = \"patch\")]\n\
             my-operator/src/lib.rs:{apply}: fn apply\n\
             #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"create;patch\")]\n"
        )
    );

    // The Deployments' attribute removed: each call that needed it is named.
    write(&lib_path(&ws), LIB);
    let out = run_generator(&ws, &[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    let ungranted = lines_with(&text, "[ungranted-call]");
    assert_eq!(ungranted.len(), 2, "{text}");
    let owns = format!(
        "my-operator/src/lib.rs:{}:10 (run): `.owns` needs list, watch on deployments.apps cluster-wide (`Api::all`)",
        line_of(".owns(")
    );
    assert!(ungranted[0].contains(&owns), "{text}");
    assert!(ungranted[0].ends_with(&format!(
        "add to `run` (my-operator/src/lib.rs:{run}): #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"list;watch\")]"
    )), "{text}");
    let patch = format!(
        "my-operator/src/lib.rs:{}:10 (apply): `deployments.patch` needs create, patch on deployments.apps in a namespace chosen at run time (a server-side apply",
        line_of(".patch(")
    );
    assert!(ungranted[1].contains(&patch), "{text}");
    let denied = run_built_generator(&ws, &["--check", "--deny-warnings"]);
    assert!(!denied.status.success(), "{}", stderr(&denied));

    // Each attribute pasted as printed, above the function printed: the warnings are gone.
    let mut lines: Vec<String> = LIB.lines().map(str::to_string).collect();
    let mut pastes: Vec<(usize, String)> = ungranted
        .iter()
        .map(|w| {
            let (place, attribute) = w
                .split_once("): #[")
                .map(|(p, a)| (p, format!("#[{a}")))
                .unwrap();
            let line: usize = place.rsplit(':').next().unwrap().parse().unwrap();
            (line, attribute)
        })
        .collect();
    pastes.sort_by_key(|p| std::cmp::Reverse(p.0));
    for (line, attribute) in pastes {
        lines.insert(line - 1, attribute);
    }
    write(&lib_path(&ws), &(lines.join("\n") + "\n"));
    let (text, ungranted) = ungranted_calls(&ws, &[]);
    assert_eq!(ungranted, Vec::<String>::new(), "{text}");

    // A verb no call needs: the `unused` lint; its way out, as the message writes it.
    let over = LIB.replace(
        "//DEPLOYMENTS",
        &DEPLOYMENTS.replace("list;watch;create;patch", "list;watch;create;patch;delete"),
    );
    write(&lib_path(&ws), &over);
    let out = run_generator(&ws, &[]);
    let text = stderr(&out);
    let unused = lines_with(&text, "warning[unused]");
    assert_eq!(unused.len(), 1, "{text}");
    assert!(unused[0].contains("grants delete on deployments.apps in ClusterRole \"manager-role\", which no kube call the scan found in crate `my_operator` needs"), "{text}");
    assert!(
        unused[0].contains("allow(unused, reason = \"...\")"),
        "{text}"
    );
    write(
        &lib_path(&ws),
        &over.replace(
            "allow(workload-write,",
            "allow(unused, reason = \"a cleanup job of another crate deletes them\"), allow(workload-write,",
        ),
    );
    let out = run_generator(&ws, &["--deny-warnings"]);
    assert!(out.status.success(), "{}", stderr(&out));

    leader_election_is_granted_by_the_bundle_or_an_attribute(&ws);
    a_name_a_prelude_gives_is_read_in_another_file(&ws);
    a_call_the_build_leaves_out_needs_nothing(&ws);
    a_call_in_a_macro_is_said_and_its_way_out_holds(&ws);
    an_untyped_receiver_bound_as_the_doc_writes_is_named(&ws);
    a_rename_another_crate_gives_is_read_once_the_caller_names_the_item(&ws);
    each_unknown_kinds_way_out_as_written_names_its_call(&ws);
}

/// The operator's own leader election (`kube_markers::leader_election`, feature
/// `leader-election`), in the same workspace (no second build of its dependencies): without
/// the bundle's `leader-election = true` the call is named, with both ways out; each, applied
/// as printed, silences it.
fn leader_election_is_granted_by_the_bundle_or_an_attribute(ws: &Path) {
    let manifest = ws.join("my-operator/Cargo.toml");
    let cargo_toml = std::fs::read_to_string(&manifest).unwrap();
    let with_feature = cargo_toml.replace(
        r#"features = ["health"]"#,
        r#"features = ["health", "leader-election"]"#,
    );
    assert_ne!(with_feature, cargo_toml, "step 1's kube-markers line");
    write(&manifest, &with_feature);
    let lib = format!("{}{LEADER}", std::fs::read_to_string(lib_path(ws)).unwrap());
    write(&lib_path(ws), &lib);
    let at = |needle: &str| line_in(&lib, needle);
    let (call, function) = (at("LeaderElection::builder"), at("pub async fn elect"));
    let column = lib.lines().nth(call - 1).unwrap().find("builder").unwrap() + 1;

    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert_eq!(ungranted.len(), 1, "{text}");
    let expected = format!(
        "[ungranted-call] my-operator/src/lib.rs:{call}:{column} (elect): `LeaderElection::builder` needs create, get, update on leases.coordination.k8s.io in the operator's namespace (kube-markers' leader election reads its Lease, creates it when missing, and renews or takes it with updates), and neither the deploy bundle nor an #[rbac] grants it; add the line `leader-election = true` under `[package.metadata.kube-markers.bundle]` in codegen/Cargo.toml (the bundle's leader-election Role grants it in the operator's namespace), or add to `elect` (my-operator/src/lib.rs:{function}): #[kube_markers::rbac(groups = \"coordination.k8s.io\", resources = \"leases\", verbs = \"create;get;update\")]"
    );
    assert!(ungranted[0].ends_with(&expected), "{text}");
    let leases = r#"resources = "leases", verbs = "create;get;update")]"#;
    let onboard = |ws: &Path| {
        let calls = run_built_generator(ws, &["calls"]);
        assert!(calls.status.success(), "{}", stderr(&calls));
        String::from_utf8_lossy(&calls.stdout).into_owned()
    };
    assert!(onboard(ws).contains(leases));

    // The bundle's way out, as printed: that line, under that table, in that file.
    let between = |from: &str, to: &str| {
        let rest = &ungranted[0][ungranted[0].find(from).unwrap() + from.len()..];
        rest[..rest.find(to).unwrap()].to_string()
    };
    let line = between("add the line `", "` under");
    let table = between("` under `", "` in ");
    let file = ws.join(between("` in ", " (the bundle's"));
    let generator_toml = std::fs::read_to_string(&file).unwrap();
    write(&file, &format!("{generator_toml}\n{table}\n{line}\n"));
    let out = run_built_generator(ws, &[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert_eq!(
        lines_with(&text, "[ungranted-call]"),
        Vec::<&str>::new(),
        "{text}"
    );
    assert!(
        ws.join("rbac-out/leader_election_role.yaml").exists(),
        "{text}"
    );
    // `explain` shows the call beside the bundle's grant.
    let explained = run_built_generator(ws, &["explain"]);
    let shown = String::from_utf8_lossy(&explained.stdout).into_owned();
    assert!(explained.status.success(), "{}", stderr(&explained));
    for verb in ["create", "get", "update"] {
        let permission = format!(
            "  {verb} on leases.coordination.k8s.io\n    needed by my-operator/src/lib.rs:{call}:{column} (elect): `LeaderElection::builder`, in the operator's namespace\n    granted by the deploy bundle's `leader-election = true` (its leader-election Role, in the operator's namespace)\n"
        );
        assert!(shown.contains(&permission), "{shown}");
    }
    // `calls` prints no attribute for what the bundle grants.
    let printed = onboard(ws);
    assert!(
        !printed.contains(leases) && printed.contains("fn run"),
        "{printed}"
    );

    // The attribute's way out, as printed, above the function printed: no warning, and its
    // verbs are no `unused` grant.
    write(&file, &generator_toml);
    let (place, attribute) = ungranted[0].split_once("): #[").unwrap();
    let line: usize = place.rsplit(':').next().unwrap().parse().unwrap();
    let mut lines: Vec<&str> = lib.lines().collect();
    let attribute = format!("#[{attribute}");
    lines.insert(line - 1, &attribute);
    write(&lib_path(ws), &(lines.join("\n") + "\n"));
    let (text, ungranted) = ungranted_calls(ws, &["--deny-warnings"]);
    assert_eq!(ungranted, Vec::<String>::new(), "{text}");
}

const LEADER: &str = r#"
pub async fn elect(client: Client) {
    let _election = kube_markers::leader_election::LeaderElection::builder(client, "my-operator-leader")
        .build();
}
"#;

/// A prelude's rename and type alias (`pub type Cms = KubeApi<KConfigMap>;`), reached by a glob
/// in a file naming no kube word: the call is named at its line, with the attribute to paste;
/// pasted as printed, above the function printed, the warning is gone.
fn a_name_a_prelude_gives_is_read_in_another_file(ws: &Path) {
    let lib = format!(
        "{}\npub mod prelude;\npub mod sync;\n",
        std::fs::read_to_string(lib_path(ws)).unwrap()
    );
    write(&lib_path(ws), &lib);
    write(&ws.join("my-operator/src/prelude.rs"), PRELUDE);
    let sync_path = ws.join("my-operator/src/sync.rs");
    write(&sync_path, SYNC);
    let at = |needle: &str| line_in(SYNC, needle);
    let (call, function) = (at(".delete("), at("pub async fn sync"));
    let column = SYNC.lines().nth(call - 1).unwrap().find("delete").unwrap() + 1;

    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert_eq!(ungranted.len(), 1, "{text}");
    let expected = format!(
        "[ungranted-call] my-operator/src/sync.rs:{call}:{column} (sync): `cms.delete` needs delete on configmaps in namespace \"web\", and no #[rbac] grants it; add to `sync` (my-operator/src/sync.rs:{function}): #[kube_markers::rbac(groups = \"\", resources = \"configmaps\", verbs = \"delete\", namespace = \"web\")]"
    );
    assert!(ungranted[0].ends_with(&expected), "{text}");

    let (_, attribute) = ungranted[0].split_once("): #[").unwrap();
    let mut lines: Vec<&str> = SYNC.lines().collect();
    let attribute = format!("#[{attribute}");
    lines.insert(function - 1, &attribute);
    write(&sync_path, &(lines.join("\n") + "\n"));
    let (text, ungranted) = ungranted_calls(ws, &["--deny-warnings"]);
    assert_eq!(ungranted, Vec::<String>::new(), "{text}");
}

const PRELUDE: &str = r#"pub use k8s_openapi::api::core::v1::ConfigMap as KConfigMap;
pub use kube::Api as KubeApi;
pub type Cms = KubeApi<KConfigMap>;
"#;

/// Names no kube word: `Cms` is the prelude's.
const SYNC: &str = r#"use crate::prelude::*;

pub async fn sync(client: kube::Client) {
    let cms = Cms::namespaced(client, "web");
    let _ = cms.delete("stale", &Default::default()).await;
}
"#;

/// Calls behind a `cfg` the workspace's build leaves out (a feature it does not enable) are not
/// made: no warning asks for an attribute that, pasted there, would be left out too (and
/// would be warned about as not in the output). The call beside them, built, is named.
fn a_call_the_build_leaves_out_needs_nothing(ws: &Path) {
    let lib = format!(
        "{}\npub mod gated;\n",
        std::fs::read_to_string(lib_path(ws)).unwrap()
    );
    write(&lib_path(ws), &lib);
    write(&ws.join("my-operator/src/gated.rs"), GATED);
    let at = |needle: &str| line_in(GATED, needle);
    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert_eq!(ungranted.len(), 1, "{text}");
    let expected = format!(
        "[ungranted-call] my-operator/src/gated.rs:{}:21 (built): `secrets.get_opt` needs get on secrets in namespace \"web\"",
        at("get_opt")
    );
    assert!(ungranted[0].contains(&expected), "{text}");
    assert!(!text.contains("(gated)"), "{text}");
}

const GATED: &str = r#"use k8s_openapi::api::core::v1::Secret;
use kube::{Api, Client};

#[cfg(feature = "off")]
pub async fn gated(client: Client) {
    let secrets: Api<Secret> = Api::namespaced(client, "web");
    let _ = secrets.delete("s", &Default::default()).await;
}

pub async fn built(client: Client) {
    let secrets: Api<Secret> = Api::namespaced(client, "web");
    #[cfg(feature = "off")]
    let _ = secrets.create(&Default::default(), &Secret::default()).await;
    let _ = secrets.get_opt("s").await;
}
"#;

/// A request method's call in the body of the crate's own `macro_rules!` is said at its place,
/// of unknown kind; the attribute the note tells to write, with its `allow(unused, ...)`,
/// compiles, grants the Role and is no unused grant.
fn a_call_in_a_macro_is_said_and_its_way_out_holds(ws: &Path) {
    let lib = format!(
        "{}\npub mod macros;\n",
        std::fs::read_to_string(lib_path(ws)).unwrap()
    );
    write(&lib_path(ws), &lib);
    let path = ws.join("my-operator/src/macros.rs");
    write(&path, MACROS);
    let call = line_in(MACROS, "$api.get(");
    let column = MACROS.lines().nth(call - 1).unwrap().find("get(").unwrap() + 1;
    let out = run_generator(ws, &[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    let said = format!(
        "my-operator/src/macros.rs:{call}:{column}: `fetch!: .get` needs get, but the scan cannot \
         tell on which kind: it is in the body of `macro_rules! fetch`, which the scan does not \
         expand; grant it with an #[rbac] of its own (and allow(unused, reason = \"...\") there)"
    );
    assert!(text.contains(&said), "{text}");

    // The way out, as the note says, above the function invoking the macro.
    let granted = MACROS.replace(
        "pub async fn fetch_one",
        "#[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"get\", \
         namespace = \"ns\", allow(unused, reason = \"fetch! gets them\"))]\npub async fn fetch_one",
    );
    write(&path, &granted);
    let out = run_generator(ws, &[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert_eq!(
        lines_with(&text, "warning[unused]"),
        Vec::<&str>::new(),
        "{text}"
    );
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert!(role.contains("namespace: ns"), "{role}");
}

const MACROS: &str = r#"use k8s_openapi::api::apps::v1::Deployment;
use kube::{Api, Client};

macro_rules! fetch {
    ($api:expr, $name:expr) => {
        $api.get($name).await
    };
}

pub async fn fetch_one(client: Client) {
    let deployments: Api<Deployment> = Api::namespaced(client, "ns");
    let _ = fetch!(deployments, "x");
}
"#;

/// A call without kube's request parameters on a receiver the scan cannot type (an `if let`'s
/// binding of an `Option<Api<K>>` field) is not seen; the line docs/least-privilege.md writes
/// for it (taken from the doc), pasted above the call as written, compiles, and the call is
/// named at its line; the attribute printed, pasted above the method printed, grants it.
fn an_untyped_receiver_bound_as_the_doc_writes_is_named(ws: &Path) {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/least-privilege.md"
    ))
    .unwrap();
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let lead = "Bind it with its type first (`";
    let start = doc.find(lead).expect("the doc's way out") + lead.len();
    let way_out = &doc[start..start + doc[start..].find("`)").unwrap()];
    assert_eq!(way_out, "let api: &Api<Ingress> = api;");

    let lib = format!(
        "{}\npub mod untyped;\n",
        std::fs::read_to_string(lib_path(ws)).unwrap()
    );
    write(&lib_path(ws), &lib);
    let path = ws.join("my-operator/src/untyped.rs");
    write(&path, &UNTYPED.replace("//WAY OUT\n", ""));
    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert!(!text.contains("untyped.rs"), "{text}");
    assert!(
        ungranted.iter().all(|w| !w.contains("untyped.rs")),
        "{text}"
    );

    let bound = UNTYPED.replace("//WAY OUT", way_out);
    write(&path, &bound);
    let at = |needle: &str| line_in(&bound, needle);
    let (call, function) = (at("api.get("), at("pub async fn sync"));
    let column = bound.lines().nth(call - 1).unwrap().find("get(").unwrap() + 1;
    let (text, ungranted) = ungranted_calls(ws, &[]);
    let ours: Vec<&String> = ungranted
        .iter()
        .filter(|w| w.contains("untyped.rs"))
        .collect();
    assert_eq!(ours.len(), 1, "{text}");
    let expected = format!(
        "[ungranted-call] my-operator/src/untyped.rs:{call}:{column} (sync): `api.get` needs get on \
         ingresses.networking.k8s.io in the scope of the `Api` handed in, and no #[rbac] grants it; \
         add to `sync` (my-operator/src/untyped.rs:{function}): #[kube_markers::rbac(groups = \
         \"networking.k8s.io\", resources = \"ingresses\", verbs = \"get\")]"
    );
    assert!(ours[0].ends_with(&expected), "{text}");

    let (_, attribute) = ours[0].split_once("): #[").unwrap();
    let attribute = format!("    #[{attribute}");
    let mut lines: Vec<&str> = bound.lines().collect();
    lines.insert(function - 1, &attribute);
    write(&path, &(lines.join("\n") + "\n"));
    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert!(
        ungranted.iter().all(|w| !w.contains("untyped.rs")),
        "{text}"
    );
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert!(role.contains("  - ingresses\n"), "{role}");
}

const UNTYPED: &str = r#"use k8s_openapi::api::networking::v1::Ingress;
use kube::Api;

pub struct State {
    pub maybe: Option<Api<Ingress>>,
}

impl State {
    pub async fn sync(&self) {
        if let Some(api) = &self.maybe {
            //WAY OUT
            let _ = api.get("x").await;
        }
    }
}
"#;

/// A kube name renamed in another crate of the workspace (a shared library's prelude) is not
/// followed: a call without kube's request parameters on it is not seen, and one with them is
/// said of unknown kind. The way out docs/least-privilege.md writes (taken from the doc), the
/// rename written in the crate that calls it, makes both named at their lines; the attributes
/// printed, pasted above the function printed, grant them.
fn a_rename_another_crate_gives_is_read_once_the_caller_names_the_item(ws: &Path) {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/least-privilege.md"
    ))
    .unwrap();
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        doc.contains(
            "Name the kube item in the crate that calls it (`use \
             kube::runtime::events::Recorder;`, or the rename there)."
        ),
        "the doc's way out"
    );

    // The workspace's library crate `common`, its prelude renaming kube's items.
    let manifest = ws.join("Cargo.toml");
    let workspace = std::fs::read_to_string(&manifest).unwrap();
    write(
        &manifest,
        &workspace.replace(
            r#"members = ["my-operator", "codegen"]"#,
            r#"members = ["my-operator", "codegen", "common"]"#,
        ),
    );
    let operator_manifest = ws.join("my-operator/Cargo.toml");
    let operator = std::fs::read_to_string(&operator_manifest).unwrap();
    let (_, dependencies) = operator.split_once("[dependencies]").unwrap();
    write(
        &ws.join("common/Cargo.toml"),
        &format!(
            "[package]\nname = \"common\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]{dependencies}"
        ),
    );
    write(&ws.join("common/src/lib.rs"), COMMON);
    write(
        &operator_manifest,
        &operator.replace(
            "[dependencies]\n",
            "[dependencies]\ncommon = { path = \"../common\" }\n",
        ),
    );
    let lib = format!(
        "{}\npub mod tidy;\n",
        std::fs::read_to_string(lib_path(ws)).unwrap()
    );
    write(&lib_path(ws), &lib);
    let path = ws.join("my-operator/src/tidy.rs");
    write(&path, TIDY);
    let (get, delete) = (line_in(TIDY, ".get("), line_in(TIDY, ".delete("));

    // Not followed: the `get` unseen, the `delete` (kube's parameters) of unknown kind.
    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert!(ungranted.iter().all(|w| !w.contains("tidy.rs")), "{text}");
    assert!(!text.contains(&format!("tidy.rs:{get}:")), "{text}");
    let unknown = format!("my-operator/src/tidy.rs:{delete}:");
    let said: Vec<&str> = text.lines().filter(|l| l.contains(&unknown)).collect();
    assert_eq!(said.len(), 1, "{text}");
    assert!(said[0].contains("cannot tell on which kind"), "{text}");

    // The way out: the rename written where the calls are.
    let renamed = TIDY.replace(
        "use common::prelude::*;",
        "use k8s_openapi::api::core::v1::Secret as KSecret;\nuse kube::Api as Handle;",
    );
    write(&path, &renamed);
    let (get, delete) = (line_in(&renamed, ".get("), line_in(&renamed, ".delete("));
    let function = line_in(&renamed, "pub async fn tidy");
    let (text, ungranted) = ungranted_calls(ws, &[]);
    let ours: Vec<&String> = ungranted.iter().filter(|w| w.contains("tidy.rs")).collect();
    assert_eq!(ours.len(), 2, "{text}");
    for (line, verb) in [(get, "get"), (delete, "delete")] {
        let expected = format!(
            "(tidy): `secrets.{verb}` needs {verb} on secrets in namespace \"web\", and no \
             #[rbac] grants it; add to `tidy` (my-operator/src/tidy.rs:{function}): \
             #[kube_markers::rbac(groups = \"\", resources = \"secrets\", verbs = \"{verb}\", \
             namespace = \"web\")]"
        );
        assert!(
            ours.iter()
                .any(|w| w.contains(&format!("my-operator/src/tidy.rs:{line}:"))
                    && w.ends_with(&expected)),
            "{expected}\n{text}"
        );
    }
    let mut lines: Vec<String> = renamed.lines().map(str::to_string).collect();
    for warning in ours {
        let (_, attribute) = warning.split_once("): #[").unwrap();
        lines.insert(function - 1, format!("#[{attribute}"));
    }
    write(&path, &(lines.join("\n") + "\n"));
    let (text, ungranted) = ungranted_calls(ws, &["--deny-warnings"]);
    assert!(ungranted.iter().all(|w| !w.contains("tidy.rs")), "{text}");
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert!(role.contains("  - secrets\n"), "{role}");
}

const COMMON: &str = r#"pub mod prelude {
    pub use k8s_openapi::api::core::v1::Secret as KSecret;
    pub use kube::Api as Handle;
}
"#;

/// Names no kube word: `Handle` and `KSecret` are another crate's.
const TIDY: &str = r#"use common::prelude::*;
use kube::api::DeleteParams;

pub async fn tidy(client: kube::Client) {
    let secrets: Handle<KSecret> = Handle::namespaced(client, "web");
    let _ = secrets.get("token").await;
    let _ = secrets.delete("stale", &DeleteParams::default()).await;
}
"#;

/// Three calls whose kind the scan cannot tell, in code that compiles: an `Api` whose kind
/// rustc infers from a later use, a receiver that is no binding (a mutex's guard), a
/// subresource that is no literal. Each is said, of unknown kind, at its line; each way out,
/// as the note or docs/least-privilege.md writes it, makes the call named; the attributes
/// printed, pasted above the functions printed, grant them.
fn each_unknown_kinds_way_out_as_written_names_its_call(ws: &Path) {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/least-privilege.md"
    ))
    .unwrap();
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        doc.contains("| the scan does not follow other values | bind it with its type first |")
    );
    assert!(
        doc.contains(
            "| `get_subresource(var, ..)` | the subresource is not a literal | a literal,"
        )
    );

    let lib = format!(
        "{}\npub mod unknown;\n",
        std::fs::read_to_string(lib_path(ws)).unwrap()
    );
    write(&lib_path(ws), &lib);
    let path = ws.join("my-operator/src/unknown.rs");
    write(&path, UNKNOWN);
    let notes_at = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains("my-operator/src/unknown.rs:") && l.contains("cannot tell"))
            .map(str::to_string)
            .collect()
    };
    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert!(
        ungranted.iter().all(|w| !w.contains("unknown.rs")),
        "{text}"
    );
    let notes = notes_at(&text);
    assert_eq!(notes.len(), 3, "{text}");
    for needle in ["a.get(", ".patch(", "get_subresource("] {
        let at = format!("my-operator/src/unknown.rs:{}:", line_in(UNKNOWN, needle));
        assert!(notes.iter().any(|n| n.contains(&at)), "{at}\n{text}");
    }
    // The note's own spelling for the inferred kind.
    let inferred = format!("my-operator/src/unknown.rs:{}:", line_in(UNKNOWN, "a.get("));
    let note = notes.iter().find(|n| n.contains(&inferred)).unwrap();
    let turbofish = note
        .split_once("write `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .unwrap()
        .0;
    assert_eq!(turbofish, "Api::<K>::namespaced");

    // Each way out, as written: `K` is `ConfigMap`, the bound type the mutex holds, the
    // subresource `"log"`.
    let fixed = UNKNOWN
        .replace(
            "Api::namespaced(c, &ns)",
            &format!("{}(c, &ns)", turbofish.replace('K', "ConfigMap")),
        )
        .replace(
            "    let _ = held.lock().unwrap().patch(",
            "    let guard = held.lock().unwrap();\n    let api: &Api<ConfigMap> = &guard;\n    let _ = api.patch(",
        )
        .replace("get_subresource(which,", "get_subresource(\"log\",");
    write(&path, &fixed);
    let (text, ungranted) = ungranted_calls(ws, &[]);
    assert_eq!(notes_at(&text), Vec::<String>::new(), "{text}");
    let ours: Vec<&String> = ungranted
        .iter()
        .filter(|w| w.contains("unknown.rs"))
        .collect();
    for (needle, need) in [
        ("a.get(", "`a.get` needs get on configmaps"),
        ("api.patch(", "`api.patch` needs patch on configmaps"),
        (
            "get_subresource(",
            "`pods.get_subresource` needs get on pods/log",
        ),
    ] {
        let at = format!("my-operator/src/unknown.rs:{}:", line_in(&fixed, needle));
        assert!(
            ours.iter().any(|w| w.contains(&at) && w.contains(need)),
            "{at} {need}\n{text}"
        );
    }
    assert_eq!(ours.len(), 3, "{text}");

    let mut lines: Vec<String> = fixed.lines().map(str::to_string).collect();
    let mut pastes: Vec<(usize, String)> = ours
        .iter()
        .map(|w| {
            let (place, attribute) = w.split_once("): #[").unwrap();
            let line: usize = place.rsplit(':').next().unwrap().parse().unwrap();
            (line, format!("#[{attribute}"))
        })
        .collect();
    pastes.sort_by_key(|p| std::cmp::Reverse(p.0));
    for (line, attribute) in pastes {
        lines.insert(line - 1, attribute);
    }
    write(&path, &(lines.join("\n") + "\n"));
    let (text, ungranted) = ungranted_calls(ws, &["--deny-warnings"]);
    assert!(
        ungranted.iter().all(|w| !w.contains("unknown.rs")),
        "{text}"
    );
}

const UNKNOWN: &str = r#"use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Patch, PatchParams};
use kube::{Api, Client};
use std::sync::Mutex;

pub async fn inferred(c: Client, ns: String) {
    let a = Api::namespaced(c, &ns);
    let _cm: ConfigMap = a.get("settings").await.unwrap();
}

pub async fn held(held: &Mutex<Api<ConfigMap>>) {
    let _ = held.lock().unwrap().patch("x", &PatchParams::default(), &Patch::Merge(())).await;
}

pub async fn subresource(c: Client, which: &str) {
    let pods: Api<Pod> = Api::all(c);
    let _ = pods.get_subresource(which, "p").await;
}
"#;
