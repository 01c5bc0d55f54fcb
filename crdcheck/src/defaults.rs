//! A `default` must validate against the whole schema node it stands on, as the API server
//! checks it when the CRD is created: no unknown fields, the OpenAPI keywords (types, enums,
//! bounds, lengths, `pattern`, `format`, `required`, ...) and the node's CEL rules.
//!
//! Where this check cannot be sure the API server would refuse, it lets the default through:
//! an error here must never be stricter than Kubernetes.

use serde_json::{Map, Value, json};

/// Why `default` would be refused as the default of `node`, one sentence per reason; `root`
/// when the node is the schema's root, which the API server reads as an embedded resource,
/// `object_meta` when it is an embedded resource's metadata (whose fields are ObjectMeta's).
pub(super) fn problems(
    default: &Value,
    node: &Map<String, Value>,
    root: bool,
    object_meta: bool,
) -> Vec<String> {
    let mut embedded_root;
    let node = if root {
        embedded_root = node.clone();
        embedded_root.insert("x-kubernetes-embedded-resource".into(), json!(true));
        &embedded_root
    } else {
        node
    };
    if default.is_null() {
        // Kubernetes drops a null default of a nullable field; of any other, it is a mistake.
        return if node.get("nullable") == Some(&Value::Bool(true)) {
            Vec::new()
        } else {
            vec!["null, and the field is not nullable".into()]
        };
    }
    let mut out = Vec::new();
    if !object_meta {
        unknown_fields(default, node, "", &mut out);
    }
    embedded_resources(default, node, "", &mut out);
    out.extend(openapi_errors(default, node));
    if out.is_empty() {
        // As the API server: the CEL rules run only on a default that passed the rest.
        out.extend(cel_failures(default, node));
    }
    out
}

fn location(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("at {path}: ")
    }
}

/// Fields the API server would prune: a default must not carry them.
fn unknown_fields(value: &Value, node: &Map<String, Value>, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            let preserve = node.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true));
            let embedded = node.get("x-kubernetes-embedded-resource") == Some(&json!(true));
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").and_then(Value::as_object);
            for (key, child) in fields {
                let child_path = format!("{path}/{key}");
                match (
                    properties
                        .and_then(|p| p.get(key))
                        .and_then(Value::as_object),
                    additional,
                ) {
                    // An embedded object's metadata is the API server's ObjectMeta, whatever
                    // the schema says of it.
                    _ if embedded && key == "metadata" => {}
                    (Some(schema), _) | (None, Some(schema)) => {
                        unknown_fields(child, schema, &child_path, out)
                    }
                    (None, None)
                        if preserve
                            || (embedded
                                && matches!(key.as_str(), "apiVersion" | "kind" | "metadata")) => {}
                    (None, None) => out.push(format!(
                        "{}`{key}` is not a property of the schema (the API server would prune it)",
                        location(path)
                    )),
                }
            }
        }
        Value::Array(items) => {
            if let Some(schema) = node.get("items").and_then(Value::as_object) {
                for (i, item) in items.iter().enumerate() {
                    unknown_fields(item, schema, &format!("{path}/{i}"), out);
                }
            }
        }
        _ => {}
    }
}

/// An embedded resource (and the root) in a default must name its `apiVersion` (a group
/// version) and `kind`, and its labels must be valid, as the API server checks them.
fn embedded_resources(value: &Value, node: &Map<String, Value>, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            if node.get("x-kubernetes-embedded-resource") == Some(&json!(true)) {
                for key in ["apiVersion", "kind"] {
                    match fields.get(key) {
                        None | Some(Value::Null) => {
                            out.push(format!("{}`{key}` is required", location(path)))
                        }
                        Some(Value::String(s)) if s.is_empty() => {
                            out.push(format!("{}`{key}` must not be empty", location(path)))
                        }
                        Some(Value::String(s))
                            if key == "apiVersion" && s.matches('/').count() > 1 =>
                        {
                            out.push(format!(
                                "{}`apiVersion` `{s}` is not a group/version",
                                location(path)
                            ))
                        }
                        Some(Value::String(_)) => {}
                        Some(_) => out.push(format!("{}`{key}` must be a string", location(path))),
                    }
                }
                if let Some(labels) = fields
                    .get("metadata")
                    .and_then(|m| m.get("labels"))
                    .and_then(Value::as_object)
                {
                    let at = format!("{}metadata.labels", location(path));
                    out.extend(super::crd_rules::label_problems(labels, &at));
                }
            }
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").and_then(Value::as_object);
            for (key, child) in fields {
                let schema = properties
                    .and_then(|p| p.get(key))
                    .and_then(Value::as_object)
                    .or(additional);
                if let Some(schema) = schema {
                    embedded_resources(child, schema, &format!("{path}/{key}"), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(schema) = node.get("items").and_then(Value::as_object) {
                for (i, item) in items.iter().enumerate() {
                    embedded_resources(item, schema, &format!("{path}/{i}"), out);
                }
            }
        }
        _ => {}
    }
}

/// A format the API server checks ([`super::formats::checked`]), under the name the JSON
/// Schema validator knows our check by.
fn format_name(format: &str) -> String {
    format!("kube-markers:{}", format.replace('-', ""))
}

/// Whether `key` of a schema node holds schemas: one (`Some(false)`), or several, in a list or
/// by property name (`Some(true)`); `None` for values (`enum`, `default`, ...).
fn holds_schemas(key: &str) -> Option<bool> {
    match key {
        "properties" | "patternProperties" | "definitions" | "allOf" | "anyOf" | "oneOf" => {
            Some(true)
        }
        "items" | "additionalProperties" | "additionalItems" | "not" => Some(false),
        _ => None,
    }
}

/// The schemas directly inside a schema node, as opposed to its values and property names.
fn subschemas(node: &Map<String, Value>) -> Vec<&Value> {
    let mut out = Vec::new();
    for (key, value) in node {
        match (holds_schemas(key), value) {
            (Some(true), Value::Object(named)) => out.extend(named.values()),
            (Some(_), Value::Array(list)) => out.extend(list.iter()),
            (Some(false), Value::Object(_)) => out.push(value),
            _ => {}
        }
    }
    out
}

/// [`subschemas`], to change them.
fn subschemas_mut(node: &mut Map<String, Value>) -> Vec<&mut Value> {
    let mut out = Vec::new();
    for (key, value) in node.iter_mut() {
        match (holds_schemas(key), value) {
            (Some(true), Value::Object(named)) => out.extend(named.values_mut()),
            (Some(_), Value::Array(list)) => out.extend(list.iter_mut()),
            (Some(false), value @ Value::Object(_)) => out.push(value),
            _ => {}
        }
    }
    out
}

/// The OpenAPI v3 (Kubernetes' subset) node as a JSON Schema draft 4 document: `nullable`
/// becomes a `null` type, numeric bounds our
/// [`super::numbers`] check, and each format the API server checks one of ours (the others,
/// which constrain nothing, are dropped).
fn to_json_schema(node: &mut Value) {
    let Value::Object(map) = node else { return };
    super::numbers::take_bounds(map);
    match map.get("format").and_then(Value::as_str) {
        Some(f) if super::formats::is_checked(f) => {
            let ours = format_name(f);
            map.insert("format".into(), json!(ours));
        }
        _ => {
            map.remove("format");
        }
    }
    // An empty enum is no enum to the API server (Go reads it as an empty list: no constraint).
    if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        map.remove("enum");
    }
    if map.get("nullable") == Some(&json!(true))
        && let Some(Value::String(t)) = map.get("type").cloned()
    {
        map.insert("type".into(), json!([t, "null"]));
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
    }
    // An int-or-string node has no type of its own: like the API server's validator, take any
    // default there (`1.5`, `true`), unless an `anyOf` says integer or string.
    for child in subschemas_mut(map) {
        to_json_schema(child);
    }
}

/// Validators by the text of their node: a CRD's versions, and CRDs sharing types, repeat
/// nodes, and building a validator (its regexes above all) costs far more than using one.
type Validators = std::collections::HashMap<String, Option<std::rc::Rc<jsonschema::Validator>>>;

thread_local! {
    static VALIDATORS: std::cell::RefCell<Validators> = Default::default();
}

fn openapi_errors(default: &Value, node: &Map<String, Value>) -> Vec<String> {
    let key = serde_json::to_string(node).expect("a JSON node serializes");
    let cached = VALIDATORS.with(|v| v.borrow().get(&key).cloned());
    let validator = match cached {
        Some(v) => v,
        None => {
            let built = build_validator(node).map(std::rc::Rc::new);
            VALIDATORS.with(|v| {
                let mut v = v.borrow_mut();
                // Bounded, for a process that checks many unrelated CRDs.
                if v.len() >= 4096 {
                    v.clear();
                }
                v.insert(key, built.clone());
            });
            built
        }
    };
    let Some(validator) = validator else {
        // A node the validator cannot read (a pattern outside its regex dialect): the API
        // server is the judge, not us.
        return Vec::new();
    };
    validator
        .iter_errors(default)
        .map(|e| {
            let message = e.to_string().replace("\"kube-markers:", "\"");
            format!("{}{message}", location(e.instance_path().as_str()))
        })
        .collect()
}

fn build_validator(node: &Map<String, Value>) -> Option<jsonschema::Validator> {
    let mut schema = Value::Object(node.clone());
    to_json_schema(&mut schema);
    let mut options = jsonschema::draft4::options()
        // RE2, as the API server's Go regexp, rather than a backtracking engine.
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .should_validate_formats(true)
        .with_keyword(super::numbers::KEYWORD, |_, kept, _| {
            Ok(Box::new(super::numbers::GoNumber::new(kept)))
        });
    for name in super::formats::checked() {
        options = options.with_format(format_name(name), |value: &str| {
            !super::formats::refused(name, value)
        });
    }
    options.build(&schema).ok()
}

/// The node's CEL rules (and those below it) evaluated on the default as the API server runs
/// them: first with the default as the old value too, then, if that passes, as a create,
/// without an old value, where a rule with `optionalOldSelf` sees `oldSelf` as
/// `optional.none()` (and the other rules that read `oldSelf` do not run). Only rules that
/// evaluate to false count: a rule this evaluator cannot run is the API server's to judge.
fn cel_failures(default: &Value, node: &Map<String, Value>) -> Vec<String> {
    let node = Value::Object(node.clone());
    if !has_rules(&node) || !cel_names_agree(default, &node) {
        return Vec::new();
    }
    // kube-cel binds a plain value, or `null` when there is none, to the `oldSelf` of an
    // `optionalOldSelf` rule: such rules get the optional the API server binds written in.
    let mut updated = node.clone();
    let mut rewritten = Vec::new();
    optional_old_self(&mut updated, "optional.of(oldSelf)", &mut rewritten);
    let failures = as_written(
        failures_of(&updated, default, Some(default)),
        &rewritten,
        "",
    );
    if !failures.is_empty() {
        return failures;
    }
    let mut created = node;
    let mut rewritten = Vec::new();
    optional_old_self(&mut created, "optional.none()", &mut rewritten);
    if rewritten.is_empty() {
        return Vec::new();
    }
    let note = " (as on a create: `oldSelf` has no value)";
    as_written(failures_of(&created, default, None), &rewritten, note)
}

/// Failures said with the rules as written, not as [`optional_old_self`] rewrote them.
fn as_written(failures: Vec<String>, rewritten: &[(String, String)], note: &str) -> Vec<String> {
    failures
        .into_iter()
        .map(|failure| {
            let failure = rewritten
                .iter()
                .fold(failure, |f, (new, original)| f.replace(new, original));
            format!("{failure}{note}")
        })
        .collect()
}

/// The `optionalOldSelf` rules of `node` and below with `oldSelf` replaced by `with` (a rule
/// that does not lex is dropped), each rewritten text recorded with the text it was.
fn optional_old_self(node: &mut Value, with: &str, rewritten: &mut Vec<(String, String)>) {
    let Value::Object(map) = node else {
        return;
    };
    if let Some(Value::Array(rules)) = map.get_mut("x-kubernetes-validations") {
        rules.retain_mut(|rule| {
            if rule.get("optionalOldSelf") != Some(&Value::Bool(true)) {
                return true;
            }
            let Value::Object(rule) = rule else {
                return false;
            };
            rule.remove("optionalOldSelf");
            ["rule", "messageExpression"].into_iter().all(|key| {
                let Some(text) = rule.get(key).and_then(Value::as_str) else {
                    return true;
                };
                let original = text.to_string();
                let Some(new) = kube_markers_cel::substitute_variable(text, "oldSelf", with) else {
                    return false;
                };
                rule.insert(key.into(), Value::String(new.clone()));
                rewritten.push((new, original));
                true
            })
        });
    }
    for child in subschemas_mut(map) {
        optional_old_self(child, with, rewritten);
    }
}

fn failures_of(node: &Value, default: &Value, old: Option<&Value>) -> Vec<String> {
    let Err(errors) = kube_cel::Validator::new().validate(node, default, old) else {
        return Vec::new();
    };
    errors
        .into_vec()
        .into_iter()
        .filter(|e| {
            matches!(
                e.kind,
                kube_cel::ErrorKind::ValidationFailure | kube_cel::ErrorKind::InvalidResult
            )
        })
        .map(|e| {
            let at = if e.field_path.is_empty() {
                String::new()
            } else {
                format!("at {}: ", e.field_path)
            };
            format!("{at}rule `{}` fails: {}", e.rule, e.message)
        })
        .collect()
}

fn has_rules(node: &Value) -> bool {
    let Value::Object(map) = node else {
        return false;
    };
    map.get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .is_some_and(|rules| !rules.is_empty())
        || subschemas(map).into_iter().any(has_rules)
}

/// Whether the evaluator spells every property of the default as the API server does in CEL:
/// it escapes every `_` (the API server only `__`), so a default with such a property is left
/// to the API server.
fn cel_names_agree(value: &Value, node: &Value) -> bool {
    match value {
        Value::Object(fields) => fields.iter().all(|(key, child)| {
            let declared = node["properties"].get(key);
            declared.is_none_or(|_| !key.contains('_'))
                && cel_names_agree(child, declared.unwrap_or(&node["additionalProperties"]))
        }),
        Value::Array(items) => items.iter().all(|i| cel_names_agree(i, &node["items"])),
        _ => true,
    }
}
