//! Applying `#[k8s(...)]` markers to the schemas schemars generates.

use serde_json::{Map, Value};

/// A schema patch written by `#[kube_markers::crd]`/`#[kube_markers::schema]` from `#[k8s]`
/// markers, applied as a schemars transform: `#[schemars(transform = SchemaPatch::new(..))]`.
///
/// The JSON is produced by the macro from checked markers; see `kube_markers_core::schema::Patch`
/// for its shape.
#[derive(Debug, Clone, Copy)]
pub struct SchemaPatch(&'static str);

impl SchemaPatch {
    /// Wraps the macro-generated JSON.
    pub const fn new(json: &'static str) -> Self {
        SchemaPatch(json)
    }

    /// The patch as JSON.
    pub fn value(&self) -> Value {
        // Written by our own macro from validated markers: failing here is a kube-markers bug.
        serde_json::from_str(self.0).expect("kube-markers generated an invalid schema patch")
    }
}

impl schemars::transform::Transform for SchemaPatch {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        apply(&self.value(), schema.ensure_object());
    }
}

/// Applies a patch to one schema node: `schemaless`, `unset`, `set`, `items`, `validations`,
/// `required`, `optional`, in that order.
pub fn apply(patch: &Value, node: &mut Map<String, Value>) {
    if patch["schemaless"] == Value::Bool(true) {
        let description = node.remove("description");
        node.clear();
        if let Some(d) = description {
            node.insert("description".into(), d);
        }
    }
    for key in patch["unset"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        node.remove(key);
    }
    if let Some(set) = patch["set"].as_object() {
        for (k, v) in set {
            node.insert(k.clone(), v.clone());
        }
    }
    if let Some(items) = patch.get("items") {
        let target = node
            .entry("items")
            .or_insert_with(|| Value::Object(Map::new()));
        if !target.is_object() {
            *target = Value::Object(Map::new());
        }
        if let Value::Object(target) = target {
            apply(items, target);
        }
    }
    if let Some(rules) = patch["validations"].as_array() {
        let list = node
            .entry("x-kubernetes-validations")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            list.extend(rules.iter().cloned());
        }
    }
    if let Some(required) = patch["required"].as_array() {
        let list = node
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            for name in required {
                if !list.contains(name) {
                    list.push(name.clone());
                }
            }
        }
    }
    if let Some(optional) = patch["optional"].as_array()
        && let Some(Value::Array(list)) = node.get_mut("required")
    {
        list.retain(|name| !optional.contains(name));
        if list.is_empty() {
            node.remove("required");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn patched(patch: Value, node: Value) -> Value {
        let mut node = node.as_object().unwrap().clone();
        apply(&patch, &mut node);
        Value::Object(node)
    }

    #[test]
    fn sets_unsets_and_appends() {
        let out = patched(
            json!({"unset": ["format"], "set": {"minimum": 1, "x-kubernetes-int-or-string": true},
                   "validations": [{"rule": "self > 0"}]}),
            json!({"type": "integer", "format": "int32", "x-kubernetes-validations": [{"rule": "true"}]}),
        );
        assert_eq!(
            out,
            json!({"type": "integer", "minimum": 1, "x-kubernetes-int-or-string": true,
                   "x-kubernetes-validations": [{"rule": "true"}, {"rule": "self > 0"}]})
        );
    }

    #[test]
    fn items_required_optional_schemaless() {
        let out = patched(
            json!({"items": {"set": {"minLength": 1}}}),
            json!({"type": "array", "items": {"type": "string"}}),
        );
        assert_eq!(out["items"], json!({"type": "string", "minLength": 1}));
        let out = patched(
            json!({"required": ["b", "a"], "optional": ["c"]}),
            json!({"type": "object", "required": ["a", "c"]}),
        );
        assert_eq!(out["required"], json!(["a", "b"]));
        let out = patched(json!({"optional": ["a"]}), json!({"required": ["a"]}));
        assert!(out.get("required").is_none());
        let out = patched(
            json!({"schemaless": true, "set": {"type": "string"}}),
            json!({"type": "array", "items": {"type": "integer"}, "description": "d"}),
        );
        assert_eq!(out, json!({"description": "d", "type": "string"}));
    }
}
