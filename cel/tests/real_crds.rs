//! Real-world CRDs that kube-apiserver accepts: no rule of theirs may be refused here.

use kube_markers_cel::check_schema;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

/// Every version schema of every CRD under `tests/data`, with its file and version.
pub fn real_schemas() -> Vec<(String, Value)> {
    let mut files = Vec::new();
    yaml_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
        &mut files,
    );
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let crd: Value =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (i, version) in crd["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let name = format!(
                "{}#{}",
                file.file_name().unwrap().to_string_lossy(),
                version["name"].as_str().unwrap_or("?")
            );
            let _ = i;
            out.push((name, version["schema"]["openAPIV3Schema"].clone()));
        }
    }
    out
}

#[test]
fn gateway_api_crds_are_accepted() {
    let schemas = real_schemas();
    assert!(schemas.len() >= 20, "{} schemas", schemas.len());
    let mut refused = Vec::new();
    let mut rules = 0;
    for (name, schema) in &schemas {
        let report = check_schema(schema, "openAPIV3Schema");
        rules += report.costs.len();
        for p in report.problems {
            refused.push(format!("{name}: {}: {}", p.path, p.detail));
        }
    }
    assert!(rules > 500, "{rules} expressions costed");
    assert!(
        refused.is_empty(),
        "{} refused:\n{}",
        refused.len(),
        refused.join("\n")
    );
}
