// `#[crd]` through an alias would lose the CRD.
use kube::CustomResource;
use kube_markers as km;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[km::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
