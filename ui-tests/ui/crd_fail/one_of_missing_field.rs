use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
#[k8s(exactly_one_of = ["a", "c"])]
pub struct WidgetSpec {
    pub a: Option<String>,
    pub b: Option<String>,
}

fn main() {}
