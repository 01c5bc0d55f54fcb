//! `#[k8s(allow(NAME, reason = "..."))]` on the kind, a field and a schema type: each type's
//! registry record carries its fields' JSON names and places and every allow with its reason
//! and place, for the generator's lints and compatibility checks (and the kind's attribute's).

use kube::CustomResource;
use kube_markers::registry::schema_types;
use kube_markers::registry::schema_types::SchemaTypeKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd(allow(conversion, reason = "one version left"))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
#[serde(rename_all = "camelCase")]
#[k8s(allow(scope, reason = "moved to cluster scope in 2.0, announced in 1.5"))]
pub struct WidgetSpec {
    #[k8s(
        allow(integers, reason = "a byte count"),
        allow(maximum, reason = "lowered on purpose")
    )]
    pub size_bytes: u32,
    pub r#type: Option<Vec<Part>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[k8s(allow(jsontags, reason = "mirrors an upstream API"))]
pub struct Part {
    pub snake_name: String,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Extra {
    pub more: Option<String>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct WidgetStatus {
    #[k8s(allow(nophase, reason = "kept for clients of 1.x"))]
    pub phase: Option<String>,
}

/// A generic struct and a tuple struct register their records too.
#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Wrapper<T> {
    #[k8s(allow(jsontags, reason = "generic"))]
    pub inner_value: Option<T>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Pair(
    pub i32,
    #[k8s(allow(integers, reason = "a tuple field"))] pub u8,
);

fn main() {
    let types = schema_types();
    let names: Vec<&str> = types.iter().map(|t| &*t.source.item).collect();
    assert_eq!(
        names,
        [
            "WidgetSpec",
            "Part",
            "Extra",
            "WidgetStatus",
            "Wrapper",
            "Pair"
        ]
    );
    let inner = &types[4].fields[0];
    assert_eq!(
        (&*inner.inner, inner.json_name.as_deref()),
        ("T", Some("inner_value"))
    );
    let pair = &types[5];
    assert_eq!(pair.fields.len(), 2);
    assert_eq!(
        (
            &*pair.fields[1].rust_name,
            pair.fields[1].json_name.as_deref()
        ),
        ("1", None)
    );
    assert_eq!(pair.fields[1].allows[0].name, "integers");
    let spec = types[0];
    assert_eq!(spec.kind, SchemaTypeKind::Crd);
    assert_eq!(spec.status.as_deref(), Some("WidgetStatus"));
    assert!(
        spec.source.file.ends_with("schema_allow.rs"),
        "{:?}",
        spec.source
    );
    assert_eq!((spec.source.line, spec.source.column), (22, 12));
    assert_eq!(spec.allows[0].name, "scope");
    assert_eq!(
        spec.allows[0].reason,
        "moved to cluster scope in 2.0, announced in 1.5"
    );
    assert_eq!((spec.allows[0].line, spec.allows[0].column), (21, 13));
    // An upgrade check's name in `#[kube_markers::crd(allow(...))]` is the kind's allow too.
    assert_eq!(spec.allows[1].name, "conversion");
    assert_eq!(spec.allows[1].reason, "one version left");
    assert_eq!((spec.allows[1].line, spec.allows[1].column), (11, 27));
    assert_eq!(spec.allows.len(), 2);
    let size = &spec.fields[0];
    assert_eq!(size.json_name.as_deref(), Some("sizeBytes"));
    assert_eq!((size.line, size.column), (27, 9));
    assert_eq!(&*size.ty, "u32");
    let allowed: Vec<(&str, &str)> = size.allows.iter().map(|a| (&*a.name, &*a.reason)).collect();
    assert_eq!(
        allowed,
        [
            ("integers", "a byte count"),
            ("maximum", "lowered on purpose")
        ]
    );
    assert_eq!(spec.field_source(size).item, "WidgetSpec.size_bytes");
    assert_eq!(spec.field_source(size).line, 27);
    let ty = &spec.fields[1];
    assert_eq!(
        (&*ty.rust_name, ty.json_name.as_deref()),
        ("type", Some("type"))
    );
    assert_eq!(&*ty.inner, "Part");
    let extra = &spec.fields[2];
    assert!(extra.flatten && extra.json_name.is_none());
    assert_eq!(types[1].allows[0].name, "jsontags");
    assert_eq!(types[3].fields[0].allows[0].name, "nophase");
}
