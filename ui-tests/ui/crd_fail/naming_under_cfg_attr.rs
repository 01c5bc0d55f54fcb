use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// JSON names under a field's cfg_attr are guesses (rustc resolves the type's own before us).
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Gadget", namespaced)]
#[cfg_attr(all(), serde(rename_all = "camelCase"))]
pub struct GadgetSpec {
    #[k8s(required)]
    pub max_size: Option<i32>,
    #[cfg_attr(feature = "renamed", serde(rename = "class"))]
    pub storage_class: Option<String>,
}

fn main() {}
