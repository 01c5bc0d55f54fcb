//! Objects of the `Vocabulary` CRD (`types.rs`), shared by the offline schema tests and the
//! API server's (`envtest/tests/outside_crds.rs`).

use serde_json::{Value, json};

/// A `Vocabulary` every rule accepts.
pub fn valid() -> Value {
    json!({
        "apiVersion": "vocabulary.example.com/v1",
        "kind": "Vocabulary",
        "metadata": {"name": "valid"},
        "spec": {
            "replicas": 3, "minReplicas": 1, "ratio": 0.5, "step": 10, "shortName": "abc",
            "policy": "Allow", "tags": ["a", "b"], "labels": {"k": "v"}, "maxUnavailable": "25%",
            "ports": [80, "http"], "ownerRef": "me", "comment": "", "entries": [{"name": "x"}],
            "id": "1", "owner": "ops", "anything": {"deep": [1, {"x": true}]},
            "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
        }
    })
}

/// [`valid`] with some spec fields replaced (`null` removes one).
pub fn with(spec_changes: Value) -> Value {
    let mut obj = valid();
    for (k, v) in spec_changes.as_object().unwrap() {
        if v.is_null() {
            obj["spec"].as_object_mut().unwrap().remove(k);
        } else {
            obj["spec"][k] = v.clone();
        }
    }
    obj
}
