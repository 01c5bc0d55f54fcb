//! Data the stages hand each other, below all of them: what one stage makes and a later one
//! (or a check) reads.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_registry::Source;
use serde_json::Value;

/// One CRD ready to write.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GeneratedCrd {
    /// The object.
    pub crd: CustomResourceDefinition,
    /// controller-gen's file name: `<group>_<plural>.yaml`.
    pub file_name: String,
    /// The types it was built from.
    pub sources: Vec<(String, Source)>,
}

impl GeneratedCrd {
    /// The CRD as JSON, as the YAML writer emits it.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(&self.crd).expect("CustomResourceDefinition serializes to JSON")
    }
}
