//! The generator's verdict on the CRDs it writes is `check-crds`' on the written file, which is
//! the API server's: refused where it refuses, a warning where it accepts (issue 31). Optional
//! enums (schemars' `enum: [..., null]` with `nullable: true`, as in Gateway API's types) are
//! written without a word, and `--rbac-from-source` leaves CRDs, good or bad, alone.

use super::*;
use crate::Inputs;
use crate::generate::{Artifact, Webhooks};

mod kinds {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
    pub enum Mode {
        Exact,
        Prefix,
    }

    #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Route {
        #[serde(skip_serializing_if = "Option::is_none")]
        pub mode: Option<Mode>,
        pub modes: Vec<Option<Mode>>,
        pub port: u16,
    }

    /// Gateway API's shapes: optional enums, at the root, in lists and in maps.
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "gate.example.com", version = "v1", kind = "Gate", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct GateSpec {
        pub mode: Option<Mode>,
        pub required_mode: Mode,
        pub routes: Vec<Route>,
        pub by_name: BTreeMap<String, Option<Mode>>,
        pub replicas: u32,
        pub bytes: Option<u64>,
        pub counts: Vec<u32>,
        pub small: u8,
        pub offset: i16,
        pub length: usize,
        pub huge: u128,
        #[schemars(extend("format" = "colour"))]
        pub tint: String,
    }

    /// A CRD the API server refuses: a rule that does not compile.
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "gate.example.com",
        version = "v1",
        kind = "Broken",
        namespaced
    )]
    pub struct BrokenSpec {
        #[schemars(extend("x-kubernetes-validations" = [{"rule": "self >"}]))]
        pub size: i32,
    }
}

mod counter {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// An integer whose default is the float `1.0`, which the file has as `1`.
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "gate.example.com",
        version = "v1",
        kind = "Counter",
        namespaced
    )]
    pub struct CounterSpec {
        #[schemars(extend("default" = 1.0))]
        pub count: i32,
    }
}

mod merge_key {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A field named `<<`, which the file has as a plain key: YAML 1.1's merge key.
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "gate.example.com", version = "v1", kind = "Merge", namespaced)]
    pub struct MergeSpec {
        #[serde(rename = "<<")]
        pub merged: String,
    }
}

fn crd_entry(crd: fn() -> CustomResourceDefinition, name: &'static str) -> CrdEntry {
    CrdEntry::__new(
        crd,
        false,
        "{}",
        name,
        Source::__new("src/gate.rs", 7, 1, "gate", name),
    )
}

fn gate() -> CrdEntry {
    crd_entry(<kinds::Gate as kube::CustomResourceExt>::crd, "Gate")
}

fn broken() -> CrdEntry {
    crd_entry(<kinds::Broken as kube::CustomResourceExt>::crd, "Broken")
}

fn run(root: &Path, crds: &[CrdEntry], kept: &[Artifact]) -> Result<Report, Error> {
    let crds: Vec<&CrdEntry> = crds.iter().collect();
    let rbac = [entry_rbac()];
    let rbac: Vec<&RbacEntry> = rbac.iter().collect();
    let inputs = Inputs {
        kept,
        ..Inputs::new(&rbac, &crds, Webhooks::default(), &[])
    };
    let opts = Options {
        no_scan: true,
        out_dir: root.join("out"),
        generator_name: "gate".into(),
        no_docs: true,
        ..Options::default()
    };
    crate::run_inputs(&inputs, &opts)
}

fn entry_rbac() -> RbacEntry {
    entry(&["gate.example.com"], &["get"], 3)
}

/// The nodes of the written CRD's `spec`.
fn written_spec(root: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(root.join("out/crd/gate.example.com_gates.yaml")).unwrap();
    let crd: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        .clone()
}

#[test]
fn optional_enums_are_written_without_a_word_and_check_crds_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let report = run(dir.path(), &[gate()], &[]).unwrap_or_else(|e| panic!("{e}"));
    let spec = written_spec(dir.path());
    // schemars' and kube-derive's shape, which the API server establishes.
    assert_eq!(
        spec["mode"]["enum"],
        serde_json::json!(["Exact", "Prefix", null])
    );
    assert_eq!(spec["mode"]["nullable"], true);
    let route = &spec["routes"]["items"]["properties"];
    assert_eq!(
        route["modes"]["items"]["enum"],
        serde_json::json!(["Exact", "Prefix", null])
    );
    let warnings: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
    // The one format the API server does not know, and no other warning.
    assert_eq!(
        warnings,
        [
            "gate.example.com/Gate (src/gate.rs:7 (Gate)): version v1: spec.tint: unrecognized \
             format \"colour\", which the API server ignores (the API server warns of it)"
        ]
    );
    // `check-crds` on the file written: the same verdict, in the same words.
    let written = dir.path().join("out/crd/gate.example.com_gates.yaml");
    let file = crate::check::crd::files::check_file(&written);
    assert!(file.accepted(), "{:?}", file.crds[0].problems);
    assert_eq!(
        file.crds[0].warnings,
        [
            "version v1: spec.tint: unrecognized format \"colour\", which the API server ignores \
          (the API server warns of it)"
        ]
    );
    // The file is in the corpus kube-apiserver's verdicts were recorded on
    // (`crdcheck/tests/check_crds_server_warnings.rs`): it must stay the generator's output.
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crdcheck/tests/check_crds/server_warnings/gate.example.com_gates.yaml");
    let written = std::fs::read_to_string(&written).unwrap();
    if std::env::var_os("KUBE_MARKERS_RECORD_VERDICTS").is_some() {
        std::fs::write(&corpus, &written).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&corpus).unwrap_or_default(),
        written,
        "the corpus's copy differs: KUBE_MARKERS_RECORD_VERDICTS=1 writes it anew, then record \
         the API server's verdicts again (envtest/tests/cel_differential.rs)"
    );
}

/// schemars' integer formats, written as the API server knows them, each bound kept.
#[test]
fn unsigned_and_small_integers_are_written_as_int32_or_int64() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &[gate()], &[]).unwrap_or_else(|e| panic!("{e}"));
    let spec = written_spec(dir.path());
    let node = |path: &str| spec.pointer(path).cloned().unwrap_or_default();
    use serde_json::json;
    for (path, expected) in [
        (
            "/replicas",
            json!({"type": "integer", "format": "int64", "minimum": 0}),
        ),
        (
            "/bytes",
            json!({"type": "integer", "format": "int64", "minimum": 0, "nullable": true}),
        ),
        (
            "/counts/items",
            json!({"type": "integer", "format": "int64", "minimum": 0}),
        ),
        (
            "/small",
            json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 255}),
        ),
        (
            "/offset",
            json!({"type": "integer", "format": "int32", "minimum": -32768, "maximum": 32767}),
        ),
        (
            "/length",
            json!({"type": "integer", "format": "int64", "minimum": 0}),
        ),
        ("/huge", json!({"type": "integer", "minimum": 0})),
        (
            "/routes/items/properties/port",
            json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 65535}),
        ),
    ] {
        assert_eq!(node(path), expected, "{path}");
    }
}

/// A CRD the API server refuses is refused by the full run; `--rbac-from-source` (which keeps
/// the CRDs the last build made) writes the roles and leaves it alone.
#[test]
fn a_refused_crd_stops_the_full_run_but_not_rbac_from_source() {
    let dir = tempfile::tempdir().unwrap();
    let Err(Error::Crd(problems)) = run(dir.path(), &[broken()], &[]) else {
        panic!("expected the CRD refused");
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].to_string().starts_with(
            "gate.example.com/Broken (src/gate.rs:7 (Broken)): version v1: spec.size: rule \
             `self >` does not parse as CEL"
        ),
        "{}",
        problems[0]
    );
    let kept = [Artifact::Crds, Artifact::Docs, Artifact::Webhooks];
    let report = run(dir.path(), &[broken()], &kept).unwrap_or_else(|e| panic!("{e}"));
    assert!(dir.path().join("out/role.yaml").exists());
    assert!(
        report
            .warnings
            .iter()
            .all(|w| matches!(w, crate::Warning::LeftAsItIs(_))),
        "{:?}",
        report.warnings
    );
}

/// The run checks each CRD's file as written, read back as kubectl reads it: the whole-file
/// check of `check-crds`, not a check of the value before it is written. An integer's
/// default of `1.0` is written `1` (as Go writes a whole float), which the API server takes:
/// the check of the value refused it (a float is no integer); the file's check, the run's
/// and `check-crds`' on the file written, does not.
#[test]
fn the_crd_is_judged_as_its_written_file_is() {
    let entry = crd_entry(
        <counter::Counter as kube::CustomResourceExt>::crd,
        "Counter",
    );
    let value = serde_json::to_value(<counter::Counter as kube::CustomResourceExt>::crd()).unwrap();
    let by_value =
        kube_markers_crdcheck::files::verdict(&value, kube_markers_crdcheck::Fixes::Attributes);
    assert_eq!(by_value.refused.len(), 1, "{by_value:?}");
    assert!(
        by_value.refused[0]
            .refusal()
            .contains("the default 1.0 does not validate"),
        "{by_value:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let report = run(dir.path(), &[entry], &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let written = dir.path().join("out/crd/gate.example.com_counters.yaml");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains("default: 1\n"), "{text}");
    let file = kube_markers_crdcheck::files::check_file(&written);
    assert!(
        file.accepted() && file.findings().is_empty(),
        "{:?}",
        file.findings()
    );
}

/// What only the file shows: a field named `<<` is written as a plain key, which kubectl reads
/// as YAML 1.1's merge key, merging the field's schema into `properties`; the API server
/// cannot decode that CRD. The check of the value found nothing; the run now refuses it with
/// the words `check-crds` has for the file.
#[test]
fn a_crd_whose_file_kubectl_reads_otherwise_is_refused() {
    let crd = <merge_key::Merge as kube::CustomResourceExt>::crd;
    let value = serde_json::to_value(crd()).unwrap();
    let by_value =
        kube_markers_crdcheck::files::verdict(&value, kube_markers_crdcheck::Fixes::Attributes);
    assert!(
        by_value.refused.is_empty() && by_value.accepted.is_empty(),
        "{by_value:?}"
    );
    let text = crate::output::yaml::render_documents("", &[value]);
    assert!(text.lines().any(|l| l.trim() == "<<:"), "{text}");
    let file = kube_markers_crdcheck::check_text("gate.example.com_merges.yaml", &text);
    let refused = &file.crds[0].problems;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].contains("(the API server cannot decode the CRD)"),
        "{refused:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let Err(Error::Crd(problems)) = run(dir.path(), &[crd_entry(crd, "Merge")], &[]) else {
        panic!("the run took a CRD the API server cannot decode");
    };
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains(&refused[0]), "{problems:?}");
}
