//! kube-markers-cel's verdicts against kube-apiserver 1.37.2's, recorded by
//! `envtest/tests/cel_differential.rs` in `tests/data/verdicts.json`: cause by cause, every case
//! of the corpus must agree, so the suite proves agreement without the envtest assets. The
//! fetched real-world CRDs (`scripts/crd-corpus.sh`) take part when they are present.

#[allow(dead_code)]
mod corpus;

use std::collections::BTreeMap;

fn recorded() -> BTreeMap<String, Vec<(String, String)>> {
    let text = include_str!("data/verdicts.json");
    let raw: BTreeMap<String, Vec<(String, String)>> =
        serde_json::from_str(text).expect("verdicts.json");
    raw.into_iter()
        .map(|(id, causes)| {
            (
                id,
                causes
                    .iter()
                    .map(|(f, m)| corpus::normalize_server(f, m))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn every_recorded_case_agrees_with_the_api_server() {
    let verdicts = recorded();
    if corpus::fetched_corpus().is_none() {
        eprintln!("{}", corpus::CORPUS_ABSENT);
    }
    let cases = corpus::all_cases(|text| serde_saphyr::from_multiple(text).unwrap());
    assert!(cases.len() >= 1400, "{} cases", cases.len());
    let mut disagreements = Vec::new();
    let (mut refused, mut over_budget) = (0, 0);
    for case in &cases {
        let server = verdicts
            .get(&case.id)
            .unwrap_or_else(|| panic!("{}: no recorded verdict (record again)", case.id));
        refused += usize::from(!server.is_empty());
        over_budget += usize::from(server.iter().any(|c| c.1.contains("exceeds budget")));
        let report = kube_markers_cel::check_schema(&case.schema, "openAPIV3Schema");
        let agree = corpus::agrees(server, &report);
        let ours = report.problems;
        if !agree {
            disagreements.push(format!(
                "{}:\n  server: {server:?}\n  ours:   {:?}",
                case.id,
                ours.iter()
                    .map(|p| (&p.path, &p.detail))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        refused > 300 && over_budget > 100,
        "{refused} refused, {over_budget} over budget: the corpus must exercise refusals"
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree with kube-apiserver:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}

#[test]
#[ignore = "diagnostic: CASE=<id> prints a case"]
fn show_case() {
    let id = std::env::var("CASE").unwrap();
    let cases = corpus::all_cases(|text| serde_saphyr::from_multiple(text).unwrap());
    let case = cases.iter().find(|c| c.id == id).unwrap();
    eprintln!(
        "{}",
        serde_json::to_string_pretty(
            &case.schema["properties"]["spec"]["x-kubernetes-validations"]
        )
        .unwrap()
    );
    eprintln!(
        "{}",
        serde_json::to_string(&case.schema["properties"]["spec"]["properties"]).unwrap()
    );
    for c in kube_markers_cel::check_schema(&case.schema, "openAPIV3Schema").costs {
        eprintln!("{c:?}");
    }
}
