//! Kube names given in one module of a crate and used in another (`// VERBS RESOURCE` on each
//! call's line, `// none` for what is no kube call): a prelude's renames and re-exports
//! reached by a glob, by name, through `crate::`, `super::` and `self::` paths, a re-export of
//! the crate's root, kinds renamed in an inline module, type aliases of `Api<K>` in another
//! module and in the same one, and a crate's own type of a kube item's name (never kube's).
//! Each call is warned at its line, and the attribute it suggests, pasted, silences it.

use super::tests::{
    analyse_crate, analyse_on_disk, assert_silenced_once_pasted, assert_warned_once_each,
    expected_needs, warned,
};
use std::collections::BTreeSet;

const LIB: &str = r#"
pub mod prelude;
pub mod reconcile;
pub mod by_name;
pub mod nested;
pub mod shadow;
pub mod globs;
pub mod more;
pub use kube::Api;
pub use prelude::Rec as RootRec;

pub fn root_events(client: Client, r: Reporter) {
    let _ = RootRec::new(client, r); // create;patch events.events.k8s.io
}

pub mod kinds {
    pub use k8s_openapi::api::core::v1::Service as Svc;
    pub type ServiceApi = kube::Api<Svc>;
}
"#;

const PRELUDE: &str = r#"
pub use kube::runtime::events::Recorder as Rec;
pub use kube::Api as KubeApi;
pub use k8s_openapi::api::core::v1::{ConfigMap as KConfigMap, Pod as KPod};
use k8s_openapi::api::core::v1::Secret;
pub type SecretApi = KubeApi<Secret>;
pub type Handle<K> = KubeApi<K>;
pub use crate::more::*;
"#;

/// Reached through the prelude's glob of it.
const MORE: &str = r#"
pub type Nodes = kube::Api<k8s_openapi::api::core::v1::Node>;
"#;

/// Names no kube word: everything comes through the prelude's glob.
const RECONCILE: &str = r#"
use crate::prelude::*;

pub fn recorder(client: Client, reporter: Reporter) -> Rec {
    Rec::new(client, reporter) // create;patch events.events.k8s.io
}

pub async fn delete(client: Client) {
    KubeApi::<KPod>::namespaced(client, "web").delete("p", &dp).await; // delete pods
}

pub struct State {
    secrets: SecretApi,
}

impl State {
    pub async fn read(&self) {
        self.secrets.get("s").await; // get secrets
    }
}

pub async fn nodes(n: Nodes) {
    n.list(&lp).await; // list nodes
}

pub async fn typed(client: Client, other: Client) {
    let cms: KubeApi<KConfigMap> = KubeApi::all(client);
    cms.list(&lp).await; // list configmaps
    let secrets: SecretApi = KubeApi::all(other);
    secrets.delete("s", &dp).await; // delete secrets
}
"#;

const BY_NAME: &str = r#"
use crate::prelude::Rec;
use super::prelude::KPod;
use crate::Api;
use crate::kinds::{ServiceApi, Svc};

pub fn events(client: Client, r: Reporter) {
    let _ = Rec::new(client, r); // create;patch events.events.k8s.io
}

pub async fn pods(client: Client) {
    Api::<KPod>::all(client).list(&lp).await; // list pods
}

pub async fn paths(client: Client, r: Reporter) {
    crate::prelude::Rec::new(client.clone(), r); // create;patch events.events.k8s.io
    super::prelude::KubeApi::<self::KPod>::all(client.clone()).watch(&wp, "0").await; // watch pods
    crate::RootRec::new(client.clone(), r); // create;patch events.events.k8s.io
    let services: ServiceApi = ServiceApi::all(client.clone());
    services.create(&pp, &s).await; // create services
    Api::<Svc>::all(client).patch("s", &pp, &p).await; // patch services
}
"#;

/// A module in a directory: its child imports through `super::`, a private import included.
const NESTED: &str = r#"
pub mod child;
use kube::runtime::Controller as Ctl;
use k8s_openapi::api::apps::v1::Deployment;
type DeployApi = kube::Api<Deployment>;

pub async fn run(client: Client) {
    let deploys: DeployApi = kube::Api::all(client);
    deploys.delete("d", &dp).await; // delete deployments.apps
}
"#;

const CHILD: &str = r#"
use super::Ctl;
use super::super::prelude::KPod;

pub async fn run(client: Client) {
    Ctl::new(kube::Api::<KPod>::all(client), Default::default()); // list;watch pods
}
"#;

/// A crate's own types of kube items' names: none of kube's, whatever the globs bring.
const SHADOW: &str = r#"
use crate::prelude::*;
use kube::runtime::events::*;

pub struct Rec;
pub struct Recorder;
pub struct Api;

impl Api {
    pub fn all(_: u8) -> Api {
        Api
    }
    pub fn delete(&self, _: &str, _: u8) {}
}

impl Rec {
    pub fn new(a: u8, b: u8) -> Rec {
        Rec
    }
}

pub fn make() {
    let _ = Rec::new(1, 2); // none
    let _ = Recorder::new(1, 2); // none
    Api::all(1).delete("x", 2); // none
}
"#;

/// Globs of kube's modules name kube's items as written; a generic alias of `Api<K>` takes its
/// argument, read where it is written.
const GLOBS: &str = r#"
use kube::runtime::*;
use kube::api::*;
use kube::runtime::events::*;
use crate::prelude::{Handle, KConfigMap};
use k8s_openapi::api::core::v1::Pod as P;

pub async fn run(client: Client, rep: Reporter) {
    Controller::new(Api::<P>::all(client.clone()), Default::default()); // list;watch pods
    let r = Recorder::new(client.clone(), rep); // create;patch events.events.k8s.io
    let cms: Handle<KConfigMap> = Api::all(client.clone());
    cms.delete("c", &DeleteParams::default()).await; // delete configmaps
    let pods: Handle<P> = Api::all(client);
    pods.evict("p", &ep).await; // create pods/eviction
}
"#;

fn files() -> [(&'static str, &'static str); 9] {
    [
        ("lib.rs", LIB),
        ("prelude.rs", PRELUDE),
        ("reconcile.rs", RECONCILE),
        ("by_name.rs", BY_NAME),
        ("nested/mod.rs", NESTED),
        ("nested/child.rs", CHILD),
        ("shadow.rs", SHADOW),
        ("globs.rs", GLOBS),
        ("more.rs", MORE),
    ]
}

#[test]
fn a_kube_name_given_in_another_module_warns_at_its_call() {
    let files = files();
    let expected: BTreeSet<String> = files
        .iter()
        .flat_map(|(path, text)| expected_needs(text, &format!("op/src/{path}:")))
        .collect();
    assert_eq!(expected.len(), 20);
    let analysis = analyse_crate(&files, &[]);
    assert_warned_once_each(&analysis, &expected);

    // Each attribute as printed, pasted where it says: silence.
    assert_silenced_once_pasted(&files, &analysis);
}

/// A binary of the package, its paths through the library by the library's name.
const MAIN: &str = r#"
use op::prelude::*;
use op::kinds;

fn main() {}

pub async fn events(client: Client, r: Reporter) {
    let _ = Rec::new(client.clone(), r); // create;patch events.events.k8s.io
    kinds::ServiceApi::all(client).delete("s", &dp).await; // delete services
}
"#;

/// The generator's own walk of a package on disk tells each file's module from the `mod`
/// declarations it follows: the prelude declared with `#[path]` in a directory of another
/// name is still `crate::prelude`; the same warnings as the files read by name. A binary's
/// paths through the library, by its name, are read in the library.
#[test]
fn the_workspace_scan_tells_each_files_module_from_its_mod_declaration() {
    use crate::input::workspace::{Target, TargetKind};
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let src = root.join("op/src");
    std::fs::create_dir_all(src.join("nested")).unwrap();
    std::fs::create_dir_all(src.join("common")).unwrap();
    let lib = LIB.replace(
        "pub mod prelude;",
        "#[path = \"common/preludes.rs\"] pub mod prelude;",
    );
    for (path, text) in files() {
        let (path, text) = match path {
            "lib.rs" => (path, lib.as_str()),
            "prelude.rs" => ("common/preludes.rs", text),
            _ => (path, text),
        };
        std::fs::write(src.join(path), text).unwrap();
    }
    std::fs::write(src.join("main.rs"), MAIN).unwrap();
    let analysis = analyse_on_disk(
        &root,
        vec![
            Target::new(TargetKind::Lib, src.join("lib.rs")),
            Target::new(TargetKind::Bin("op".into()), src.join("main.rs")),
        ],
    );
    assert_eq!(analysis.unknown, Vec::<String>::new());
    let mut expected = warned(&analyse_crate(&files(), &[]));
    expected.extend(expected_needs(MAIN, "op/src/main.rs:"));
    assert_eq!(expected.len(), 22);
    assert_eq!(warned(&analysis), expected);
}
