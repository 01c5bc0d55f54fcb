use super::*;

/// Each call as `line:column call kind scope verbs[ on sub][ (fixed resource)] in fn`.
fn shown(text: &str) -> Vec<String> {
    let found = scan_calls(text).expect("parses");
    found
        .calls
        .iter()
        .map(|c| {
            let kind = match &c.kind {
                KindRef::Type(t) => t.clone(),
                KindRef::Field(f) => format!("field {f}"),
                KindRef::Generic { function, param } => format!("generic {function}::{param}"),
                KindRef::Unknown(why) => format!("unknown ({why})"),
            };
            let scope = match &c.scope {
                Scope::Cluster => "cluster".to_string(),
                Scope::Namespace(ns) => format!("ns {ns}"),
                Scope::Namespaced => "namespaced".to_string(),
                Scope::Unknown => "scope?".to_string(),
            };
            let needs: Vec<String> = c
                .needs
                .iter()
                .map(|n| {
                    let mut s = n.verbs.join(";");
                    if let Some((g, r)) = n.resource {
                        s.push_str(&format!(" on {g}/{r}"));
                    }
                    if let Some(sub) = &n.subresource {
                        s.push_str(&format!(" sub {sub}"));
                    }
                    s
                })
                .collect();
            let function = c
                .function
                .as_ref()
                .map_or("-".to_string(), |f| format!("{}@{}", f.name, f.line));
            format!(
                "{}:{} {} {kind} {scope} {} in {function}",
                c.line,
                c.column,
                c.call,
                needs.join(", ")
            )
        })
        .collect()
}

#[test]
fn every_api_method_form() {
    let text = r#"
use k8s_openapi::api::core::v1::{Pod, ConfigMap};
use kube::{Api, api::{Patch, PatchParams, PostParams, DeleteParams, ListParams}};
async fn all(client: Client) {
    let pods: Api<Pod> = Api::namespaced(client.clone(), "web");
    pods.get("a").await;
    pods.get_opt("a").await;
    pods.list(&ListParams::default()).await;
    pods.watch(&wp, "0").await;
    pods.create(&PostParams::default(), &p).await;
    pods.replace("a", &pp, &p).await;
    pods.patch("a", &pmp, &Patch::Merge(x)).await;
    pods.patch("a", &pmp, &Patch::Apply(x)).await;
    pods.delete("a", &DeleteParams::default()).await;
    pods.delete_collection(&dp, &lp).await;
    pods.patch_status("a", &pmp, &Patch::Apply(s)).await;
    pods.replace_status("a", &pp, data).await;
    pods.get_scale("a").await;
    pods.get_subresource("ephemeralcontainers", "a").await;
    pods.create_subresource(sub, "a", &pp, data).await;
    pods.evict("a", &ep).await;
    pods.logs("a", &lp).await;
    pods.exec("a", cmd, &ap).await;
    pods.entry("a").await;
}
"#;
    assert_eq!(
        shown(text),
        [
            "6:10 pods.get k8s_openapi::api::core::v1::Pod ns web get in all@4",
            "7:10 pods.get_opt k8s_openapi::api::core::v1::Pod ns web get in all@4",
            "8:10 pods.list k8s_openapi::api::core::v1::Pod ns web list in all@4",
            "9:10 pods.watch k8s_openapi::api::core::v1::Pod ns web watch in all@4",
            "10:10 pods.create k8s_openapi::api::core::v1::Pod ns web create in all@4",
            "11:10 pods.replace k8s_openapi::api::core::v1::Pod ns web update in all@4",
            "12:10 pods.patch k8s_openapi::api::core::v1::Pod ns web patch in all@4",
            "13:10 pods.patch k8s_openapi::api::core::v1::Pod ns web patch;create in all@4",
            "14:10 pods.delete k8s_openapi::api::core::v1::Pod ns web delete in all@4",
            "15:10 pods.delete_collection k8s_openapi::api::core::v1::Pod ns web deletecollection in all@4",
            "16:10 pods.patch_status k8s_openapi::api::core::v1::Pod ns web patch sub status in all@4",
            "17:10 pods.replace_status k8s_openapi::api::core::v1::Pod ns web update sub status in all@4",
            "18:10 pods.get_scale k8s_openapi::api::core::v1::Pod ns web get sub scale in all@4",
            "19:10 pods.get_subresource k8s_openapi::api::core::v1::Pod ns web get sub ephemeralcontainers in all@4",
            "20:10 pods.create_subresource unknown (its subresource is not a string literal) ns web create in all@4",
            "21:10 pods.evict k8s_openapi::api::core::v1::Pod ns web create on /pods sub eviction in all@4",
            "22:10 pods.logs k8s_openapi::api::core::v1::Pod ns web get on /pods sub log in all@4",
            "23:10 pods.exec k8s_openapi::api::core::v1::Pod ns web get;create on /pods sub exec in all@4",
            "24:10 pods.entry k8s_openapi::api::core::v1::Pod ns web get;create;update in all@4",
        ]
    );
}

#[test]
fn kinds_from_turbofish_let_param_field_rename_and_apply_binding() {
    let text = r#"
use kube::Api as KubeApi;
use k8s_openapi::api::apps::v1::Deployment as Deploy;
use crate::v1::Document;
struct Ctx { docs: kube::Api<Document>, n: u32 }
impl Ctx {
    fn go(&self) { self.docs.list(&lp); }
}
pub async fn apply(cm: Arc<ConfigMap>, secrets: &kube::Api<Secret>) {
    let patch = Patch::Apply(x);
    secrets.patch("s", &pp, &patch).await;
    let d = KubeApi::<Deploy>::all(c);
    d.clone().delete("x", &dp).await;
    KubeApi::<Deploy>::default_namespaced(c).get("x").await;
}
"#;
    let found = scan_calls(text).unwrap();
    assert_eq!(
        found.api_fields,
        [(
            "docs".to_string(),
            KindRef::Type("crate::v1::Document".into())
        )]
    );
    assert_eq!(
        shown(text),
        [
            "7:30 self.docs.list field docs scope? list in go@7",
            "11:13 secrets.patch Secret scope? patch;create in apply@9",
            "13:15 d.delete k8s_openapi::api::apps::v1::Deployment cluster delete in apply@9",
            "14:46 KubeApi::<Deploy>::default_namespaced.get k8s_openapi::api::apps::v1::Deployment namespaced get in apply@9",
        ]
    );
}

/// An `Api<K>` behind `Arc`, `Box` or `Rc` (a shared context's field, a parameter, a `let`) is
/// the `Api`'s: its methods are called through the pointer.
#[test]
fn an_api_behind_a_shared_pointer() {
    let text = r#"
struct Ctx { accounts: Arc<Api<ServiceAccount>>, boxed: Box<kube::Api<Secret>>, n: Arc<u32> }
impl Ctx {
    async fn go(&self, pods: &Arc<Api<Pod>>) {
        self.accounts.create(&pp, &sa).await;
        self.boxed.get("s").await;
        pods.delete("p", &dp).await;
        let cms: Rc<Api<ConfigMap>> = Rc::new(Api::all(c));
        cms.list(&lp).await;
    }
}
"#;
    let found = scan_calls(text).unwrap();
    assert_eq!(
        found.api_fields,
        [
            (
                "accounts".to_string(),
                KindRef::Type("ServiceAccount".into())
            ),
            ("boxed".to_string(), KindRef::Type("Secret".into())),
        ]
    );
    assert_eq!(
        shown(text),
        [
            "5:23 self.accounts.create field accounts scope? create in go@4",
            "6:20 self.boxed.get field boxed scope? get in go@4",
            "7:14 pods.delete Pod scope? delete in go@4",
            "9:13 cms.list ConfigMap scope? list in go@4",
        ]
    );
}

#[test]
fn runtime_wiring() {
    let text = r#"
use kube::runtime::{Controller, watcher, finalizer::finalizer, events::Recorder};
pub async fn run(client: Client) {
    let docs = Api::<Document>::all(client.clone());
    let cms = Api::<ConfigMap>::all(client.clone());
    Controller::new(docs, watcher::Config::default())
        .owns(cms, watcher::Config::default())
        .watches(Api::<Secret>::all(client.clone()), Default::default(), map)
        .owns_stream(stream)
        .run(reconcile, error_policy, ctx);
    let s = watcher(Api::<Pod>::namespaced(client, &ns), watcher::Config::default());
    let r = Recorder::new(client.clone(), reporter);
}
async fn reconcile(doc: Arc<Document>, ctx: Arc<Ctx>) -> Result<Action> {
    let docs: Api<Document> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&docs, NAME, doc, |event| async { Ok(()) }).await;
    finalizer(&ctx.api(), NAME, doc, |event| async { Ok(()) }).await;
}
"#;
    assert_eq!(
        shown(text),
        [
            "6:17 Controller::new Document cluster list;watch in run@3",
            "7:10 .owns ConfigMap cluster list;watch in run@3",
            "8:10 .watches Secret cluster list;watch in run@3",
            "11:13 watcher Pod namespaced list;watch in run@3",
            "12:23 Recorder::new k8s_openapi::api::events::v1::Event namespaced create;patch on events.k8s.io/events in run@3",
            "16:5 finalizer Document namespaced patch in reconcile@14",
            "17:5 finalizer Document scope? patch in reconcile@14",
        ]
    );
}

#[test]
fn unknown_kinds_are_said_once_per_call() {
    let text = r#"
async fn generic<K: Resource>(api: Api<K>) { api.get("x").await; }
async fn dynamic(api: &Api<DynamicObject>) { api.list(&lp).await; }
async fn untyped(c: Client) {
    let a = Api::namespaced(c, "x");
    a.create(&PostParams::default(), &obj).await;
    something().patch("x", &PatchParams::default(), &p).await;
    map.get("key");
}
"#;
    assert_eq!(
        shown(text),
        [
            "2:50 api.get generic generic::K scope? get in generic@2",
            "3:50 api.list unknown (`Api<DynamicObject>` takes its kind from an `ApiResource` at run time) scope? list in dynamic@3",
            "6:7 a.create unknown (`Api::namespaced` is called without naming its kind: write `Api::<K>::namespaced` or give the binding its type (`let x: Api<K> = ...`)) ns x create in untyped@4",
            "7:17 something.patch field something scope? patch in untyped@4",
        ]
    );
}

#[test]
fn macros_tests_and_shadowing() {
    let text = r#"
async fn m(c: Client) {
    let cms: Api<ConfigMap> = Api::all(c);
    tokio::try_join!(cms.get("a"), cms.list(&lp));
    tokio::select! { x = cms.delete("a", &dp) => {}, }
    {
        let cms = HashMap::new();
        cms.get("a");
    }
    #[cfg(test)]
    cms.create(&pp, &o).await;
}
#[cfg(test)]
mod tests { async fn t(a: Api<Pod>) { a.delete("x", &dp).await; } }
#[test]
fn t2() { let a: Api<Pod> = todo!(); a.get("x"); }
"#;
    assert_eq!(
        shown(text),
        [
            "4:26 cms.get ConfigMap cluster get in m@2",
            "4:40 cms.list ConfigMap cluster list in m@2",
            "5:30 cms.delete ConfigMap cluster delete in m@2",
        ]
    );
}

/// The cfgs around each call, outermost first: the item's (an `impl`'s, a method's, a
/// function's) and the statement's, for the generator to evaluate against the build.
#[test]
fn calls_carry_the_cfgs_around_them() {
    let text = r#"
#[cfg(feature = "a")]
impl Ctx {
    #[cfg(unix)]
    async fn m(&self, c: Client) {
        let cms: Api<ConfigMap> = Api::all(c);
        #[cfg(not(feature = "b"))]
        cms.get("a").await;
        cms.list(&lp).await;
    }
}
async fn plain(cms: Api<ConfigMap>) { cms.delete("a", &dp).await; }
#[cfg(feature = "c")]
async fn gated(cms: Api<ConfigMap>) { cms.replace("a", &pp, &o).await; }
"#;
    let found = scan_calls(text).expect("parses");
    let cfgs: Vec<(String, Vec<String>)> = found
        .calls
        .iter()
        .map(|c| {
            (
                c.call.clone(),
                c.cfgs.iter().map(|g| g.to_string()).collect(),
            )
        })
        .collect();
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        cfgs,
        [
            (
                "cms.get".to_string(),
                strings(&["feature = \"a\"", "unix", "not(feature = \"b\")"])
            ),
            (
                "cms.list".to_string(),
                strings(&["feature = \"a\"", "unix"])
            ),
            ("cms.delete".to_string(), Vec::new()),
            ("cms.replace".to_string(), strings(&["feature = \"c\""])),
        ]
    );
}

#[test]
fn prefilter_and_parse_errors() {
    assert!(!may_hold_kube_calls("fn main() { println!(\"hi\") }"));
    assert!(may_hold_kube_calls("use kube::Api;"));
    assert!(scan_calls("fn (").is_err());
}

/// `use` renames through other renames (kube-rs's `crd_apply` example), `DeserializeGuard<K>`
/// as `K`, and the `unstable-client` requests of a `Client` (`node_watcher`).
#[test]
fn renames_through_renames_guards_and_client_requests() {
    let text = r#"
use apiexts::CustomResourceDefinition;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiexts;
use k8s_openapi::api::core::v1::{ConfigMap, Event};
use kube::{Api, client::scope, core::DeserializeGuard};
async fn run(client: &Client) {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let establish = await_condition(crds, "foos.clux.dev", is_crd_established());
    let cms = Api::<DeserializeGuard<ConfigMap>>::default_namespaced(client.clone());
    watcher(cms, wc);
    let evlist = client.list::<Event>(&opts, &scope::Cluster).await;
    let one = client.get::<ConfigMap>("x", &scope::Namespace::from("web")).await;
    let not_kube = cache.get::<ConfigMap>(&key);
}
"#;
    assert_eq!(
        shown(text),
        [
            "8:21 await_condition k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition cluster list;watch in run@6",
            "10:5 watcher k8s_openapi::api::core::v1::ConfigMap namespaced list;watch in run@6",
            "11:25 client.list k8s_openapi::api::core::v1::Event cluster list in run@6",
            "12:22 client.get k8s_openapi::api::core::v1::ConfigMap namespaced get in run@6",
        ]
    );
}

/// A kind generic in its function is the function's to fix: the function's signature and
/// the calls that may fix it are recorded (the generator resolves them across the crate).
#[test]
fn generic_kinds_and_their_call_sites() {
    let text = r#"
use k8s_openapi::api::apps::v1::Deployment;
use kube::Api;
async fn apply<K: Resource>(api: &Api<K>, obj: Arc<K>, n: u32) {
    api.patch("x", &pp, &Patch::Apply(obj)).await;
}
async fn get_one<T>(client: Client) {
    Api::<T>::all(client).get("x").await;
}
impl<S> Wrapper<S> {
    async fn list_all(&self, api: Api<S>) { api.list(&lp).await; }
}
async fn run(client: Client, d: Arc<Deployment>) {
    let deploys: Api<Deployment> = Api::all(client.clone());
    apply(&deploys, d.clone(), 1).await;
    get_one::<Deployment>(client).await;
}
"#;
    assert_eq!(
        shown(text),
        [
            "5:9 api.patch generic apply::K scope? patch;create in apply@4",
            "8:27 Api::<T>::all.get generic get_one::T cluster get in get_one@7",
            "11:49 api.list unknown (its kind is the generic `S`, known only where the function is called) scope? list in list_all@11",
        ]
    );
    let found = scan_calls(text).unwrap();
    assert_eq!(
        found.generic_fns,
        [
            GenericFn {
                name: "apply".into(),
                type_params: vec!["K".into()],
                params: vec![Some("K".into()), Some("K".into()), None],
            },
            GenericFn {
                name: "get_one".into(),
                type_params: vec!["T".into()],
                params: vec![None],
            },
        ]
    );
    let sites: Vec<_> = found
        .instantiations
        .iter()
        .filter(|i| i.name == "apply" || i.name == "get_one")
        .collect();
    let deployment = KindRef::Type("k8s_openapi::api::apps::v1::Deployment".into());
    assert_eq!(
        sites,
        [
            &Instantiation {
                name: "apply".into(),
                turbofish: vec![],
                args: vec![Some(deployment.clone()), Some(deployment.clone()), None],
                line: 15,
            },
            &Instantiation {
                name: "get_one".into(),
                turbofish: vec![deployment],
                // The binding's type, whatever it is: only a parameter typed by `K` reads it.
                args: vec![Some(KindRef::Type("Client".into()))],
                line: 16,
            },
        ]
    );
}

/// The `.rs` files under `dir`, sorted.
fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Blanking the kept items' docs and unread attributes changes nothing found (against only
/// the items blanked, which the corpus and forms tests hold to the truth): every file of the
/// corpus of real operators, the examples and the call scan's own sources and tests.
#[test]
fn masking_changes_nothing_found() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files: Vec<std::path::PathBuf> = [
        "tests/fixtures/calls-corpus",
        "examples",
        "generator/src/check/calls",
        "scan/src/calls",
    ]
    .iter()
    .flat_map(|dir| rust_files(&root.join(dir)))
    .collect();
    let mut blanked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let Some(masked) = mask::masked(&text, &[]) else {
            continue;
        };
        blanked += 1;
        // Every line, and every character kept at its column (a blank's lines before its
        // last are left empty).
        assert_eq!(
            masked.lines().count(),
            text.lines().count(),
            "{}",
            file.display()
        );
        for (m, t) in masked.lines().zip(text.lines()) {
            let t: Vec<char> = t.chars().collect();
            for (column, c) in m.chars().enumerate() {
                assert!(
                    c == ' ' || t.get(column) == Some(&c),
                    "{}: {m:?} is not {t:?}",
                    file.display()
                );
            }
        }
        alone(&text, |in_crate| {
            let found = super::scan_keeping(&text, &[], in_crate).unwrap();
            let shown = file.display();
            let items_read = |names: &[String]| {
                let items = mask::items_masked(&text, names).unwrap_or_else(|| text.clone());
                visit::calls_in(&syn::parse_file(&items).unwrap(), in_crate)
            };
            let items = items_read(&[]);
            assert_eq!(found.calls, items.calls, "{shown}");
            assert_eq!(found.api_fields, items.api_fields, "{shown}");
            // A generic function and its call sites are read where a call takes its `K` (the
            // generator passes their names): the same, with those names, as the items read.
            // Any other function's are read by no one: the finer mask may leave them out.
            let names = super::generic_names([&items]);
            let generic = |f: FileCalls| -> (Vec<GenericFn>, Vec<Instantiation>) {
                (
                    f.generic_fns
                        .into_iter()
                        .filter(|g| names.contains(&g.name))
                        .collect(),
                    f.instantiations
                        .into_iter()
                        .filter(|i| names.contains(&i.name))
                        .collect(),
                )
            };
            let found = super::scan_keeping(&text, &names, in_crate).unwrap();
            assert_eq!(generic(found), generic(items_read(&names)), "{shown}");
            // And every function called kept as a generic one would be: its sites the same.
            let called: Vec<String> = items
                .instantiations
                .iter()
                .map(|i| i.name.clone())
                .collect();
            let sites = |f: FileCalls| -> Vec<Instantiation> {
                f.instantiations
                    .into_iter()
                    .filter(|i| called.contains(&i.name))
                    .collect()
            };
            assert_eq!(
                sites(super::scan_keeping(&text, &called, in_crate).unwrap()),
                sites(items_read(&called)),
                "{shown}"
            );
        });
    }
    assert!(
        blanked >= 30,
        "only {blanked} of {} files masked",
        files.len()
    );
}

/// The mask loses nothing syn would find in the whole text: each crate's files (each operator
/// of the corpus, each example, and the call scan's own sources file by file) read as the
/// generator reads them find the same calls, `Api` fields, and the same generic functions and
/// call sites wherever a call takes a generic `K`, as the same files parsed unmasked.
#[test]
fn the_mask_loses_nothing_the_whole_text_holds() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut crates: Vec<Vec<std::path::PathBuf>> = Vec::new();
    for parent in ["tests/fixtures/calls-corpus", "examples"] {
        for entry in std::fs::read_dir(root.join(parent)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                crates.push(rust_files(&path));
            }
        }
    }
    for dir in ["generator/src/check/calls", "scan/src/calls"] {
        crates.extend(rust_files(&root.join(dir)).into_iter().map(|f| vec![f]));
    }
    let mut compared = 0;
    for files in &crates {
        let texts: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let masked = scan_crate_calls(&refs);
        // Each file its crate's root, as `scan_crate_calls` reads it.
        let alone: Vec<CrateFile<'_>> = (0..)
            .zip(&refs)
            .map(|(root, text)| CrateFile::crate_root(text, root))
            .collect();
        let crate_names = super::names::CrateNames::new(&alone);
        let whole: Vec<Option<FileCalls>> = (0..)
            .zip(&refs)
            .map(|(root, t)| {
                // Test-only modules left out, as the mask leaves them (their `use`s too).
                let mut file = syn::parse_file(t).ok()?;
                file.items.retain(|item| match item {
                    syn::Item::Mod(m) => !syntax::is_test_only(&m.attrs),
                    syn::Item::Fn(f) => !syntax::is_test_only(&f.attrs),
                    _ => true,
                });
                let in_crate = visit::InCrate {
                    names: &crate_names,
                    file: root as usize,
                    root,
                    module: Vec::new(),
                };
                Some(visit::calls_in(&file, &in_crate))
            })
            .collect();
        let names = super::generic_names(whole.iter().flatten());
        // A call on a field or function the crate types as no `Api` is no kube call (the
        // generator drops it: `self.labels.get(k)`), unless its arguments are kube's.
        let api_fields: Vec<String> = whole
            .iter()
            .flatten()
            .flat_map(|f| f.api_fields.iter().map(|(name, _)| name.clone()))
            .collect();
        let kube_calls = |f: &FileCalls| -> Vec<KubeCall> {
            f.calls
                .iter()
                .filter(|c| match &c.kind {
                    KindRef::Field(name) => c.params_shaped || api_fields.contains(name),
                    _ => true,
                })
                .cloned()
                .collect()
        };
        for ((file, masked), whole) in files.iter().zip(masked).zip(whole) {
            let shown = file.display();
            let Some(whole) = whole else {
                assert!(masked.is_none(), "{shown}");
                continue;
            };
            compared += 1;
            let masked = masked.unwrap_or_default();
            assert_eq!(kube_calls(&masked), kube_calls(&whole), "{shown}");
            assert_eq!(masked.api_fields, whole.api_fields, "{shown}");
            let generic = |f: &FileCalls| -> (Vec<GenericFn>, Vec<Instantiation>) {
                (
                    f.generic_fns
                        .iter()
                        .filter(|g| names.contains(&g.name))
                        .cloned()
                        .collect(),
                    f.instantiations
                        .iter()
                        .filter(|i| names.contains(&i.name))
                        .cloned()
                        .collect(),
                )
            };
            assert_eq!(generic(&masked), generic(&whole), "{shown}");
        }
    }
    assert!(compared >= 50, "only {compared} files compared");
}

#[test]
fn kube_words_are_found_where_they_start() {
    assert_eq!(mask::next_kube_word(b"let x: Api<K>", 0), Some(7));
    assert_eq!(mask::next_kube_word(b"PatchParams", 0), Some(5));
    assert_eq!(
        mask::next_kube_word(b"use kube::runtime::watcher", 0),
        Some(19)
    );
    assert_eq!(mask::next_kube_word(b"A Ap Contr", 0), None);
    assert_eq!(mask::next_kube_word(b"Api Api", 1), Some(4));
    // The attributes the scan does not read are blanked in the items it keeps; docs too.
    let text = "/// Api docs\n#[rbac(x)]\n#[cfg(test)]\nfn a() {}\n#[derive(Debug)]\n#[tokio::test]\nasync fn b(a: Api<Pod>) {}\n";
    let masked = mask::masked(text, &[]).unwrap();
    assert_eq!(
        masked,
        "\n\n\n         \n                \n#[tokio::test]\nasync fn b(a: Api<Pod>) {}\n"
    );
}

/// An item naming a kube word only through a `use` rename is parsed: the rename's calls are
/// found (each in an item of its own, naming no kube word), through renames of renames and
/// `self` renames, in any `use` of the file; a rename of something else keeps nothing.
#[test]
fn the_mask_keeps_items_naming_a_kube_rename() {
    let text = r#"
use kube::runtime::events::Recorder as Rec;
use kube::runtime::Controller as Ctl;
use kube::Api as KApi;
use KApi as Handle;
use kube::runtime::watcher::{self as w, watch_object as wo};
use kube_markers::leader_election::LeaderElection as Elector;
use std::collections::HashMap as Map;
fn recorder(client: Client, reporter: Reporter) -> Rec {
    Rec::new(client, reporter)
}
async fn run(client: Client) {
    Ctl::new(KApi::<Pod>::all(client), Default::default());
}
async fn get(h: Handle<Secret>) {
    h.get("x").await;
}
async fn watch(h: Handle<Secret>, cfg: Config) {
    w(h, cfg);
}
async fn one(c: Ctx) {
    wo(c.secrets.clone(), "x");
}
async fn elect(client: Client) {
    Elector::builder(client, "lease");
}
fn other() -> Map<String, String> {
    Map::new()
}
"#;
    let masked = mask::masked(text, &[]).unwrap();
    assert!(masked.contains("Rec::new(client, reporter)"));
    assert!(!masked.contains("Map::new()"), "{masked}");
    assert_eq!(
        shown(text),
        [
            "10:10 Recorder::new k8s_openapi::api::events::v1::Event namespaced create;patch on events.k8s.io/events in recorder@9",
            "13:10 Controller::new Pod cluster list;watch in run@12",
            "16:7 h.get Secret scope? get in get@15",
            "19:5 watcher Secret scope? list;watch in watch@18",
            "22:5 watch_object field secrets scope? list;watch in one@21",
            "25:14 LeaderElection::builder k8s_openapi::api::coordination::v1::Lease namespaced get;create;update on coordination.k8s.io/leases in elect@24",
        ]
    );
}

/// A call site of a generic function whose `K` a call takes is parsed wherever it is, in an
/// item naming no kube word: in the file (`scan_calls`), in another file of the crate, and
/// through a generic function calling it (`scan_crate_calls`); a file holding nothing of that
/// is `None`.
#[test]
fn the_mask_keeps_the_call_sites_of_generic_functions() {
    let helper = r#"
use kube::{Api, Client};
pub async fn helper<K: Resource>(c: Client) {
    Api::<K>::all(c).list(&Default::default()).await;
}
async fn deployments(c: Client) {
    helper::<Deployment>(c).await
}
async fn sync(c: Client) {
    helper::<Secret>(c).await
}
"#;
    let one = scan_calls(helper).unwrap();
    let sites: Vec<(usize, &[KindRef])> = one
        .instantiations
        .iter()
        .filter(|i| i.name == "helper")
        .map(|i| (i.line, i.turbofish.as_slice()))
        .collect();
    let ty = |t: &str| KindRef::Type(t.into());
    assert_eq!(
        sites,
        [(7, &[ty("Deployment")][..]), (10, &[ty("Secret")][..]),]
    );
    // The sites in other files, one through a generic function of its own, one by a method.
    let outer = r#"
use crate::helper;
pub async fn outer<T>(c: Client) {
    helper::<T>(c).await
}
"#;
    let caller = r#"
async fn configmaps(c: Client) {
    crate::outer::outer::<ConfigMap>(c).await;
}
fn unrelated() {}
"#;
    let none = "fn nothing() { let m = HashMap::new(); }\n";
    let found = scan_crate_calls(&[helper, outer, caller, none]);
    assert!(found[3].is_none());
    let sites: Vec<(&str, usize, &[KindRef])> = found
        .iter()
        .flatten()
        .flat_map(|f| &f.instantiations)
        .filter(|i| i.name == "helper" || i.name == "outer")
        .map(|i| (i.name.as_str(), i.line, i.turbofish.as_slice()))
        .collect();
    let generic = KindRef::Generic {
        function: "outer".into(),
        param: "T".into(),
    };
    assert_eq!(
        sites,
        [
            ("helper", 7, &[ty("Deployment")][..]),
            ("helper", 10, &[ty("Secret")][..]),
            ("helper", 4, &[generic][..]),
            ("outer", 3, &[ty("ConfigMap")][..]),
        ]
    );
    // The files read one by one lose them.
    assert!(scan_calls(caller).unwrap().instantiations.is_empty());
}

/// A `Client`'s own requests (`client.get::<K>(..)`) name no kube word: their items are kept.
#[test]
fn the_mask_keeps_client_requests() {
    let text = r#"
async fn one(client: Client) {
    client.get::<ConfigMap>("x", &scope::Namespace::from("web")).await;
}
"#;
    assert_eq!(
        shown(text),
        ["3:12 client.get ConfigMap namespaced get in one@2"]
    );
}

/// The reader of each module's names: use trees in every form, visibility, attributes, raw
/// identifiers, generic aliases (defaults too), inline modules, test modules left out; and
/// what paths then name, from the module that writes them.
#[test]
fn names_across_modules_resolve_as_rustc_would() {
    use super::names::{CrateNames, Named};
    let lib = r#"
#![allow(unused)]
/// Docs.
#[doc(hidden)]
pub(crate) use kube::{self as k, runtime::{watcher::{self as w}, events::{Recorder as Rec, Reporter}}};
pub use ::kube::Api as r#KApi;
pub mod a;
pub type Handle<K: Resource = Pod, const N: usize = 1> = KApi<K>;
pub struct Local;
mod inner {
    pub use super::Rec as Again;
    pub use crate::a::*;
}
#[cfg(test)]
mod tests {
    pub use kube::Api as TestApi;
}
"#;
    let a = "pub use k8s_openapi::api::core::v1::Pod as P;\nuse super::*;\npub struct Rec;\n";
    let files = [CrateFile::at("lib.rs", lib), CrateFile::at("a.rs", a)];
    let names = CrateNames::new(&files);
    let path = |module: &[&str], p: &str| {
        let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        let p: Vec<String> = p.split("::").map(str::to_string).collect();
        names.path(0, &module, &p)
    };
    let outside = |p: &str| Some(Named::Outside(p.to_string()));
    assert_eq!(
        path(&[], "Rec::new"),
        outside("kube::runtime::events::Recorder::new")
    );
    assert_eq!(path(&[], "w"), outside("kube::runtime::watcher"));
    assert_eq!(path(&[], "k::Client"), outside("kube::Client"));
    assert_eq!(path(&[], "KApi"), outside("kube::Api"));
    assert_eq!(
        path(&["inner"], "Again"),
        outside("kube::runtime::events::Recorder")
    );
    // The glob of `a` brings `P`; `a`'s own `Rec` shadows the glob of the root's.
    assert_eq!(
        path(&["inner"], "P"),
        outside("k8s_openapi::api::core::v1::Pod")
    );
    assert_eq!(
        path(&["a"], "Rec::new"),
        Some(Named::Local("crate::a::Rec::new".into()))
    );
    assert_eq!(
        path(&["a"], "Reporter"),
        outside("kube::runtime::events::Reporter")
    );
    assert_eq!(
        path(&["a"], "super::Local"),
        Some(Named::Local("crate::Local".into()))
    );
    assert_eq!(
        path(&["a"], "Handle"),
        Some(Named::Alias {
            root: 0,
            module: vec![],
            params: vec!["K".into()],
            ty: "KApi<K>".into(),
        })
    );
    // Test modules are no module the operator runs; other paths are as written.
    assert_eq!(path(&["tests"], "TestApi"), outside("TestApi"));
    assert_eq!(
        path(&[], "serde::Deserialize"),
        outside("serde::Deserialize")
    );
    assert_eq!(path(&[], "crate::nowhere::X"), None);
}

/// Inside a kept `impl`, `trait` or `mod`, what names nothing the scan reads is blanked, and
/// what a kept sibling needs stays: a method whose `Api` is a field of another item (through
/// a `let` of it), a trait's default method on a sibling returning `Api`, a shadowing `let`,
/// a typed `let` `finalizer` takes its kind from, a generic function's call site in a
/// statement naming no kube word, a method named as that function; a `#[cfg(test)]` inner
/// module, an inner `macro_rules!` and a function naming kube words only in its docs and
/// comments are left out. Found as in the whole text, each call at its line and column.
const INNER_ITEMS: &str = r#"
use kube::Api;
use kube::runtime::finalizer;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
pub struct State {
    pub docs: Api<ConfigMap>,
    pub labels: HashMap<String, String>,
}
pub struct Plain { pub n: u8 }
pub enum Mode { Api, Other }
impl State {
    pub fn fresh() -> u8 { 1 }
    fn label(&self, k: &str) -> Option<&String> {
        let key = format!("{k}");
        self.labels.get(&key)
    }
    pub async fn sync(&self) {
        let docs = self.docs.clone();
        let count = compute(1);
        let message = format!("{count} {message}");
        docs.list(&Default::default()).await;
        let pods: Api<Pod> = make();
        let pods = wrap(pods);
        pods.get("x").await;
    }
    fn apply(&self) -> u8 { 2 }
}
pub mod inner {
    use super::*;
    macro_rules! noop { () => {} }
    fn plain() -> u8 { 1 }
    pub async fn reconcile(obj: Arc<Secret>, api: Api<Secret>) {
        let o: Arc<Secret> = obj;
        let note = format!("x");
        finalizer(&api, "f", o, |e| async { Ok(()) }).await;
    }
    #[cfg(test)]
    mod tests {
        use super::*;
        async fn t(api: Api<Pod>) { api.delete("x", &dp).await; }
    }
}
pub trait Store {
    fn secrets(&self) -> Api<Secret>;
    fn name(&self) -> String { String::new() }
    async fn wipe(&self) {
        let n = self.name();
        self.secrets().delete(&n, &Default::default()).await;
    }
}
pub async fn apply<K: Resource>(api: &Api<K>) {
    api.create(&Default::default(), &obj).await;
}
pub async fn go(c: Client) {
    let cms: Api<ConfigMap> = Api::all(c);
    let n = compute(2);
    apply(&cms).await;
}
/// Docs naming `Api`, a `finalizer`.
fn commented() -> u8 {
    // A comment naming the `Api` keeps nothing.
    1
}
"#;

#[test]
fn the_mask_blanks_inner_items_and_statements_and_keeps_what_siblings_need() {
    let text = INNER_ITEMS;
    let masked = mask::masked(text, &[]).unwrap();
    let line = |n: usize| masked.lines().nth(n - 1).unwrap().trim().to_string();
    // Blanked: items with nothing to read (a struct with no `Api` field, an enum, a method,
    // a trait's default method, an inner `macro_rules!` and test module) and statements
    // binding nothing the scan knows; a generic function's call site until its name is known.
    for n in [
        9, 10, 12, 14, 19, 20, 26, 30, 31, 34, 37, 38, 39, 40, 41, 45, 47, 56, 57, 59, 60, 61, 62,
        63,
    ] {
        assert_eq!(line(n), "", "line {n} kept:\n{masked}");
    }
    // Kept: what a call needs (an `Api` field, a `let` of it, a typed `let` `finalizer`
    // takes its kind from), and the shadowing `let` (line 23).
    for n in [6, 13, 15, 17, 18, 21, 22, 23, 24, 33, 35, 44, 48, 52, 55] {
        assert!(!line(n).is_empty(), "line {n} blanked:\n{masked}");
    }
    // Read again with the generic function's name (as the generator does): its call site,
    // and the method named as it, kept.
    let again = mask::masked(text, &["apply".to_string()]).unwrap();
    for n in [26, 57] {
        assert!(
            !again.lines().nth(n - 1).unwrap().trim().is_empty(),
            "line {n}:\n{again}"
        );
    }
    let read = scan_crate_calls(&[text]).remove(0).unwrap();
    // As the whole text finds.
    let whole = read_whole(text);
    assert_eq!(read.calls, whole.calls);
    assert_eq!(read.api_fields, whole.api_fields);
    let sites = |f: &FileCalls| -> Vec<Instantiation> {
        f.instantiations
            .iter()
            .filter(|i| i.name == "apply")
            .cloned()
            .collect()
    };
    assert_eq!(sites(&read), sites(&whole));
    assert_eq!(
        sites(&read),
        [Instantiation {
            name: "apply".into(),
            turbofish: vec![],
            args: vec![Some(KindRef::Type(
                "k8s_openapi::api::core::v1::ConfigMap".into()
            ))],
            line: 57,
        }]
    );
    // No `pods.get`: the `let` shadowing `pods` with a value of unknown type is kept.
    assert_eq!(
        shown(text),
        [
            "15:21 self.labels.get field labels scope? get in label@13",
            "21:14 docs.list field docs scope? list in sync@17",
            "35:9 finalizer k8s_openapi::api::core::v1::Secret scope? patch in reconcile@32",
            "48:24 self.secrets().delete field secrets scope? delete in wipe@46",
            "52:9 api.create generic apply::K scope? create in apply@51",
        ]
    );
}

/// `f` with `text` as the only file of its crate, at its root.
fn alone<T>(text: &str, f: impl FnOnce(&visit::InCrate<'_>) -> T) -> T {
    let files = [CrateFile::crate_root(text, 0)];
    let crate_names = super::names::CrateNames::new(&files);
    f(&visit::InCrate {
        names: &crate_names,
        file: 0,
        root: 0,
        module: Vec::new(),
    })
}

/// The calls of `text` read whole (no mask), as the only file of its crate.
fn read_whole(text: &str) -> FileCalls {
    alone(text, |in_crate| {
        visit::calls_in(&syn::parse_file(text).unwrap(), in_crate)
    })
}

/// The names across modules are resolved only in a crate that renames or aliases a kube item:
/// every spelling of one says so, and a crate with none says no.
#[test]
fn a_rename_or_alias_of_a_kube_item_is_seen_in_every_spelling() {
    for text in [
        "use kube::Api as KApi;",
        "pub use kube::runtime::events::{Recorder\n    as Rec, Reporter};",
        "use kube::{runtime::{watcher::{self as w}}};",
        "pub(crate) type DocApi = Api<Document>;",
        "type Handle<K> = kube::Api<K>;",
        "mod a { pub use super::Controller as Ctl; }",
        "use{kube::Api as A};",
        "type\n    DocApi = Api<Document>;",
    ] {
        assert!(super::renames_kube_items(text), "{text}");
    }
    for text in [
        "use kube::Api;\nuse std::fmt::Result as FmtResult;",
        "type Result<T> = std::result::Result<T, Error>;",
        "fn typed() { let asynchronous = Api::all(c); }",
        "use kube::runtime::Controller; // as before",
        "#[serde(rename = \"type\")]\npub kind: String,\n}\nconst FINALIZER: &str = \"x\";",
    ] {
        assert!(!super::renames_kube_items(text), "{text}");
    }
}

/// A call in the body of a crate's own `macro_rules!` is said where it is written, of unknown
/// kind (macros are not expanded), masked or not; a `#[cfg(test)]` macro's is not.
#[test]
fn a_call_in_a_macro_rules_body_is_said_at_its_place() {
    let text = r#"
macro_rules! fetch {
    ($api:expr, $n:expr) => {
        $api.get($n).await?
    };
    ($api:expr) => {{ let lp = ListParams::default(); $api.list::<()>(&lp).await? }};
}
macro_rules! lookup {
    ($map:expr) => { $map.len() };
}
#[cfg(test)]
macro_rules! in_tests {
    ($api:expr) => { $api.delete("x", &dp).await? };
}
pub async fn p_macro(c: Client) -> Result<(), E> {
    let deploys: Api<Deployment> = Api::namespaced(c, "ns");
    let _d = fetch!(deploys, "x");
    Ok(())
}
"#;
    let shown = shown(text);
    assert_eq!(shown.len(), 2, "{shown:#?}");
    assert!(shown[0].starts_with("4:14 fetch!: .get "), "{shown:#?}");
    assert!(shown[1].starts_with("6:60 fetch!: .list "), "{shown:#?}");
    let found = scan_calls(text).unwrap();
    for call in &found.calls {
        assert!(
            matches!(&call.kind, KindRef::Unknown(why) if why.contains("`macro_rules! fetch`")),
            "{call:?}"
        );
    }
    assert_eq!(found.calls, read_whole(text).calls);
}

/// A `let` of a macro's value is blanked when the name it binds was only a field before
/// (`d.status`): a field binds nothing. Bound before (a parameter), it is kept: the new
/// binding shadows what the scan knew of the old.
#[test]
fn a_let_shadowing_only_a_field_is_blanked() {
    let text = "\
use kube::api::{Api, Patch, PatchParams};
use k8s_openapi::api::apps::v1::Deployment;
pub async fn fresh(d: Deployment, docs: Api<Doc>) {
    let ready = d.status.is_some();
    let status = serde_json::json!({ \"status\": ready });
    docs.patch_status(\"n\", &PatchParams::default(), &Patch::Apply(status)).await;
}
pub async fn shadowed(status: Api<Doc>, docs: Api<Doc>) {
    let status = serde_json::json!({});
    docs.patch_status(\"n\", &PatchParams::default(), &Patch::Apply(status)).await;
}
";
    let masked = mask::masked(text, &[]).unwrap();
    let line = |n: usize| masked.lines().nth(n - 1).unwrap().trim().to_string();
    assert_eq!(line(5), "", "{masked}");
    assert_eq!(line(9), "let status = serde_json::json!({});", "{masked}");
    let read = scan_crate_calls(&[text]).remove(0).unwrap();
    assert_eq!(read.calls, read_whole(text).calls);
    assert_eq!(read.calls.len(), 2);
}
