//! [`WebhookMarker`] → the webhook object controller-gen writes into a
//! `{Mutating,Validating}WebhookConfiguration`, with the `patch` merged in.
//!
//! The macro builds it too, so a patch that breaks the webhook is a compile error; the
//! generator writes what this returns.

use crate::model::{WebhookClient, WebhookMarker};
use crate::suggest::did_you_mean;
use serde_json::{Map, Value, json};
use std::fmt;

/// Why a webhook object cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectProblem {
    /// The patch is not a JSON object of the webhook's fields.
    Patch(String),
    /// The patched webhook breaks a rule controller-gen or the API server enforces; `key` is
    /// the attribute key whose value is at fault when there is no patch.
    Final { key: &'static str, message: String },
}

impl fmt::Display for ObjectProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectProblem::Patch(m) => write!(f, "`patch`: {m}"),
            ObjectProblem::Final { message, .. } => f.write_str(message),
        }
    }
}

/// The webhook object before the patch, with the fields controller-gen sets.
pub fn base_object(m: &WebhookMarker) -> Value {
    let mut o = Map::new();
    o.insert("name".into(), json!(m.name));
    let client = match &m.client {
        WebhookClient::Service {
            name,
            namespace,
            port,
            path,
        } => {
            let mut service = Map::new();
            service.insert(
                "name".into(),
                json!(name.as_deref().unwrap_or("webhook-service")),
            );
            service.insert(
                "namespace".into(),
                json!(namespace.as_deref().unwrap_or("system")),
            );
            service.insert("path".into(), json!(path));
            if let Some(port) = port {
                service.insert("port".into(), json!(port));
            }
            json!({ "service": service })
        }
        WebhookClient::Url(url) => json!({ "url": url }),
    };
    o.insert("clientConfig".into(), client);
    let groups: Vec<&str> = m
        .groups
        .iter()
        .map(|g| crate::model::api_group(g))
        .collect();
    o.insert(
        "rules".into(),
        json!([{
            "operations": m.verbs,
            "apiGroups": groups,
            "apiVersions": m.versions,
            "resources": m.resources,
        }]),
    );
    o.insert("failurePolicy".into(), json!(m.failure_policy));
    if let Some(p) = &m.match_policy {
        o.insert("matchPolicy".into(), json!(p));
    }
    if let Some(s) = &m.side_effects {
        o.insert("sideEffects".into(), json!(s));
    }
    if let Some(t) = m.timeout_seconds {
        o.insert("timeoutSeconds".into(), json!(t));
    }
    o.insert(
        "admissionReviewVersions".into(),
        json!(m.admission_review_versions),
    );
    if m.mutating
        && let Some(r) = &m.reinvocation_policy
    {
        o.insert("reinvocationPolicy".into(), json!(r));
    }
    Value::Object(o)
}

/// The webhook object as the generator writes it: [`base_object`] with the patch merged in,
/// checked as controller-gen checks it before writing.
pub fn webhook_object(m: &WebhookMarker) -> Result<Value, Vec<ObjectProblem>> {
    let mut object = base_object(m);
    if let Some(text) = &m.patch {
        let patch: Value = serde_json::from_str(text).map_err(|e| {
            vec![ObjectProblem::Patch(format!(
                "not valid JSON ({e}); write a JSON object, e.g. \
                 `patch = r#\"{{\"namespaceSelector\":{{\"matchLabels\":{{\"env\":\"prod\"}}}}}}\"#`"
            ))]
        })?;
        if !patch.is_object() {
            return Err(vec![ObjectProblem::Patch(
                "the patch must be a JSON object of the webhook's fields".into(),
            )]);
        }
        let mut problems = Vec::new();
        check_fields(
            &patch,
            Schema::Webhook {
                mutating: m.mutating,
            },
            "",
            &mut problems,
        );
        if !problems.is_empty() {
            return Err(problems.into_iter().map(ObjectProblem::Patch).collect());
        }
        merge(&mut object, &patch);
    }
    let problems = final_checks(&object);
    if problems.is_empty() {
        Ok(object)
    } else {
        Err(problems)
    }
}

/// A JSON merge: objects merge key by key, `null` removes, anything else (lists included)
/// replaces. This is what a strategic merge patch does to a webhook whose lists have no merge
/// key (`rules`, `admissionReviewVersions`) or are absent before the patch (`matchConditions`).
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(map) = target else { return };
    for (key, value) in patch {
        if value.is_null() {
            map.remove(key);
        } else if value.is_object() {
            merge(map.entry(key.clone()).or_insert(Value::Null), value);
        } else {
            map.insert(key.clone(), value.clone());
        }
    }
}

/// The fields of the webhook types (admissionregistration/v1), for strict decoding.
#[derive(Clone, Copy)]
enum Schema {
    Webhook { mutating: bool },
    ClientConfig,
    Service,
    Rule,
    LabelSelector,
    Requirement,
    MatchCondition,
    StringMap,
    Str,
    Int,
    List(&'static Schema),
}

impl Schema {
    fn fields(self) -> &'static [(&'static str, Schema)] {
        const STRS: Schema = Schema::List(&Schema::Str);
        match self {
            Schema::Webhook { .. } => &[
                ("name", Schema::Str),
                ("clientConfig", Schema::ClientConfig),
                ("rules", Schema::List(&Schema::Rule)),
                ("failurePolicy", Schema::Str),
                ("matchPolicy", Schema::Str),
                ("namespaceSelector", Schema::LabelSelector),
                ("objectSelector", Schema::LabelSelector),
                ("sideEffects", Schema::Str),
                ("timeoutSeconds", Schema::Int),
                ("admissionReviewVersions", STRS),
                ("matchConditions", Schema::List(&Schema::MatchCondition)),
                ("reinvocationPolicy", Schema::Str),
            ],
            Schema::ClientConfig => &[
                ("url", Schema::Str),
                ("service", Schema::Service),
                ("caBundle", Schema::Str),
            ],
            Schema::Service => &[
                ("namespace", Schema::Str),
                ("name", Schema::Str),
                ("path", Schema::Str),
                ("port", Schema::Int),
            ],
            Schema::Rule => &[
                ("operations", STRS),
                ("apiGroups", STRS),
                ("apiVersions", STRS),
                ("resources", STRS),
                ("scope", Schema::Str),
            ],
            Schema::LabelSelector => &[
                ("matchLabels", Schema::StringMap),
                ("matchExpressions", Schema::List(&Schema::Requirement)),
            ],
            Schema::Requirement => &[
                ("key", Schema::Str),
                ("operator", Schema::Str),
                ("values", STRS),
            ],
            Schema::MatchCondition => &[("name", Schema::Str), ("expression", Schema::Str)],
            _ => &[],
        }
    }

    fn what(self) -> &'static str {
        match self {
            Schema::Str => "a string",
            Schema::Int => "an integer",
            Schema::List(_) => "a list",
            Schema::StringMap => "an object of strings",
            _ => "an object",
        }
    }
}

/// Checks `value` against `schema` as controller-gen's strict decoding does: unknown (or
/// miscased) fields and wrong types are errors; `null` is allowed anywhere (it removes).
fn check_fields(value: &Value, schema: Schema, at: &str, problems: &mut Vec<String>) {
    let place = |key: &str| {
        if at.is_empty() {
            key.to_string()
        } else {
            format!("{at}.{key}")
        }
    };
    if value.is_null() {
        return;
    }
    match schema {
        Schema::Str if value.is_string() => {}
        Schema::Int if value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()) => {}
        Schema::StringMap
            if value
                .as_object()
                .is_some_and(|o| o.values().all(Value::is_string)) => {}
        Schema::List(item) => match value.as_array() {
            Some(items) => {
                for (i, v) in items.iter().enumerate() {
                    check_fields(v, *item, &format!("{at}[{i}]"), problems);
                }
            }
            None => problems.push(format!("`{at}` must be {}", schema.what())),
        },
        Schema::Str | Schema::Int | Schema::StringMap => {
            let shown = if at.is_empty() { "the patch" } else { at };
            problems.push(format!("`{shown}` must be {}", schema.what()));
        }
        _ => {
            let Some(object) = value.as_object() else {
                let shown = if at.is_empty() {
                    "the patch".to_string()
                } else {
                    format!("`{at}`")
                };
                problems.push(format!("{shown} must be {}", schema.what()));
                return;
            };
            let fields = schema.fields();
            for (key, v) in object {
                if key.starts_with('$') {
                    problems.push(format!(
                        "`{}`: strategic-merge directives are not supported; write the fields' \
                         new values (null removes a field, a list replaces the whole list)",
                        place(key)
                    ));
                    continue;
                }
                if matches!(schema, Schema::Webhook { mutating: false } if key == "reinvocationPolicy")
                {
                    problems.push(
                        "unknown field `reinvocationPolicy`: validating webhooks have no \
                         reinvocation policy"
                            .into(),
                    );
                    continue;
                }
                match fields.iter().find(|(name, _)| name == key) {
                    Some((_, sub)) => check_fields(v, *sub, &place(key), problems),
                    None => {
                        let names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
                        let hint = did_you_mean(key, &names)
                            .map(|s| format!("; did you mean `{s}`?"))
                            .unwrap_or_default();
                        problems.push(format!(
                            "unknown field `{}`{hint} (field names are case-sensitive; expected \
                             one of: {})",
                            place(key),
                            names.join(", ")
                        ));
                    }
                }
            }
        }
    }
}

/// controller-gen's checks of each webhook before it writes a v1 configuration, and the API
/// server's rules for the fields a patch can break.
fn final_checks(object: &Value) -> Vec<ObjectProblem> {
    let mut problems = Vec::new();
    let mut fail = |key: &'static str, message: String| {
        problems.push(ObjectProblem::Final { key, message });
    };
    match object.get("sideEffects").and_then(Value::as_str) {
        Some("None" | "NoneOnDryRun") => {}
        Some(other) => fail(
            "side_effects",
            format!(
                "sideEffects {other:?}: an admissionregistration.k8s.io/v1 webhook's side effects \
                 are `None` or `NoneOnDryRun`"
            ),
        ),
        None => fail(
            "side_effects",
            "missing `side_effects`: it is required for admissionregistration.k8s.io/v1 \
             webhooks; write `side_effects = \"None\"` (or \"NoneOnDryRun\")"
                .into(),
        ),
    }
    if let Some(t) = object.get("timeoutSeconds").and_then(Value::as_i64)
        && !(1..=30).contains(&t)
    {
        fail(
            "timeout_seconds",
            format!("timeoutSeconds {t}: it must be between 1 and 30 seconds"),
        );
    }
    if object
        .get("admissionReviewVersions")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        fail(
            "admission_review_versions",
            "admissionReviewVersions is mandatory for v1 webhooks".into(),
        );
    }
    match object.get("failurePolicy").and_then(Value::as_str) {
        None | Some("Fail" | "Ignore") => {}
        Some(other) => fail(
            "failure_policy",
            format!("failurePolicy {other:?}: it is `Fail` or `Ignore`"),
        ),
    }
    let client = object.get("clientConfig");
    let has_url = client.and_then(|c| c.get("url")).is_some();
    let has_service = client.and_then(|c| c.get("service")).is_some();
    if has_url == has_service {
        fail(
            "path",
            "clientConfig needs exactly one of `url` and `service`".into(),
        );
    }
    match object.get("name").and_then(Value::as_str) {
        Some(name) if crate::names::webhook_name_has_three_segments(name) => {}
        _ => fail(
            "name",
            "the webhook's name must be a domain with at least three segments".into(),
        ),
    }
    problems
}
