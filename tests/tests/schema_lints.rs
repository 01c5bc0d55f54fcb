//! The API-convention lints on CRD types written by a user outside this workspace, as the
//! README's quick start sets it up (`outside/mod.rs`): each lint at the field's `file:line`
//! through the odd spellings (`rename`, `rename_all`, a type alias, `Option`, `BTreeMap`,
//! nested and flattened types), `allow(...)` silencing one lint on one field,
//! `--deny-warnings`, and `[workspace.metadata.kube-markers.lints]`.

#[allow(dead_code)] // shared with quick_start.rs and new_user.rs
mod outside;
use outside::{quick_start_workspace, run_built_generator, run_generator, write};

const LIB: &str = r#"use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A type-level alias: the schema says `uint32` whatever the name.
pub type Count = u32;

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
pub struct WidgetSpec {
    pub max_size: i32,
    #[serde(rename = "count")]
    pub alias_count: Count,
    pub ratio: Option<f64>,
    pub ports: Option<Vec<Port>>,
    pub limits: BTreeMap<String, u64>,
    #[serde(flatten)]
    pub extra: Extra,
    #[serde(rename = "allowedBytes")]
    #[k8s(allow(integers, reason = "a byte count below 4 GiB"))]
    pub allowed_bytes: u32,
    #[serde(rename = "enabled")]
    pub enabled: bool,
    pub status: Option<String>,
    #[serde(rename = "createdTimestamp")]
    pub created_timestamp: Option<String>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[k8s(allow(ssatags, reason = "replaced as a whole by its one writer"))]
pub struct Port {
    pub port_number: u16,
    pub names: Vec<String>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Extra {
    pub extra_flag: Option<i8>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub phase: String,
    pub conditions: Option<Vec<Condition>>,
}

/// A well-formed kind: silent, even with the lints that are off by default on.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Gadget", namespaced, status = "GadgetStatus")]
#[serde(rename_all = "camelCase")]
pub struct GadgetSpec {
    #[k8s(max_length = 63)]
    pub display_name: String,
    #[k8s(list_type = "map", list_map_keys = ["name"], max_items = 8)]
    pub ports: Vec<GadgetPort>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GadgetPort {
    #[k8s(max_length = 15)]
    pub name: String,
    pub port_number: i32,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GadgetStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[k8s(list_type = "map", list_map_keys = ["type"], max_items = 16)]
    pub conditions: Vec<Condition>,
    #[serde(default)]
    pub observed_generation: i64,
}
"#;

/// `my-operator/src/lib.rs:LINE:COLUMN (Type.field)` of the field declared by `decl`.
fn at(decl: &str, item: &str) -> String {
    let (n, line) = LIB
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with(decl))
        .unwrap_or_else(|| panic!("{decl}"));
    let column = line.find(decl).unwrap() + 1 + "pub ".len();
    format!("my-operator/src/lib.rs:{}:{column} ({item})", n + 1)
}

#[test]
fn each_lint_fires_at_the_field_and_allow_and_the_configuration_silence_it() {
    let ws = quick_start_workspace("schema-lints", LIB);
    let out = run_generator(&ws, &[]);
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{text}");
    let crd = "widgets.example.com v1";
    let expected = [
        (
            "jsontags",
            at("pub max_size", "WidgetSpec.max_size"),
            format!("{crd} spec.max_size: property `max_size` is not camelCase"),
        ),
        (
            "integers",
            at("pub alias_count", "WidgetSpec.alias_count"),
            format!("{crd} spec.count: an integer of format `uint32` (u32): use i32 or i64"),
        ),
        (
            "nofloats",
            at("pub ratio", "WidgetSpec.ratio"),
            format!("{crd} spec.ratio: a floating-point number"),
        ),
        (
            "ssatags",
            at("pub ports", "WidgetSpec.ports"),
            format!("{crd} spec.ports: a list without a list type"),
        ),
        (
            "integers",
            at("pub limits", "WidgetSpec.limits"),
            format!("{crd} spec.limits.*: an integer of format `uint64` (u64)"),
        ),
        (
            "integers",
            at("pub port_number", "Port.port_number"),
            format!("{crd} spec.ports[*].portNumber: an integer of format `uint16` (u16)"),
        ),
        (
            "jsontags",
            at("pub extra_flag", "Extra.extra_flag"),
            format!("{crd} spec.extra_flag: property `extra_flag` is not camelCase"),
        ),
        (
            "integers",
            at("pub extra_flag", "Extra.extra_flag"),
            format!("{crd} spec.extra_flag: an integer of format `int8` (i8)"),
        ),
        (
            "statussubresource",
            at("pub status", "WidgetSpec.status"),
            format!("{crd} spec.status: a `status` field in spec is part of the spec"),
        ),
        (
            "nophase",
            at("pub phase", "WidgetStatus.phase"),
            format!("{crd} status.phase: property `phase` is a phase"),
        ),
        (
            "statusoptional",
            at("pub phase", "WidgetStatus.phase"),
            format!("{crd} status.phase: status property `phase` is required"),
        ),
        (
            "conditions",
            at("pub conditions", "WidgetStatus.conditions"),
            format!(
                "{crd} status.conditions: its list type is not `map`; it is not keyed by `type`"
            ),
        ),
    ];
    for (lint, place, finding) in &expected {
        let line = format!("warning[{lint}]: {place}: {finding}");
        assert!(text.contains(&line), "{line}\n---\n{text}");
    }
    let warnings = text.lines().filter(|l| l.starts_with("warning[")).count();
    // The ones above, and ssatags on status.conditions (a list without a list type).
    assert_eq!(warnings, expected.len() + 1, "{text}");
    // allow(...) on a field silences that lint there only; on a type, in all of its fields.
    assert!(!text.contains("(WidgetSpec.allowed_bytes)"), "{text}");
    assert!(!text.contains("spec.ports[*].names"), "{text}");
    // Off by default: nobools.
    assert!(!text.contains("warning[nobools]"), "{text}");
    assert!(!text.contains("gadgets.example.com"), "{text}");

    let denied = run_built_generator(&ws, &["--check", "--deny-warnings"]);
    let denied_text = String::from_utf8_lossy(&denied.stderr);
    assert!(!denied.status.success(), "{denied_text}");
    assert!(
        denied_text.contains(&format!(
            "warning[nophase]: {}",
            at("pub phase", "WidgetStatus.phase")
        )),
        "{denied_text}"
    );

    // The workspace turns lints on and off.
    let manifest = ws.join("Cargo.toml");
    let mut cargo = std::fs::read_to_string(&manifest).unwrap();
    cargo.push_str(
        "\n[workspace.metadata.kube-markers.lints]\nintegers = \"off\"\nnobools = \"warn\"\n\
         maxlength = \"warn\"\nnomaps = \"warn\"\nnotimestamp = \"warn\"\n",
    );
    write(&manifest, &cargo);
    let out = run_built_generator(&ws, &[]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("warning[integers]"), "{text}");
    let bools = format!(
        "warning[nobools]: {}: {crd} spec.enabled: a boolean",
        at("pub enabled", "WidgetSpec.enabled")
    );
    assert!(text.contains(&bools), "{bools}\n---\n{text}");
    for expected in [
        format!(
            "warning[nomaps]: {}: {crd} spec.limits: a map whose values are not strings",
            at("pub limits", "WidgetSpec.limits")
        ),
        format!(
            "warning[notimestamp]: {}: {crd} spec.createdTimestamp: property \
             `createdTimestamp`: name it `createdTime`",
            at("pub created_timestamp", "WidgetSpec.created_timestamp")
        ),
        format!(
            "warning[maxlength]: {}: {crd} spec.createdTimestamp: a string without maxLength",
            at("pub created_timestamp", "WidgetSpec.created_timestamp")
        ),
    ] {
        assert!(text.contains(&expected), "{expected}\n---\n{text}");
    }
    assert!(!text.contains("gadgets.example.com"), "{text}");

    // A misspelt lint is an error naming the file.
    write(&manifest, &cargo.replace("nobools = ", "nobool = "));
    let out = run_built_generator(&ws, &[]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("[workspace.metadata.kube-markers.lints] in ")
            && text.contains("unknown lint `nobool`; did you mean `nobools`?"),
        "{text}"
    );
}
