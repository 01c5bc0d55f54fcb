// A #[conversion] in a macro_rules! body is invisible to the scan until expanded.
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

macro_rules! conversion_of {
    ($spoke:ty => $hub:ty) => {
        #[kube_markers::conversion]
        impl Spoke<$hub> for $spoke {
            type Error = String;
            fn to_hub(self) -> Result<$hub, String> {
                Err("never".into())
            }
            fn from_hub(_hub: $hub) -> Result<Self, String> {
                Err("never".into())
            }
        }
    };
}

conversion_of!(v1::Widget => v2::Widget);

fn main() {}
