use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// A tuple struct's fields have no JSON names: `optional` (like `required`) has nothing to name.
#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Pair(#[k8s(optional)] Option<String>, #[k8s(required)] String);

fn main() {}
