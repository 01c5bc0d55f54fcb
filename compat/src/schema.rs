//! A version's schema, flattened: every node by its path, as crdify keys them (`^.spec.ports[*].name`),
//! with its own keywords only. Its children (`properties`, `items`, an `additionalProperties`
//! schema) are nodes of their own, so a change shows once, on the node it is made to.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The nodes of one schema by path, in path order.
pub type Flat = BTreeMap<String, Map<String, Value>>;

/// The root of crdify's paths.
pub const ROOT: &str = "^";

/// Flattens a version's `openAPIV3Schema` (`None`: a version without a schema has only the root).
pub fn flatten(schema: Option<&Value>) -> Flat {
    let mut flat = Flat::new();
    match schema.and_then(Value::as_object) {
        Some(root) => walk(root, ROOT.to_string(), &mut flat),
        None => {
            flat.insert(ROOT.to_string(), Map::new());
        }
    }
    flat
}

fn walk(node: &Map<String, Value>, path: String, flat: &mut Flat) {
    let mut own = node.clone();
    if let Some(Value::Object(properties)) = own.remove("properties") {
        for (name, child) in &properties {
            if let Value::Object(child) = child {
                walk(child, format!("{path}.{name}"), flat);
            }
        }
    }
    match own.remove("items") {
        Some(Value::Object(items)) => walk(&items, format!("{path}[*]"), flat),
        // The tuple form, which structural schemas forbid; kept as crdify keys it.
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let Value::Object(item) = item {
                    walk(item, format!("{path}[{i}]"), flat);
                }
            }
        }
        Some(other) => {
            own.insert("items".into(), other);
        }
        None => {}
    }
    // A map's values: a node of their own (`[*]`, as crdify keys them). A boolean stays a
    // keyword of the map.
    if let Some(Value::Object(values)) = own.get("additionalProperties") {
        let values = values.clone();
        own.remove("additionalProperties");
        walk(&values, format!("{path}[*]"), flat);
    }
    for value in own.values_mut() {
        integral(value);
    }
    flat.insert(path, own);
}

/// Whole numbers written as floats (`5.0`, as k8s-openapi's `f64` bounds serialize) made
/// integers: the same JSON number, shown as it was written in the other CRD (`10 → 5`).
fn integral(value: &mut Value) {
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9_007_199_254_740_992.0
            {
                *value = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral),
        Value::Object(map) => map.values_mut().for_each(integral),
        _ => {}
    }
}

/// The path as the generator and the API server spell it: `spec.ports[*].name`, `<root>`.
pub fn short(path: &str) -> &str {
    match path.strip_prefix("^.") {
        Some(rest) => rest,
        None if path == ROOT => "<root>",
        None => path.strip_prefix('^').unwrap_or(path),
    }
}

/// A value as messages show it: compact JSON, or `absent`.
pub fn shown(value: Option<&Value>) -> String {
    match value {
        Some(v) => v.to_string(),
        None => "absent".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_are_crdifys_and_nodes_keep_their_own_keywords_only() {
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["ports"],
                    "properties": {
                        "ports": {"type": "array", "items": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}}
                        }},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        "open": {"type": "object", "additionalProperties": true}
                    }
                }
            }
        });
        let flat = flatten(Some(&schema));
        let paths: Vec<&str> = flat.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "^",
                "^.spec",
                "^.spec.labels",
                "^.spec.labels[*]",
                "^.spec.open",
                "^.spec.ports",
                "^.spec.ports[*]",
                "^.spec.ports[*].name"
            ]
        );
        assert_eq!(
            Value::Object(flat["^.spec"].clone()),
            json!({"type": "object", "required": ["ports"]})
        );
        assert_eq!(
            Value::Object(flat["^.spec.labels"].clone()),
            json!({"type": "object"})
        );
        assert_eq!(
            Value::Object(flat["^.spec.open"].clone()),
            json!({"type": "object", "additionalProperties": true})
        );
        assert_eq!(short("^.spec.ports[*].name"), "spec.ports[*].name");
        let floats = json!({"type": "integer", "maximum": 5.0, "minimum": 0.5, "default": [2.0]});
        assert_eq!(
            Value::Object(flatten(Some(&floats))["^"].clone()),
            json!({"type": "integer", "maximum": 5, "minimum": 0.5, "default": [2]})
        );
        assert_eq!(short("^"), "<root>");
    }
}
