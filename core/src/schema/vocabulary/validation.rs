//! `validation(rule = "...", ...)`: a CEL rule of the node, checked as the API server would.

use super::values::{flag, string};
use crate::args::{Arg, KeySpec, KeyTable};
use crate::cel::{self, REASONS};
use crate::ctxt::Ctxt;
use proc_macro2::Span;
use serde_json::{Map, Value, json};

/// Checks that a CEL expression parses (see [`crate::cel::parse_error`]).
fn check_cel(expr: &str, what: &str, span: Span, cx: &mut Ctxt) {
    if let Some(error) = cel::parse_error(expr) {
        let error = error.to_string();
        cx.error_at(
            span,
            format!("{what} does not parse as CEL:\n{}", error.trim_end()),
        );
    }
}

/// The keys of `validation(...)`, with the JSON name each writes.
const VALIDATION_KEYS: KeyTable<&str> = KeyTable {
    place: "`validation(...)`",
    keys: &[
        KeySpec::new("rule", "rule"),
        KeySpec::new("message", "message"),
        KeySpec::new("message_expression", "messageExpression"),
        KeySpec::new("reason", "reason"),
        KeySpec::new("field_path", "fieldPath"),
        KeySpec::new("optional_old_self", "optionalOldSelf"),
    ],
};

const VALIDATION_EXAMPLE: &str =
    "e.g. `validation(rule = \"self.min <= self.max\", message = \"min must not exceed max\")`";

/// The rule object of `validation(...)`, or `None` when it is malformed (recorded).
pub(super) fn validation(arg: &Arg, cx: &mut Ctxt) -> Option<Value> {
    let Some(inner) = arg.nested(
        &format!("expected `key = value` in `validation(...)`, {VALIDATION_EXAMPLE}"),
        cx,
    ) else {
        cx.push(
            arg.value_range()
                .error("write `validation(rule = \"...\", message = \"...\")`"),
        );
        return None;
    };
    let errors_before = cx.error_count();
    let mut out = Map::new();
    let mut ok = true;
    let written = VALIDATION_KEYS.read(&inner, cx, |spec, a, cx| {
        let json_name = spec.data;
        if spec.name == "optional_old_self" {
            let Some(b) = flag(a, cx) else {
                return false;
            };
            out.insert(json_name.into(), json!(b));
            return true;
        }
        let Some((value, vspan)) = string(a, cx) else {
            return false;
        };
        match spec.name {
            "rule" => check_cel(&value, "the rule", vspan, cx),
            // An empty message expression is none for the API server.
            "message_expression" if value.is_empty() => {}
            "message_expression" => check_cel(&value, "the message expression", vspan, cx),
            "reason" if !REASONS.contains(&value.as_str()) => {
                cx.error_at(
                    vspan,
                    format!(
                        "unknown reason `{value}`: Kubernetes accepts {}",
                        REASONS.join(", ")
                    ),
                );
                ok = false;
            }
            "field_path" if !value.starts_with('.') => {
                cx.error_at(
                    vspan,
                    "`field_path` is a JSON path relative to the rule's node, starting with `.`",
                );
                ok = false;
            }
            "message" if value.is_empty() || value.contains('\n') => {
                cx.error_at(vspan, "`message` must be non-empty and on one line");
                ok = false;
            }
            _ => {}
        }
        out.insert(json_name.into(), json!(value));
        true
    });
    // Unknown, repeated or malformed keys inside are errors too (recorded by `read`).
    let ok = ok && cx.error_count() == errors_before;
    if !out.contains_key("rule") {
        // A `rule` written but malformed, or misspelled, has its error already.
        if !written.contains("rule") {
            cx.error_at(
                arg.value_span(),
                "`validation(...)` needs a `rule = \"...\"`",
            );
        }
        return None;
    }
    ok.then_some(Value::Object(out))
}
