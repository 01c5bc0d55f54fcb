//! The ways out docs/least-privilege.md gives for the call patterns the scan does not
//! understand, each taken from the doc's text at test time and applied as written: the call
//! is then named at its line, and the attribute its warning prints, pasted, silences it.

use super::tests::{analyse_crate, assert_warned_once_each, pasted_all, warned};
use kube_markers_registry::RbacEntry;
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

    let entries = pasted_all(&analysis);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let again = analyse_crate(&[("lib.rs", &bound)], &refs);
    assert_eq!(warned(&again), BTreeSet::new());
    assert!(again.unused.is_empty(), "{:?}", again.unused);
}
