use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// Even without #[k8s] markers yet: CustomResource has already run above the attribute.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube_markers::crd]
#[kube(group = "example.com", version = "v1", kind = "Gadget", namespaced)]
pub struct GadgetSpec {
    pub size: i32,
}

fn main() {}
