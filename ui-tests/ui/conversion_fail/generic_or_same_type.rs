// A conversion is between two named versions: no generics, no Self, not the same type.
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
impl<T> Spoke<T> for v1::Widget {
    type Error = String;
    fn to_hub(self) -> Result<T, String> {
        unimplemented!()
    }
    fn from_hub(_hub: T) -> Result<Self, String> {
        unimplemented!()
    }
}

#[kube_markers::conversion]
impl Spoke<Self> for v2::Widget {
    type Error = String;
    fn to_hub(self) -> Result<Self, String> {
        Ok(self)
    }
    fn from_hub(hub: Self) -> Result<Self, String> {
        Ok(hub)
    }
}

fn main() {}
