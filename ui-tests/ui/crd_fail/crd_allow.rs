use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// Each type shows one error of `allow(...)` on its own span.

#[kube_markers::crd(allow(unconverted_version, reason = "read-only"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Misspelled", namespaced)]
pub struct MisspelledSpec {
    pub name: String,
}

#[kube_markers::crd(allow(lossy, reason = "read-only"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Unknown", namespaced)]
pub struct UnknownSpec {
    pub name: String,
}

#[kube_markers::crd(allow(unconverted-versions))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "NoReason", namespaced)]
pub struct NoReasonSpec {
    pub name: String,
}

#[kube_markers::crd(allow(unconverted-versions, reason = "  "))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "EmptyReason", namespaced)]
pub struct EmptyReasonSpec {
    pub name: String,
}

#[kube_markers::crd(
    allow(unconverted-versions, reason = "read-only"),
    allow(unconverted_versions, reason = "again")
)]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Twice", namespaced)]
pub struct TwiceSpec {
    pub name: String,
}

#[kube_markers::crd(allow(unconverted-versions, unconverted-versions, reason = "read-only"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "TwiceInOne", namespaced)]
pub struct TwiceInOneSpec {
    pub name: String,
}

#[kube_markers::crd(allow)]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Bare", namespaced)]
pub struct BareSpec {
    pub name: String,
}

#[kube_markers::crd(allow = "unconverted-versions")]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Assigned", namespaced)]
pub struct AssignedSpec {
    pub name: String,
}

#[kube_markers::crd(allow(reason = "read-only"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "NoName", namespaced)]
pub struct NoNameSpec {
    pub name: String,
}

#[kube_markers::crd(allow(unconverted-versions = true, reason = "read-only"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "NameWithValue", namespaced)]
pub struct NameWithValueSpec {
    pub name: String,
}

#[kube_markers::crd(allow(unconverted-versions, reason = read_only))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "ReasonNotAString", namespaced)]
pub struct ReasonNotAStringSpec {
    pub name: String,
}

#[kube_markers::crd(allow(unconverted-versions, reason = "a", reason = "b"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "TwoReasons", namespaced)]
pub struct TwoReasonsSpec {
    pub name: String,
}

// The upgrade check's names: crdify's spelling, exactly; a lint belongs in #[k8s(allow(...))].
#[kube_markers::crd(allow(servedVersionRemovel, reason = "migrated"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "CheckMisspelled", namespaced)]
pub struct CheckMisspelledSpec {
    pub name: String,
}

#[kube_markers::crd(allow(integers, reason = "a lint"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "LintOnCrd", namespaced)]
pub struct LintOnCrdSpec {
    pub name: String,
}

#[kube_markers::crd(allow(conversion, reason = "one version left"), allow(conversion, reason = "again"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "CheckTwice", namespaced)]
pub struct CheckTwiceSpec {
    pub name: String,
}

#[kube_markers::crd(allow(conversion))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "CheckNoReason", namespaced)]
pub struct CheckNoReasonSpec {
    pub name: String,
}

// A good `allow` beside a bad key: the key's error only.
#[kube_markers::crd(allow(unconverted-versions, reason = "read-only"), storag)]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "GoodAllowBadKey", namespaced)]
pub struct GoodAllowBadKeySpec {
    pub name: String,
}

fn main() {}
