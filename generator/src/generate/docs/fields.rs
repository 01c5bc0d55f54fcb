//! A version's `openAPIV3Schema` flattened into the rows of its field table, and the CEL
//! rules found on the way, each with the field it applies to.

use super::markdown::code;
use serde_json::Value;

/// One row of a field table.
pub(crate) struct Field<'a> {
    /// `spec.replicas`; `a[*]` for each item of the list `a`, `a.*` for each value of the map
    /// `a`.
    pub(crate) path: String,
    /// Its schema.
    pub(crate) schema: &'a Value,
    /// Whether its parent lists it as required; `None` for list items and map values.
    pub(crate) required: Option<bool>,
}

/// One `x-kubernetes-validations` rule and the field whose schema carries it (`""` for the
/// object itself).
pub(crate) struct Rule<'a> {
    pub(crate) path: String,
    pub(crate) rule: &'a Value,
}

/// Every field of `root` in schema order (each property before its children, properties
/// sorted by name), and every rule.
pub(crate) fn flatten(root: &Value) -> (Vec<Field<'_>>, Vec<Rule<'_>>) {
    let mut fields = Vec::new();
    let mut rules = Vec::new();
    walk(root, "", &mut fields, &mut rules);
    (fields, rules)
}

fn walk<'a>(node: &'a Value, path: &str, fields: &mut Vec<Field<'a>>, rules: &mut Vec<Rule<'a>>) {
    if let Some(list) = node
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
    {
        rules.extend(list.iter().map(|rule| Rule {
            path: path.to_string(),
            rule,
        }));
    }
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut names: Vec<&String> = properties.keys().collect();
        names.sort();
        for name in names {
            let child = &properties[name];
            let child_path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            fields.push(Field {
                path: child_path.clone(),
                schema: child,
                required: Some(required.contains(&name.as_str())),
            });
            walk(child, &child_path, fields, rules);
        }
    }
    for (key, suffix) in [("items", "[*]"), ("additionalProperties", ".*")] {
        let Some(inner) = node.get(key).filter(|v| v.is_object()) else {
            continue;
        };
        let inner_path = format!("{path}{suffix}");
        // Its type is already in the parent's (`[]string`): a row only when it says more.
        if says_more_than_its_type(inner) {
            fields.push(Field {
                path: inner_path.clone(),
                schema: inner,
                required: None,
            });
        }
        walk(inner, &inner_path, fields, rules);
    }
}

/// A list item's or map value's schema that has a description or a constraint.
pub(crate) fn says_more_than_its_type(schema: &Value) -> bool {
    schema.as_object().is_some_and(|o| {
        o.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type"
                    | "properties"
                    | "required"
                    | "items"
                    | "additionalProperties"
                    | "x-kubernetes-validations"
            )
        })
    })
}

/// The type column: `string (int32)`, `[]object`, `map[string]string`, `int or string`.
pub(crate) fn type_of(schema: &Value) -> String {
    let format = schema
        .get("format")
        .and_then(Value::as_str)
        .map(|f| format!(" ({f})"))
        .unwrap_or_default();
    let flag = |key: &str| schema.get(key).and_then(Value::as_bool) == Some(true);
    if flag("x-kubernetes-int-or-string") {
        return format!("int or string{format}");
    }
    let base = match schema.get("type").and_then(Value::as_str) {
        Some("array") => match schema.get("items") {
            Some(items) => format!("[]{}", type_of(items)),
            None => "[]any".to_string(),
        },
        Some("object") if flag("x-kubernetes-embedded-resource") => {
            "object (embedded resource)".to_string()
        }
        Some("object") => match schema.get("additionalProperties") {
            Some(values) if values.is_object() => format!("map[string]{}", type_of(values)),
            Some(Value::Bool(true)) => "map[string]any".to_string(),
            _ => "object".to_string(),
        },
        Some(other) => return format!("{other}{format}"),
        None => "any".to_string(),
    };
    base + &format
}

/// The constraints column, one item per key the schema sets, in a fixed order.
pub(crate) fn constraints(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let json = |v: &Value| code(&value_text(v));
    let bool_of = |key: &str| schema.get(key).and_then(Value::as_bool) == Some(true);
    if let Some(default) = schema.get("default") {
        out.push(format!("default: {}", json(default)));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(json).collect();
        out.push(format!("enum: {}", values.join(", ")));
    }
    for (key, exclusive) in [
        ("minimum", "exclusiveMinimum"),
        ("maximum", "exclusiveMaximum"),
    ] {
        if let Some(bound) = schema.get(key) {
            let note = if bool_of(exclusive) {
                " (exclusive)"
            } else {
                ""
            };
            out.push(format!("{key}: {}{note}", json(bound)));
        }
    }
    for key in [
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    ] {
        if let Some(value) = schema.get(key) {
            out.push(format!("{key}: {}", json(value)));
        }
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        out.push(format!("pattern: {}", code(pattern)));
    }
    if bool_of("uniqueItems") {
        out.push("unique items".to_string());
    }
    if bool_of("nullable") {
        out.push("nullable".to_string());
    }
    if let Some(list_type) = schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
        out.push(format!("list type: {}", code(list_type)));
    }
    if let Some(keys) = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
    {
        let keys: Vec<String> = keys.iter().filter_map(Value::as_str).map(code).collect();
        out.push(format!("map keys: {}", keys.join(", ")));
    }
    if let Some(map_type) = schema.get("x-kubernetes-map-type").and_then(Value::as_str) {
        out.push(format!("map type: {}", code(map_type)));
    }
    if bool_of("x-kubernetes-preserve-unknown-fields") {
        out.push("preserves unknown fields".to_string());
    }
    out
}

/// A value as the CRD's YAML shows it: numbers as the YAML writer writes them (`1`, not the
/// `1.0` the typed CRD holds), anything else as compact JSON.
pub(crate) fn value_text(value: &Value) -> String {
    match value {
        Value::Number(_) => crate::output::yaml::render_yaml(value)
            .trim_end()
            .to_string(),
        other => other.to_string(),
    }
}
