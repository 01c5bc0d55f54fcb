//! `#[k8s(...)]` arguments → [`Patch`], with the compile-time checks.
//!
//! [`parse`] runs in stages: each argument is admitted (a key known where it stands, not
//! repeated), its key group's reader ([`keys`]) writes it into the patch, and the checks across
//! keys run on what was read.

mod keys;
mod validation;
mod values;

use super::patch::Patch;
use super::satisfiable;
use super::shape::Shape;
use crate::args::{Arg, ArgValue};
use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;
use keys::Reader;
use proc_macro2::Span;
use serde_json::{Map, Value, json};

/// Where a `#[k8s]` stands, which decides the keys it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Field,
    Type,
    Items,
}

impl Place {
    /// The keys a `#[k8s]` may use here.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Place::Field => FIELD_KEYS,
            Place::Type => TYPE_KEYS,
            Place::Items => ITEM_KEYS,
        }
    }

    /// Where this is, for the error about a key that belongs at another place.
    fn describe(self) -> &'static str {
        match self {
            Place::Field => "on a field",
            Place::Type => "on a type (put it on the field)",
            Place::Items => "inside `items(...)`",
        }
    }
}

const FIELD_KEYS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "min_properties",
    "max_properties",
    "pattern",
    "format",
    "enum",
    "nullable",
    "preserve_unknown_fields",
    "embedded_resource",
    "int_or_string",
    "schemaless",
    "required",
    "optional",
    "list_type",
    "list_map_keys",
    "map_type",
    "struct_type",
    "immutable",
    "validation",
    "items",
];

const TYPE_KEYS: &[&str] = &[
    "validation",
    "at_most_one_of",
    "exactly_one_of",
    "at_least_one_of",
    "min_properties",
    "max_properties",
    "preserve_unknown_fields",
    "embedded_resource",
    "map_type",
    "struct_type",
    "list_type",
    "list_map_keys",
    "nullable",
];

const ITEM_KEYS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "min_properties",
    "max_properties",
    "pattern",
    "format",
    "enum",
    "nullable",
    "int_or_string",
    "preserve_unknown_fields",
    "embedded_resource",
    "list_type",
    "list_map_keys",
    "map_type",
    "struct_type",
    "validation",
    "items",
];

/// Flags that change the parent's `required` list or add parent rules.
#[derive(Clone, Default)]
pub struct FieldFlags {
    pub required: Option<Span>,
    pub optional: Option<Span>,
    pub immutable: Option<Span>,
}

/// One-of groups declared on a type: `(rule kind, field names with their spans)`.
#[derive(Clone)]
pub struct OneOf {
    pub kind: &'static str,
    pub span: Span,
    pub fields: Vec<(String, Span)>,
}

/// Everything a `#[k8s]` list produced.
#[derive(Clone, Default)]
pub struct Parsed {
    pub patch: Patch,
    pub flags: FieldFlags,
    pub one_ofs: Vec<OneOf>,
}

/// Parses the arguments of `#[k8s(...)]` at `place` for a value of `shape`; `item` is the
/// element type when the value is a list whose type is visible.
pub fn parse(
    args: &[Arg],
    place: Place,
    shape: Shape,
    item: Option<&syn::Type>,
    cx: &mut Ctxt,
) -> Parsed {
    let mut reader = Reader::new(shape, item);
    let mut seen = Vec::new();
    for arg in args {
        if let Some(key) = admit(arg, place, &mut seen, cx) {
            reader.read(key, arg, cx);
        }
    }
    let Reader {
        out,
        list_type,
        list_map_keys,
        enum_spans,
        ..
    } = reader;
    check_list_map(list_type.as_ref(), list_map_keys, cx);
    check_satisfiable(&out.patch.set, shape, args, &enum_spans, cx);
    check_required_or_optional(&out.flags, cx);
    out
}

/// The key of `arg` as the key list spells it, when the argument is to be read: a key known at
/// `place`, with a value that parsed, not written before (only `validation` repeats). Records
/// why not otherwise; `seen` are the keys written so far.
fn admit(
    arg: &Arg,
    place: Place,
    seen: &mut Vec<&'static str>,
    cx: &mut Ctxt,
) -> Option<&'static str> {
    let name = arg.name();
    let Some(key) = place.keys().iter().copied().find(|k| *k == name) else {
        let hint = unknown_key_hint(name, place);
        cx.push(
            arg.key
                .error(format!("unknown key `{name}` in #[k8s]{hint}")),
        );
        return None;
    };
    // A value that did not parse has its error already.
    if matches!(arg.value, ArgValue::Invalid) {
        seen.push(key);
        return None;
    }
    if key != "validation" && seen.contains(&key) {
        cx.push(arg.key.error(format!("duplicate key `{key}` in #[k8s]")));
        return None;
    }
    seen.push(key);
    Some(key)
}

/// The end of the error about a key `place` does not take: who handles it instead, the place
/// it belongs at, or the key it is likely a typo of.
fn unknown_key_hint(key: &str, place: Place) -> String {
    if let Some(owner) = left_to_serde_and_schemars(key) {
        return format!("; {owner}");
    }
    if key == "allow" {
        return "; `allow(...)` stands on the field or type, not inside `items(...)`".into();
    }
    let elsewhere = [FIELD_KEYS, TYPE_KEYS, ITEM_KEYS]
        .iter()
        .any(|k| k.contains(&key));
    if elsewhere {
        return format!("; `{key}` is not allowed {}", place.describe());
    }
    did_you_mean(key, place.keys())
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default()
}

/// Where the controller-gen markers that `#[k8s]` leaves to serde and schemars are written.
fn left_to_serde_and_schemars(key: &str) -> Option<&'static str> {
    Some(match key {
        "default" => {
            "defaults come from serde: `#[serde(default)]` (the type's `Default`) or \
             `#[serde(default = \"path::to::function\")]`, which schemars writes into the schema"
        }
        "example" => "examples are schemars': `#[schemars(example = value)]`",
        "title" => "titles are schemars': `#[schemars(title = \"...\")]`",
        "description" => "descriptions are the doc comments (`/// ...`) of the field or type",
        _ => return None,
    })
}

/// The schema keyword a marker key writes.
fn json_key(key: &str) -> String {
    match key {
        "exclusive_minimum" => "exclusiveMinimum",
        "exclusive_maximum" => "exclusiveMaximum",
        "multiple_of" => "multipleOf",
        "min_length" => "minLength",
        "max_length" => "maxLength",
        "min_items" => "minItems",
        "max_items" => "maxItems",
        "min_properties" => "minProperties",
        "max_properties" => "maxProperties",
        "preserve_unknown_fields" => "x-kubernetes-preserve-unknown-fields",
        other => other,
    }
    .to_string()
}

/// `list_type = "map"` and `list_map_keys` need each other.
fn check_list_map(list_type: Option<&(String, Span)>, list_map_keys: Option<Span>, cx: &mut Ctxt) {
    if let Some(span) = list_map_keys
        && list_type.map(|(v, _)| v.as_str()) != Some("map")
    {
        cx.error_at(span, "`list_map_keys` needs `list_type = \"map\"`");
    }
    if let Some((v, span)) = list_type
        && v == "map"
        && list_map_keys.is_none()
    {
        cx.error_at(
            *span,
            "`list_type = \"map\"` needs `list_map_keys = [...]`, the fields that identify an item",
        );
    }
}

/// Reports what [`satisfiable::problems`] finds in the node these markers write, with the type
/// the field's Rust type gives it, each on the marker at fault.
fn check_satisfiable(
    set: &Map<String, Value>,
    shape: Shape,
    args: &[Arg],
    enum_spans: &[Span],
    cx: &mut Ctxt,
) {
    let mut node = set.clone();
    if !node.contains_key("type")
        && !node.contains_key("x-kubernetes-int-or-string")
        && let Some(ty) = shape.json_type()
    {
        node.insert("type".into(), json!(ty));
    }
    for problem in satisfiable::problems(&node) {
        let span = match problem.enum_index {
            Some(i) if i < enum_spans.len() => enum_spans[i],
            _ => {
                // Blame the marker of the keyword, else a marker of the same range.
                let blamed = [problem.keyword, "maximum", "minimum", "multipleOf"]
                    .into_iter()
                    .find_map(|k| args.iter().find(|a| json_key(a.name()) == k));
                blamed.map_or_else(Span::call_site, Arg::value_span)
            }
        };
        // Speak of the markers as written: `max_length`, not `maxLength`.
        let message = FIELD_KEYS.iter().fold(problem.message, |message, key| {
            message.replace(&format!("`{}`", json_key(key)), &format!("`{key}`"))
        });
        cx.error_at(span, message);
    }
}

/// `required` and `optional` contradict each other.
fn check_required_or_optional(flags: &FieldFlags, cx: &mut Ctxt) {
    if let (Some(r), Some(_)) = (flags.required, flags.optional) {
        cx.error_at(r, "a field cannot be both `required` and `optional`");
    }
}

#[cfg(test)]
mod tests;
