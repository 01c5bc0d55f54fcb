// The accepted spellings of #[conversion] and of its trait, registered once each.
use kube::CustomResource;
use kube_markers::conversion;
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

mod v1beta1 {
    use super::*;
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "example.com",
        version = "v1beta1",
        kind = "Widget",
        namespaced
    )]
    pub struct WidgetSpec {
        pub count: i32,
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

#[conversion]
impl kube_markers::conversion::Spoke<v2::Widget> for v1::Widget {
    type Error = std::convert::Infallible;
    fn to_hub(self) -> Result<v2::Widget, Self::Error> {
        Ok(v2::Widget {
            metadata: self.metadata,
            spec: v2::WidgetSpec {
                replicas: self.spec.size,
            },
        })
    }
    fn from_hub(hub: v2::Widget) -> Result<Self, Self::Error> {
        Ok(v1::Widget {
            metadata: hub.metadata,
            spec: v1::WidgetSpec {
                size: hub.spec.replicas,
            },
        })
    }
}

mod beta {
    use super::{v1beta1, v2};
    use kube_markers::conversion::{self, Spoke};

    #[derive(Debug)]
    pub struct Negative(i32);

    impl std::fmt::Display for Negative {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "count {} is negative", self.0)
        }
    }

    #[kube_markers::conversion]
    impl Spoke<crate::v2::Widget> for v1beta1::Widget {
        type Error = Negative;
        fn to_hub(self) -> Result<v2::Widget, Negative> {
            if self.spec.count < 0 {
                return Err(Negative(self.spec.count));
            }
            Ok(v2::Widget {
                metadata: self.metadata,
                spec: v2::WidgetSpec {
                    replicas: self.spec.count,
                },
            })
        }
        fn from_hub(hub: v2::Widget) -> Result<Self, Negative> {
            Ok(v1beta1::Widget {
                metadata: hub.metadata,
                spec: v1beta1::WidgetSpec {
                    count: hub.spec.replicas,
                },
            })
        }
    }

    // `conversion::Spoke` names the same trait.
    #[allow(dead_code)]
    fn same_trait<T: conversion::Spoke<v2::Widget>>() {}
}

fn main() {
    let entries = kube_markers::registry::conversion_entries();
    let pairs: Vec<(&str, &str)> = entries.iter().map(|e| (e.spoke_type, e.hub_type)).collect();
    assert_eq!(
        pairs,
        [
            ("v1::Widget", "v2::Widget"),
            ("v1beta1::Widget", "crate::v2::Widget")
        ]
    );
    let spoke = (entries[1].to_hub)(serde_json::json!({
        "apiVersion": "example.com/v1beta1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"count": -1},
    }));
    assert_eq!(spoke.unwrap_err(), "count -1 is negative");
}
