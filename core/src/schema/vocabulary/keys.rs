//! The readers of `#[k8s]` keys, one per key group: each checks the value (and that the key
//! applies to the value's shape) and writes what the key means into the [`Parsed`] result.

use super::validation::validation;
use super::values::{
    choice, count, enum_values, flag, number, string, string_list, string_list_spanned,
};
use super::{OneOf, Parsed, Place, json_key};
use crate::args::Arg;
use crate::ctxt::Ctxt;
use crate::schema::shape::{Shape, item_type, shape_of};
use proc_macro2::Span;
use serde_json::{Value, json};

/// Reads admitted arguments into a [`Parsed`], keeping what the checks across keys need.
pub(super) struct Reader<'a> {
    /// The shape of the value the markers apply to.
    shape: Shape,
    /// The element type, when the value is a list of a visible type.
    item: Option<&'a syn::Type>,
    pub(super) out: Parsed,
    /// `list_type`'s value and span: `"map"` needs `list_map_keys`.
    pub(super) list_type: Option<(String, Span)>,
    /// Where `list_map_keys` was written: it needs `list_type = "map"`.
    pub(super) list_map_keys: Option<Span>,
    /// The span of each `enum` value, to blame the one a bound excludes.
    pub(super) enum_spans: Vec<Span>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(shape: Shape, item: Option<&'a syn::Type>) -> Self {
        Reader {
            shape,
            item,
            out: Parsed::default(),
            list_type: None,
            list_map_keys: None,
            enum_spans: Vec::new(),
        }
    }

    /// Reads `arg`, whose key is `key`. Each key is read at most once (but `validation`).
    pub(super) fn read(&mut self, key: &'static str, arg: &Arg, cx: &mut Ctxt) {
        match key {
            "minimum" | "maximum" | "multiple_of" => self.number_bound(arg, cx),
            "exclusive_minimum" | "exclusive_maximum" => self.exclusive_bound(arg, cx),
            "min_length" | "max_length" => self.count_bound(
                arg,
                Shape::String,
                "strings (use `min_items`/`max_items` for lists)",
                cx,
            ),
            "min_items" | "max_items" => self.count_bound(
                arg,
                Shape::List,
                "lists (use `min_length`/`max_length` for strings)",
                cx,
            ),
            "min_properties" | "max_properties" => {
                self.count_bound(arg, Shape::Map, "objects and maps", cx)
            }
            "pattern" => self.pattern(arg, cx),
            "format" => self.format(arg, cx),
            "enum" => self.enumeration(arg, cx),
            "nullable" | "preserve_unknown_fields" => self.extension_flag(arg, cx),
            "embedded_resource" => self.embedded_resource(arg, cx),
            "int_or_string" => self.int_or_string(arg, cx),
            "schemaless" => self.out.patch.schemaless = on(arg, cx).is_some(),
            "required" => self.out.flags.required = on(arg, cx),
            "optional" => self.out.flags.optional = on(arg, cx),
            "immutable" => self.immutable(arg, cx),
            "list_type" => self.list_type(arg, cx),
            "list_map_keys" => self.list_map_keys(arg, cx),
            "map_type" | "struct_type" => self.map_type(arg, cx),
            "validation" => {
                if let Some(rule) = validation(arg, cx) {
                    self.out.patch.validations.push(rule);
                }
            }
            "items" => self.items(arg, cx),
            "at_most_one_of" | "exactly_one_of" | "at_least_one_of" => self.one_of(key, arg, cx),
            _ => unreachable!("every key in the lists is handled"),
        }
    }

    fn set(&mut self, key: impl Into<String>, value: Value) {
        self.out.patch.set.insert(key.into(), value);
    }

    /// Records that `arg`'s key does not apply to the value's shape (unless it is unknown).
    fn check_shape(&self, arg: &Arg, allowed: &[Shape], what: &str, cx: &mut Ctxt) {
        let shape = self.shape;
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

    /// `minimum`, `maximum`, `multiple_of`: a number, on numbers.
    fn number_bound(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if let Some(n) = number(arg, cx) {
            self.check_shape(arg, &[Shape::Integer, Shape::Number], "numbers", cx);
            self.set(json_key(arg.name()), Value::Number(n));
        }
    }

    /// `exclusive_minimum`, `exclusive_maximum`: a flag, on numbers.
    fn exclusive_bound(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if let Some(b) = flag(arg, cx) {
            self.check_shape(arg, &[Shape::Integer, Shape::Number], "numbers", cx);
            self.set(json_key(arg.name()), json!(b));
        }
    }

    /// The `min_`/`max_` counts: a non-negative integer, on the one shape it counts.
    fn count_bound(&mut self, arg: &Arg, counted: Shape, what: &str, cx: &mut Ctxt) {
        if let Some(n) = count(arg, cx) {
            self.check_shape(arg, &[counted], what, cx);
            self.set(json_key(arg.name()), json!(n));
        }
    }

    /// `pattern`: a regular expression, on strings.
    fn pattern(&mut self, arg: &Arg, cx: &mut Ctxt) {
        let Some((pattern, span)) = string(arg, cx) else {
            return;
        };
        self.check_shape(arg, &[Shape::String], "strings", cx);
        if let Err(e) = regex_syntax::Parser::new().parse(&pattern) {
            cx.error_at(
                span,
                format!("`pattern` is not a valid regular expression: {e}"),
            );
        }
        self.set("pattern", json!(pattern));
    }

    /// `format`: any string; Kubernetes ignores the formats it does not know.
    fn format(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if let Some((format, _)) = string(arg, cx) {
            self.set("format", json!(format));
        }
    }

    /// `enum = [...]`: the values, each remembered with its span.
    fn enumeration(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if let Some((values, spans)) = enum_values(arg, cx) {
            self.set("enum", Value::Array(values));
            self.enum_spans = spans;
        }
    }

    /// `nullable`, `preserve_unknown_fields`: flags written only when on.
    fn extension_flag(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if on(arg, cx).is_some() {
            self.set(json_key(arg.name()), json!(true));
        }
    }

    /// `embedded_resource`: an object holding a whole Kubernetes object, whose fields are
    /// therefore kept.
    fn embedded_resource(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if on(arg, cx).is_some() {
            self.check_shape(arg, &[Shape::Map], "objects", cx);
            self.set("type", json!("object"));
            self.set("x-kubernetes-embedded-resource", json!(true));
            self.set("x-kubernetes-preserve-unknown-fields", json!(true));
        }
    }

    /// `int_or_string`: the value is either, so the Rust type's `type` and `format` go.
    fn int_or_string(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if on(arg, cx).is_some() {
            self.check_shape(
                arg,
                &[Shape::Integer, Shape::String],
                "integer or string values",
                cx,
            );
            self.out
                .patch
                .unset
                .extend(["type".to_string(), "format".to_string()]);
            self.set("x-kubernetes-int-or-string", json!(true));
        }
    }

    /// `immutable`: the field's own rule; the parent adds one when the field is optional.
    fn immutable(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if let Some(span) = on(arg, cx) {
            self.out.flags.immutable = Some(span);
            self.out
                .patch
                .validations
                .push(json!({"rule": "self == oldSelf", "message": "field is immutable"}));
        }
    }

    /// `list_type`: one of Kubernetes' list types, on lists.
    fn list_type(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if let Some((v, span)) = choice(arg, &["atomic", "set", "map"], cx) {
            self.check_shape(arg, &[Shape::List], "lists", cx);
            self.set("x-kubernetes-list-type", json!(v));
            self.list_type = Some((v, span));
        }
    }

    /// `list_map_keys`: the fields that identify an item of a `list_type = "map"`.
    fn list_map_keys(&mut self, arg: &Arg, cx: &mut Ctxt) {
        if let Some(keys) = string_list(arg, cx) {
            self.list_map_keys = Some(arg.key.span());
            self.set("x-kubernetes-list-map-keys", json!(keys));
        }
    }

    /// `map_type`, `struct_type`: granular or atomic, on objects and maps.
    fn map_type(&mut self, arg: &Arg, cx: &mut Ctxt) {
        // Kubernetes has no struct-type extension: controller-gen writes structType as
        // x-kubernetes-map-type, and so do we.
        if let Some((v, _)) = choice(arg, &["granular", "atomic"], cx) {
            self.check_shape(arg, &[Shape::Map], "objects and maps", cx);
            self.set("x-kubernetes-map-type", json!(v));
        }
    }

    /// `items(...)`: the markers of a list's elements, read against the element type.
    fn items(&mut self, arg: &Arg, cx: &mut Ctxt) {
        let Some(inner) = arg.nested(
            "expected a marker in `items(...)`, e.g. `items(min_length = 1)`",
            cx,
        ) else {
            cx.push(
                arg.value_range().error(
                    "`items` takes markers for the list's elements: `items(min_length = 1)`",
                ),
            );
            return;
        };
        if self.shape != Shape::List && self.shape != Shape::Unknown {
            cx.error_at(
                arg.key.span(),
                format!(
                    "`items` applies to lists, but this is {}",
                    self.shape.describe()
                ),
            );
        }
        let item_shape = self.item.map(shape_of).unwrap_or(Shape::Unknown);
        let nested_item = self.item.and_then(item_type);
        let parsed = super::parse(&inner, Place::Items, item_shape, nested_item, cx);
        self.out.patch.items = Some(Box::new(parsed.patch));
    }

    /// `at_most_one_of`, `exactly_one_of`, `at_least_one_of` (the `kind`): two fields or more,
    /// checked against the struct's fields when the struct is expanded.
    fn one_of(&mut self, kind: &'static str, arg: &Arg, cx: &mut Ctxt) {
        let Some(fields) = string_list_spanned(arg, cx) else {
            return;
        };
        if fields.len() < 2 {
            cx.error_at(
                arg.value_span(),
                format!("`{kind}` needs at least two fields"),
            );
        }
        self.out.one_ofs.push(OneOf {
            kind,
            span: arg.key.span(),
            fields,
        });
    }
}

/// The key's span when the flag `arg` is on, `None` when it is off or malformed (recorded).
fn on(arg: &Arg, cx: &mut Ctxt) -> Option<Span> {
    flag(arg, cx)?.then_some(arg.key.span())
}
