use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    #[k8s(minimum = 0.5, maximum = 10.5, multiple_of = 1.5)]
    pub replicas: i32,
    #[k8s(items(minimum = -0.5))]
    pub sizes: Vec<u16>,
    // Whole numbers written as floats are fine, and fractions on floats.
    #[k8s(minimum = 1.0)]
    pub count: i64,
    #[k8s(minimum = 0.5)]
    pub ratio: f32,
}

fn main() {}
