//! The ways out the notes and docs/least-privilege.md give for the call patterns the scan does
//! not understand (a receiver it cannot type, a kind it cannot tell), each checked against the
//! note's or the doc's text at test time and applied as written: the call is then named at its
//! line, and the attribute its warning prints, pasted, silences it.

use super::tests::{
    MACRO_BODY_CALL, analyse_crate, assert_silenced_once_pasted, assert_warned_once_each, warned,
};
use std::collections::BTreeSet;

/// docs/least-privilege.md, its lines joined (a sentence may wrap anywhere).
fn least_privilege_doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/least-privilege.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The code span the doc writes in parentheses right after `lead` (`lead (`CODE`)`).
fn doc_code_after(lead: &str) -> String {
    let doc = least_privilege_doc();
    let start = doc
        .find(&format!("{lead} (`"))
        .unwrap_or_else(|| panic!("the doc no longer says {lead:?}"))
        + lead.len()
        + 3;
    let end = doc[start..].find("`)").expect("a closed code span") + start;
    doc[start..end].to_string()
}

/// A call without kube's request parameters on receivers the scan cannot type: an `if let`'s
/// binding of an `Option<Api<K>>` field, and an iterator's item (the doc names both). Each
/// `//WAY OUT` marks where the doc's line goes, just above the call.
const UNTYPED: &str = r#"
use k8s_openapi::api::networking::v1::Ingress;
use kube::Api;

pub struct State {
    pub maybe: Option<Api<Ingress>>,
    pub all: Vec<Api<Ingress>>,
}

impl State {
    pub async fn sync(&self) {
        if let Some(api) = &self.maybe {
            //WAY OUT
            let _ = api.get("x").await;
        }
    }

    pub async fn sweep(&self) {
        for api in &self.all {
            //WAY OUT
            let _ = api.get_opt("x").await;
        }
    }
}
"#;

/// `if let Some(api) = &self.maybe { api.get(..) }` is silent (as far as the syntax tells, a
/// map's `get`); with the line the doc writes pasted above the call, as written, each call is
/// named at its line, and the attributes its warnings print, pasted, silence them.
#[test]
fn an_untyped_receiver_bound_with_its_type_as_the_doc_writes_is_checked() {
    let way_out = doc_code_after("Bind it with its type first");
    assert_eq!(way_out, "let api: &Api<Ingress> = api;");

    let silent = analyse_crate(&[("lib.rs", UNTYPED)], &[]);
    assert_eq!(silent.needed, []);
    assert_eq!(silent.unknown, Vec::<String>::new());

    let bound = UNTYPED.replace("//WAY OUT", &way_out);
    let call_lines: Vec<usize> = bound
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("api.get"))
        .map(|(i, _)| i + 1)
        .collect();
    let expected: BTreeSet<String> = call_lines
        .iter()
        .map(|line| format!("op/src/lib.rs:{line}: get ingresses.networking.k8s.io"))
        .collect();
    assert_eq!(expected.len(), 2);
    let analysis = analyse_crate(&[("lib.rs", &bound)], &[]);
    assert_warned_once_each(&analysis, &expected);
    let shown: Vec<String> = analysis.warnings.iter().map(|w| w.to_string()).collect();
    let sync = bound.lines().position(|l| l.contains("fn sync")).unwrap() + 1;
    assert_eq!(
        shown[0],
        format!(
            "[ungranted-call] op/src/lib.rs:{}:25 (sync): `api.get` needs get on \
             ingresses.networking.k8s.io in the scope of the `Api` handed in, and no #[rbac] \
             grants it; add to `sync` (op/src/lib.rs:{sync}): #[kube_markers::rbac(groups = \
             \"networking.k8s.io\", resources = \"ingresses\", verbs = \"get\")]",
            call_lines[0]
        )
    );

    assert_silenced_once_pasted(&[("lib.rs", &bound)], &analysis);
}

/// Calls the scan cannot tell the kind of, one a function; each note names its way out.
const UNKNOWN: &str = r#"
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::{Api, api::{DeleteParams, Patch, PatchParams}};

pub async fn untyped_let(c: Client, ns: String) {
    let a = Api::namespaced(c, &ns);
    a.delete("x", &DeleteParams::default()).await;
}

pub async fn no_binding() {
    client().patch("x", &PatchParams::default(), &Patch::Merge(p)).await;
}

pub async fn subresource(c: Client, which: &str) {
    let pods: Api<Pod> = Api::all(c);
    pods.get_subresource(which, "p").await;
}

pub async fn generic<K: Resource>(api: &Api<K>) {
    api.delete("x", &DeleteParams::default()).await;
}

pub async fn caller() {
    generic(&make()).await;
}
"#;

/// The unknown-kind note about the call on line `line`.
fn note_at(analysis: &super::Analysis, line: usize) -> &str {
    analysis
        .unknown
        .iter()
        .find(|n| n.starts_with(&format!("op/src/lib.rs:{line}:")))
        .unwrap_or_else(|| panic!("no note at line {line}: {:?}", analysis.unknown))
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// Each pattern's note, and its way out as the note or the doc's table writes it (the kind
/// `K` written as `ConfigMap`): the call is then named at its line, with what it needs, and
/// the attribute its warning prints, pasted, silences it.
#[test]
fn each_unknown_kinds_way_out_as_written_names_the_call() {
    let analysis = analyse_crate(&[("lib.rs", UNKNOWN)], &[]);
    assert_eq!(analysis.unknown.len(), 4, "{:?}", analysis.unknown);
    assert!(analysis.warnings.is_empty());
    let doc = least_privilege_doc();

    // `let a = Api::namespaced(c, &ns)`: the note's two spellings.
    let note = note_at(&analysis, line_of(UNKNOWN, "a.delete"));
    let turbofish = note
        .split_once("write `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .unwrap()
        .0;
    assert_eq!(turbofish, "Api::<K>::namespaced");
    let typed = note
        .split_once("give the binding its type (`")
        .and_then(|(_, rest)| rest.split_once("`)"))
        .unwrap()
        .0;
    assert_eq!(typed, "let x: Api<K> = ...");
    assert!(doc.contains("| `Api::<K>::namespaced` or `let a: Api<K> = ...` |"));
    let by_turbofish = UNKNOWN.replace(
        "Api::namespaced(c, &ns)",
        &format!("{}(c, &ns)", turbofish.replace('K', "ConfigMap")),
    );
    let by_type = UNKNOWN.replace(
        "let a = Api::namespaced",
        &typed
            .replace("x", "a")
            .replace('K', "ConfigMap")
            .replace("...", "Api::namespaced"),
    );
    for fixed in [by_turbofish, by_type] {
        let call = line_of(&fixed, "a.delete");
        assert_named(&fixed, &format!("op/src/lib.rs:{call}: delete configmaps"));
    }

    // A receiver that is no binding: the doc's table, "bind it with its type first".
    note_at(&analysis, line_of(UNKNOWN, "client().patch"));
    assert!(
        doc.contains("| the scan does not follow other values | bind it with its type first |")
    );
    let bound = UNKNOWN.replace(
        "    client().patch(",
        "    let client: Api<ConfigMap> = client();\n    client.patch(",
    );
    let call = line_of(&bound, "client.patch");
    assert_named(&bound, &format!("op/src/lib.rs:{call}: patch configmaps"));

    // `get_subresource(var, ..)`: the doc's table, "a literal".
    note_at(&analysis, line_of(UNKNOWN, "get_subresource"));
    assert!(
        doc.contains(
            "| `get_subresource(var, ..)` | the subresource is not a literal | a literal,"
        )
    );
    let literal = UNKNOWN.replace("get_subresource(which,", "get_subresource(\"log\",");
    let call = line_of(&literal, "get_subresource");
    assert_named(&literal, &format!("op/src/lib.rs:{call}: get pods/log"));

    // A generic `K` no call fixes: the doc's table, "fix `K` at the call (turbofish ...)".
    let note = note_at(&analysis, line_of(UNKNOWN, "api.delete"));
    assert!(note.contains("does not fix it"), "{note}");
    assert!(doc.contains("fix `K` at the call (turbofish or a typed binding)"));
    let fixed = UNKNOWN.replace("generic(&make())", "generic::<ConfigMap>(&make())");
    let call = line_of(&fixed, "api.delete");
    assert_named(&fixed, &format!("op/src/lib.rs:{call}: delete configmaps"));
}

/// `text`'s one unknown call less than [`UNKNOWN`]'s, and exactly one warning, `expected`; its
/// attribute, pasted, silences it and is no unused grant.
fn assert_named(text: &str, expected: &str) {
    let analysis = analyse_crate(&[("lib.rs", text)], &[]);
    assert_eq!(analysis.unknown.len(), 3, "{:?}", analysis.unknown);
    assert_eq!(warned(&analysis), BTreeSet::from([expected.to_string()]));
    assert_eq!(analysis.warnings.len(), 1);
    assert_silenced_once_pasted(&[("lib.rs", text)], &analysis);
}

/// A request method's call in a `macro_rules!` body is said, of unknown kind; the doc's first
/// way out, the call written outside the macro, which takes its result, names it at its line.
#[test]
fn a_call_written_outside_the_macro_that_takes_its_result_is_named() {
    assert!(least_privilege_doc().contains(
        "write the call outside the macro (the macro can take its result), or grant it as the \
         note says"
    ));
    let in_body = MACRO_BODY_CALL;
    let said = analyse_crate(&[("lib.rs", in_body)], &[]);
    assert_eq!(said.unknown.len(), 1, "{:?}", said.unknown);
    let outside = in_body
        .replace(
            "($api:expr, $n:expr) => { $api.get($n).await? };",
            "($got:expr) => { $got.await? };",
        )
        .replace(
            "let _d = fetch!(deploys, \"x\");",
            "let got = deploys.get(\"x\");\n    let _d = fetch!(got);",
        );
    let call = outside
        .lines()
        .position(|l| l.contains("deploys.get"))
        .unwrap()
        + 1;
    let analysis = analyse_crate(&[("lib.rs", &outside)], &[]);
    assert_warned_once_each(
        &analysis,
        &BTreeSet::from([format!("op/src/lib.rs:{call}: get deployments.apps")]),
    );
    assert_silenced_once_pasted(&[("lib.rs", &outside)], &analysis);
}

/// Leader election through another crate (kube-leader-election): the doc's way out, the
/// attribute with `allow(unused, reason = "...")`, is no unused grant; without the allow, it is.
#[test]
fn a_lease_grant_for_another_crates_leader_election_is_accepted_as_the_doc_says() {
    let doc = least_privilege_doc();
    assert!(doc.contains(
        "need `get`, `create` and `patch` on `leases`, in a library the scan does not read: \
         write that attribute with `allow(unused, reason = \"...\")`."
    ));
    let main = r#"
pub async fn main_loop(client: Client) {
    let leadership = LeaseLock::new(client.clone(), "ns", params);
    leadership.try_acquire_or_renew().await;
}
"#;
    let attribute = |allow: &str| {
        super::tests::pasted(
            &format!(
                "#[kube_markers::rbac(groups = \"coordination.k8s.io\", resources = \"leases\", \
                 verbs = \"get;create;patch\"{allow})]"
            ),
            1,
        )
    };
    let bare = attribute("");
    let flagged = analyse_crate(&[("main.rs", main)], &[&bare]);
    assert_eq!(flagged.unused.len(), 1, "{:?}", flagged.unused);
    assert!(
        flagged.unused[0]
            .to_string()
            .contains("allow(unused, reason = \"...\")"),
        "{}",
        flagged.unused[0]
    );
    let allowed = attribute(", allow(unused, reason = \"kube-leader-election renews the Lease\")");
    let accepted = analyse_crate(&[("main.rs", main)], &[&allowed]);
    assert!(accepted.unused.is_empty(), "{:?}", accepted.unused);
    assert!(accepted.warnings.is_empty());
}
