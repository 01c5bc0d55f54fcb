//! `kube_markers::authz` against the vectors taken from kube-apiserver's own tests
//! (`shared/testdata/*-vectors.json`, beside the repository): RequestInfoFactory's
//! `TestGetAPIRequestInfo`, `TestGetNonAPIRequestInfo` and `TestSelectorParsing`, and the RBAC
//! authorizer's `TestAuthorizer`, `TestRuleMatches` and `TestResourceMatches`.

use kube_markers::authz::request_info;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `shared/testdata/<file>` in the nearest ancestor of the workspace root that has it (CI
/// keeps `shared/` beside the clone; a worktree may sit one level deeper).
fn testdata(file: &str) -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let path: PathBuf = root
        .ancestors()
        .skip(1)
        .map(|dir| dir.join("shared/testdata").join(file))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no shared/testdata/{file} beside {}", root.display()));
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn upstream_count(vectors: &[Value]) -> usize {
    vectors
        .iter()
        .filter(|v| v["kind"] == "upstream-test")
        .count()
}

#[test]
fn request_info_matches_every_vector() {
    let vectors = testdata("requestinfo-vectors.json");
    assert_eq!(upstream_count(&vectors), 57);
    let mut failures = Vec::new();
    for v in &vectors {
        let method = v["method"].as_str().unwrap();
        let url = v["url"].as_str().unwrap();
        let info = request_info(method, url);
        let mut actual = serde_json::to_value(&info).unwrap();
        let errored = actual.as_object_mut().unwrap().remove("error").is_some();
        let expected_error = v["expectedError"].as_bool().unwrap_or(false);
        if actual != v["expected"] || errored != expected_error {
            failures.push(format!(
                "{method} {url} ({}):\n  expected {} (error: {expected_error})\n  actual   {actual} (error: {errored})",
                v["source"], v["expected"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors differ:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}
