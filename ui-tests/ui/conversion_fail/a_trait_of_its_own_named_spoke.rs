// A trait of the user's own named Spoke: refused where the types are, by the bound.
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

mod mine {
    pub trait Spoke<H>: Sized {
        type Error;
        fn to_hub(self) -> Result<H, Self::Error>;
        fn from_hub(hub: H) -> Result<Self, Self::Error>;
    }
}
#[allow(unused_imports)]
use mine::Spoke as _;

mod inner {
    use super::{mine::Spoke, v1, v2};
    #[kube_markers::conversion]
    impl Spoke<v2::Widget> for v1::Widget {
    type Error = String;
    fn to_hub(self) -> Result<v2::Widget, String> {
        Ok(v2::Widget::new("w", v2::WidgetSpec { replicas: self.spec.size }))
    }
    fn from_hub(hub: v2::Widget) -> Result<Self, String> {
        Ok(v1::Widget::new("w", v1::WidgetSpec { size: hub.spec.replicas }))
    }
    }
}

fn main() {}
