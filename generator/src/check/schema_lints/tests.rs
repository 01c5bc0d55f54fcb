//! The walk and every lint on hand-written schemas and records (what kube-derive and the
//! macros write); `tests/tests/schema_lints.rs` runs them on real types, outside the workspace.

use super::*;
use kube_markers_core::schema_types::{SchemaAllow, SchemaField, SchemaTypeKind};
use serde_json::{Value, json};

const FILE: &str = "src/api.rs";
const MODULE: &str = "op::api";

fn field(rust: &str, json: &str, inner: &str, line: u32) -> SchemaField {
    SchemaField {
        rust_name: rust.to_string().into(),
        json_name: Some(json.to_string().into()),
        flatten: false,
        skip: false,
        ty: inner.to_string().into(),
        inner: inner.to_string().into(),
        variant: None,
        line,
        column: 5,
        allows: vec![],
    }
}

fn allow(name: &str, line: u32) -> SchemaAllow {
    SchemaAllow {
        name: name.to_string().into(),
        reason: format!("accepted {name}").into(),
        line,
        column: 17,
    }
}

fn record(kind: SchemaTypeKind, name: &str, line: u32, fields: Vec<SchemaField>) -> SchemaType {
    SchemaType {
        kind,
        source: Source::new(FILE, line, 12, MODULE, name.to_string()),
        status: None,
        allows: vec![],
        fields,
    }
}

fn the_crd()
-> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object"}}
            }]
        }
    }))
    .unwrap()
}

/// Runs the lints on `schema` as the openAPIV3Schema of a `widgets.example.com` v1 with a
/// status subresource when `status_subresource`.
fn lint_schema(
    schema: Value,
    status_subresource: bool,
    types: &[SchemaType],
    levels: &LintLevels,
) -> Vec<String> {
    let mut crd = the_crd();
    let version = &mut crd.spec.versions[0];
    version.schema = Some(serde_json::from_value(json!({"openAPIV3Schema": schema})).unwrap());
    if !status_subresource {
        version.subresources = None;
    }
    let entry = entry_for(&types[0]);
    let types: Vec<&SchemaType> = types.iter().collect();
    let mut warnings = Vec::new();
    walk::lint_crd(&entry, &crd, &types, levels, &mut warnings);
    warnings.sort_by(|a, b| (&a.source, a.lint).cmp(&(&b.source, b.lint)));
    warnings
        .iter()
        .map(|w| {
            format!(
                "{}:{}:{} {} {} [{}] {}",
                w.source.file,
                w.source.line,
                w.source.column,
                w.source.item,
                w.path,
                w.lint,
                w.finding
            )
        })
        .collect()
}

fn entry_for(kind: &SchemaType) -> CrdEntry {
    fn no_crd()
    -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition
    {
        the_crd()
    }
    let source = kube_markers_registry::Source::__new(
        FILE,
        kind.source.line - 3,
        1,
        MODULE,
        static_str(&kind.source.item),
    );
    CrdEntry::__new(no_crd, false, "{}", "Widget", source)
}

fn static_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn root(spec: Value, status: Option<Value>) -> Value {
    let mut props = json!({"apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object"}, "spec": spec});
    if let Some(status) = status {
        props["status"] = status;
    }
    json!({"type": "object", "properties": props, "required": ["spec"]})
}

fn condition_items() -> Value {
    json!({"type": "object", "properties": {
        "type": {"type": "string"}, "status": {"type": "string"},
        "lastTransitionTime": {"type": "string", "format": "date-time"},
        "reason": {"type": "string"}, "message": {"type": "string"},
        "observedGeneration": {"type": "integer", "format": "int64"}},
        "required": ["lastTransitionTime", "message", "reason", "status", "type"]})
}

/// A spec with one of everything the default lints find, a nested type through
/// `Option<Vec<Port>>`, and a status with a phase, a required field and bad conditions.
fn everything() -> (Value, Vec<SchemaType>) {
    let spec = json!({"type": "object", "required": ["replicas"], "properties": {
        "replicas": {"type": "integer", "format": "uint32", "minimum": 0},
        "ratio": {"type": "number", "format": "double"},
        "snake_name": {"type": "string"},
        "ok": {"type": "integer", "format": "int32"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "atomic", "nullable": true,
            "items": {"type": "object", "properties": {
                "port_number": {"type": "integer", "format": "uint16"},
                "enabled": {"type": "boolean"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "integer", "format": "int64"}}
    }});
    let status = json!({"type": "object", "required": ["observedPhase"], "properties": {
        "observedPhase": {"type": "string"},
        "conditions": {"type": "array", "items": {"type": "string"}}
    }});
    let mut kind = record(
        SchemaTypeKind::Crd,
        "WidgetSpec",
        10,
        vec![
            field("replicas", "replicas", "Count", 11),
            field("ratio", "ratio", "f64", 12),
            field("snake_name", "snake_name", "String", 13),
            field("ok", "ok", "i32", 14),
            field("tags", "tags", "String", 15),
            field("ports", "ports", "Port", 16),
            field("labels", "labels", "i64", 17),
        ],
    );
    kind.status = Some("crate::api::WidgetStatus".into());
    let port = record(
        SchemaTypeKind::Struct,
        "Port",
        30,
        vec![
            field("port_number", "port_number", "u16", 31),
            field("enabled", "enabled", "bool", 32),
        ],
    );
    let status_type = record(
        SchemaTypeKind::Struct,
        "WidgetStatus",
        40,
        vec![
            field("observed_phase", "observedPhase", "String", 41),
            field("conditions", "conditions", "String", 42),
        ],
    );
    (root(spec, Some(status)), vec![kind, port, status_type])
}

#[test]
fn every_default_lint_fires_at_its_field() {
    let (schema, types) = everything();
    let found = lint_schema(schema, true, &types, &LintLevels::default());
    let expected = [
        "src/api.rs:11:5 WidgetSpec.replicas spec.replicas [integers] an integer of format `uint32` (u32): use i32 or i64",
        "src/api.rs:12:5 WidgetSpec.ratio spec.ratio [nofloats] a floating-point number: use an integer, or a Quantity-style string",
        "src/api.rs:13:5 WidgetSpec.snake_name spec.snake_name [jsontags] property `snake_name` is not camelCase: add #[serde(rename_all = \"camelCase\")] to the struct, or #[serde(rename = \"...\")] to the field",
        "src/api.rs:15:5 WidgetSpec.tags spec.tags [ssatags] a list without a list type: add #[k8s(list_type = \"atomic\")], \"set\" (scalars) or \"map\" with list_map_keys",
        "src/api.rs:31:5 Port.port_number spec.ports[*].port_number [jsontags] property `port_number` is not camelCase: add #[serde(rename_all = \"camelCase\")] to the struct, or #[serde(rename = \"...\")] to the field",
        "src/api.rs:31:5 Port.port_number spec.ports[*].port_number [integers] an integer of format `uint16` (u16): use i32 or i64",
        "src/api.rs:41:5 WidgetStatus.observed_phase status.observedPhase [nophase] property `observedPhase` is a phase: report conditions instead",
        "src/api.rs:41:5 WidgetStatus.observed_phase status.observedPhase [statusoptional] status property `observedPhase` is required: make the field `Option<T>` or #[serde(default)]",
        "src/api.rs:42:5 WidgetStatus.conditions status.conditions [ssatags] a list without a list type: add #[k8s(list_type = \"atomic\")], \"set\" (scalars) or \"map\" with list_map_keys",
        "src/api.rs:42:5 WidgetStatus.conditions status.conditions [conditions] its items are not Conditions (type, status, lastTransitionTime, reason, message); its list type is not `map`; it is not keyed by `type`: write `Vec<Condition>` (k8s_openapi's metav1 Condition) with #[k8s(list_type = \"map\", list_map_keys = [\"type\"])], optional",
    ];
    assert_eq!(found, expected, "{found:#?}");
}

#[test]
fn the_lints_off_by_default_fire_when_turned_on() {
    let (schema, types) = everything();
    let levels = LintLevels::from_metadata(
        &json!({"maxlength": "warn", "nobools": "warn", "nomaps": "warn", "notimestamp": "warn",
                "integers": "off", "jsontags": "off", "nophase": "off", "ssatags": "off",
                "nofloats": "off", "statusoptional": "off", "conditions": "off"}),
        "Cargo.toml",
    )
    .unwrap();
    let found = lint_schema(schema, true, &types, &levels);
    let lints: Vec<&str> = found
        .iter()
        .map(|f| f.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .map(|s| static_str(&s))
        .collect();
    assert_eq!(
        lints,
        [
            "src/api.rs:13:5 WidgetSpec.snake_name spec.snake_name [maxlength]",
            "src/api.rs:15:5 WidgetSpec.tags spec.tags [maxlength]",
            "src/api.rs:15:5 WidgetSpec.tags spec.tags[*] [maxlength]",
            "src/api.rs:16:5 WidgetSpec.ports spec.ports [maxlength]",
            "src/api.rs:17:5 WidgetSpec.labels spec.labels [nomaps]",
            "src/api.rs:32:5 Port.enabled spec.ports[*].enabled [nobools]",
            "src/api.rs:41:5 WidgetStatus.observed_phase status.observedPhase [maxlength]",
            "src/api.rs:42:5 WidgetStatus.conditions status.conditions [maxlength]",
            "src/api.rs:42:5 WidgetStatus.conditions status.conditions[*] [maxlength]",
        ],
        "{found:#?}"
    );
}

#[test]
fn a_well_formed_type_is_silent() {
    let spec = json!({"type": "object", "required": ["replicas"], "properties": {
        "replicas": {"type": "integer", "format": "int32"},
        "requestTTL": {"type": "integer", "format": "int64"},
        "image": {"type": "string", "maxLength": 253},
        "names": {"type": "array", "x-kubernetes-list-type": "set", "maxItems": 8,
            "items": {"type": "string", "maxLength": 63}}
    }});
    let status = json!({"type": "object", "properties": {
        "conditions": {"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"], "maxItems": 16, "items": condition_items()}
    }});
    let mut kind = record(
        SchemaTypeKind::Crd,
        "WidgetSpec",
        10,
        vec![
            field("replicas", "replicas", "i32", 11),
            field("request_ttl", "requestTTL", "i64", 12),
            field("image", "image", "String", 13),
            field("names", "names", "String", 14),
        ],
    );
    kind.status = Some("WidgetStatus".into());
    let status_type = record(
        SchemaTypeKind::Struct,
        "WidgetStatus",
        40,
        vec![field("conditions", "conditions", "Condition", 41)],
    );
    let found = lint_schema(
        root(spec, Some(status)),
        true,
        &[kind, status_type],
        &LintLevels::default(),
    );
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn allow_on_a_field_a_type_or_the_kind_silences_its_lint_only() {
    let (schema, mut types) = everything();
    types[0].fields[0].allows.push(allow("integers", 11)); // spec.replicas
    types[1].allows.push(allow("jsontags", 29)); // Port, every field of it
    types[0].allows.push(allow("nophase", 9)); // the kind: everywhere
    let found = lint_schema(schema, true, &types, &LintLevels::default());
    let joined = found.join("\n");
    assert!(!joined.contains("spec.replicas [integers]"), "{joined}");
    assert!(
        !joined.contains("[jsontags] property `port_number`"),
        "{joined}"
    );
    assert!(!joined.contains("[nophase]"), "{joined}");
    // The other lints of the same places still fire.
    assert!(
        joined.contains("spec.ports[*].port_number [integers]"),
        "{joined}"
    );
    assert!(joined.contains("spec.snake_name [jsontags]"), "{joined}");
    assert!(
        joined.contains("status.observedPhase [statusoptional]"),
        "{joined}"
    );
}

#[test]
fn statussubresource_and_a_status_in_spec() {
    let spec =
        json!({"type": "object", "properties": {"status": {"type": "string", "maxLength": 8}}});
    let kind = record(
        SchemaTypeKind::Crd,
        "WidgetSpec",
        10,
        vec![field("status", "status", "String", 11)],
    );
    let found = lint_schema(
        root(spec.clone(), None),
        true,
        std::slice::from_ref(&kind),
        &LintLevels::default(),
    );
    assert_eq!(
        found,
        [
            "src/api.rs:10:12 WidgetSpec status [statussubresource] the CRD has a status subresource but its schema no status",
            "src/api.rs:11:5 WidgetSpec.status spec.status [statussubresource] a `status` field in spec is part of the spec, not the status subresource: declare the status type with #[kube(status = \"...\")]",
        ]
    );
    let status = json!({"type": "object", "properties": {}});
    let found = lint_schema(
        root(json!({"type": "object"}), Some(status)),
        false,
        &[kind],
        &LintLevels::default(),
    );
    assert_eq!(
        found,
        [
            "src/api.rs:10:12 WidgetSpec status [statussubresource] the schema has a status but the CRD no status subresource"
        ]
    );
}

#[test]
fn types_without_a_record_are_not_linted_but_the_status_children_are() {
    // `Port` has no record (a dependency's type): its properties are not the user's to fix.
    // The status type has none either: its direct properties still get the status lints,
    // at the kind.
    let (schema, types) = everything();
    let found = lint_schema(schema, true, &types[..1], &LintLevels::default());
    let joined = found.join("\n");
    assert!(!joined.contains("port_number"), "{joined}");
    assert!(
        joined.contains("src/api.rs:10:12 WidgetSpec status.observedPhase [statusoptional]"),
        "{joined}"
    );
    // At the kind, saying why and what brings it to the field.
    assert!(
        joined.contains(
            "has no #[kube_markers::schema], so this warning stands at the kind: put \
             #[kube_markers::schema] above the derive of `WidgetStatus` to have it at its field"
        ),
        "{joined}"
    );
    assert!(
        joined.contains("WidgetSpec status.conditions [conditions]"),
        "{joined}"
    );
}

#[test]
fn a_flattened_type_s_properties_are_found_at_its_fields() {
    let spec = json!({"type": "object", "properties": {
        "own": {"type": "integer", "format": "int32"},
        "extra_count": {"type": "integer", "format": "uint8"}
    }});
    let mut flat = field("extra", "", "Extra", 12);
    flat.json_name = None;
    flat.flatten = true;
    let kind = record(
        SchemaTypeKind::Crd,
        "WidgetSpec",
        10,
        vec![field("own", "own", "i32", 11), flat],
    );
    let extra = record(
        SchemaTypeKind::Struct,
        "Extra",
        20,
        vec![field("extra_count", "extra_count", "u8", 21)],
    );
    let found = lint_schema(
        root(spec, None),
        false,
        &[kind, extra],
        &LintLevels::default(),
    );
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found
            .iter()
            .all(|f| f.starts_with("src/api.rs:21:5 Extra.extra_count spec.extra_count")),
        "{found:#?}"
    );
}

#[test]
fn allows_are_placed_at_their_paths() {
    let (schema, mut types) = everything();
    types[0].allows.push(allow("scope", 9));
    types[0].fields[5].allows.push(allow("maxItems", 16)); // spec.ports
    types[1].allows.push(allow("existingFieldRemoval", 29)); // Port at spec.ports[*]
    // An enum's allows stand where its values are.
    let mut mode = record(SchemaTypeKind::Enum, "Mode", 50, vec![]);
    mode.allows.push(allow("enum", 49));
    types.push(mode);
    types[0].fields.push(field("mode", "mode", "Mode", 18));
    let mut schema = schema;
    schema["properties"]["spec"]["properties"]["mode"] =
        json!({"type": "string", "enum": ["A", "B"]});
    let mut crd = the_crd();
    crd.spec.versions[0].schema =
        Some(serde_json::from_value(json!({"openAPIV3Schema": schema})).unwrap());
    let entry = entry_for(&types[0]);
    let refs: Vec<&SchemaType> = types.iter().collect();
    let mut walker = walk::Walker::new(&refs, None);
    walker.crd(&entry, &crd);
    let mut placed: Vec<(Option<String>, String, String, u32)> = walker
        .allows
        .iter()
        .map(|a| {
            (
                a.path.clone(),
                a.name.clone(),
                a.source.item.to_string(),
                a.source.line,
            )
        })
        .collect();
    placed.sort();
    assert_eq!(
        placed,
        [
            (None, "scope".into(), "WidgetSpec".into(), 9),
            (Some("spec.mode".into()), "enum".into(), "Mode".into(), 49),
            (
                Some("spec.ports".into()),
                "maxItems".into(),
                "WidgetSpec.ports".into(),
                16
            ),
            (
                Some("spec.ports[*]".into()),
                "existingFieldRemoval".into(),
                "Port".into(),
                29
            ),
        ]
    );
}

#[test]
fn the_configuration_is_checked() {
    let err = |v: Value| {
        LintLevels::from_metadata(&v, "ws/Cargo.toml")
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(json!({"jsontag": "off"})),
        "[workspace.metadata.kube-markers.lints] in ws/Cargo.toml: unknown lint `jsontag`; did you \
         mean `jsontags`? (the lints: jsontags, integers, nofloats, ssatags, conditions, nophase, \
         statusoptional, statussubresource, maxlength, nobools, nomaps, notimestamp)"
    );
    assert!(
        err(json!({"nobools": "deny"}))
            .contains("`nobools = \"deny\"`: a level is \"warn\" or \"off\"")
    );
    assert!(err(json!(["nobools"])).contains("must be a table"));
    assert_eq!(
        LintLevels::from_metadata(&Value::Null, "x").unwrap(),
        LintLevels::default()
    );
    assert!(!LintLevels::default().is_on(SchemaLint::Maxlength));
    assert!(LintLevels::default().is_on(SchemaLint::Ssatags));
}

#[test]
fn the_warning_names_the_place_and_the_way_out() {
    let w = SchemaLintWarning {
        lint: SchemaLint::Integers,
        source: Source::new(FILE, 11, 5, MODULE, "WidgetSpec.replicas"),
        crd: "widgets.example.com".into(),
        version: "v1".into(),
        path: "spec.replicas".into(),
        finding: "an integer of format `uint32` (u32): use i32 or i64".into(),
    };
    insta::assert_snapshot!(w.to_string());
    // At a type (the kind, for a status type without a record): the allow goes on the type.
    let at_type = SchemaLintWarning {
        source: Source::new(FILE, 10, 12, MODULE, "WidgetSpec"),
        ..w
    };
    assert!(
        at_type.to_string().contains(
            "if it is right, say why on the type `WidgetSpec` (above its `struct` or `enum` \
             line), for all of it: #[k8s(allow(integers, reason = \"...\"))]"
        ),
        "{at_type}"
    );
}
