//! `check-crds` on released CRDs of widely used projects, which kube-apiserver accepts: every
//! check (names, versions, structural schemas, defaults, list-map keys, column and selector
//! paths, CEL type and cost) must pass them all. Gateway API's CRDs are committed
//! (`cel/tests/data`); cert-manager's, Cluster API's, Karpenter's, Kueue's,
//! prometheus-operator's, Knative Serving's and Argo CD's are fetched by
//! `scripts/crd-corpus.sh` into `.assets/crd-corpus` and checked when present.

use kube_markers_crdcheck::files::{FileReport, check_file_in, collect};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// check-crds' verdict on the files under `dir`: (files, CRDs, what it refused).
fn check_dir(dir: &Path) -> (usize, usize, Vec<String>) {
    let files = collect(&[dir.to_path_buf()]).unwrap();
    let reports: Vec<FileReport> = files
        .iter()
        .map(|(p, named)| check_file_in(p, *named))
        .collect();
    let crds = reports.iter().map(|r| r.crds.len()).sum();
    let mut refused = Vec::new();
    for r in &reports {
        refused.extend(r.errors.iter().map(|e| format!("{}: {e}", r.file)));
        refused.extend(
            r.warnings
                .iter()
                .map(|w| format!("{}: warning: {w}", r.file)),
        );
        for crd in &r.crds {
            refused.extend(
                crd.problems
                    .iter()
                    .map(|p| format!("{}: {}: {p}", r.file, crd.name)),
            );
        }
    }
    (files.len(), crds, refused)
}

#[test]
fn gateway_api_crds_pass_every_check() {
    let (files, crds, refused) = check_dir(&root().join("cel/tests/data"));
    assert!(files >= 15 && crds >= 15, "{files} files, {crds} CRDs");
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

#[test]
fn fetched_real_world_crds_pass_every_check() {
    let dir = root().join(".assets/crd-corpus");
    if !dir.join(".complete-v1").is_file() {
        eprintln!(
            "SKIPPED: the real-world CRD corpus is absent (.assets/crd-corpus; \
             `bash scripts/crd-corpus.sh` fetches it with Go)"
        );
        return;
    }
    let (files, crds, refused) = check_dir(&dir);
    // Every file of the corpus is one CRD.
    assert_eq!(files, crds, "a file of the corpus held no CRD");
    assert!(crds >= 60, "{crds} CRDs: the fetch lost files");
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}
