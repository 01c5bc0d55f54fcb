//! CRD files a new user wrote to break `check-crds` (`check_crds/kubectl_cases/`), each with what
//! kubectl 1.37 and kube-apiserver 1.37.2 made of it (`verdicts.tsv`: `kubectl create
//! --dry-run=server --validate=false`). `check-crds` must decide each file as they did, but for
//! the residue below, each with its reason: a fix shows up as a residue that no longer differs.

use kube_markers_crdcheck::files::check_file_in;
use std::path::Path;

/// The files `check-crds` decides otherwise than kubectl and the API server, and why.
// Empty: every file is decided as kubectl and the API server decided it. A file that cannot
// be matched goes here, with its reason, and the test pins it.
const RESIDUE: &[(&str, &str)] = &[];

#[test]
fn check_crds_decides_the_attack_files_as_kubectl_and_the_api_server_did() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_crds/kubectl_cases");
    let verdicts = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut differ = Vec::new();
    let mut cases = 0;
    for line in verdicts.lines().filter(|l| !l.starts_with('#')) {
        let (file, expected) = line.split_once('\t').unwrap();
        cases += 1;
        let report = check_file_in(&dir.join(file), true);
        let ours = if report.accepted() {
            "accepted"
        } else {
            "refused"
        };
        if ours != expected {
            differ.push(file);
            if !RESIDUE.iter().any(|(f, _)| *f == file) {
                eprintln!("{file}: kubectl {expected}, check-crds {ours}: {report:?}");
            }
        }
    }
    assert!(cases >= 70, "{cases} cases");
    let residue: Vec<&str> = RESIDUE.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        differ, residue,
        "files decided otherwise than kubectl, beyond the residue"
    );
}

/// 1,899 defaults, each on a field of its own in one CRD: date-times, base64, e-mail addresses,
/// URIs, CIDRs, durations, MAC addresses
/// and numbers under every format, bound and `multipleOf` the API server reads otherwise than
/// JSON Schema. `check-crds` must refuse exactly the fields kube-apiserver 1.37.2 refused
/// (`default_values.refused`; `cel_differential` re-checks the record against a live server).
#[test]
fn check_crds_refuses_the_defaults_the_api_server_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_crds");
    let recorded = std::fs::read_to_string(dir.join("default_values.refused")).unwrap();
    let expected: std::collections::BTreeSet<&str> =
        recorded.lines().filter(|l| !l.starts_with('#')).collect();
    let report = check_file_in(&dir.join("default_values.json"), true);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let ours: std::collections::BTreeSet<String> = report.crds[0]
        .problems
        .iter()
        .filter_map(|p| {
            let field = p.split("spec.").nth(1)?.split(':').next()?;
            Some(field.to_string())
        })
        .collect();
    let ours: std::collections::BTreeSet<&str> = ours.iter().map(String::as_str).collect();
    assert!(expected.len() > 500, "{} recorded", expected.len());
    let missed: Vec<_> = expected.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&expected).collect();
    assert!(
        missed.is_empty() && extra.is_empty(),
        "accepted here, refused by the API server: {missed:?}; refused here only: {extra:?}"
    );
}
