use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// Below the derive, the attribute would run after CustomResource and JsonSchema: the #[k8s]
// markers would be dropped without effect.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube_markers::crd]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    #[k8s(minimum = 1)]
    pub size: i32,
}

fn main() {}
