//! The API server's rules for CRD schemas (structural schemas, list and map topology, printer
//! columns, selectable fields, the scale subresource), checked before anything is written.
//!
//! Each problem is a sentence naming the schema location as a path (`spec.conditions[*].type`).

use serde_json::{Map, Value};

/// Checks one version's `openAPIV3Schema`; returns a message per problem.
pub fn check_schema(root: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    match root.as_object() {
        Some(node) => check_node(node, "", &mut problems, Junctor::Outside),
        None => problems.push("the schema is not an object".into()),
    }
    if let Some(meta) = root["properties"].get("metadata") {
        check_metadata(meta, &mut problems);
    }
    problems
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

/// Whether a node sits inside anyOf/allOf/oneOf/not, where value validations may stand but
/// structure (types, descriptions, defaults) may not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Junctor {
    Outside,
    Inside,
    /// Under an `x-kubernetes-int-or-string` node, where `anyOf: [{type: integer}, {type:
    /// string}]` is the allowed idiom.
    InsideIntOrString,
}

fn check_node(node: &Map<String, Value>, path: &str, problems: &mut Vec<String>, junctor: Junctor) {
    let at = shown(path);
    let in_junctor = junctor != Junctor::Outside;
    if node.contains_key("$ref") {
        problems.push(format!(
            "{at}: `$ref` is not allowed in a CRD schema (a recursive type? CRDs cannot express \
             recursion; cut it with #[k8s(schemaless, preserve_unknown_fields)] or a custom schema)"
        ));
    }
    let int_or_string = truthy(node, "x-kubernetes-int-or-string");
    let preserve = truthy(node, "x-kubernetes-preserve-unknown-fields");
    if in_junctor {
        for key in [
            "type",
            "description",
            "default",
            "additionalProperties",
            "nullable",
        ] {
            if node.contains_key(key) && !(key == "type" && junctor == Junctor::InsideIntOrString) {
                problems.push(format!(
                    "{at}: `{key}` inside anyOf/allOf/oneOf/not is not structural (an untagged or \
                     internally tagged enum? give the field one type, or use #[k8s(int_or_string)] \
                     for an integer-or-string)"
                ));
            }
        }
    } else if !node.contains_key("type") && !int_or_string && !preserve {
        problems.push(format!(
            "{at}: no `type` (a serde_json::Value or an untagged enum? mark it \
             #[k8s(preserve_unknown_fields)] (with `type: object` if it is always an object), \
             #[k8s(int_or_string)], or give it a type)"
        ));
    }
    if node.contains_key("properties") && node.contains_key("additionalProperties") {
        problems.push(format!(
            "{at}: `properties` and `additionalProperties` cannot both be set"
        ));
    }
    if truthy(node, "uniqueItems") {
        problems.push(format!(
            "{at}: `uniqueItems: true` is rejected by the API server (quadratic cost); use \
             #[k8s(list_type = \"set\")]"
        ));
    }
    let ty = node.get("type").and_then(Value::as_str);
    if ty == Some("array") && !node.contains_key("items") {
        problems.push(format!("{at}: an array needs `items`"));
    }
    if node.contains_key("x-kubernetes-map-type") && ty != Some("object") {
        problems.push(format!(
            "{at}: `x-kubernetes-map-type` only applies to objects"
        ));
    }
    if truthy(node, "x-kubernetes-embedded-resource") && ty != Some("object") {
        problems.push(format!("{at}: an embedded resource must be `type: object`"));
    }
    if let Some(list_type) = node.get("x-kubernetes-list-type").and_then(Value::as_str) {
        check_list_type(node, list_type, path, problems);
    } else if node.contains_key("x-kubernetes-list-map-keys") {
        problems.push(format!(
            "{at}: `x-kubernetes-list-map-keys` needs `x-kubernetes-list-type: map`"
        ));
    }
    if let Some(default) = node.get("default")
        && let Some(why) = default_problem(default, node)
    {
        problems.push(format!(
            "{at}: the default {default} does not validate against the field's own schema ({why}); \
             the API server rejects such a CRD (a #[serde(default)] whose Default value breaks a \
             marker? use Option<T>, or a default that fits)"
        ));
    }
    #[cfg(feature = "codegen")]
    check_rules(node, at, problems);

    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for (name, child) in props {
            if let Some(child) = child.as_object() {
                check_node(child, &join(path, name), problems, junctor);
            }
        }
    }
    if let Some(items) = node.get("items").and_then(Value::as_object) {
        check_node(items, &format!("{path}[*]"), problems, junctor);
    }
    if let Some(Value::Object(extra)) = node.get("additionalProperties") {
        check_node(extra, &format!("{path}[<key>]"), problems, junctor);
    }
    let inner = if int_or_string {
        Junctor::InsideIntOrString
    } else {
        Junctor::Inside
    };
    for key in ["allOf", "anyOf", "oneOf"] {
        for child in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(child) = child.as_object() {
                check_node(child, path, problems, inner);
            }
        }
    }
    if let Some(Value::Object(not)) = node.get("not") {
        check_node(not, path, problems, Junctor::Inside);
    }
}

/// Why `value` would fail the schema `node` (types, enums, bounds, lengths, item counts), if it
/// would; objects and arrays are checked member by member.
fn default_problem(value: &Value, node: &Map<String, Value>) -> Option<String> {
    if value.is_null() {
        return (!truthy(node, "nullable")).then(|| "null, and the field is not nullable".into());
    }
    let int_or_string = truthy(node, "x-kubernetes-int-or-string");
    let type_ok = match node.get("type").and_then(Value::as_str) {
        _ if int_or_string => value.is_string() || value.is_i64() || value.is_u64(),
        Some("string") => value.is_string(),
        Some("integer") => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some("array") => value.is_array(),
        Some("object") => value.is_object(),
        _ => true,
    };
    if !type_ok {
        return Some(format!(
            "not of type {}",
            node.get("type").cloned().unwrap_or(Value::Null)
        ));
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let same =
            |a: &Value, b: &Value| a == b || (a.as_f64().is_some() && a.as_f64() == b.as_f64());
        if !values.iter().any(|v| same(v, value)) {
            return Some("not one of the enum's values".into());
        }
    }
    let number = |key: &str| node.get(key).and_then(Value::as_f64);
    if let Some(v) = value.as_f64().filter(|_| value.is_number()) {
        if let Some(min) = number("minimum")
            && (v < min || (v == min && truthy(node, "exclusiveMinimum")))
        {
            return Some(format!("below the minimum {min}"));
        }
        if let Some(max) = number("maximum")
            && (v > max || (v == max && truthy(node, "exclusiveMaximum")))
        {
            return Some(format!("above the maximum {max}"));
        }
    }
    let bounded = |len: usize, min: &str, max: &str| -> Option<String> {
        if number(min).is_some_and(|m| (len as f64) < m) {
            return Some(format!("shorter than {min}"));
        }
        if number(max).is_some_and(|m| (len as f64) > m) {
            return Some(format!("longer than {max}"));
        }
        None
    };
    match value {
        Value::String(s) => bounded(s.chars().count(), "minLength", "maxLength"),
        Value::Array(items) => bounded(items.len(), "minItems", "maxItems").or_else(|| {
            let item_schema = node.get("items").and_then(Value::as_object)?;
            items
                .iter()
                .find_map(|item| default_problem(item, item_schema))
        }),
        Value::Object(fields) => {
            let props = node.get("properties").and_then(Value::as_object)?;
            fields.iter().find_map(|(k, v)| {
                let schema = props.get(k)?.as_object()?;
                default_problem(v, schema).map(|why| format!("`{k}`: {why}"))
            })
        }
        _ => None,
    }
}

fn is_scalar(node: &Value) -> bool {
    matches!(
        node["type"].as_str(),
        Some("string" | "integer" | "number" | "boolean")
    ) || node["x-kubernetes-int-or-string"] == Value::Bool(true)
}

fn check_list_type(
    node: &Map<String, Value>,
    list_type: &str,
    path: &str,
    problems: &mut Vec<String>,
) {
    let at = shown(path);
    let items = node.get("items").cloned().unwrap_or(Value::Null);
    match list_type {
        "atomic" => {}
        "set" => {
            let atomic = items["x-kubernetes-map-type"] == "atomic"
                || items["x-kubernetes-list-type"] == "atomic";
            if !is_scalar(&items) && !atomic {
                problems.push(format!(
                    "{at}: `x-kubernetes-list-type: set` needs scalar (or atomic) items"
                ));
            }
        }
        "map" => {
            if items["type"] != "object" {
                problems.push(format!(
                    "{at}: `x-kubernetes-list-type: map` needs object items"
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
                problems.push(format!(
                    "{at}: `x-kubernetes-list-type: map` needs `x-kubernetes-list-map-keys`"
                ));
            }
            let required: Vec<&str> = items["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for key in keys {
                let Some(prop) = items["properties"].get(key) else {
                    problems.push(format!(
                        "{at}: list-map key `{key}` is not a property of the items"
                    ));
                    continue;
                };
                if !is_scalar(prop) {
                    problems.push(format!("{at}: list-map key `{key}` must be a scalar"));
                }
                if !required.contains(&key) && prop.get("default").is_none() {
                    problems.push(format!(
                        "{at}: list-map key `{key}` must be required or have a default"
                    ));
                }
            }
        }
        other => problems.push(format!("{at}: unknown x-kubernetes-list-type `{other}`")),
    }
}

#[cfg(feature = "codegen")]
fn check_rules(node: &Map<String, Value>, at: &str, problems: &mut Vec<String>) {
    for rule in node
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for key in ["rule", "messageExpression"] {
            let Some(expr) = rule[key].as_str() else {
                continue;
            };
            if let Err(e) = kube_cel::cel::Program::compile(expr) {
                let msg = e.to_string();
                if !msg.contains("unsupported syntax") {
                    problems.push(format!(
                        "{at}: {key} `{expr}` does not parse as CEL: {}",
                        msg.trim_end()
                    ));
                }
            }
        }
        if let Some(reason) = rule["reason"].as_str()
            && ![
                "FieldValueInvalid",
                "FieldValueForbidden",
                "FieldValueRequired",
                "FieldValueDuplicate",
            ]
            .contains(&reason)
        {
            problems.push(format!("{at}: unknown validation reason `{reason}`"));
        }
    }
}

/// The root's `metadata` may only restrict `name` and `generateName`.
fn check_metadata(meta: &Value, problems: &mut Vec<String>) {
    let Some(meta) = meta.as_object() else { return };
    for key in meta.keys() {
        if !matches!(key.as_str(), "type" | "properties") {
            problems.push(format!("metadata: only `type` and restrictions of name/generateName are allowed, not `{key}`"));
        }
    }
    if meta
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "object")
    {
        problems.push("metadata: must be `type: object`".into());
    }
    for name in meta
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys())
    {
        if name != "name" && name != "generateName" {
            problems.push(format!(
                "metadata: only `name` and `generateName` may be restricted, not `{name}`"
            ));
        }
    }
}

/// Resolves a simple JSON path (`.spec.replicas`, `.status.conditions[?(@.type=="Ready")].status`)
/// against the schema. Returns the node it ends at, or why it does not resolve.
pub fn resolve<'a>(root: &'a Value, json_path: &str) -> Result<&'a Value, String> {
    let Some(rest) = json_path.strip_prefix('.') else {
        return Err(format!("`{json_path}` must start with `.`"));
    };
    let mut node = root;
    let mut walked = String::new();
    for segment in split_path(rest) {
        let (name, brackets) = match segment.find('[') {
            Some(i) => (&segment[..i], segment[i..].matches('[').count()),
            None => (segment, 0),
        };
        if walked.is_empty() && name == "metadata" {
            // ObjectMeta is the API server's; any path below it is its business.
            return Ok(&Value::Null);
        }
        if node["x-kubernetes-preserve-unknown-fields"] == Value::Bool(true)
            && node.get("properties").is_none()
        {
            return Ok(node);
        }
        if !name.is_empty() {
            node = match node["properties"].get(name) {
                Some(child) => child,
                None => match node.get("additionalProperties") {
                    Some(extra) if extra.is_object() => extra,
                    _ => {
                        return Err(format!(
                            "no property `{name}` under `{}`",
                            if walked.is_empty() { "." } else { &walked }
                        ));
                    }
                },
            };
            walked.push('.');
            walked.push_str(name);
        }
        for _ in 0..brackets {
            node = match node.get("items") {
                Some(items) => items,
                None => return Err(format!("`{walked}` is not a list")),
            };
        }
    }
    Ok(node)
}

/// Splits on dots outside brackets (filters may contain dots: `[?(@.type=="Ready")]`).
fn split_path(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in path.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '.' if depth == 0 => {
                out.push(&path[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&path[start..]);
    out
}

/// Checks printer columns, selectable fields and the scale subresource of one version (as
/// JSON) against its schema.
pub fn check_version(version: &Value) -> Vec<String> {
    let name = version["name"].as_str().unwrap_or("?");
    let root = &version["schema"]["openAPIV3Schema"];
    let mut problems: Vec<String> = check_schema(root)
        .into_iter()
        .map(|p| format!("version {name}: {p}"))
        .collect();
    for column in version["additionalPrinterColumns"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = column["jsonPath"].as_str().unwrap_or_default();
        if let Err(why) = resolve(root, path) {
            problems.push(format!(
                "version {name}: printer column `{}` path `{path}` does not resolve: {why}",
                column["name"].as_str().unwrap_or("?")
            ));
        }
    }
    for field in version["selectableFields"].as_array().into_iter().flatten() {
        let path = field["jsonPath"].as_str().unwrap_or_default();
        match resolve(root, path) {
            Err(why) => problems.push(format!(
                "version {name}: selectable field `{path}` does not resolve: {why}"
            )),
            Ok(node)
                if !node.is_null()
                    && !matches!(
                        node["type"].as_str(),
                        Some("string" | "integer" | "boolean")
                    ) =>
            {
                problems.push(format!(
                    "version {name}: selectable field `{path}` must be a string, integer or boolean"
                ))
            }
            Ok(_) => {}
        }
    }
    if let Some(scale) = version["subresources"]["scale"].as_object() {
        for key in [
            "specReplicasPath",
            "statusReplicasPath",
            "labelSelectorPath",
        ] {
            let Some(path) = scale.get(key).and_then(Value::as_str) else {
                continue;
            };
            let expected_root = if key == "specReplicasPath" {
                ".spec."
            } else {
                ".status."
            };
            if key != "labelSelectorPath" && !path.starts_with(expected_root) {
                problems.push(format!(
                    "version {name}: scale {key} `{path}` must be under `{}`",
                    expected_root.trim_end_matches('.')
                ));
            }
            match resolve(root, path) {
                Err(why) => problems.push(format!(
                    "version {name}: scale {key} `{path}` does not resolve: {why}"
                )),
                Ok(node) if key != "labelSelectorPath" && node["type"] != "integer" => problems
                    .push(format!(
                        "version {name}: scale {key} `{path}` must be an integer"
                    )),
                Ok(_) => {}
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(spec: Value) -> Value {
        json!({"type": "object", "properties": {"spec": spec}})
    }

    #[test]
    fn missing_types_refs_and_unique_items() {
        let problems = check_schema(&schema(json!({"type": "object", "properties": {
            "any": {},
            "recursive": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
            "set": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
            "both": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
            "fine": {"x-kubernetes-int-or-string": true},
            "free": {"x-kubernetes-preserve-unknown-fields": true},
        }})));
        let joined = problems.join("\n");
        assert!(joined.contains("spec.any: no `type`"), "{joined}");
        assert!(joined.contains("spec.recursive[*]: `$ref`"), "{joined}");
        assert!(joined.contains("spec.set: `uniqueItems: true`"), "{joined}");
        assert!(
            joined.contains("spec.both: `properties` and `additionalProperties`"),
            "{joined}"
        );
        assert!(
            !joined.contains("spec.fine") && !joined.contains("spec.free"),
            "{joined}"
        );
    }

    #[test]
    fn defaults_must_fit_their_schema() {
        let problems = check_schema(&schema(json!({"type": "object", "properties": {
            "policy": {"type": "string", "enum": ["Allow", "Forbid"], "default": ""},
            "size": {"type": "integer", "minimum": 1, "default": 0},
            "name": {"type": "string", "maxLength": 2, "default": "abc"},
            "list": {"type": "array", "items": {"type": "integer", "maximum": 3}, "default": [1, 5]},
            "typed": {"type": "boolean", "default": "yes"},
            "ok": {"type": "integer", "format": "int32", "default": 0, "enum": [0, 1]},
            "nested": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x"}},
        }})));
        let joined = problems.join("\n");
        assert!(
            joined.contains("spec.policy: the default \"\" does not validate")
                && joined.contains("not one of the enum"),
            "{joined}"
        );
        assert!(
            joined.contains("spec.size: the default 0") && joined.contains("below the minimum 1"),
            "{joined}"
        );
        assert!(
            joined.contains("spec.name") && joined.contains("longer than maxLength"),
            "{joined}"
        );
        assert!(
            joined.contains("spec.list") && joined.contains("above the maximum 3"),
            "{joined}"
        );
        assert!(
            joined.contains("spec.typed") && joined.contains("not of type"),
            "{joined}"
        );
        assert_eq!(problems.len(), 5, "{joined}");
    }

    #[test]
    fn junctors_must_not_carry_types() {
        let problems = check_schema(&schema(json!({"anyOf": [{"type": "integer"}, {}]})));
        assert!(
            problems.iter().any(|p| p.contains("inside anyOf")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("spec: no `type`")),
            "{problems:?}"
        );
        let ok = check_schema(&schema(
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ));
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn list_maps_need_required_scalar_keys() {
        let list = |required: Value| {
            schema(
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type", "missing"],
                "items": {"type": "object", "required": required, "properties": {"type": {"type": "string"}}}}),
            )
        };
        let problems = check_schema(&list(json!([])));
        assert!(
            problems
                .iter()
                .any(|p| p.contains("`type` must be required or have a default")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("`missing` is not a property")),
            "{problems:?}"
        );
        let problems = check_schema(&list(json!(["type"])));
        assert_eq!(problems.len(), 1, "{problems:?}");
        let set = check_schema(&schema(
            json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}),
        ));
        assert!(set.iter().any(|p| p.contains("scalar")), "{set:?}");
    }

    #[test]
    fn paths_resolve_through_lists_and_filters() {
        let root =
            schema(json!({"type": "object", "properties": {"replicas": {"type": "integer"}}}));
        let root = {
            let mut r = root;
            r["properties"]["status"] = json!({"type": "object", "properties": {"conditions": {"type": "array", "items": {"type": "object", "properties": {"status": {"type": "string"}, "type": {"type": "string"}}}}}});
            r
        };
        assert_eq!(resolve(&root, ".spec.replicas").unwrap()["type"], "integer");
        assert_eq!(
            resolve(&root, ".status.conditions[?(@.type==\"Ready\")].status").unwrap()["type"],
            "string"
        );
        assert!(resolve(&root, ".metadata.creationTimestamp").is_ok());
        assert_eq!(
            resolve(&root, ".spec.size").unwrap_err(),
            "no property `size` under `.spec`"
        );
        assert!(resolve(&root, "spec").is_err());
    }

    #[test]
    fn versions_check_columns_fields_and_scale() {
        let version = json!({
            "name": "v1",
            "schema": {"openAPIV3Schema": schema(json!({"type": "object", "properties": {"replicas": {"type": "integer"}, "image": {"type": "string"}}}))},
            "additionalPrinterColumns": [{"name": "Replicas", "jsonPath": ".spec.replica", "type": "integer"}],
            "selectableFields": [{"jsonPath": ".spec.image"}, {"jsonPath": ".spec"}],
            "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
        });
        let problems = check_version(&version).join("\n");
        assert!(
            problems.contains("printer column `Replicas` path `.spec.replica` does not resolve"),
            "{problems}"
        );
        assert!(
            problems.contains("selectable field `.spec` must be a string"),
            "{problems}"
        );
        assert!(
            problems.contains("statusReplicasPath `.status.replicas` does not resolve"),
            "{problems}"
        );
        assert!(!problems.contains(".spec.image"), "{problems}");
    }

    #[cfg(feature = "codegen")]
    #[test]
    fn rules_must_parse() {
        let problems = check_schema(&schema(
            json!({"type": "object", "x-kubernetes-validations": [
            {"rule": "self.a <", "message": "m"}, {"rule": "true", "reason": "Nope"}, {"rule": "self.?a.orValue(1) > 0"}]}),
        ));
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}
