//! Attribute tokens → [`WebhookArgs`]: which key holds which literal, with its spans. Syntax
//! comes from the shared argument parser ([`crate::args`]); this module knows the keys.

use crate::args::{self, Literal};
use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;
use proc_macro2::{Span, TokenStream};
use std::collections::BTreeMap;

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Str,
    Bool,
    Int,
    List,
}

/// One accepted key: its snake_case name, controller-gen's spelling, and its shape.
pub(crate) struct Key {
    pub(crate) name: &'static str,
    pub(crate) go_name: &'static str,
    pub(crate) shape: Shape,
}

const fn key(name: &'static str, go_name: &'static str, shape: Shape) -> Key {
    Key {
        name,
        go_name,
        shape,
    }
}

/// `#[webhook]`'s keys: those of controller-gen's `Config`.
pub(crate) const WEBHOOK_KEYS: &[Key] = &[
    key("name", "name", Shape::Str),
    key("mutating", "mutating", Shape::Bool),
    key("path", "path", Shape::Str),
    key("url", "url", Shape::Str),
    key("failure_policy", "failurePolicy", Shape::Str),
    key("match_policy", "matchPolicy", Shape::Str),
    key("side_effects", "sideEffects", Shape::Str),
    key("timeout_seconds", "timeoutSeconds", Shape::Int),
    key("groups", "groups", Shape::List),
    key("resources", "resources", Shape::List),
    key("verbs", "verbs", Shape::List),
    key("versions", "versions", Shape::List),
    key("service_name", "serviceName", Shape::Str),
    key("service_namespace", "serviceNamespace", Shape::Str),
    key("service_port", "servicePort", Shape::Int),
    key("webhook_versions", "webhookVersions", Shape::List),
    key(
        "admission_review_versions",
        "admissionReviewVersions",
        Shape::List,
    ),
    key("reinvocation_policy", "reinvocationPolicy", Shape::Str),
    key("patch", "patch", Shape::Str),
];

/// `#[webhook_configuration]`'s keys: those of controller-gen's `WebhookConfig`.
pub(crate) const CONFIGURATION_KEYS: &[Key] = &[
    key("mutating", "mutating", Shape::Bool),
    key("name", "name", Shape::Str),
];

/// One string of a list, with the span of the literal it came from (elements of a `"a;b"`
/// string share its span: stable Rust cannot point inside a literal).
#[derive(Debug, Clone)]
pub struct Item {
    pub value: String,
    pub span: Span,
}

/// A parsed value, checked against its key's shape.
#[derive(Debug, Clone)]
pub enum Value {
    Str(Item),
    Bool(bool, Span),
    Int(i64, Span),
    List(Vec<Item>, Span),
}

impl Value {
    pub fn span(&self) -> Span {
        match self {
            Value::Str(item) => item.span,
            Value::Bool(_, span) | Value::Int(_, span) | Value::List(_, span) => *span,
        }
    }
}

/// The arguments of one attribute, by canonical key. Keys whose value failed to parse are in
/// `malformed` (their error is recorded), so validation never reports them missing too.
#[derive(Debug, Clone, Default)]
pub struct WebhookArgs {
    pub values: BTreeMap<&'static str, Value>,
    pub malformed: Vec<&'static str>,
}

impl WebhookArgs {
    pub fn present(&self, key: &str) -> bool {
        self.values.contains_key(key) || self.malformed.contains(&key)
    }
}

/// Parses `key = value, ...` for the attribute `attr` with the keys `keys`.
pub(crate) fn parse_args(
    attr: &str,
    keys: &'static [Key],
    tokens: TokenStream,
    cx: &mut Ctxt,
) -> WebhookArgs {
    let mut out = WebhookArgs::default();
    for arg in args::parse_args(tokens, cx) {
        let written = arg.name();
        let Some(key) = keys
            .iter()
            .find(|k| k.name == written || k.go_name == written)
        else {
            let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
            let suggestion = did_you_mean(&written, &names);
            if let Some(meant) = suggestion
                && let Some(k) = keys.iter().find(|k| k.name == meant)
                && !out.malformed.contains(&k.name)
            {
                out.malformed.push(k.name);
            }
            let hint = suggestion
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            cx.error_at(
                arg.key.span(),
                format!(
                    "unknown key `{written}` in #[{attr}]{hint} (expected one of: {})",
                    names.join(", ")
                ),
            );
            continue;
        };
        if out.present(key.name) {
            let alias = if key.name != written {
                format!(" (`{written}` is another spelling of `{}`)", key.name)
            } else {
                String::new()
            };
            cx.error_at(
                arg.key.span(),
                format!("duplicate key `{}`{alias}", key.name),
            );
            continue;
        }
        // `mutating` alone means `mutating = true`.
        let literal = if key.shape == Shape::Bool && matches!(arg.value, args::ArgValue::Flag) {
            Ok(Literal::Bool(syn::LitBool::new(true, arg.key.span())))
        } else {
            args::literal(&arg)
        };
        let value = literal.and_then(|lit| shaped(key, lit));
        match value {
            Ok(value) => {
                out.values.insert(key.name, value);
            }
            Err(err) => {
                cx.push(err);
                out.malformed.push(key.name);
            }
        }
    }
    out
}

/// Checks a literal against the key's shape; lists split `"a;b"` strings.
fn shaped(key: &Key, lit: Literal) -> syn::Result<Value> {
    let name = key.name;
    let wrong = |span: Span, what: &str| syn::Error::new(span, format!("`{name}` takes {what}"));
    match (key.shape, lit) {
        (Shape::Str, Literal::Str(s)) => Ok(Value::Str(Item {
            value: s.value(),
            span: s.span(),
        })),
        (Shape::Str, other) => Err(wrong(
            other.span(),
            &format!("one string, e.g. `{name} = \"...\"`"),
        )),
        (Shape::Bool, Literal::Bool(b)) => Ok(Value::Bool(b.value, b.span)),
        (Shape::Bool, other) => Err(wrong(
            other.span(),
            &format!("a bool: `{name} = true` or `{name} = false`"),
        )),
        (Shape::Int, Literal::Int(n, span)) => Ok(Value::Int(n, span)),
        (Shape::Int, other) => Err(wrong(
            other.span(),
            &format!("an integer literal, e.g. `{name} = 10`"),
        )),
        (Shape::List, Literal::Str(s)) => {
            let text = s.value();
            let parts: Vec<&str> = text.split(';').collect();
            // `""` is the core group; elsewhere an empty element is a mistake.
            let empty_ok = name == "groups" && parts.len() == 1;
            if !empty_ok && parts.iter().any(|p| p.is_empty()) {
                return Err(syn::Error::new(
                    s.span(),
                    format!(
                        "empty element in `{name}` (\"{text}\"): separate elements with `;`, \
                         e.g. `{name} = \"a;b\"`, or write an array"
                    ),
                ));
            }
            let items = parts
                .into_iter()
                .map(|p| Item {
                    value: p.to_string(),
                    span: s.span(),
                })
                .collect();
            Ok(Value::List(items, s.span()))
        }
        (Shape::List, Literal::Array(lits, span)) => {
            if lits.is_empty() {
                return Err(syn::Error::new(span, format!("`{name}` is empty")));
            }
            let mut items = Vec::new();
            for lit in lits {
                let value = lit.value();
                if value.contains(';') {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!(
                            "`;` inside an array element of `{name}`: use either \"a;b\" or \
                             [\"a\", \"b\"], not both"
                        ),
                    ));
                }
                if value.is_empty() && name != "groups" {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!("empty element in `{name}`"),
                    ));
                }
                items.push(Item {
                    value,
                    span: lit.span(),
                });
            }
            Ok(Value::List(items, span))
        }
        (Shape::List, other) => Err(wrong(
            other.span(),
            &format!("a list of strings, e.g. `{name} = \"a;b\"` or `[\"a\", \"b\"]`"),
        )),
    }
}
