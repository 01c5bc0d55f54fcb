use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Thing", namespaced)]
pub struct ThingSpec {
    pub source: Source,
}

// Flags that change the variant's object schema are refused, not dropped; value markers work.
#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    Git {
        #[k8s(required, min_length = 1)]
        url: Option<String>,
        #[k8s(immutable)]
        rev: Option<String>,
        #[k8s(optional)]
        path: Option<String>,
    },
}

fn main() {}
