use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// CEL cannot name a property that starts with a digit or holds `@`: the rules `immutable` and
// the one-of markers write would not compile on the API server.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
#[k8s(at_most_one_of = ["2fa", "b"])]
pub struct WidgetSpec {
    #[serde(rename = "2fa")]
    pub two_factor: Option<bool>,
    pub b: Option<bool>,
    #[k8s(immutable)]
    #[serde(rename = "owner@")]
    pub owner: Option<String>,
}

fn main() {}
