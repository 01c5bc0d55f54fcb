//! A run over a kind in two versions: refused when their schemas differ without a conversion,
//! written with `spec.conversion` with one, and an `allow(unconverted-versions, ...)` that
//! accepts nothing reported.

use super::*;
use crate::Inputs;
use crate::generate::Webhooks;
use kube_markers_registry::{ConversionEntry, CrdAllow};

mod versions {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    pub mod v1 {
        use super::*;

        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[kube(group = "tea.example.com", version = "v1", kind = "Pot", namespaced)]
        pub struct PotSpec {
            pub cups: i32,
        }
    }

    pub mod v2 {
        use super::*;

        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[kube(
            group = "tea.example.com",
            version = "v2",
            kind = "Pot",
            root = "PotV2",
            namespaced
        )]
        pub struct PotSpec {
            pub cups: i32,
            pub sugar: bool,
        }

        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[kube(
            group = "tea.example.com",
            version = "v2",
            kind = "Pot",
            root = "SamePotV2",
            namespaced
        )]
        pub struct SamePotSpec {
            pub cups: i32,
        }
    }
}

fn pot(crd: fn() -> CustomResourceDefinition, name: &'static str, storage: bool) -> CrdEntry {
    CrdEntry::__new(
        crd,
        storage,
        "{}",
        name,
        Source::__new("src/pot.rs", if storage { 20 } else { 10 }, 1, "tea", name),
    )
}

fn v1() -> CrdEntry {
    pot(
        <versions::v1::Pot as kube::CustomResourceExt>::crd,
        "Pot",
        false,
    )
}

fn v2() -> CrdEntry {
    pot(
        <versions::v2::PotV2 as kube::CustomResourceExt>::crd,
        "PotV2",
        true,
    )
}

fn unused(object: serde_json::Value) -> Result<serde_json::Value, String> {
    Ok(object)
}

fn run(root: &Path, crds: &[CrdEntry], conversions: &[ConversionEntry]) -> Result<Report, Error> {
    let crds: Vec<&CrdEntry> = crds.iter().collect();
    let conversions: Vec<&ConversionEntry> = conversions.iter().collect();
    let inputs = Inputs {
        conversions: &conversions,
        ..Inputs::new(&[], &crds, Webhooks::default(), &[])
    };
    let opts = Options {
        no_scan: true,
        out_dir: root.join("out"),
        generator_name: "tea".into(),
        no_docs: true,
        ..Options::default()
    };
    crate::run_inputs(&inputs, &opts)
}

const POTS: &str = "out/crd/tea.example.com_pots.yaml";

#[test]
fn differing_versions_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let Err(Error::Crd(problems)) = run(dir.path(), &[v1(), v2()], &[]) else {
        panic!("expected the CRD refused")
    };
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .to_string()
            .starts_with("tea.example.com/Pot: versions v2 (src/pot.rs:20 (PotV2)) and v1 (src/pot.rs:10 (Pot)) have different schemas (spec.sugar exists in v2 only)"),
        "{}",
        problems[0]
    );
    assert!(!dir.path().join(POTS).exists());
}

#[test]
fn with_a_conversion_the_crd_converts_through_the_webhook() {
    let dir = tempfile::tempdir().unwrap();
    let conversion = ConversionEntry::__new(
        <versions::v1::Pot as kube::CustomResourceExt>::crd,
        <versions::v2::PotV2 as kube::CustomResourceExt>::crd,
        unused,
        unused,
        "v1::Pot",
        "v2::PotV2",
        Source::__new("src/convert.rs", 5, 1, "tea", "impl"),
    );
    let report = run(dir.path(), &[v1(), v2()], &[conversion]).unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let text = std::fs::read_to_string(dir.path().join(POTS)).unwrap();
    assert!(
        text.contains(
            "  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        \
             service:\n          name: webhook-service\n          namespace: system\n          \
             path: /convert\n      conversionReviewVersions:\n      - v1\n"
        ),
        "{text}"
    );
}

#[test]
fn an_allow_that_accepts_nothing_is_a_warning() {
    static ALLOW: [CrdAllow; 1] = [CrdAllow::__new("unconverted-versions", "old clients")];
    let dir = tempfile::tempdir().unwrap();
    let same = pot(
        <versions::v2::SamePotV2 as kube::CustomResourceExt>::crd,
        "SamePotV2",
        true,
    );
    let report = run(dir.path(), &[v1().__allow(&ALLOW), same], &[]).unwrap();
    assert_eq!(
        report
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "src/pot.rs:10 (Pot): `allow(unconverted-versions, ...)` is not needed: \
          tea.example.com/Pot has versions of one schema; remove it, so that versions that \
          differ later are refused again"
        ]
    );
    let text = std::fs::read_to_string(dir.path().join(POTS)).unwrap();
    assert!(!text.contains("conversion:"), "{text}");
}
