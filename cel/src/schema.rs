//! A structural schema as a rule sees it: apiserver's `common/schemas.go` `SchemaDeclType`, with
//! its size bounds (`MaxElements`, `MinSerializedSize`) derived as the server derives them.

use crate::types::Type;
use serde_json::Value;
use std::collections::BTreeMap;

/// kube-apiserver's request-size limit, from which unbounded sizes are derived.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;
const MIN_STRING_SIZE: i64 = 2;
const MIN_BOOL_SIZE: i64 = 4;
const MIN_NUMBER_SIZE: i64 = 1;
const MIN_DURATION_SIZE_JSON: i64 = 3;
const JSON_DATE_SIZE: i64 = 12;
const MIN_DATETIME_SIZE_JSON: i64 = 21;
const MAX_DURATION_SIZE_JSON: i64 = 32;
const MAX_DATETIME_SIZE_JSON: i64 = 32;
/// `metadata.name`'s length limit (a DNS-1123 subdomain), which 1.37 applies to rules.
const NAME_MAX_LENGTH: i64 = 253;

#[derive(Clone, Debug)]
pub enum DeclKind {
    Scalar(Type),
    List(Box<DeclType>),
    /// A map from string keys; `key` is apiserver's shared string type, whose `MaxElements` is 0.
    Map(Box<DeclType>),
    Object(BTreeMap<String, DeclType>),
}

#[derive(Clone, Debug)]
pub struct DeclType {
    pub kind: DeclKind,
    pub max_elements: i64,
    pub min_serialized_size: i64,
}

/// The map keys' type (`apiservercel.StringType`).
pub static MAP_KEY: DeclType = DeclType {
    kind: DeclKind::Scalar(Type::String),
    max_elements: 0,
    min_serialized_size: MIN_STRING_SIZE,
};

impl DeclType {
    /// The CEL type, objects named `name` and below it `name.field`, `name.@idx`, `name.@elem`
    /// (apiserver's `MaybeAssignTypeName`).
    pub fn cel_type(&self, name: &str) -> Type {
        match &self.kind {
            DeclKind::Scalar(t) => t.clone(),
            DeclKind::List(e) => Type::list(e.cel_type(&format!("{name}.@idx"))),
            DeclKind::Map(e) => Type::map(Type::String, e.cel_type(&format!("{name}.@elem"))),
            DeclKind::Object(_) => Type::Struct(name.to_string()),
        }
    }

    /// The node a cost path (`self.a.@items.b`) leads to; the first element is the variable.
    pub fn at_path(&self, path: &[String]) -> Option<&DeclType> {
        let mut node = self;
        for name in path.iter().skip(1) {
            node = match (name.as_str(), &node.kind) {
                ("@items" | "@values", DeclKind::List(e) | DeclKind::Map(e)) => e,
                ("@keys", DeclKind::Map(_)) => &MAP_KEY,
                (field, DeclKind::Object(fields)) => fields.get(field)?,
                _ => return None,
            };
        }
        Some(node)
    }
}

fn int(s: &Value, key: &str) -> Option<i64> {
    s.get(key).and_then(Value::as_i64)
}
fn flag(s: &Value, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}
fn zero_if_negative(v: i64) -> i64 {
    v.max(0)
}

/// apiserver's `zeroIfNegative(maxLength) * 4`, the bytes of `maxLength` code points, as Go
/// computes it: in int64, wrapping (`maxLength: 2305843009213693952`, 2^61, is -2^63 bytes,
/// `uint64` 2^63 to the cost estimator; 2^62 is 0).
fn bytes_of_code_points(max_length: i64) -> i64 {
    zero_if_negative(max_length).wrapping_mul(4)
}

/// `SchemaDeclType`: `None` where the schema has no CEL type (no `type`, or an array without
/// `items`), which hides the property from rules.
pub fn decl_type(s: &Value, resource_root: bool) -> Option<DeclType> {
    if flag(s, "x-kubernetes-int-or-string") {
        let max = match int(s, "maxLength") {
            Some(l) => bytes_of_code_points(l),
            None => MAX_REQUEST_SIZE_BYTES - 2,
        };
        return Some(DeclType {
            kind: DeclKind::Scalar(Type::Dyn),
            max_elements: max,
            min_serialized_size: 1,
        });
    }
    // A resource's `apiVersion`, `kind` and `metadata`, replacing the schema's own.
    let meta = if resource_root {
        type_and_object_meta(s)
    } else {
        None
    };
    let simple = |t: Type, min: i64, max: i64| DeclType {
        kind: DeclKind::Scalar(t),
        max_elements: max,
        min_serialized_size: min,
    };
    match s.get("type").and_then(Value::as_str)? {
        "array" => {
            let items = s.get("items")?;
            let elem = decl_type(items, flag(items, "x-kubernetes-embedded-resource"))?;
            let max = match int(s, "maxItems") {
                Some(m) => zero_if_negative(m),
                None => (MAX_REQUEST_SIZE_BYTES - 2) / (elem.min_serialized_size + 1),
            };
            Some(DeclType {
                kind: DeclKind::List(Box::new(elem)),
                max_elements: max,
                min_serialized_size: 2,
            })
        }
        "object" => {
            if let Some(props) = s.get("additionalProperties").filter(|p| p.is_object()) {
                let elem = decl_type(props, flag(props, "x-kubernetes-embedded-resource"))?;
                let max = match int(s, "maxProperties") {
                    Some(m) => zero_if_negative(m),
                    None => (MAX_REQUEST_SIZE_BYTES - 2) / (elem.min_serialized_size + 6),
                };
                return Some(DeclType {
                    kind: DeclKind::Map(Box::new(elem)),
                    max_elements: max,
                    min_serialized_size: 2,
                });
            }
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut fields = BTreeMap::new();
            let mut min = 2;
            let mut props: Vec<(&str, &Value)> = s
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.as_str(), v))
                .collect();
            if let Some(meta) = &meta {
                props.retain(|(k, _)| !matches!(*k, "apiVersion" | "kind" | "metadata"));
                props.extend(meta.iter().map(|(k, v)| (*k, v)));
                props.sort_by_key(|(k, _)| *k);
            }
            {
                for (name, prop) in props {
                    let Some(t) = decl_type(prop, flag(prop, "x-kubernetes-embedded-resource"))
                    else {
                        continue;
                    };
                    if required.contains(&name) && prop.get("default").is_none() {
                        min += name.len() as i64 + t.min_serialized_size + 4;
                    }
                    if let Some(escaped) = escape(name) {
                        fields.insert(escaped, t);
                    }
                }
            }
            Some(DeclType {
                kind: DeclKind::Object(fields),
                max_elements: 0,
                min_serialized_size: min,
            })
        }
        "string" => Some(match s.get("format").and_then(Value::as_str) {
            Some("byte") => {
                let max = int(s, "maxLength")
                    .map(zero_if_negative)
                    .unwrap_or(MAX_REQUEST_SIZE_BYTES - 2);
                simple(Type::Bytes, MIN_STRING_SIZE, max)
            }
            Some("duration") => simple(
                Type::Duration,
                MIN_DURATION_SIZE_JSON,
                MAX_DURATION_SIZE_JSON,
            ),
            Some("date") => simple(Type::Timestamp, JSON_DATE_SIZE, JSON_DATE_SIZE),
            Some("date-time") => simple(
                Type::Timestamp,
                MIN_DATETIME_SIZE_JSON,
                MAX_DATETIME_SIZE_JSON,
            ),
            _ => {
                let max = match (int(s, "maxLength"), s.get("enum").and_then(Value::as_array)) {
                    (Some(l), _) => bytes_of_code_points(l),
                    (None, Some(values)) if !values.is_empty() => values
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|v| v.len() as i64)
                        .max()
                        .unwrap_or(0),
                    _ => MAX_REQUEST_SIZE_BYTES - 2,
                };
                simple(Type::String, MIN_STRING_SIZE, max)
            }
        }),
        "boolean" => Some(simple(Type::Bool, MIN_BOOL_SIZE, 0)),
        "number" => Some(simple(Type::Double, MIN_NUMBER_SIZE, 0)),
        "integer" => Some(simple(Type::Int, MIN_NUMBER_SIZE, 0)),
        _ => None,
    }
}

/// apiextensions' `WithTypeAndObjectMeta`: a resource's `apiVersion`, `kind` and
/// `metadata.{name,generateName}`, the metadata capped at 253 and 252 characters; `None` when
/// the schema already declares them all as strings (then it is used as it is).
fn type_and_object_meta(s: &Value) -> Option<[(&'static str, Value); 3]> {
    let props = s.get("properties");
    fn ty(node: Option<&Value>) -> Option<&str> {
        node.and_then(|n| n.get("type")).and_then(Value::as_str)
    }
    let prop = |name: &str| props.and_then(|p| p.get(name));
    let meta_props = prop("metadata").and_then(|m| m.get("properties"));
    let meta_prop = |name: &str| meta_props.and_then(|p| p.get(name));
    if props.is_some()
        && ty(prop("kind")) == Some("string")
        && ty(prop("apiVersion")) == Some("string")
        && ty(prop("metadata")) == Some("object")
        && meta_props.is_some()
        && ty(meta_prop("name")) == Some("string")
        && ty(meta_prop("generateName")) == Some("string")
    {
        return None;
    }
    let capped = |name: &str, cap: i64| {
        let existing = meta_prop(name).and_then(|n| int(n, "maxLength"));
        let max = existing.filter(|l| *l < cap).unwrap_or(cap);
        serde_json::json!({"type": "string", "maxLength": max})
    };
    Some([
        ("apiVersion", serde_json::json!({"type": "string"})),
        ("kind", serde_json::json!({"type": "string"})),
        (
            "metadata",
            serde_json::json!({"type": "object", "properties": {
                "name": capped("name", NAME_MAX_LENGTH),
                "generateName": capped("generateName", NAME_MAX_LENGTH - 1),
            }}),
        ),
    ])
}

/// The words CEL reserves, which the API server escapes as `__word__` in property names. The
/// parser's reserved words are those after the first four: keep these first.
pub(crate) const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// The identifier under which a rule sees property `name` (apiserver `pkg/cel/escaping.go`):
/// reserved words become `__word__`; `__`, `.`, `-`, `/` become `__underscores__`, `__dot__`,
/// `__dash__`, `__slash__`. `None` for a name CEL cannot reach (a leading digit, another
/// character). kube-markers-core's `escape_property` says why, then spells it here.
pub fn escape(name: &str) -> Option<String> {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'))
    {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = after;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            other => out.push(other),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}
