//! Real-world CRDs that kube-apiserver accepts: no rule of theirs may be refused here.
//! Gateway API's (committed under `tests/data`) always; the corpus of `scripts/crd-corpus.sh`
//! (cert-manager, Cluster API, Karpenter, Kueue, prometheus-operator, Knative Serving,
//! Argo CD) when it has been fetched.

#[allow(dead_code)]
mod corpus;

use kube_markers_cel::check_schema;
use serde_json::Value;

fn parse(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple(text).expect("a CRD file of the corpus is YAML")
}

fn refusals(cases: &[corpus::Case]) -> (usize, Vec<String>) {
    let mut refused = Vec::new();
    let mut rules = 0;
    for case in cases {
        let report = check_schema(&case.schema, "openAPIV3Schema");
        rules += report.costs.len();
        for p in report.problems {
            refused.push(format!("{}: {}: {}", case.id, p.path, p.detail));
        }
    }
    (rules, refused)
}

#[test]
fn gateway_api_crds_are_accepted() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let schemas = corpus::schemas_under(&data, "", &parse);
    assert!(schemas.len() >= 20, "{} schemas", schemas.len());
    let (rules, refused) = refusals(&schemas);
    assert!(rules > 500, "{rules} expressions costed");
    assert!(
        refused.is_empty(),
        "{} refused:\n{}",
        refused.len(),
        refused.join("\n")
    );
}

#[test]
fn fetched_real_world_crds_are_accepted() {
    let Some(dir) = corpus::fetched_corpus() else {
        eprintln!("{}", corpus::CORPUS_ABSENT);
        return;
    };
    let schemas = corpus::schemas_under(&dir, "corpus:", &parse);
    // 61 files of 11 module directories, several versions each: a much smaller count means the
    // fetch lost files.
    assert!(schemas.len() >= 80, "{} schemas", schemas.len());
    let (rules, refused) = refusals(&schemas);
    assert!(rules > 200, "{rules} expressions costed");
    assert!(
        refused.is_empty(),
        "{} refused:\n{}",
        refused.len(),
        refused.join("\n")
    );
}
