//! `check-crds --costs` and `--output json`: the cost report's emitted text, snapshotted, for
//! a fixture with declared and derived bounds, a message expression and a rule over budget.

use kube_markers_codegen::check::crd::files::check_file_with;
use kube_markers_codegen::cli::check_crds::render;
use std::path::Path;

const FIXTURE: &str = "tests/check_crds/costs.yaml";

#[test]
fn the_cost_report_says_what_bounds_each_rule() {
    let report = check_file_with(Path::new(FIXTURE), true, true);
    let text = render(std::slice::from_ref(&report), true);
    insta::assert_snapshot!("costs_text", text);
    let json = serde_json::to_string_pretty(&[&report]).unwrap();
    insta::assert_snapshot!("costs_json", json);
}

/// Without `--costs` the text has no report, and the check alone computes no bounds.
#[test]
fn the_plain_check_has_no_cost_report() {
    let report = check_file_with(Path::new(FIXTURE), true, false);
    assert!(
        report.crds[0].versions[0]
            .expressions
            .iter()
            .all(|e| e.bounds.is_empty())
    );
    let text = render(std::slice::from_ref(&report), false);
    assert!(!text.contains("bounded by"), "{text}");
    assert!(
        text.contains("estimated rule cost exceeds budget"),
        "{text}"
    );
}
