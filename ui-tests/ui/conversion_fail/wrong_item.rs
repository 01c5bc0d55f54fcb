// #[conversion] stands on an impl of Spoke only.
use kube::CustomResource;
use kube_markers::conversion::Spoke;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod v1 {
    use super::*;
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
    pub struct WidgetSpec {
        pub size: i32,
    }
}

mod v2 {
    use super::*;
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "example.com", version = "v2", kind = "Widget", namespaced)]
    pub struct WidgetSpec {
        pub replicas: i32,
    }
}

#[kube_markers::conversion]
struct NotAnImpl;

#[kube_markers::conversion]
fn convert() {}

#[kube_markers::conversion]
impl v1::Widget {
    fn size(&self) -> i32 {
        self.spec.size
    }
}

fn main() {}
