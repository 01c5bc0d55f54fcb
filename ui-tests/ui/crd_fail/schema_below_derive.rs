use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube_markers::schema]
#[k8s(min_properties = 1)]
pub struct Part {
    #[k8s(min_length = 1)]
    pub name: String,
}

fn main() {}
