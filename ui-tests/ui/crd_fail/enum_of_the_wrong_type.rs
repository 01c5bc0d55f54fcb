use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    #[k8s(enum = [1, "two", 3.5])]
    pub count: i32,
    #[k8s(enum = ["a", true])]
    pub name: String,
    #[k8s(items(enum = [1, 2]))]
    pub tags: Vec<String>,
    // Both kinds are fine on an integer-or-string.
    #[k8s(int_or_string, enum = [1, "a"])]
    pub port: String,
    // Every value is longer than allowed.
    #[k8s(enum = ["long", "longer"], max_length = 3)]
    pub code: String,
}

fn main() {}
