// Both sides must be kube-derive resources: the error is on the type that is not.
use kube_markers::conversion::Spoke;
use serde::{Deserialize, Serialize};

#[derive(Clone, Deserialize, Serialize)]
struct Old {
    size: i32,
}

#[derive(Clone, Deserialize, Serialize)]
struct New {
    replicas: i32,
}

#[kube_markers::conversion]
impl Spoke<New> for Old {
    type Error = String;
    fn to_hub(self) -> Result<New, String> {
        Ok(New { replicas: self.size })
    }
    fn from_hub(hub: New) -> Result<Self, String> {
        Ok(Old { size: hub.replicas })
    }
}

fn main() {}
