//! The API server's rules for CRD schemas (structural schemas, list and map topology, printer
//! columns, selectable fields, the scale subresource, CEL rules that compile, defaults that
//! validate), checked before anything is written, and schemas no value could satisfy.
//!
//! Each problem is a sentence naming the schema location as a path (`spec.conditions[*].type`).

mod cel_rules;
mod crd_rules;
pub(crate) mod decode;
mod defaults;
pub mod files;
mod formats;
mod kubectl_yaml;

pub use cel_rules::Fixes;

use kube_markers_cel::SchemaReport;
use kube_markers_core::cel;
use kube_markers_core::schema::satisfiable;
use kube_markers_registry::crd::SchemaProblem;
use serde_json::{Map, Value};

/// Problems found, with those the API server does not refuse marked: a schema no value
/// satisfies (`minimum` above `maximum`), a printer column or scale path that leads nowhere.
/// The generator refuses them in its own CRDs (a marker's mistake); `check-crds` warns.
#[derive(Debug, Default)]
pub struct Found {
    pub problems: Vec<SchemaProblem>,
    /// By problem: whether the API server accepts it.
    pub server_accepts: Vec<bool>,
}

impl Found {
    fn push(&mut self, problem: SchemaProblem) {
        self.problems.push(problem);
        self.server_accepts.push(false);
    }
    fn server_accepts(&mut self, problem: SchemaProblem) {
        self.problems.push(problem);
        self.server_accepts.push(true);
    }
    /// Whether the API server refuses any of them.
    pub fn refused(&self) -> bool {
        self.server_accepts.iter().any(|a| !a)
    }
    /// (what the API server refuses, what it accepts).
    pub fn split(self) -> (Vec<SchemaProblem>, Vec<SchemaProblem>) {
        let (mut refused, mut accepted) = (Vec::new(), Vec::new());
        for (p, a) in self.problems.into_iter().zip(self.server_accepts) {
            if a { accepted.push(p) } else { refused.push(p) }
        }
        (refused, accepted)
    }
}

/// Checks one version's `openAPIV3Schema`; returns a message per problem.
pub fn check_schema(root: &Value) -> Vec<SchemaProblem> {
    check_schema_found(root).problems
}

fn check_schema_found(root: &Value) -> Found {
    let mut problems = Found::default();
    match root.as_object() {
        Some(node) => {
            root_problems(node, &mut problems);
            check_node(node, "", &mut problems, Junctor::Outside);
        }
        None => problems.push(SchemaProblem::version("the schema is not an object".into())),
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

fn check_node(node: &Map<String, Value>, path: &str, problems: &mut Found, junctor: Junctor) {
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
            "description",
            "default",
            "additionalProperties",
            "nullable",
        ] {
            if node.contains_key(key) && !(key == "type" && junctor == Junctor::InsideIntOrString) {
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
    } else if !node.contains_key("type") && !int_or_string && !preserve {
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
    if truthy(node, "x-kubernetes-embedded-resource") && ty != Some("object") {
        problems.push(SchemaProblem::at(
            at,
            "an embedded resource must be `type: object`".into(),
        ));
    }
    if let Some(list_type) = node.get("x-kubernetes-list-type").and_then(Value::as_str) {
        check_list_type(node, list_type, path, problems);
    } else if node.contains_key("x-kubernetes-list-map-keys") {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-list-map-keys` needs `x-kubernetes-list-type: map`".into(),
        ));
    }
    for problem in satisfiable::problems(node) {
        // kube-apiserver refuses a `multipleOf` of 0 or less outright (seen on the server); the
        // other unsatisfiable schemas it takes.
        if problem
            .message
            .starts_with("`multipleOf` must be greater than 0")
        {
            problems.push(SchemaProblem::at(at, problem.message));
        } else {
            problems.server_accepts(SchemaProblem::at(at, problem.message));
        }
    }
    // `default: null` is no default: the API server decodes the CRD with Go's JSON rules, which
    // read a null as a nil pointer, and stores the schema without it.
    if let Some(default) = node.get("default").filter(|d| !d.is_null()) {
        let why = defaults::problems(default, node);
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
            problems.push(SchemaProblem::at(
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

/// What the API server's OpenAPI schema validation refuses of a node's keys, whatever the
/// node: keys a structural schema forbids, a `type` it does not know, `items` as a list,
/// `x-kubernetes-preserve-unknown-fields: false`, and list and map types on the wrong node.
fn structural_keys(node: &Map<String, Value>, at: &str, problems: &mut Found) {
    for key in [
        "id",
        "$schema",
        "patternProperties",
        "definitions",
        "dependencies",
        "additionalItems",
    ] {
        if node.contains_key(key) {
            problems.push(SchemaProblem::at(at, format!("`{key}` must not be set")));
        }
    }
    if let Some(ty) = node.get("type").and_then(Value::as_str)
        && !matches!(
            ty,
            "array" | "boolean" | "integer" | "number" | "object" | "string"
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
            problems.push(SchemaProblem::at(
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
    if node.contains_key("x-kubernetes-list-type") && node.get("type").is_some_and(|t| t != "array")
    {
        problems.push(SchemaProblem::at(
            at,
            "`x-kubernetes-list-type` must only be used where `type` is `array`".into(),
        ));
    }
}

/// The root's own rules: an object, not nullable; `apiVersion` and `kind` strings without
/// defaults; `metadata.name` without a default.
fn root_problems(root: &Map<String, Value>, problems: &mut Found) {
    if root.get("type").is_some_and(|t| t != "object") {
        problems.push(SchemaProblem::version(
            "the root of the schema must be of `type: object`".into(),
        ));
    }
    if truthy(root, "nullable") {
        problems.push(SchemaProblem::version(
            "the root of the schema must not be `nullable`".into(),
        ));
    }
    let properties = root.get("properties").and_then(Value::as_object);
    for key in ["apiVersion", "kind"] {
        let Some(node) = properties
            .and_then(|p| p.get(key))
            .and_then(Value::as_object)
        else {
            continue;
        };
        if node.get("type").is_some_and(|t| t != "string") {
            problems.push(SchemaProblem::at(key, "must be of `type: string`".into()));
        }
        if node.contains_key("default") {
            problems.push(SchemaProblem::at(key, "must not have a `default`".into()));
        }
    }
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

fn is_scalar(node: &Value) -> bool {
    matches!(
        node["type"].as_str(),
        Some("string" | "integer" | "number" | "boolean")
    ) || node["x-kubernetes-int-or-string"] == Value::Bool(true)
}

fn check_list_type(node: &Map<String, Value>, list_type: &str, path: &str, problems: &mut Found) {
    let at = shown(path);
    let items = node.get("items").cloned().unwrap_or(Value::Null);
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
fn check_metadata(meta: &Value, problems: &mut Found) {
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

/// Why a JSON path does not lead anywhere in a schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path does not start with `.`.
    #[error("`{path}` must start with `.`")]
    NotFromRoot {
        /// The path.
        path: String,
    },
    /// A step names no property (and there are no `additionalProperties` to take it).
    #[error("no property `{name}` under `{under}`")]
    NoProperty {
        /// The step.
        name: String,
        /// The path walked so far (`.` for the root).
        under: String,
    },
    /// `[...]` after something that is not a list.
    #[error("`{path}` is not a list")]
    NotAList {
        /// The path walked so far.
        path: String,
    },
}

/// Resolves a simple JSON path (`.spec.replicas`, `.status.conditions[?(@.type=="Ready")].status`)
/// against the schema. Returns the node it ends at, or why it does not resolve.
pub fn resolve<'a>(root: &'a Value, json_path: &str) -> Result<&'a Value, PathError> {
    let Some(rest) = json_path.strip_prefix('.') else {
        return Err(PathError::NotFromRoot {
            path: json_path.to_string(),
        });
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
                        return Err(PathError::NoProperty {
                            name: name.to_string(),
                            under: if walked.is_empty() { "." } else { &walked }.to_string(),
                        });
                    }
                },
            };
            walked.push('.');
            walked.push_str(name);
        }
        for _ in 0..brackets {
            node = match node.get("items") {
                Some(items) => items,
                None => return Err(PathError::NotAList { path: walked }),
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
pub fn check_version(version: &Value) -> Vec<SchemaProblem> {
    check_version_as(version, Fixes::Attributes)
}

/// [`check_version`], with fixes of over-budget rules spelled as `fixes` says.
pub fn check_version_as(version: &Value, fixes: Fixes) -> Vec<SchemaProblem> {
    check_version_reporting(version, fixes, cel_rules::report).0
}

/// [`check_version_found`]'s problems, all of them.
pub fn check_version_reporting(
    version: &Value,
    fixes: Fixes,
    cel_check: fn(&Value) -> SchemaReport,
) -> (Vec<SchemaProblem>, Option<SchemaReport>) {
    let (found, report) = check_version_found(version, fixes, cel_check);
    (found.problems, report)
}

/// [`check_version_as`], with the CEL report `cel_check` made of the schema (`None` when
/// structural problems stopped it), so that a cost report does not type-check and cost every
/// rule again.
pub fn check_version_found(
    version: &Value,
    fixes: Fixes,
    cel_check: fn(&Value) -> SchemaReport,
) -> (Found, Option<SchemaReport>) {
    let root = &version["schema"]["openAPIV3Schema"];
    let mut problems = check_schema_found(root);
    let mut report = None;
    // As the API server, type-check and cost the rules only of a schema without structural
    // problems: an invalid schema has no dependable CEL types.
    if !problems.refused() {
        let cel_report = cel_check(root);
        for problem in cel_rules::problems_of(&cel_report, fixes) {
            problems.push(problem);
        }
        report = Some(cel_report);
    }
    for column in version["additionalPrinterColumns"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = column["jsonPath"].as_str().unwrap_or_default();
        // The API server checks the path's syntax only.
        if let Err(why) = resolve(root, path) {
            problems.server_accepts(SchemaProblem::version(format!(
                "printer column `{}` path `{path}` does not resolve: {why}",
                column["name"].as_str().unwrap_or("?")
            )));
        }
    }
    for field in version["selectableFields"].as_array().into_iter().flatten() {
        let path = field["jsonPath"].as_str().unwrap_or_default();
        match resolve(root, path) {
            Err(why) => problems.push(SchemaProblem::version(format!(
                "selectable field `{path}` does not resolve: {why}"
            ))),
            Ok(node)
                if !node.is_null()
                    && !matches!(
                        node["type"].as_str(),
                        Some("string" | "integer" | "boolean")
                    ) =>
            {
                problems.push(SchemaProblem::version(format!(
                    "selectable field `{path}` must be a string, integer or boolean"
                )))
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
            if key == "labelSelectorPath" {
                if !path.is_empty() && !path.starts_with(".spec.") && !path.starts_with(".status.")
                {
                    problems.push(SchemaProblem::version(format!(
                        "scale {key} `{path}` must be under `.spec` or `.status`"
                    )));
                }
            } else if !path.starts_with(expected_root) {
                problems.push(SchemaProblem::version(format!(
                    "scale {key} `{path}` must be under `{}`",
                    expected_root.trim_end_matches('.')
                )));
            }
            // The API server checks the prefix and the syntax only.
            match resolve(root, path) {
                Err(why) => problems.server_accepts(SchemaProblem::version(format!(
                    "scale {key} `{path}` does not resolve: {why}"
                ))),
                Ok(node) if key != "labelSelectorPath" && node["type"] != "integer" => problems
                    .server_accepts(SchemaProblem::version(format!(
                        "scale {key} `{path}` must be an integer"
                    ))),
                Ok(_) => {}
            }
        }
    }
    (problems, report)
}

#[cfg(test)]
mod tests;
