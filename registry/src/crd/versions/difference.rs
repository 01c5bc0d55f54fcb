//! Where two versions' schemas differ: what decides whether a kind needs a conversion.

use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Where two versions' schemas first differ.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaDifference {
    /// The schema node (`spec.replicas`, `spec.items[*].name`, `<root>`).
    pub path: String,
    /// How it differs.
    pub what: Difference,
}

/// How a node of two schemas differs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Difference {
    /// The field is in the first schema only.
    OnlyInFirst,
    /// The field is in the second schema only.
    OnlyInSecond,
    /// A keyword of the node (`type`, `format`, `required`, `x-kubernetes-validations`, ...)
    /// has another value, or is missing from one of them (`None`).
    Keyword {
        /// The keyword.
        key: String,
        /// Its value in the first schema, as JSON.
        first: Option<String>,
        /// In the second.
        second: Option<String>,
    },
}

impl SchemaDifference {
    /// The difference, in words that name the two versions.
    pub fn describe(&self, first: &str, second: &str) -> String {
        let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "absent".into());
        match &self.what {
            Difference::OnlyInFirst => format!("{} exists in {first} only", self.path),
            Difference::OnlyInSecond => format!("{} exists in {second} only", self.path),
            Difference::Keyword {
                key,
                first: a,
                second: b,
            } => format!(
                "{}: `{key}` is {} in {first}, {} in {second}",
                self.path,
                shown(a),
                shown(b)
            ),
        }
    }
}

/// The first place two schemas (`openAPIV3Schema`s as JSON) differ, or `None` when they are
/// the same but for their descriptions and titles (documentation: no data is lost by it). A
/// field that only one of them has is what loses data, so the whole tree is searched for one
/// first (`spec.storageClass exists in v1 only`), before any keyword (`maxLength`, `required`,
/// a rule) that differs.
pub fn schema_difference(first: &Value, second: &Value) -> Option<SchemaDifference> {
    node_difference(first, second, "", Pass::Fields)
        .or_else(|| node_difference(first, second, "", Pass::Keywords))
}

/// What a walk over two schemas looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Fields in one schema only.
    Fields,
    /// Any difference.
    Keywords,
}

/// The keywords whose values are schemas, compared node by node.
const CHILDREN: [&str; 3] = ["properties", "items", "additionalProperties"];
/// Documentation, not shape (schemars titles the root after the Rust type, which versions in
/// different modules may name differently).
const IGNORED: [&str; 2] = ["description", "title"];

fn node_difference(
    first: &Value,
    second: &Value,
    path: &str,
    pass: Pass,
) -> Option<SchemaDifference> {
    let (Some(a), Some(b)) = (first.as_object(), second.as_object()) else {
        return (pass == Pass::Keywords && first != second)
            .then(|| keyword(path, "<schema>", Some(first), Some(second)));
    };
    let empty = Map::new();
    let props = |node: &'_ Map<String, Value>| -> Map<String, Value> {
        node.get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .clone()
    };
    let (pa, pb) = (props(a), props(b));
    let names: BTreeSet<&String> = pa.keys().chain(pb.keys()).collect();
    for name in names {
        let child = join(path, name);
        match (pa.get(name), pb.get(name)) {
            (Some(x), Some(y)) => {
                if let Some(d) = node_difference(x, y, &child, pass) {
                    return Some(d);
                }
            }
            (Some(_), None) => return Some(only(child, Difference::OnlyInFirst)),
            (None, Some(_)) => return Some(only(child, Difference::OnlyInSecond)),
            (None, None) => {}
        }
    }
    for (key, suffix) in [("items", "[*]"), ("additionalProperties", "[<key>]")] {
        if let (Some(x @ Value::Object(_)), Some(y @ Value::Object(_))) = (a.get(key), b.get(key))
            && let Some(d) = node_difference(x, y, &format!("{path}{suffix}"), pass)
        {
            return Some(d);
        }
    }
    if pass == Pass::Fields {
        return None;
    }
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for key in keys {
        if IGNORED.contains(&key.as_str()) || key == "properties" {
            continue;
        }
        let (x, y) = (a.get(key), b.get(key));
        let both_schemas = CHILDREN.contains(&key.as_str())
            && x.is_some_and(Value::is_object)
            && y.is_some_and(Value::is_object);
        if both_schemas {
            continue;
        }
        let same = match (x, y) {
            // Schemas under a junctor: their descriptions do not count either.
            (Some(Value::Array(x)), Some(Value::Array(y)))
                if matches!(key.as_str(), "allOf" | "anyOf" | "oneOf") =>
            {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(x, y)| node_difference(x, y, path, pass).is_none())
            }
            (Some(x), Some(y)) if key == "not" => node_difference(x, y, path, pass).is_none(),
            _ => x == y,
        };
        if !same {
            return Some(keyword(path, key, x, y));
        }
    }
    None
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn shown_path(path: &str) -> String {
    if path.is_empty() {
        "<root>".into()
    } else {
        path.to_string()
    }
}

fn only(path: String, what: Difference) -> SchemaDifference {
    SchemaDifference { path, what }
}

fn keyword(path: &str, key: &str, x: Option<&Value>, y: Option<&Value>) -> SchemaDifference {
    // A long value (a list of rules) is cut: the path and keyword say where to look.
    let short = |v: &Value| {
        let text = v.to_string();
        match text.char_indices().nth(80) {
            Some((i, _)) => format!("{}…", &text[..i]),
            None => text,
        }
    };
    SchemaDifference {
        path: shown_path(path),
        what: Difference::Keyword {
            key: key.to_string(),
            first: x.map(short),
            second: y.map(short),
        },
    }
}
