use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// An integer bound is kept exactly: one beyond 64 bits says so (it is a number literal).
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    #[k8s(minimum = -99999999999999999999, maximum = 99999999999999999999)]
    pub size: i64,
    #[k8s(max_length = 99999999999999999999)]
    pub name: String,
}

fn main() {}
