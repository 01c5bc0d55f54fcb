//! A new user's own CRD, made outside this workspace and tried on a real API server.
//!
//! The `Vocabulary` type (`tests/tests/vocabulary/types.rs`: every `#[k8s]` marker, serde's
//! renames around them) is written into the library of a workspace built as the README's quick
//! start tells (`tests/tests/outside/mod.rs`), whose own generator writes its CRD. A real
//! kube-apiserver then establishes that CRD and must decide every object as the markers say:
//! the offline checks of `tests/tests/crd_schemas.rs` (a JSON Schema validator, kube-cel)
//! only stand in for it, and `optionalOldSelf` they cannot evaluate at all.

mod common;
#[allow(dead_code)]
#[path = "../../tests/tests/vocabulary/objects.rs"]
mod objects;
#[allow(dead_code)]
#[path = "../../tests/tests/outside/mod.rs"]
mod outside;

use common::{assets, patch_spec, refusal};
use kube::api::{Api, DynamicObject, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube_markers_envtest::Envtest;
use objects::{valid, with};
use serde_json::{Value, json};

const TYPES: &str = include_str!("../../tests/tests/vocabulary/types.rs");

fn named(mut object: Value, name: &str) -> DynamicObject {
    object["metadata"]["name"] = json!(name);
    serde_json::from_value(object).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crd_generated_outside_the_workspace_is_enforced_by_the_api_server() {
    let ws = outside::quick_start_workspace("outside-crds", TYPES);
    let out = outside::run_generator(&ws, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let crd_dir = ws.join("rbac-out/crd");
    assert!(
        crd_dir
            .join("vocabulary.example.com_vocabularies.yaml")
            .is_file()
    );

    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    // Established: the structural schema and every CEL rule compiled.
    let applied = env.apply_dir(&crd_dir).await.unwrap();
    assert_eq!(applied.len(), 1, "{applied:?}");
    env.ensure_namespace("outside").await.unwrap();
    let gvk = GroupVersionKind::gvk("vocabulary.example.com", "v1", "Vocabulary");
    let api: Api<DynamicObject> = Api::namespaced_with(
        env.admin_client().unwrap(),
        "outside",
        &ApiResource::from_gvk_with_plural(&gvk, "vocabularies"),
    );
    let create = |object: Value, name: &str| {
        let api = api.clone();
        let object = named(object, name);
        async move { api.create(&PostParams::default(), &object).await }
    };

    // A valid object is stored as sent: nothing pruned, the embedded resource and the preserved
    // fields included; the API server only adds the default of `Entry::value`
    // (`#[serde(default)]`, written as `default: 0`).
    create(valid(), "v-valid").await.unwrap();
    let stored = api.get("v-valid").await.unwrap();
    let mut expected = valid()["spec"].clone();
    expected["entries"][0]["value"] = json!(0);
    assert_eq!(stored.data["spec"], expected);
    // Optional fields may be left out, and a nullable one may be null.
    let mut optional = with(json!({"comment": null, "host": null}));
    optional["spec"]["note"] = Value::Null;
    create(optional, "v-optional").await.unwrap();

    // Each marker's refusal, by field: the OpenAPI part.
    let openapi = [
        (json!({"replicas": 0}), "spec.replicas"),
        (json!({"replicas": 11}), "spec.replicas"),
        (json!({"replicas": "3"}), "spec.replicas"),
        (json!({"ratio": 0.0}), "spec.ratio"),
        (json!({"ratio": 1.0}), "spec.ratio"),
        (json!({"step": 7}), "spec.step"),
        (json!({"shortName": "a"}), "spec.shortName"),
        (json!({"shortName": "abcdef"}), "spec.shortName"),
        (json!({"shortName": "ab1"}), "spec.shortName"),
        (json!({"host": "not a host"}), "spec.host"),
        (json!({"policy": "Sometimes"}), "spec.policy"),
        (json!({"tags": []}), "spec.tags"),
        (json!({"tags": ["a", "b", "c", "a"]}), "spec.tags"),
        (json!({"tags": ["a", "a"]}), "spec.tags[1]"),
        (json!({"tags": ["d"]}), "spec.tags[0]"),
        (json!({"labels": {}}), "spec.labels"),
        (
            json!({"labels": {"a": "1", "b": "2", "c": "3"}}),
            "spec.labels",
        ),
        (json!({"maxUnavailable": "many"}), "spec.maxUnavailable"),
        (json!({"ports": [true]}), "spec.ports[0]"),
        (json!({"ownerRef": null}), "spec.ownerRef"),
        (json!({"entries": [{"name": ""}]}), "spec.entries[0].name"),
        (
            json!({"entries": [{"name": "x"}, {"name": "x"}]}),
            "spec.entries[1]",
        ),
        (
            json!({"template": {"apiVersion": "v1", "metadata": {"name": "p"}}}),
            "spec.template.kind",
        ),
    ];
    // The CEL rules: the type's own, the one-ofs, a field's with a message expression.
    let cel = [
        (
            json!({"minReplicas": 5}),
            "minReplicas must not exceed replicas",
        ),
        (
            json!({"owner": null}),
            "at least one of the fields in [owner team] must be set",
        ),
        (
            json!({"backend": {"url": "u", "serviceName": "s"}}),
            "exactly one of the fields in [url serviceName] must be set",
        ),
        (
            json!({"backend": {"port": 1, "portName": "p", "url": "u"}}),
            "at most one of the fields in [port portName] may be set",
        ),
        (json!({"even": "abc"}), "odd length: abc"),
        // `optionalOldSelf`: the rule runs on create too, where `oldSelf` has no value.
        (json!({"onlyOnUpdate": 5}), "only settable on update"),
    ];
    for (i, (change, expected)) in openapi.into_iter().chain(cel).enumerate() {
        let (code, message) = refusal(create(with(change.clone()), &format!("v-bad-{i}")).await);
        assert_eq!(code, 422, "{change}: {message}");
        assert!(
            message.contains(expected),
            "{change}: expected {expected:?} in {message}"
        );
    }
    // The root rule, where `self` is the whole object.
    let (code, message) = refusal(create(valid(), "nope").await);
    assert_eq!(code, 422, "{message}");
    assert!(message.contains("names start with v"), "{message}");

    // Transition rules, on update.
    create(with(json!({"zone": "a", "onlyOnUpdate": 0})), "v-update")
        .await
        .unwrap();
    for (spec, expected) in [
        (json!({"id": "2"}), "field is immutable"),
        (json!({"zone": null}), "field zone is immutable once set"),
        (json!({"zone": "b"}), "field is immutable"),
    ] {
        let (code, message) = refusal(patch_spec(&api, "v-update", spec.clone()).await);
        assert_eq!(code, 422, "{spec}: {message}");
        assert!(
            message.contains(expected),
            "{spec}: expected {expected:?} in {message}"
        );
    }
    // Set on create (as 0), then any value on update; and what is not immutable changes.
    patch_spec(&api, "v-update", json!({"onlyOnUpdate": 5, "replicas": 4}))
        .await
        .unwrap();
}
