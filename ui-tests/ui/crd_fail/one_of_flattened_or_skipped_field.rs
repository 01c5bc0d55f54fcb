use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Extra {
    pub c: Option<String>,
}

// A flattened field's own name is not in the object (its fields are), and a skipped field is
// never there: a one-of rule naming them could never see them.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
#[k8s(at_most_one_of = ["a", "extra", "hidden"])]
pub struct WidgetSpec {
    pub a: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
    #[serde(skip)]
    pub hidden: Option<String>,
}

fn main() {}
