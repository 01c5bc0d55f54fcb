//! A kind in three versions for the unit tests: `v2` the hub, `v1` and `v1alpha1` its spokes.

use crate::conversion::Spoke;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod v2 {
    use super::*;

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(
        group = "test.kube-markers.dev",
        version = "v2",
        kind = "Widget",
        namespaced
    )]
    pub struct WidgetSpec {
        pub size: i32,
        pub image: Image,
    }

    #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    pub struct Image {
        pub name: String,
        pub tag: String,
    }
}

pub mod v1 {
    use super::*;

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(
        group = "test.kube-markers.dev",
        version = "v1",
        kind = "Widget",
        namespaced
    )]
    pub struct WidgetSpec {
        pub replicas: i32,
        pub image: String,
    }
}

pub mod v1alpha1 {
    use super::*;

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(
        group = "test.kube-markers.dev",
        version = "v1alpha1",
        kind = "Widget",
        namespaced
    )]
    pub struct WidgetSpec {
        pub count: i32,
    }
}

#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(
    group = "test.kube-markers.dev",
    version = "v1",
    kind = "Gadget",
    namespaced
)]
pub struct GadgetSpec {
    pub size: i32,
}

const TAG: &str = "test.kube-markers.dev/tag";

/// v1's `image` is `name:tag`; v2 splits it. v1 marks what it converted with a label (to
/// show that labels and annotations reach the API server).
#[crate::conversion]
impl Spoke<v2::Widget> for v1::Widget {
    type Error = String;

    fn to_hub(self) -> Result<v2::Widget, String> {
        if self.spec.replicas < 0 {
            return Err(format!(
                "replicas must not be negative, not {}",
                self.spec.replicas
            ));
        }
        if self.spec.image == "panic" {
            panic!("a conversion that panics");
        }
        let (name, tag) = self
            .spec
            .image
            .split_once(':')
            .unwrap_or((&self.spec.image, "latest"));
        let mut metadata = self.metadata;
        if let Some(annotations) = metadata.annotations.as_mut() {
            annotations.remove(TAG);
        }
        Ok(v2::Widget {
            metadata,
            spec: v2::WidgetSpec {
                size: self.spec.replicas,
                image: v2::Image {
                    name: name.into(),
                    tag: tag.into(),
                },
            },
        })
    }

    fn from_hub(hub: v2::Widget) -> Result<Self, String> {
        let mut metadata: ObjectMeta = hub.metadata;
        metadata
            .labels
            .get_or_insert_default()
            .insert("converted".into(), "true".into());
        metadata
            .annotations
            .get_or_insert_default()
            .insert(TAG.into(), hub.spec.image.tag.clone());
        Ok(v1::Widget {
            metadata,
            spec: v1::WidgetSpec {
                replicas: hub.spec.size,
                image: format!("{}:{}", hub.spec.image.name, hub.spec.image.tag),
            },
        })
    }
}

/// v1alpha1 has no image: the hub's default one, dropped on the way back.
#[crate::conversion]
impl Spoke<v2::Widget> for v1alpha1::Widget {
    type Error = std::convert::Infallible;

    fn to_hub(self) -> Result<v2::Widget, Self::Error> {
        Ok(v2::Widget {
            metadata: self.metadata,
            spec: v2::WidgetSpec {
                size: self.spec.count,
                image: v2::Image {
                    name: "busybox".into(),
                    tag: "latest".into(),
                },
            },
        })
    }

    fn from_hub(hub: v2::Widget) -> Result<Self, Self::Error> {
        Ok(v1alpha1::Widget {
            metadata: hub.metadata,
            spec: v1alpha1::WidgetSpec {
                count: hub.spec.size,
            },
        })
    }
}
