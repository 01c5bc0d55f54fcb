//! CRD files a new user wrote to break `check-crds` (`check_crds/kubectl_cases/`), each with what
//! kubectl 1.37 and kube-apiserver 1.37.2 made of it (`verdicts.tsv`: `kubectl create
//! --dry-run=server --validate=false`). `check-crds` must decide each file as they did, but for
//! the residue below, each with its reason: a fix shows up as a residue that no longer differs.

use kube_markers_codegen::check::crd::files::check_file_in;
use std::path::Path;

/// The files `check-crds` decides otherwise than kubectl and the API server, and why.
const RESIDUE: &[(&str, &str)] = &[
    (
        "03_b10d.yaml",
        "a structural-schema rule of ValidateCustomResourceDefinitionOpenAPISchema not modelled yet",
    ),
    (
        "03_s16.yaml",
        "a structural-schema rule of ValidateCustomResourceDefinitionOpenAPISchema not modelled yet",
    ),
    (
        "05_d3.yaml",
        "a default's format (date-time, byte, email, int32 range...) or `multipleOf` not modelled yet",
    ),
    (
        "05_d35.yaml",
        "a default's format (date-time, byte, email, int32 range...) or `multipleOf` not modelled yet",
    ),
    (
        "05_d6.yaml",
        "a default's format (date-time, byte, email, int32 range...) or `multipleOf` not modelled yet",
    ),
    (
        "05_q1.yaml",
        "a default's format (date-time, byte, email, int32 range...) or `multipleOf` not modelled yet",
    ),
    (
        "05_x17.yaml",
        "a default's format (date-time, byte, email, int32 range...) or `multipleOf` not modelled yet",
    ),
    (
        "05_x6.yaml",
        "a default's format (date-time, byte, email, int32 range...) or `multipleOf` not modelled yet",
    ),
    (
        "06_c60.yaml",
        "`string.format()` arguments are not checked at compile time as cel-go checks them",
    ),
    (
        "06_f1.yaml",
        "`string.format()` arguments are not checked at compile time as cel-go checks them",
    ),
    (
        "06_f7.yaml",
        "`string.format()` arguments are not checked at compile time as cel-go checks them",
    ),
];

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
