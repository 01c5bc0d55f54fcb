//! CRDs on which the generator once disagreed with the API server (`check_crds/server_warnings/`):
//! optional enums as schemars writes them (`enum: [..., null]` with `nullable: true`, at the
//! root, in lists and in maps), schemars' integer formats, formats of other types, sets of
//! objects, and the generator's own CRD of a Gateway-API-like type. Each with what
//! kube-apiserver 1.37.2 made of it (`verdicts.tsv`: `kubectl create --dry-run=server`, its
//! verdict and its warnings): `check-crds`, whose checks the generator runs on every CRD it
//! writes, must refuse exactly what it refused and send each warning it sent, in its words.

use kube_markers_crdcheck::Fixes;
use kube_markers_crdcheck::files::{read_documents, verdict};
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn check_crds_refuses_and_warns_as_the_api_server_did() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_crds/server_warnings");
    let recorded = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut differ = Vec::new();
    let mut cases = 0;
    let mut warned = 0;
    for line in recorded.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.split('\t');
        let (file, expected, warnings) = (
            fields.next().unwrap(),
            fields.next().unwrap(),
            fields.next().unwrap_or_default(),
        );
        cases += 1;
        let server: BTreeSet<&str> = warnings.split(" | ").filter(|w| !w.is_empty()).collect();
        warned += server.len();
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let (docs, _) = read_documents(&text).unwrap();
        let ours = verdict(&docs[0], Fixes::Yaml);
        let accepted = if ours.refused.is_empty() {
            "accepted"
        } else {
            "refused"
        };
        if accepted != expected {
            differ.push(format!(
                "{file}: the API server {expected}, check-crds {accepted}: {:?}",
                ours.refused
            ));
            continue;
        }
        if expected == "refused" {
            continue; // the API server sends no warning with a refusal
        }
        // Each of the API server's warnings, in its words, as the start of one of ours.
        let mut matched = BTreeSet::new();
        for finding in ours.accepted.iter().filter(|f| f.server_warns) {
            match server
                .iter()
                .find(|w| finding.problem.message.starts_with(**w))
            {
                Some(w) => {
                    matched.insert(*w);
                }
                None => differ.push(format!(
                    "{file}: check-crds says the API server warns `{}`; it did not",
                    finding.problem
                )),
            }
        }
        for missed in server.difference(&matched) {
            differ.push(format!(
                "{file}: the API server warned `{missed}`; check-crds did not"
            ));
        }
    }
    assert!(cases >= 17, "{cases} cases");
    assert!(warned >= 10, "{warned} warnings recorded");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
