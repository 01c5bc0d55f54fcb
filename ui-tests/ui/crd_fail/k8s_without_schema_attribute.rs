use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// A type inside a CRD needs #[kube_markers::schema] for its #[k8s] markers to mean anything.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Part {
    #[k8s(min_length = 1)]
    pub name: String,
}

fn main() {}
