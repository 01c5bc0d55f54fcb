//! The schema rules of the API server's structural-schema validation: the keys and types a
//! node may hold, what a junctor may say, the root's and embedded resources' fields, list and
//! map topology, and defaults (checked by [`super::defaults`]) and CEL rules where they stand.

use super::defaults;
use super::found::Found;
use kube_markers_core::cel;
use kube_markers_core::schema::satisfiable;
use kube_markers_registry::crd::SchemaProblem;
use serde_json::{Map, Value, json};

/// Whether a node sits inside anyOf/allOf/oneOf/not, where value validations may stand but
/// structure (types, descriptions, defaults) may not.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Junctor {
    Outside,
    Inside,
    /// The first `allOf` entry of a node outside junctors whose `anyOf` is the int-or-string
    /// idiom ([`int_or_string_any_of`]): that `anyOf` is not checked.
    InsideSkippingAnyOf,
}

/// Whether `key: value` is unset in the API server's Go structs: `null`, `false` for a flag,
/// `""` for a plain string, some empty lists; not for a pointer field (a bound,
/// `x-kubernetes-list-type`), which any value sets.
fn go_zero(key: &str, value: &Value) -> bool {
    match value {
        Value::Bool(false) => matches!(
            key,
            "nullable"
                | "exclusiveMaximum"
                | "exclusiveMinimum"
                | "uniqueItems"
                | "x-kubernetes-preserve-unknown-fields"
                | "x-kubernetes-embedded-resource"
                | "x-kubernetes-int-or-string"
        ),
        Value::String(text) => {
            text.is_empty() && matches!(key, "description" | "title" | "format" | "pattern")
        }
        // The lists the API server rebuilds item by item (an empty one becomes nil); the others
        // (`required`, `x-kubernetes-list-map-keys`, rules) it keeps, empty but set.
        Value::Array(items) => {
            items.is_empty() && matches!(key, "enum" | "allOf" | "anyOf" | "oneOf")
        }
        // `default: null`, `example: null`: no value.
        Value::Null => true,
        _ => false,
    }
}

/// Whether `any_of` is exactly `[{type: integer}, {type: string}]`, in that order and with
/// nothing else in either entry (a [`go_zero`] value counts as nothing): the
/// idiom of int-or-string, whose types the API server leaves unchecked in a node's `anyOf` or
/// its first `allOf` entry's `anyOf` (apiextensions-apiserver's `isIntOrStringAnyOfPattern`).
/// Any other spelling (string first, a bound beside a type, `oneOf`) is a junctor with types.
fn int_or_string_any_of(any_of: Option<&Value>) -> bool {
    let Some(Value::Array(entries)) = any_of else {
        return false;
    };
    let only_type = |entry: &Value, want: &str| {
        entry.as_object().is_some_and(|entry| {
            entry.get("type") == Some(&Value::String(want.into()))
                && entry
                    .iter()
                    .all(|(key, value)| key == "type" || go_zero(key, value))
        })
    };
    entries.len() == 2 && only_type(&entries[0], "integer") && only_type(&entries[1], "string")
}

/// `object_meta`: the node is an embedded resource's `metadata`, which the API server reads as
/// its ObjectMeta (a default there may hold fields the schema does not name).
pub(super) fn check_node(
    node: &Map<String, Value>,
    path: &str,
    problems: &mut Found,
    junctor: Junctor,
    object_meta: bool,
) {
    let at = shown(path);
    let in_junctor = junctor != Junctor::Outside;
    if node.contains_key("$ref") {
        problems.push(SchemaProblem::at(
            at,
            "`$ref` is not allowed in a CRD schema (a recursive type? CRDs cannot express \
             recursion; cut it with #[k8s(schemaless, preserve_unknown_fields)] or a custom schema)"
                .into(),
        ));
    }
    let int_or_string = truthy(node, "x-kubernetes-int-or-string");
    let preserve = truthy(node, "x-kubernetes-preserve-unknown-fields");
    structural_keys(node, at, problems);
    if int_or_string && preserve {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-preserve-unknown-fields` must be false where \
             `x-kubernetes-int-or-string` is true"
                .into(),
        ));
    }
    if in_junctor && node.contains_key("x-kubernetes-validations") {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-validations` must not be set inside anyOf/allOf/oneOf/not".into(),
        ));
    }
    if in_junctor {
        for key in [
            "type",
            "title",
            "description",
            "default",
            "additionalProperties",
        ] {
            // `""` is Go's unset string for the three strings among them.
            let empty_text = key != "default" && node.get(key) == Some(&json!(""));
            if node.contains_key(key) && !empty_text {
                problems.push(SchemaProblem::at(
                    at,
                    format!(
                        "`{key}` inside anyOf/allOf/oneOf/not is not structural (an untagged or \
                     internally tagged enum? give the field one type, or use #[k8s(int_or_string)] \
                     for an integer-or-string)"
                    ),
                ));
            }
        }
        // The extensions, set (a flag true, a list not empty), shape nothing inside a junctor.
        let set = |key: &str| match node.get(key) {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::Array(keys)) => !keys.is_empty(),
            Some(_) => true,
        };
        for key in [
            "nullable",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-embedded-resource",
            "x-kubernetes-int-or-string",
            "x-kubernetes-list-map-keys",
            "x-kubernetes-list-type",
            "x-kubernetes-map-type",
        ] {
            if set(key) {
                problems.push(SchemaProblem::at(
                    at,
                    format!("`{key}` must not be set inside anyOf/allOf/oneOf/not"),
                ));
            }
        }
        // What a junctor says of `metadata` could restrict it beyond name and generateName.
        if node
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key("metadata"))
        {
            problems.push(SchemaProblem::at(
                at,
                "`metadata` must not be a property inside anyOf/allOf/oneOf/not".into(),
            ));
        }
    } else if node.get("type").is_none_or(|t| t == "") && !int_or_string && !preserve {
        problems.push(SchemaProblem::at(
            at,
            "no `type` (a serde_json::Value or an untagged enum? mark it \
             #[k8s(preserve_unknown_fields)] (with `type: object` if it is always an object), \
             #[k8s(int_or_string)], or give it a type)"
                .into(),
        ));
    }
    // `additionalProperties: true` beside `properties` is allowed; `false` or a schema is not.
    if node.contains_key("properties")
        && node
            .get("additionalProperties")
            .is_some_and(|a| a != &Value::Bool(true))
    {
        problems.push(SchemaProblem::at(
            at,
            "`properties` and `additionalProperties` cannot both be set".into(),
        ));
    }
    if let Some(error) = node
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(kube_markers_cel::go_regexp_error)
    {
        problems.push(SchemaProblem::at(
            at,
            format!("`pattern` must be a valid regular expression, but isn't: {error}"),
        ));
    }
    if truthy(node, "uniqueItems") {
        problems.push(SchemaProblem::at(
            at,
            "`uniqueItems: true` is rejected by the API server (quadratic cost); use \
             #[k8s(list_type = \"set\")]"
                .into(),
        ));
    }
    let ty = node.get("type").and_then(Value::as_str);
    if ty == Some("array") && !node.contains_key("items") {
        problems.push(SchemaProblem::at(at, "an array needs `items`".into()));
    }
    if node.contains_key("x-kubernetes-map-type") && ty != Some("object") {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-map-type` only applies to objects".into(),
        ));
    }
    if truthy(node, "x-kubernetes-embedded-resource") {
        if ty != Some("object") {
            problems.push(SchemaProblem::at(
                at,
                "an embedded resource must be `type: object`".into(),
            ));
        }
        if node
            .get("additionalProperties")
            .is_some_and(|a| !a.is_null())
        {
            problems.push(SchemaProblem::at(
                at,
                "an embedded resource must not have `additionalProperties`".into(),
            ));
        }
        resource_fields(node, path, problems);
    }
    let list_type = node.get("x-kubernetes-list-type").and_then(Value::as_str);
    if let Some(list_type) = list_type {
        check_list_type(node, list_type, path, problems);
    }
    // An empty list of keys is no keys, for the API server.
    if list_type != Some("map")
        && node
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .is_some_and(|keys| !keys.is_empty())
    {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-list-map-keys` needs `x-kubernetes-list-type: map`".into(),
        ));
    }
    // kube-apiserver 1.37.2 takes unsatisfiable schemas, a `multipleOf` of 0 or less too (it
    // refuses any default under one: `numbers`).
    for problem in satisfiable::problems(node) {
        problems.server_accepts(SchemaProblem::at(at, problem.message));
    }
    // `default: null` is no default: the API server decodes the CRD with Go's JSON rules, which
    // read a null as a nil pointer, and stores the schema without it.
    if let Some(default) = node.get("default").filter(|d| !d.is_null()) {
        let why = defaults::problems(default, node, path.is_empty(), object_meta);
        if !why.is_empty() && path.contains("[<key>]") {
            // kube-apiserver 1.37 does not validate defaults under `additionalProperties`
            // (seen on the server); the value still never applies as written.
            problems.server_accepts(SchemaProblem::at(
                at,
                format!(
                    "the default {default} does not validate against the field's own schema ({})",
                    why.join("; ")
                ),
            ));
        } else if !why.is_empty() {
            problems.push_default(SchemaProblem::at(
                at,
                format!(
                    "the default {default} does not validate against the field's own schema \
                 ({}); the API server rejects such a CRD (a #[serde(default)] whose Default value \
                 breaks a marker? use Option<T>, or a default that fits)",
                    why.join("; ")
                ),
            ));
        }
    }
    check_rules(node, at, problems);

    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for (name, child) in props {
            if let Some(child) = child.as_object() {
                let meta = name == "metadata" && truthy(node, "x-kubernetes-embedded-resource");
                check_node(child, &join(path, name), problems, junctor, meta);
            }
        }
    }
    if let Some(items) = node.get("items").and_then(Value::as_object) {
        check_node(items, &format!("{path}[*]"), problems, junctor, false);
    }
    if let Some(Value::Object(extra)) = node.get("additionalProperties") {
        check_node(extra, &format!("{path}[<key>]"), problems, junctor, false);
    }
    // The int-or-string idiom is recognized on a node outside junctors only, as the API
    // server looks for it on structural nodes, not on the value validations under them.
    let outside = junctor == Junctor::Outside;
    let skip_any_of = junctor == Junctor::InsideSkippingAnyOf
        || (outside && int_or_string_any_of(node.get("anyOf")));
    let first_all_of = node
        .get("allOf")
        .and_then(|all_of| all_of.get(0))
        .and_then(|first| first.get("anyOf"));
    let skip_first_all_of_any_of = outside && int_or_string_any_of(first_all_of);
    for key in ["allOf", "anyOf", "oneOf"] {
        if key == "anyOf" && skip_any_of {
            // Not the structural checks, but the OpenAPI ones every node gets
            // (`x-kubernetes-preserve-unknown-fields: false`).
            let entries = node.get(key).and_then(Value::as_array);
            for entry in entries.into_iter().flatten().filter_map(Value::as_object) {
                structural_keys(entry, at, problems);
            }
            continue;
        }
        for (i, child) in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let inner = if key == "allOf" && i == 0 && skip_first_all_of_any_of {
                Junctor::InsideSkippingAnyOf
            } else {
                Junctor::Inside
            };
            if let Some(child) = child.as_object() {
                check_node(child, path, problems, inner, false);
            }
        }
    }
    if let Some(Value::Object(not)) = node.get("not") {
        check_node(not, path, problems, Junctor::Inside, false);
    }
}

/// What the API server's OpenAPI schema validation refuses of a node's keys, whatever the
/// node: keys a structural schema forbids, a `type` it does not know, `items` as a list,
/// `x-kubernetes-preserve-unknown-fields: false`, and list and map types on the wrong node.
fn structural_keys(node: &Map<String, Value>, at: &str, problems: &mut Found) {
    // The API server's only warnings on a schema node (every node, junctors' entries too).
    if let Some(format) = node
        .get("format")
        .and_then(Value::as_str)
        .filter(|f| !f.is_empty())
    {
        let ty = node.get("type").and_then(Value::as_str);
        if !super::formats::recognized(format, ty) {
            let known = match ty {
                Some("integer") => ": an integer's are int32 and int64",
                Some("number") => ": a number's are float and double",
                _ => "",
            };
            problems.server_warns(SchemaProblem::at(
                at,
                format!("unrecognized format {format:?}, which the API server ignores{known}"),
            ));
        }
    }
    // Set as the API server's Go type sees it: a string or a map empty is unset, except where
    // the field is a pointer (`dependencies`, `additionalItems`: any value but null).
    for key in [
        "id",
        "$schema",
        "patternProperties",
        "definitions",
        "dependencies",
        "additionalItems",
    ] {
        let set = match node.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Object(map)) if matches!(key, "patternProperties" | "definitions") => {
                !map.is_empty()
            }
            Some(_) => true,
        };
        if set {
            problems.push(SchemaProblem::at(at, format!("`{key}` must not be set")));
        }
    }
    // `""` is Go's unset string: no type, not a wrong one.
    if let Some(ty) = node.get("type").and_then(Value::as_str)
        && !matches!(
            ty,
            "" | "array" | "boolean" | "integer" | "number" | "object" | "string"
        )
    {
        problems.push(SchemaProblem::at(
            at,
            format!("`type` `{ty}` is not one of array, boolean, integer, number, object, string"),
        ));
    }
    if node.get("items").is_some_and(Value::is_array) {
        problems.push(SchemaProblem::at(
            at,
            "`items` must be a schema object, not a list of them".into(),
        ));
    }
    if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-preserve-unknown-fields` must be true or absent".into(),
        ));
    }
    if let Some(map_type) = node.get("x-kubernetes-map-type").and_then(Value::as_str)
        && !matches!(map_type, "granular" | "atomic")
    {
        problems.push(SchemaProblem::at(
            at,
            format!("`x-kubernetes-map-type` `{map_type}` is not `granular` or `atomic`"),
        ));
    }
    if let Some(factor) = node.get("multipleOf").and_then(Value::as_f64) {
        // A factor of 0 or less is `satisfiable`'s, below.
        if factor > 0.0 && node.get("type").is_some_and(|t| t == "integer") && factor.fract() != 0.0
        {
            // The API server takes the schema; it refuses any default under it (`numbers`).
            problems.server_accepts(SchemaProblem::at(
                at,
                format!("`multipleOf` {factor} must be a whole number on an integer"),
            ));
        }
    }
    if truthy(node, "x-kubernetes-embedded-resource")
        && !node.contains_key("properties")
        && !truthy(node, "x-kubernetes-preserve-unknown-fields")
    {
        problems.push(SchemaProblem::at(
            at,
            "an embedded resource needs `properties` or \
             `x-kubernetes-preserve-unknown-fields: true`"
                .into(),
        ));
    }
    // Without a type too (`x-kubernetes-int-or-string` beside it): "must be array".
    if node.contains_key("x-kubernetes-list-type") && node.get("type") != Some(&json!("array")) {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-list-type` must only be used where `type` is `array`".into(),
        ));
    }
}

/// The root's own rules: an object, not nullable; `apiVersion` and `kind` strings without
/// defaults; `metadata.name` without a default.
pub(super) fn root_problems(root: &Map<String, Value>, problems: &mut Found) {
    if root.get("type").is_some_and(|t| t != "object") {
        problems.push(SchemaProblem::version(
            "the root of the schema must be of `type: object`".into(),
        ));
    }
    if root
        .get("additionalProperties")
        .is_some_and(|a| !a.is_null())
    {
        problems.push(SchemaProblem::version(
            "`additionalProperties` must not be used at the root of the schema".into(),
        ));
    }
    if truthy(root, "nullable") {
        problems.push(SchemaProblem::version(
            "the root of the schema must not be `nullable`".into(),
        ));
    }
    let properties = root.get("properties").and_then(Value::as_object);
    for key in ["apiVersion", "kind"] {
        if properties
            .and_then(|p| p.get(key))
            .is_some_and(|node| node.get("default").is_some())
        {
            problems.push(SchemaProblem::at(key, "must not have a `default`".into()));
        }
    }
    resource_fields(root, "", problems);
    if properties
        .and_then(|p| p.get("metadata"))
        .is_some_and(|m| m["properties"]["name"].get("default").is_some())
    {
        problems.push(SchemaProblem::at(
            "metadata.name",
            "must not have a `default`".into(),
        ));
    }
}

/// With the status subresource, the root may only hold what its status and spec can be
/// validated apart by: no junctors, enums, defaults or object bounds (`ValidateCustomResource
/// DefinitionVersion`: only a fixed list of fields may be set at the root).
pub(super) fn status_root_problems(root: &Value, problems: &mut Found) {
    const ALLOWED: &[&str] = &[
        "description",
        "type",
        "format",
        "title",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "multipleOf",
        "required",
        "items",
        "properties",
        "externalDocs",
        "example",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-validations",
    ];
    // The other fields of the API server's schema type; a key it lacks is dropped when the CRD
    // is decoded, and a zero value (null, false, "") is not set.
    const OTHERS: &[&str] = &[
        "id",
        "$schema",
        "$ref",
        "default",
        "enum",
        "maxProperties",
        "minProperties",
        "allOf",
        "oneOf",
        "anyOf",
        "not",
        "additionalProperties",
        "patternProperties",
        "dependencies",
        "additionalItems",
        "definitions",
        "nullable",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-list-type",
        "x-kubernetes-map-type",
    ];
    let Some(root) = root.as_object() else { return };
    for key in OTHERS {
        let set = match root.get(*key) {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::String(s)) => !s.is_empty() || *key != "id" && *key != "$schema",
            Some(_) => true,
        };
        if set {
            problems.push(SchemaProblem::version(format!(
                "`{key}` must not be set at the root of the schema when the status subresource \
                 is enabled (only {} may be)",
                ALLOWED.join(", ")
            )));
        }
    }
}

/// The root and every embedded resource: `apiVersion` and `kind` strings and `metadata` an
/// object, where the schema names them.
fn resource_fields(node: &Map<String, Value>, path: &str, problems: &mut Found) {
    let properties = node.get("properties").and_then(Value::as_object);
    for (key, ty) in [
        ("apiVersion", "string"),
        ("kind", "string"),
        ("metadata", "object"),
    ] {
        if let Some(field) = properties
            .and_then(|p| p.get(key))
            .and_then(Value::as_object)
            && field.get("type").and_then(Value::as_str) != Some(ty)
        {
            problems.push(SchemaProblem::at(
                shown(&join(path, key)),
                format!("must be of `type: {ty}`"),
            ));
        }
    }
}

fn is_scalar(node: &Value) -> bool {
    matches!(
        node["type"].as_str(),
        Some("string" | "integer" | "number" | "boolean")
    ) || node["x-kubernetes-int-or-string"] == Value::Bool(true)
}

fn check_list_type(node: &Map<String, Value>, list_type: &str, path: &str, problems: &mut Found) {
    let at = shown(path);
    let items = node.get("items").cloned().unwrap_or(Value::Null);
    if matches!(list_type, "set" | "map") && items["nullable"] == true {
        problems.push(SchemaProblem::at(
            at,
            format!("the items of an `x-kubernetes-list-type: {list_type}` must not be nullable"),
        ));
    }
    match list_type {
        "atomic" => {}
        "set" => {
            let atomic = items["x-kubernetes-map-type"] == "atomic"
                || items["x-kubernetes-list-type"] == "atomic";
            if items["type"] == "array" && items.get("x-kubernetes-list-type").is_none() {
                // A list's own list type defaults to atomic: the API server takes it.
                problems.server_accepts(SchemaProblem::at(
                    at,
                    "`x-kubernetes-list-type: set` of lists without a list type: they are \
                     atomic by default; say `x-kubernetes-list-type: atomic` on the items"
                        .into(),
                ));
            } else if !is_scalar(&items) && !atomic {
                problems.push(SchemaProblem::at(
                    at,
                    "`x-kubernetes-list-type: set` needs scalar (or atomic) items".into(),
                ));
            }
            if let Some(ty @ ("object" | "array")) = items["type"].as_str() {
                // The API server's own words (`getNonScalarListTypeSetWarnings`).
                problems.server_warns(SchemaProblem::at(
                    at,
                    format!(
                        "x-kubernetes-list-type: set for items of type {ty:?} is not supported \
                         by server-side apply or CEL validation rules"
                    ),
                ));
            }
        }
        "map" => {
            if items["type"] != "object" {
                problems.push(SchemaProblem::at(
                    at,
                    "`x-kubernetes-list-type: map` needs object items".into(),
                ));
                return;
            }
            let keys: Vec<&str> = node
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if keys.is_empty() {
                problems.push(SchemaProblem::at(
                    at,
                    "`x-kubernetes-list-type: map` needs `x-kubernetes-list-map-keys`".into(),
                ));
            }
            let required: Vec<&str> = items["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (i, key) in keys.iter().enumerate() {
                if keys[..i].contains(key) {
                    problems.push(SchemaProblem::at(
                        at,
                        format!("list-map key `{key}` is given twice"),
                    ));
                    continue;
                }
                let key = *key;
                let Some(prop) = items["properties"].get(key) else {
                    problems.push(SchemaProblem::at(
                        at,
                        format!("list-map key `{key}` is not a property of the items"),
                    ));
                    continue;
                };
                if !is_scalar(prop) {
                    problems.push(SchemaProblem::at(
                        at,
                        format!("list-map key `{key}` must be a scalar"),
                    ));
                }
                if prop["nullable"] == Value::Bool(true) {
                    problems.push(SchemaProblem::at(
                        at,
                        format!("list-map key `{key}` must not be nullable"),
                    ));
                }
                if !required.contains(&key) && prop.get("default").is_none_or(Value::is_null) {
                    problems.push(SchemaProblem::at(
                        at,
                        format!("list-map key `{key}` must be required or have a default"),
                    ));
                }
            }
        }
        other => problems.push(SchemaProblem::at(
            at,
            format!("unknown x-kubernetes-list-type `{other}`"),
        )),
    }
}

fn check_rules(node: &Map<String, Value>, at: &str, problems: &mut Found) {
    for rule in node
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for key in ["rule", "messageExpression"] {
            // A blank rule is the CEL check's ("rule is not specified"); an empty message
            // expression is none at all for the API server.
            if let Some(expr) = rule[key].as_str().filter(|e| !e.trim().is_empty())
                && let Some(error) = cel::parse_error(expr)
            {
                problems.push(SchemaProblem::at(
                    at,
                    format!(
                        "{key} `{expr}` does not parse as CEL: {}",
                        error.to_string().trim_end()
                    ),
                ));
            }
        }
        if let Some(reason) = rule["reason"].as_str()
            && !cel::REASONS.contains(&reason)
        {
            problems.push(SchemaProblem::at(
                at,
                format!("unknown validation reason `{reason}`"),
            ));
        }
    }
}

/// The root's `metadata` may only restrict `name` and `generateName`.
pub(super) fn check_metadata(meta: &Value, problems: &mut Found) {
    let Some(meta) = meta.as_object() else { return };
    for key in meta.keys() {
        if !matches!(key.as_str(), "type" | "properties") {
            problems.push(SchemaProblem::at(
                "metadata",
                format!(
                    "only `type` and restrictions of name/generateName are allowed, not `{key}`"
                ),
            ));
        }
    }
    if meta
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "object")
    {
        problems.push(SchemaProblem::at(
            "metadata",
            "must be `type: object`".into(),
        ));
    }
    for name in meta
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys())
    {
        if name != "name" && name != "generateName" {
            problems.push(SchemaProblem::at(
                "metadata",
                format!("only `name` and `generateName` may be restricted, not `{name}`"),
            ));
        }
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

fn truthy(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}
