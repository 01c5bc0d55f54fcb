//! kube-markers' own leader election (`kube_markers::leader_election::LeaderElection`): each
//! spelling of `LeaderElection::builder` needs create, get, update on leases in the operator's
//! namespace (`// VERBS RESOURCE` on its line, `// none` for what is no such call), granted by
//! the bundle's `leader-election = true` or by an attribute; else a warning naming both.

use super::tests::{analyse_crate, expected_needs, pasted, pasted_all, warned};
use super::*;
use kube_markers_registry::RbacEntry;

const SPELLINGS: &str = r#"
use kube_markers::leader_election::{LeaderElection, Outcome};
use kube_markers::leader_election::LeaderElection as Elector;
use kube_markers::leader_election as election;

pub async fn imported(client: Client) -> Result<(), Error> {
    let e = LeaderElection::builder(client.clone(), "op-leader").build()?; // create;get;update leases.coordination.k8s.io
    e.run(controllers()).await
}

pub async fn renamed(client: Client) {
    let e = Elector::builder(client, "op-leader").namespace("ops").build(); // create;get;update leases.coordination.k8s.io
}

pub async fn by_module(client: Client) {
    let e = election::LeaderElection::builder(client, "op-leader"); // create;get;update leases.coordination.k8s.io
}

pub async fn full_path(client: Client) {
    let e = kube_markers::leader_election::LeaderElection::builder(client, "l"); // create;get;update leases.coordination.k8s.io
}

pub async fn not_ours(client: Client) {
    let e = other_crate::LeaderElection::builder(client, "l"); // none
    let b = LeaderElection::identity(&e); // none
}
"#;

/// A glob import names the type alone.
const GLOB: &str = r#"
use kube_markers::leader_election::*;

pub async fn main_loop(client: Client) {
    LeaderElection::builder(client, "op-leader").build().unwrap();
}
"#;

fn analyse_text(text: &str, entries: &[&RbacEntry]) -> Analysis {
    analyse_crate(&[("main.rs", text)], entries)
}

fn no_bundle() -> BundleGrants {
    BundleGrants {
        leader_election: false,
        generator_manifest: Some("codegen/Cargo.toml".into()),
    }
}

fn with_leader_election() -> BundleGrants {
    BundleGrants {
        leader_election: true,
        ..no_bundle()
    }
}

#[test]
fn every_spelling_of_the_builder_needs_the_lease_verbs_at_its_line() {
    let expected = expected_needs(SPELLINGS, "op/src/main.rs:");
    assert_eq!(expected.len(), 4);
    let analysis = analyse_text(SPELLINGS, &[]).with_bundle(&no_bundle());
    assert_eq!(analysis.unknown, Vec::<String>::new());
    assert!(
        analysis
            .warnings
            .iter()
            .all(|w| w.needed.call == LEADER_ELECTION_CALL)
    );
    assert_eq!(warned(&analysis), expected);
    assert_eq!(analysis.warnings.len(), expected.len());

    let glob = analyse_text(GLOB, &[]);
    assert_eq!(glob.warnings.len(), 1);
    assert_eq!(glob.warnings[0].needed.line, 5);
    assert_eq!(glob.warnings[0].needed.call, LEADER_ELECTION_CALL);
}

#[test]
fn the_bundles_leader_election_grants_the_lease() {
    let analysis = analyse_text(SPELLINGS, &[]).with_bundle(&with_leader_election());
    assert_eq!(analysis.warnings, []);
    assert_eq!(analysis.unused, []);
    // The bundle's grant, no attribute to print (`calls`, `explain`).
    assert_eq!(analysis.needed, []);
    assert_eq!(analysis.bundle_granted.len(), 4);

    // Only the leader election's: another call's warning stays.
    let recorder = format!(
        "{SPELLINGS}\npub fn events(client: Client) {{\n    let r = kube::runtime::events::Recorder::new(client, reporter());\n}}\n"
    );
    let analysis = analyse_text(&recorder, &[]).with_bundle(&with_leader_election());
    let calls: Vec<&str> = analysis
        .warnings
        .iter()
        .map(|w| w.needed.call.as_str())
        .collect();
    assert_eq!(calls, ["Recorder::new"]);
}

#[test]
fn without_the_bundle_the_warning_names_both_ways_out() {
    let analysis = analyse_text(GLOB, &[]).with_bundle(&no_bundle());
    let shown: Vec<String> = analysis.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        shown,
        [
            "[ungranted-call] op/src/main.rs:5:21 (main_loop): `LeaderElection::builder` needs create, get, update on leases.coordination.k8s.io in the operator's namespace (kube-markers' leader election reads its Lease, creates it when missing, and renews or takes it with updates), and neither the deploy bundle nor an #[rbac] grants it; add the line `leader-election = true` under `[package.metadata.kube-markers.bundle]` in codegen/Cargo.toml (the bundle's leader-election Role grants it in the operator's namespace), or add to `main_loop` (op/src/main.rs:4): #[kube_markers::rbac(groups = \"coordination.k8s.io\", resources = \"leases\", verbs = \"create;get;update\")]"
        ]
    );
    // The generator's manifest not known: the message still says which file.
    let unknown = analyse_text(GLOB, &[]).with_bundle(&BundleGrants::default());
    assert!(unknown.warnings[0].to_string().contains(
        "under `[package.metadata.kube-markers.bundle]` in the generator's Cargo.toml ("
    ));
}

#[test]
fn the_attribute_as_printed_grants_the_lease_and_is_not_unused() {
    let analysis = analyse_text(SPELLINGS, &[]).with_bundle(&no_bundle());
    let entries = pasted_all(&analysis);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let again = analyse_text(SPELLINGS, &refs).with_bundle(&no_bundle());
    assert_eq!(again.warnings, []);
    assert_eq!(again.unused, []);
    // With the bundle's Role too, the attribute is still no unused grant: a call needs it.
    let both = analyse_text(SPELLINGS, &refs).with_bundle(&with_leader_election());
    assert_eq!((both.warnings, both.unused), (vec![], vec![]));

    // Without the call, the same attribute is the `unused` lint: the call is what spares it.
    let idle = analyse_text("pub fn nothing() {}\n", &refs[..1]);
    assert_eq!(idle.unused.len(), 1, "{:?}", idle.unused);
    assert!(
        idle.unused[0]
            .finding
            .contains("grants create, get, update on leases.coordination.k8s.io")
    );

    // An attribute granting part of it: the rest is named.
    let get_only = pasted(
        "#[kube_markers::rbac(groups = \"coordination.k8s.io\", resources = \"leases\", verbs = \"get\")]",
        4,
    );
    let partial = analyse_text(GLOB, &[&get_only]).with_bundle(&no_bundle());
    assert_eq!(partial.warnings.len(), 1);
    assert_eq!(partial.warnings[0].missing, ["create", "update"]);
    assert!(
        partial.warnings[0]
            .to_string()
            .contains("verbs = \"create;update\")]")
    );
}

/// What `kube-markers init` scaffolds (scaffold/src/templates/init.rs): its `main` builds the
/// election, its generator's manifest declares the bundle's `leader-election = true`, so the
/// run (which reads that key into the bundle's identity: tests/tests/calls_outside.rs) warns of
/// nothing there.
#[test]
fn a_scaffolded_operator_is_granted_by_its_bundle() {
    let templates = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scaffold/src/templates/init.rs"
    ))
    .unwrap();
    let template = |name: &str| {
        let open = format!("pub const {name}: &str = r#\"");
        let rest = &templates[templates.find(&open).expect(name) + open.len()..];
        rest[..rest.find("\"#;").unwrap()].replace("{{name}}", "my-operator")
    };
    let manifest: toml::Table = toml::from_str(&template("CODEGEN_MANIFEST")).unwrap();
    assert_eq!(
        manifest["package"]["metadata"]["kube-markers"]["bundle"]["leader-election"],
        toml::Value::Boolean(true)
    );
    let main = template("OPERATOR_MAIN");
    let leader = |bundle: &BundleGrants| -> Vec<String> {
        analyse_text(&main, &[])
            .with_bundle(bundle)
            .warnings
            .iter()
            .filter(|w| w.needed.call == LEADER_ELECTION_CALL)
            .map(|w| w.to_string())
            .collect()
    };
    assert_eq!(leader(&no_bundle()).len(), 1, "the scaffold's call is seen");
    assert_eq!(leader(&with_leader_election()), Vec::<String>::new());
}

/// `explain` shows the election's call beside the bundle's grant, as it shows another call
/// beside its attributes; without the bundle's Role, beside no attribute.
#[test]
fn explain_shows_the_election_beside_the_bundles_grant() {
    let text = explain::render(
        &analyse_text(GLOB, &[]).with_bundle(&with_leader_election()),
        &[],
    );
    let permission = |verb: &str, granted: &str| {
        format!(
            "  {verb} on leases.coordination.k8s.io
    needed by op/src/main.rs:5:21 (main_loop): `LeaderElection::builder`, in the operator's namespace
    granted by {granted}
"
        )
    };
    let bundle = "the deploy bundle's `leader-election = true` (its leader-election Role, in the operator's namespace)";
    assert_eq!(
        text,
        format!(
            "The kube calls of the linked crates: each permission they need, the calls that need it and the attributes that grant it\n{}{}{}",
            permission("create", bundle),
            permission("get", bundle),
            permission("update", bundle),
        )
    );

    let text = explain::render(&analyse_text(GLOB, &[]).with_bundle(&no_bundle()), &[]);
    assert!(
        text.contains(
            "  get on leases.coordination.k8s.io
    needed by op/src/main.rs:5:21 (main_loop): `LeaderElection::builder`, in the operator's namespace
    granted by: no attribute
"
        ),
        "{text}"
    );

    // Another call on leases beside it: the bundle's Role is the election's alone; an
    // attribute granting `get` is listed too.
    let both = format!(
        "{GLOB}\npub async fn read(c: Client) {{\n    kube::Api::<k8s_openapi::api::coordination::v1::Lease>::namespaced(c, \"ops\").get(\"l\").await;\n}}\n"
    );
    let attribute = pasted(
        "#[kube_markers::rbac(groups = \"coordination.k8s.io\", resources = \"leases\", verbs = \"get\")]",
        8,
    );
    let analysis = analyse_text(&both, &[&attribute]).with_bundle(&with_leader_election());
    let text = explain::render(&analysis, &[&attribute]);
    assert!(
        text.contains(&format!(
            "  get on leases.coordination.k8s.io
    needed by op/src/main.rs:5:21 (main_loop): `LeaderElection::builder`, in the operator's namespace
    needed by op/src/main.rs:9:82 (read): `kube::Api::<k8s_openapi::api::coordination::v1::Lease>::namespaced.get`, in namespace \"ops\"
    granted by {bundle}, for `LeaderElection::builder`
    granted by op/src/lib.rs:8:1 (reconcile)
"
        )),
        "{text}"
    );
    assert!(
        text.contains(
            "  create on leases.coordination.k8s.io
    needed by op/src/main.rs:5:21 (main_loop): `LeaderElection::builder`, in the operator's namespace
    granted by {bundle}
"
        .replace("{bundle}", bundle)
        .as_str()),
        "{text}"
    );
}
