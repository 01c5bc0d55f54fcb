//! 1,000 random CRDs (`random_crds`), each decided by `check-crds` as kube-apiserver 1.37.2
//! decided it (`check_crds/random_crds.verdicts`, recorded and re-checked live by
//! `envtest/tests/cel_differential.rs`): structural rules, extensions, junctors, defaults
//! and the root's fields, in combinations no one wrote by hand.

mod random_crds;

use kube_markers_crdcheck::files::check_crd;
use std::path::Path;

#[test]
fn check_crds_decides_random_crds_as_the_api_server_did() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_crds/random_crds.verdicts");
    let recorded = random_crds::recorded(&std::fs::read_to_string(path).unwrap());
    assert_eq!(recorded.len(), random_crds::COUNT, "one verdict per CRD");
    let refused = recorded.iter().filter(|accepted| !**accepted).count();
    // Both verdicts, in numbers: a corpus the server all takes (or all refuses) proves little.
    assert!(refused > 100 && refused < 900, "{refused} refused");
    let mut differ = Vec::new();
    for (i, accepted) in recorded.iter().enumerate() {
        let report = check_crd(&random_crds::crd(i), 1);
        if report.problems.is_empty() != *accepted {
            differ.push(format!(
                "w{i}s: the API server {}; check-crds: {:?}",
                if *accepted {
                    "accepted it"
                } else {
                    "refused it"
                },
                report.problems
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}
