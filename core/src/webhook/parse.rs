//! Attribute tokens → [`WebhookArgs`]: which key holds which value, with its spans. Syntax, key
//! lookup and value shapes come from the shared argument parser ([`crate::args`]); this module
//! knows the keys.

use crate::args::{self, Elements, KeySpec, KeyTable};
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use std::collections::BTreeMap;

pub use crate::args::Item;

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Str,
    Bool,
    Int,
    List,
}

/// A key with its snake_case name, controller-gen's spelling (an alias where it differs) and
/// its shape.
const fn key(name: &'static str, go_name: &'static str, shape: Shape) -> KeySpec<Shape> {
    let spec = KeySpec::new(name, shape);
    if go_name.len() == name.len() {
        // One word: controller-gen spells it the same.
        spec
    } else {
        spec.alias(go_name)
    }
}

/// `#[webhook]`'s keys: those of controller-gen's `Config`.
pub(crate) const WEBHOOK_KEYS: KeyTable<Shape> = KeyTable {
    place: "#[webhook]",
    keys: &[
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
    ],
};

/// `#[webhook_configuration]`'s keys: those of controller-gen's `WebhookConfig`.
pub(crate) const CONFIGURATION_KEYS: KeyTable<Shape> = KeyTable {
    place: "#[webhook_configuration]",
    keys: &[
        key("mutating", "mutating", Shape::Bool),
        key("name", "name", Shape::Str),
    ],
};

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

/// The arguments of one attribute, by canonical key. Keys whose value failed to parse are only
/// in `written` (their error is recorded), so validation never reports them missing too.
#[derive(Debug, Clone, Default)]
pub struct WebhookArgs {
    pub values: BTreeMap<&'static str, Value>,
    pub written: args::Written,
}

impl WebhookArgs {
    pub fn present(&self, key: &str) -> bool {
        self.values.contains_key(key) || self.written.contains(key)
    }
}

/// Parses `key = value, ...` with the keys of `table`.
pub(crate) fn parse_args(
    table: &KeyTable<Shape>,
    tokens: TokenStream,
    cx: &mut Ctxt,
) -> WebhookArgs {
    let parsed = args::parse_args(
        tokens,
        "expected `key = value`, e.g. `name = \"vmydatabase.example.com\"`",
        cx,
    );
    let mut values = BTreeMap::new();
    let written = table.read(&parsed, cx, |spec, arg, cx| {
        let value = match spec.data {
            Shape::Str => args::string(arg).map(Value::Str),
            // `mutating` alone means `mutating = true`.
            Shape::Bool => args::boolean(arg).map(|(b, span)| Value::Bool(b, span)),
            Shape::Int => args::int(arg).map(|(n, span)| Value::Int(n, span)),
            Shape::List => {
                let Some(list) = args::list(arg, elements(spec.name), cx) else {
                    return false;
                };
                // The good elements of a list with bad ones are still checked, each on its
                // own; the webhook object is built only when nothing was wrong.
                let complete = list.complete;
                values.insert(spec.name, Value::List(list.items, list.value_span));
                return complete;
            }
        };
        match value {
            Ok(value) => {
                values.insert(spec.name, value);
                true
            }
            Err(err) => {
                cx.push(err);
                false
            }
        }
    });
    WebhookArgs { values, written }
}

/// `""` is the core group; elsewhere an empty element is a mistake.
fn elements(key: &str) -> Elements {
    if key == "groups" {
        Elements::CoreGroup
    } else {
        Elements::NonEmpty
    }
}
