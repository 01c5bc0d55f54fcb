use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    // Nothing lies above 5 and at most 5.
    #[k8s(minimum = 5, exclusive_minimum, maximum = 5)]
    pub ratio: f64,
    // No integer lies strictly between 1 and 2.
    #[k8s(minimum = 1, exclusive_minimum, maximum = 2, exclusive_maximum)]
    pub count: i32,
    // No multiple of 5 from 1 to 4.
    #[k8s(minimum = 1, maximum = 4, multiple_of = 5)]
    pub step: i64,
    #[k8s(multiple_of = 0)]
    pub zero_step: f64,
    #[k8s(min_length = 3, max_length = 2)]
    pub name: String,
    #[k8s(min_items = 3, max_items = 2, items(min_length = 2, max_length = 1))]
    pub tags: Vec<String>,
    #[k8s(min_properties = 2, max_properties = 1)]
    pub labels: std::collections::BTreeMap<String, String>,
}

fn main() {}
