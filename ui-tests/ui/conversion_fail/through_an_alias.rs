// Through an alias the generator's scan could not find it.
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

use kube_markers as km;

#[km::conversion]
impl Spoke<v2::Widget> for v1::Widget {
    type Error = String;
    fn to_hub(self) -> Result<v2::Widget, String> {
        Ok(v2::Widget::new("w", v2::WidgetSpec { replicas: self.spec.size }))
    }
    fn from_hub(hub: v2::Widget) -> Result<Self, String> {
        Ok(v1::Widget::new("w", v1::WidgetSpec { size: hub.spec.replicas }))
    }
}

fn main() {}
