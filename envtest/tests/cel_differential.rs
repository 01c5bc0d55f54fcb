//! kube-markers-cel against kube-apiserver itself: every case of the corpus
//! (`cel/tests/corpus`) created with server-side dry-run; `check-crds`' verdict must be the
//! server's, cause by cause. With `KUBE_MARKERS_RECORD_VERDICTS=1` the server's causes are
//! written to `cel/tests/data/verdicts.json`, which `cel/tests/differential.rs` replays
//! without the assets.

mod common;
#[allow(dead_code)]
#[path = "../../cel/tests/corpus/mod.rs"]
mod corpus;

use common::assets;
use kube::api::{Api, DynamicObject, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube_markers_envtest::{Envtest, parse_manifests};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn crd(schema: &Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.diff.example.com"},
        "spec": {
            "group": "diff.example.com",
            "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}],
        },
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_crds_decides_as_kube_apiserver() {
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        "customresourcedefinitions",
    );
    let api: Api<DynamicObject> = Api::all_with(env.admin_client().unwrap(), &ar);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let cases = corpus::all_cases(|text| parse_manifests(text).unwrap());
    let mut verdicts = BTreeMap::new();
    let mut disagreements = Vec::new();
    for case in &cases {
        let causes: Vec<(String, String)> = match api.create(&dry_run, &crd(&case.schema)).await {
            Ok(_) => Vec::new(),
            Err(kube::Error::Api(status)) => status
                .details
                .map(|d| d.causes)
                .unwrap_or_default()
                .iter()
                .map(|c| corpus::normalize_server(&c.field, &c.message))
                .collect(),
            Err(e) => panic!("{}: {e}", case.id),
        };
        let report = kube_markers_cel::check_schema(&case.schema, "openAPIV3Schema");
        let agree = corpus::agrees(&causes, &report);
        let ours = report.problems;
        if !agree {
            disagreements.push(format!(
                "{}:\n  server: {causes:?}\n  ours:   {:?}",
                case.id,
                ours.iter()
                    .map(|p| (&p.path, &p.detail))
                    .collect::<Vec<_>>()
            ));
        }
        verdicts.insert(case.id.clone(), causes);
    }
    if std::env::var_os("KUBE_MARKERS_RECORD_VERDICTS").is_some() {
        let path = common::root().join("cel/tests/data/verdicts.json");
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&verdicts).unwrap() + "\n",
        )
        .unwrap();
    }
    let refused = verdicts.values().filter(|c| !c.is_empty()).count();
    eprintln!(
        "{} cases, {refused} refused by the server, {} disagreements",
        cases.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}
