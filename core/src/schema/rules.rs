//! The CEL rules the markers generate on a struct: controller-gen's one-of rules, and the rule
//! that keeps an optional `immutable` field set once set.

use crate::cel;
use crate::ctxt::Ctxt;
use proc_macro2::Span;
use serde_json::{Value, json};

/// A property as a generated CEL rule names it: its JSON name (for messages) and the identifier
/// CEL sees it under ([`cel::escape_property`]).
pub struct RuleProperty {
    pub json_name: String,
    pub cel_name: String,
}

/// A property a generated CEL rule names, or an error at `span` when CEL cannot reach it.
pub fn rule_property(
    json_name: &str,
    marker: &str,
    span: Span,
    cx: &mut Ctxt,
) -> Option<RuleProperty> {
    match cel::escape_property(json_name) {
        Ok(cel_name) => Some(RuleProperty {
            json_name: json_name.to_string(),
            cel_name,
        }),
        Err(why) => {
            cx.error_at(
                span,
                format!(
                    "`{marker}` writes a CEL rule naming the field `{json_name}` (JSON name), but \
                     Kubernetes cannot name it in CEL: {why}; rename it with #[serde(rename = \"...\")]"
                ),
            );
            None
        }
    }
}

/// controller-gen's rules and messages for the one-of markers.
pub fn one_of_rule(kind: &str, fields: &[RuleProperty]) -> Value {
    let list = fields
        .iter()
        .map(|f| f.json_name.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    match kind {
        "at_least_one_of" => json!({
            "rule": fields.iter().map(|f| format!("has(self.{})", f.cel_name)).collect::<Vec<_>>().join("||"),
            "message": format!("at least one of the fields in [{list}] must be set"),
        }),
        _ => {
            let sum = fields
                .iter()
                .map(|f| format!("(has(self.{})?1:0)", f.cel_name))
                .collect::<Vec<_>>()
                .join("+");
            if kind == "exactly_one_of" {
                json!({"rule": format!("{sum} == 1"), "message": format!("exactly one of the fields in [{list}] must be set")})
            } else {
                json!({"rule": format!("{sum} <= 1"), "message": format!("at most one of the fields in [{list}] may be set")})
            }
        }
    }
}

/// The parent rule of an optional `immutable` field: once set, it stays set.
pub fn immutable_once_set_rule(field: &RuleProperty) -> Value {
    json!({
        "rule": format!("!has(oldSelf.{0}) || has(self.{0})", field.cel_name),
        "message": format!("field {} is immutable once set", field.json_name),
    })
}
