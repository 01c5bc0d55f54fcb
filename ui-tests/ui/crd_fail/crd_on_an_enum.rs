use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Widget {
    A,
}

fn main() {}
