use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
#[k8s(at_most_one_of = ["a", "b"])]
pub struct WidgetSpec {
    pub a: String,
    pub b: Option<String>,
}

fn main() {}
