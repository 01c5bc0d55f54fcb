//! [`Patch`]: what `#[k8s(...)]` does to one schema node, as the JSON the runtime applies.

use serde_json::{Map, Value, json};

/// Changes to one schema node (a field's, a type's, or a list's `items`).
///
/// Applied in this order by `kube_markers::crd::SchemaPatch`: `schemaless` (the node becomes
/// `{}` but for its description), `unset`, `set`, `items`, `validations` (appended to
/// `x-kubernetes-validations`), then `required`/`optional` (the node's own `required` list).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patch {
    pub schemaless: bool,
    pub unset: Vec<String>,
    pub set: Map<String, Value>,
    pub items: Option<Box<Patch>>,
    pub validations: Vec<Value>,
    pub required: Vec<String>,
    pub optional: Vec<String>,
}

impl Patch {
    pub fn is_empty(&self) -> bool {
        *self == Patch::default()
    }

    pub fn to_value(&self) -> Value {
        let mut out = Map::new();
        if self.schemaless {
            out.insert("schemaless".into(), json!(true));
        }
        if !self.unset.is_empty() {
            out.insert("unset".into(), json!(self.unset));
        }
        if !self.set.is_empty() {
            out.insert("set".into(), Value::Object(self.set.clone()));
        }
        if let Some(items) = &self.items {
            out.insert("items".into(), items.to_value());
        }
        if !self.validations.is_empty() {
            out.insert("validations".into(), json!(self.validations));
        }
        if !self.required.is_empty() {
            out.insert("required".into(), json!(self.required));
        }
        if !self.optional.is_empty() {
            out.insert("optional".into(), json!(self.optional));
        }
        Value::Object(out)
    }

    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}
