// Another trait, or another trait named Spoke, is refused by name.
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
impl From<v2::Widget> for v1::Widget {
    fn from(hub: v2::Widget) -> Self {
        v1::Widget::new("w", v1::WidgetSpec { size: hub.spec.replicas })
    }
}

mod other {
    pub trait Spoke<H> {}
}

#[kube_markers::conversion]
impl other::Spoke<v2::Widget> for v1::Widget {}

fn main() {}
