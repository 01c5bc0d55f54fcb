// `allow(...)` where it cannot stand: a kind's check on a field or a schema type, a variant's
// field, inside `items(...)`.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    #[k8s(allow(scope, reason = "the kind's, not a field's"))]
    pub size: i32,
    #[k8s(items(allow(maxlength, reason = "not an item's")))]
    pub names: Vec<String>,
    #[k8s(allow(conversion, reason = "the kind's conversion"))]
    pub converted: i32,
    #[k8s(allow(servedVersionRemoval, reason = "the kind's versions"))]
    pub served: i32,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[k8s(allow(storedVersionRemoval, reason = "a schema type is no kind"))]
pub struct Part {
    pub a: i32,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Choice {
    A {
        #[k8s(allow(integers, reason = "a variant's field"))]
        n: u32,
    },
}

fn main() {}
