//! `#[k8s(...)]` arguments → [`Patch`], with the compile-time checks.

use super::patch::Patch;
use super::satisfiable;
use crate::args::{self, Arg, ArgValue, KeySpec, KeyTable, Value as ArgLiteral};
use crate::cel::{self, REASONS};
use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;
use proc_macro2::Span;
use serde_json::{Map, Value, json};

/// What a field's Rust type says about its JSON shape, where it is visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Integer,
    Number,
    String,
    Bool,
    List,
    Map,
    /// A type of the user's (or one we don't know): anything goes.
    Unknown,
}

impl Shape {
    /// The schema `type` of a value of this shape.
    fn json_type(self) -> Option<&'static str> {
        match self {
            Shape::Integer => Some("integer"),
            Shape::Number => Some("number"),
            Shape::String => Some("string"),
            Shape::Bool => Some("boolean"),
            Shape::List => Some("array"),
            Shape::Map => Some("object"),
            Shape::Unknown => None,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Shape::Integer => "an integer",
            Shape::Number => "a number",
            Shape::String => "a string",
            Shape::Bool => "a boolean",
            Shape::List => "a list",
            Shape::Map => "a map",
            Shape::Unknown => "a value",
        }
    }
}

fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn first_generic(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// `Option<T>` → `T`; `Box<T>`/`Arc<T>` → `T`.
pub fn strip_wrappers(ty: &syn::Type) -> (&syn::Type, bool) {
    let mut ty = ty;
    let mut optional = false;
    loop {
        match last_segment(ty) {
            Some(seg) if seg.ident == "Option" => {
                optional = true;
                match first_generic(seg) {
                    Some(inner) => ty = inner,
                    None => return (ty, optional),
                }
            }
            Some(seg) if seg.ident == "Box" || seg.ident == "Arc" || seg.ident == "Rc" => {
                match first_generic(seg) {
                    Some(inner) => ty = inner,
                    None => return (ty, optional),
                }
            }
            _ => return (ty, optional),
        }
    }
}

/// The JSON shape of a Rust type, looking through `Option`, `Box` and references.
pub fn shape_of(ty: &syn::Type) -> Shape {
    let (ty, _) = strip_wrappers(ty);
    match ty {
        syn::Type::Reference(r) => return shape_of(&r.elem),
        syn::Type::Array(_) | syn::Type::Slice(_) => return Shape::List,
        _ => {}
    }
    let Some(seg) = last_segment(ty) else {
        return Shape::Unknown;
    };
    match seg.ident.to_string().as_str() {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => Shape::Integer,
        "f32" | "f64" => Shape::Number,
        "String" | "str" => Shape::String,
        "bool" => Shape::Bool,
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList" => Shape::List,
        "HashMap" | "BTreeMap" => Shape::Map,
        _ => Shape::Unknown,
    }
}

/// The element type of a list type, if visible.
pub fn item_type(ty: &syn::Type) -> Option<&syn::Type> {
    let (ty, _) = strip_wrappers(ty);
    match ty {
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        _ => {
            let seg = last_segment(ty)?;
            matches!(
                seg.ident.to_string().as_str(),
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList"
            )
            .then(|| first_generic(seg))
            .flatten()
        }
    }
}

/// Where a `#[k8s]` stands, which decides the keys it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Field,
    Type,
    Items,
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

/// Parses the arguments of `#[k8s(...)]` at `place` for a value of `shape`.
pub fn parse(
    args: &[Arg],
    place: Place,
    shape: Shape,
    item: Option<&syn::Type>,
    cx: &mut Ctxt,
) -> Parsed {
    let mut out = Parsed::default();
    let keys = match place {
        Place::Field => FIELD_KEYS,
        Place::Type => TYPE_KEYS,
        Place::Items => ITEM_KEYS,
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut list_type: Option<(String, Span)> = None;
    let mut list_map_keys: Option<Span> = None;
    let mut enum_spans: Vec<Span> = Vec::new();
    for arg in args {
        let key = arg.name();
        if !keys.contains(&key) {
            let elsewhere = [FIELD_KEYS, TYPE_KEYS, ITEM_KEYS]
                .iter()
                .any(|k| k.contains(&key));
            let hint = if let Some(owner) = left_to_serde_and_schemars(key) {
                format!("; {owner}")
            } else if elsewhere {
                format!(
                    "; `{key}` is not allowed {}",
                    match place {
                        Place::Field => "on a field",
                        Place::Type => "on a type (put it on the field)",
                        Place::Items => "inside `items(...)`",
                    }
                )
            } else {
                did_you_mean(key, keys)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default()
            };
            cx.push(
                arg.key
                    .error(format!("unknown key `{key}` in #[k8s]{hint}")),
            );
            continue;
        }
        // A value that did not parse has its error already.
        if matches!(arg.value, ArgValue::Invalid) {
            seen.push(key);
            continue;
        }
        if key != "validation" && seen.contains(&key) {
            cx.push(arg.key.error(format!("duplicate key `{key}` in #[k8s]")));
            continue;
        }
        seen.push(key);
        let set = &mut out.patch.set;
        match key {
            "minimum" | "maximum" | "multiple_of" => {
                if let Some(n) = number(arg, cx) {
                    check_shape(arg, shape, &[Shape::Integer, Shape::Number], "numbers", cx);
                    set.insert(json_key(key), Value::Number(n));
                }
            }
            "exclusive_minimum" | "exclusive_maximum" => {
                if let Some(b) = flag(arg, cx) {
                    check_shape(arg, shape, &[Shape::Integer, Shape::Number], "numbers", cx);
                    set.insert(json_key(key), json!(b));
                }
            }
            "min_length" | "max_length" | "min_items" | "max_items" | "min_properties"
            | "max_properties" => {
                let (allowed, what) = match key {
                    "min_length" | "max_length" => (
                        Shape::String,
                        "strings (use `min_items`/`max_items` for lists)",
                    ),
                    "min_items" | "max_items" => (
                        Shape::List,
                        "lists (use `min_length`/`max_length` for strings)",
                    ),
                    _ => (Shape::Map, "objects and maps"),
                };
                if let Some(n) = count(arg, cx) {
                    check_shape(arg, shape, &[allowed], what, cx);
                    set.insert(json_key(key), json!(n));
                }
            }
            "pattern" => {
                if let Some((p, span)) = string(arg, cx) {
                    check_shape(arg, shape, &[Shape::String], "strings", cx);
                    if let Err(e) = regex_syntax::Parser::new().parse(&p) {
                        cx.error_at(
                            span,
                            format!("`pattern` is not a valid regular expression: {e}"),
                        );
                    }
                    set.insert("pattern".into(), json!(p));
                }
            }
            "format" => {
                if let Some((f, _)) = string(arg, cx) {
                    set.insert("format".into(), json!(f));
                }
            }
            "enum" => {
                if let Some((values, spans)) = enum_values(arg, cx) {
                    set.insert("enum".into(), Value::Array(values));
                    enum_spans = spans;
                }
            }
            "nullable" | "preserve_unknown_fields" => {
                if let Some(true) = flag(arg, cx) {
                    set.insert(json_key(key), json!(true));
                }
            }
            "embedded_resource" => {
                if let Some(true) = flag(arg, cx) {
                    check_shape(arg, shape, &[Shape::Map], "objects", cx);
                    set.insert("type".into(), json!("object"));
                    set.insert("x-kubernetes-embedded-resource".into(), json!(true));
                    set.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
                }
            }
            "int_or_string" => {
                if let Some(true) = flag(arg, cx) {
                    check_shape(
                        arg,
                        shape,
                        &[Shape::Integer, Shape::String],
                        "integer or string values",
                        cx,
                    );
                    out.patch
                        .unset
                        .extend(["type".to_string(), "format".to_string()]);
                    set.insert("x-kubernetes-int-or-string".into(), json!(true));
                }
            }
            "schemaless" => {
                if let Some(true) = flag(arg, cx) {
                    out.patch.schemaless = true;
                }
            }
            "required" => {
                if let Some(true) = flag(arg, cx) {
                    out.flags.required = Some(arg.key.span());
                }
            }
            "optional" => {
                if let Some(true) = flag(arg, cx) {
                    out.flags.optional = Some(arg.key.span());
                }
            }
            "immutable" => {
                if let Some(true) = flag(arg, cx) {
                    out.flags.immutable = Some(arg.key.span());
                    out.patch
                        .validations
                        .push(json!({"rule": "self == oldSelf", "message": "field is immutable"}));
                }
            }
            "list_type" => {
                if let Some((v, span)) = choice(arg, &["atomic", "set", "map"], cx) {
                    check_shape(arg, shape, &[Shape::List], "lists", cx);
                    list_type = Some((v.clone(), span));
                    set.insert("x-kubernetes-list-type".into(), json!(v));
                }
            }
            "list_map_keys" => {
                if let Some(keys) = string_list(arg, cx) {
                    list_map_keys = Some(arg.key.span());
                    set.insert("x-kubernetes-list-map-keys".into(), json!(keys));
                }
            }
            "map_type" | "struct_type" => {
                // Kubernetes has no struct-type extension: controller-gen writes structType as
                // x-kubernetes-map-type, and so do we.
                if let Some((v, _)) = choice(arg, &["granular", "atomic"], cx) {
                    check_shape(arg, shape, &[Shape::Map], "objects and maps", cx);
                    set.insert("x-kubernetes-map-type".into(), json!(v));
                }
            }
            "validation" => {
                if let Some(rule) = validation(arg, cx) {
                    out.patch.validations.push(rule);
                }
            }
            "items" => {
                let Some(inner) = arg.nested(
                    "expected a marker in `items(...)`, e.g. `items(min_length = 1)`",
                    cx,
                ) else {
                    cx.push(arg.value_range().error(
                        "`items` takes markers for the list's elements: `items(min_length = 1)`",
                    ));
                    continue;
                };
                if shape != Shape::List && shape != Shape::Unknown {
                    cx.error_at(
                        arg.key.span(),
                        format!("`items` applies to lists, but this is {}", shape.describe()),
                    );
                }
                let item_shape = item.map(shape_of).unwrap_or(Shape::Unknown);
                let nested_item = item.and_then(item_type);
                let parsed = parse(&inner, Place::Items, item_shape, nested_item, cx);
                out.patch.items = Some(Box::new(parsed.patch));
            }
            "at_most_one_of" | "exactly_one_of" | "at_least_one_of" => {
                if let Some(fields) = string_list_spanned(arg, cx) {
                    if fields.len() < 2 {
                        cx.error_at(
                            arg.value_span(),
                            format!("`{key}` needs at least two fields"),
                        );
                    }
                    out.one_ofs.push(OneOf {
                        kind: match key {
                            "at_most_one_of" => "at_most_one_of",
                            "exactly_one_of" => "exactly_one_of",
                            _ => "at_least_one_of",
                        },
                        span: arg.key.span(),
                        fields,
                    });
                }
            }
            _ => unreachable!("every key in the lists is handled"),
        }
    }
    if let Some(span) = list_map_keys
        && list_type.as_ref().map(|(v, _)| v.as_str()) != Some("map")
    {
        cx.error_at(span, "`list_map_keys` needs `list_type = \"map\"`");
    }
    if let Some((v, span)) = &list_type
        && v == "map"
        && list_map_keys.is_none()
    {
        cx.error_at(
            *span,
            "`list_type = \"map\"` needs `list_map_keys = [...]`, the fields that identify an item",
        );
    }
    check_satisfiable(&out.patch.set, shape, args, &enum_spans, cx);
    if let (Some(r), Some(_)) = (out.flags.required, out.flags.optional) {
        cx.error_at(r, "a field cannot be both `required` and `optional`");
    }
    out
}

/// Where the controller-gen markers that #[k8s] leaves to serde and schemars are written.
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

fn check_shape(arg: &Arg, shape: Shape, allowed: &[Shape], what: &str, cx: &mut Ctxt) {
    if shape != Shape::Unknown && !allowed.contains(&shape) {
        cx.error_at(
            arg.key.span(),
            format!(
                "`{}` applies to {what}, but this is {}",
                arg.name(),
                shape.describe()
            ),
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

/// A number literal, possibly negated.
fn number_of(value: &ArgLiteral) -> Option<serde_json::Number> {
    let (lit, sign) = match value {
        ArgLiteral::Lit(lit) => (lit, ""),
        ArgLiteral::Neg(lit, _) => (lit, "-"),
        _ => return None,
    };
    match lit {
        syn::Lit::Int(i) => format!("{sign}{}", i.base10_digits())
            .parse::<i64>()
            .ok()
            .map(Into::into),
        syn::Lit::Float(f) => {
            let v: f64 = format!("{sign}{}", f.base10_digits()).parse().ok()?;
            serde_json::Number::from_f64(v)
        }
        _ => None,
    }
}

/// The value of `key = value`, or `None` after recording why there is none.
fn value_of<'a>(arg: &'a Arg, example: &str, cx: &mut Ctxt) -> Option<&'a ArgLiteral> {
    args::value_of(arg, example).map_err(|e| cx.push(e)).ok()
}

fn number(arg: &Arg, cx: &mut Ctxt) -> Option<serde_json::Number> {
    let value = value_of(arg, "1", cx)?;
    let n = number_of(value);
    if n.is_none() {
        let key = arg.name();
        cx.push(
            value
                .range()
                .error(format!("`{key}` takes a number literal, e.g. `{key} = 1`")),
        );
    }
    n
}

fn count(arg: &Arg, cx: &mut Ctxt) -> Option<u64> {
    let value = value_of(arg, "1", cx)?;
    match value {
        ArgLiteral::Lit(syn::Lit::Int(i)) => i.base10_parse::<u64>().ok().or_else(|| {
            cx.error_at(i.span(), "too large");
            None
        }),
        _ => {
            let key = arg.name();
            cx.push(value.range().error(format!(
                "`{key}` takes a non-negative integer, e.g. `{key} = 1`"
            )));
            None
        }
    }
}

fn flag(arg: &Arg, cx: &mut Ctxt) -> Option<bool> {
    args::flag(arg)
        .map(|(on, _)| on)
        .map_err(|e| cx.push(e))
        .ok()
}

fn string(arg: &Arg, cx: &mut Ctxt) -> Option<(String, Span)> {
    args::string(arg)
        .map(|item| (item.value, item.span))
        .map_err(|e| cx.push(e))
        .ok()
}

fn choice(arg: &Arg, allowed: &[&str], cx: &mut Ctxt) -> Option<(String, Span)> {
    let (v, span) = string(arg, cx)?;
    if allowed.contains(&v.as_str()) {
        Some((v, span))
    } else {
        let hint = did_you_mean(&v, allowed)
            .map(|s| format!("; did you mean \"{s}\"?"))
            .unwrap_or_default();
        cx.error_at(
            span,
            format!(
                "`{}` must be one of {}{hint}",
                arg.name(),
                allowed
                    .iter()
                    .map(|a| format!("\"{a}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        None
    }
}

fn array_elems<'a>(arg: &'a Arg, cx: &mut Ctxt) -> Option<&'a [ArgLiteral]> {
    match value_of(arg, "[...]", cx)? {
        ArgLiteral::Array(elems, _) => Some(elems),
        other => {
            let key = arg.name();
            cx.push(
                other
                    .range()
                    .error(format!("`{key}` takes a list: `{key} = [...]`")),
            );
            None
        }
    }
}

fn string_list_spanned(arg: &Arg, cx: &mut Ctxt) -> Option<Vec<(String, Span)>> {
    let elems = array_elems(arg, cx)?;
    let mut out = Vec::new();
    let mut ok = true;
    for e in elems {
        match e {
            ArgLiteral::Lit(syn::Lit::Str(s)) if !s.value().is_empty() => {
                out.push((s.value(), s.span()))
            }
            _ => {
                cx.push(e.range().error("expected a non-empty string"));
                ok = false;
            }
        }
    }
    if out.is_empty() && ok {
        cx.error_at(arg.value_span(), format!("`{}` is empty", arg.name()));
        ok = false;
    }
    ok.then_some(out)
}

fn string_list(arg: &Arg, cx: &mut Ctxt) -> Option<Vec<String>> {
    string_list_spanned(arg, cx).map(|v| v.into_iter().map(|(s, _)| s).collect())
}

fn enum_values(arg: &Arg, cx: &mut Ctxt) -> Option<(Vec<Value>, Vec<Span>)> {
    let elems = array_elems(arg, cx)?;
    let mut out: Vec<Value> = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    for e in elems {
        let value = match e {
            ArgLiteral::Lit(syn::Lit::Str(s)) => json!(s.value()),
            ArgLiteral::Lit(syn::Lit::Bool(b)) => json!(b.value),
            _ => match number_of(e) {
                Some(n) => Value::Number(n),
                None => {
                    cx.push(
                        e.range()
                            .error("enum values are string, number or bool literals"),
                    );
                    continue;
                }
            },
        };
        if out.contains(&value) {
            cx.push(e.range().error(format!("duplicate enum value {value}")));
            continue;
        }
        out.push(value);
        spans.push(e.span());
    }
    if out.is_empty() {
        cx.error_at(arg.value_span(), "`enum` is empty");
        return None;
    }
    Some((out, spans))
}

/// Checks that a CEL expression parses (see [`crate::cel::parse_error`]).
pub fn check_cel(expr: &str, what: &str, span: Span, cx: &mut Ctxt) {
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

fn validation(arg: &Arg, cx: &mut Ctxt) -> Option<Value> {
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
    VALIDATION_KEYS.read(&inner, cx, |spec, a, cx| {
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
        cx.error_at(
            arg.value_span(),
            "`validation(...)` needs a `rule = \"...\"`",
        );
        return None;
    }
    ok.then_some(Value::Object(out))
}

/// A property as a generated CEL rule names it: its JSON name (for messages) and the identifier
/// CEL sees it under ([`cel::escape_property`]).
pub struct RuleProperty {
    pub json_name: String,
    pub cel_name: String,
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
