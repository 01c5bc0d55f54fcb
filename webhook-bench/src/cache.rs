//! The conversion `convert-load` serves: a `Cache` kind in two versions, `v2` stored (the hub)
//! and `v1` its spoke, as an operator that renamed a field and added one would have them.
//! v1's `replicas` is v2's `size`; v2's `engine` has no field in v1 and travels in an
//! annotation there (dropped when it is the default), so that a v1 client's write keeps it.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use kube_markers::conversion::Spoke;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const GROUP: &str = "bench.kube-markers.dev";
/// Where the server answers `ConversionReview`s.
pub const CONVERT: &str = kube_markers::conversion::CONVERSION_PATH;
/// Where v1 keeps v2's `engine`.
pub const ENGINE: &str = "bench.kube-markers.dev/engine";
const DEFAULT_ENGINE: &str = "redis";

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CacheStatus {
    pub ready_replicas: i32,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

pub mod v1 {
    use super::*;

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(
        group = "bench.kube-markers.dev",
        version = "v1",
        kind = "Cache",
        namespaced,
        status = "CacheStatus"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        pub replicas: i32,
        pub image: String,
        pub memory: String,
    }
}

pub mod v2 {
    use super::*;

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(
        group = "bench.kube-markers.dev",
        version = "v2",
        kind = "Cache",
        namespaced,
        status = "CacheStatus"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        pub size: i32,
        pub image: String,
        pub memory: String,
        pub engine: String,
    }
}

#[kube_markers::conversion]
impl Spoke<v2::Cache> for v1::Cache {
    type Error = String;

    fn to_hub(self) -> Result<v2::Cache, String> {
        if self.spec.replicas < 0 {
            return Err(format!(
                "replicas must not be negative, not {}",
                self.spec.replicas
            ));
        }
        let mut metadata = self.metadata;
        let engine = metadata
            .annotations
            .as_mut()
            .and_then(|a| a.remove(ENGINE))
            .unwrap_or_else(|| DEFAULT_ENGINE.into());
        Ok(v2::Cache {
            metadata,
            spec: v2::CacheSpec {
                size: self.spec.replicas,
                image: self.spec.image,
                memory: self.spec.memory,
                engine,
            },
            status: self.status,
        })
    }

    fn from_hub(hub: v2::Cache) -> Result<Self, String> {
        let mut metadata = hub.metadata;
        if hub.spec.engine != DEFAULT_ENGINE {
            metadata
                .annotations
                .get_or_insert_default()
                .insert(ENGINE.into(), hub.spec.engine);
        }
        Ok(v1::Cache {
            metadata,
            spec: v1::CacheSpec {
                replicas: hub.spec.size,
                image: hub.spec.image,
                memory: hub.spec.memory,
            },
            status: hub.status,
        })
    }
}

/// The `i`th object as the API server sends it (about 1.6 KB): a full `metadata` with
/// `managedFields`, a `spec` and a `status` with a condition.
pub fn object(version: &str, i: usize) -> Value {
    let spec = match version {
        "v1" => json!({"replicas": 3, "image": "redis:7.4", "memory": "512Mi"}),
        _ => json!({"size": 3, "image": "valkey:8.1", "memory": "512Mi", "engine": "valkey"}),
    };
    let mut annotations = json!({"team.example.com/owner": "payments"});
    if version == "v1" {
        annotations[ENGINE] = "valkey".into();
    }
    json!({
        "apiVersion": format!("{GROUP}/{version}"),
        "kind": "Cache",
        "metadata": {
            "name": format!("cache-{i:04}"),
            "namespace": "shop",
            "uid": format!("6f0b3c1e-4a57-4b1f-9a3e-{i:012}"),
            "resourceVersion": format!("{}", 184_467 + i),
            "generation": 4,
            "creationTimestamp": "2026-11-30T09:12:44Z",
            "labels": {"app.kubernetes.io/name": "cache", "app.kubernetes.io/part-of": "shop", "tier": "backend"},
            "annotations": annotations,
            "finalizers": ["bench.kube-markers.dev/cleanup"],
            "managedFields": [
                {"manager": "kubectl", "operation": "Apply", "apiVersion": format!("{GROUP}/v1"),
                 "time": "2026-11-30T09:12:44Z", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:metadata": {"f:labels": {"f:app.kubernetes.io/name": {}, "f:app.kubernetes.io/part-of": {}, "f:tier": {}}},
                              "f:spec": {"f:replicas": {}, "f:image": {}, "f:memory": {}}}},
                {"manager": "cache-operator", "operation": "Update", "apiVersion": format!("{GROUP}/v2"),
                 "time": "2026-12-01T17:03:09Z", "fieldsType": "FieldsV1", "subresource": "status",
                 "fieldsV1": {"f:status": {"f:readyReplicas": {}, "f:conditions": {}}}},
            ],
        },
        "spec": spec,
        "status": {
            "readyReplicas": 3,
            "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                            "message": "3 of 3 replicas are ready", "lastTransitionTime": "2026-12-01T17:03:09Z",
                            "observedGeneration": 4}],
        },
    })
}

/// A `ConversionReview` of `objects` objects at `from`, to `to`.
pub fn review(uid: &str, from: &str, to: &str, objects: usize) -> Vec<u8> {
    let objects: Vec<Value> = (0..objects).map(|i| object(from, i)).collect();
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": format!("{GROUP}/{to}"), "objects": objects},
    }))
    .expect("JSON")
}

/// Why the answer to `review(uid, from, to, objects)` is not the conversion expected, if it
/// is not: checked once per run, before the clock starts, so that the load measures real
/// conversions.
pub fn check_answer(answer: &[u8], uid: &str, to: &str, objects: usize) -> Result<(), String> {
    let answer: Value = serde_json::from_slice(answer).map_err(|e| format!("not JSON: {e}"))?;
    let response = &answer["response"];
    let converted = response["convertedObjects"].as_array();
    let ok = response["uid"] == uid
        && response["result"]["status"] == "Success"
        && converted.is_some_and(|c| c.len() == objects);
    if !ok {
        return Err(format!("unexpected answer: {answer}"));
    }
    for object in converted.into_iter().flatten() {
        let expected = match to {
            "v1" => {
                object["spec"]["replicas"] == 3
                    && object["metadata"]["annotations"][ENGINE] == "valkey"
            }
            _ => {
                object["spec"]["size"] == 3
                    && object["spec"]["engine"] == "valkey"
                    && object["metadata"]["annotations"].get(ENGINE).is_none()
            }
        };
        if !expected || object["apiVersion"] != format!("{GROUP}/{to}") {
            return Err(format!("not converted as expected: {object}"));
        }
    }
    Ok(())
}
