// Every error of `#[k8s(allow(...))]` on fields and types, each on its own token, all reported.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
#[serde(rename_all = "camelCase")]
#[k8s(allow(scope, reason = ""))]
pub struct WidgetSpec {
    #[k8s(allow(jsontag, reason = "x"))]
    pub unknown: i32,
    #[k8s(allow(MaxLength, reason = "x"))]
    pub wrong_case: String,
    #[k8s(allow(integers))]
    pub no_reason: u32,
    #[k8s(allow(reason = "nothing named"))]
    pub no_name: i32,
    #[k8s(allow(integers, nofloats, reason = "two names"))]
    pub two_names: u32,
    #[k8s(allow(integers, reason = "once"), allow(integers, reason = "twice"))]
    pub twice: u32,
    #[k8s(allow(integers, reason = "a", reason = "b"))]
    pub two_reasons: u32,
    #[k8s(allow(integers = true, reason = "x"))]
    pub name_with_value: u32,
    #[k8s(allow(integers, reason = 3))]
    pub reason_not_a_string: u32,
    #[k8s(allow)]
    pub bare: i32,
    #[k8s(allow = "integers")]
    pub with_value: i32,
}

fn main() {}
