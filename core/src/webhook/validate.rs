//! [`WebhookArgs`] → [`WebhookMarker`]: controller-gen's checks, and the API server's where
//! controller-gen would pass a value through that the API server then rejects.

use super::object::{self, ObjectProblem};
use super::parse::{Item, Value, WebhookArgs};
use crate::ctxt::Ctxt;
use crate::model::{Text, WebhookClient, WebhookConfigurationMarker, WebhookMarker};
use crate::names;
use crate::suggest::did_you_mean;
use proc_macro2::Span;

fn string(args: &WebhookArgs, key: &str) -> Option<Item> {
    match args.values.get(key) {
        Some(Value::Str(item)) => Some(item.clone()),
        _ => None,
    }
}

fn list(args: &WebhookArgs, key: &str) -> Option<(Vec<Item>, Span)> {
    match args.values.get(key) {
        Some(Value::List(items, span)) => Some((items.clone(), *span)),
        _ => None,
    }
}

fn values(items: &[Item]) -> Vec<Text> {
    items.iter().map(|i| i.value.clone().into()).collect()
}

/// The string of `key` as one of `allowed` (see [`one_of`]), when it was written.
fn choice(args: &WebhookArgs, key: &str, allowed: &[&'static str], cx: &mut Ctxt) -> Option<Text> {
    let item = string(args, key)?;
    one_of(cx, key, &item, allowed)
}

/// `item` as one of `allowed`, compared case-insensitively as controller-gen does; an error
/// names the key and the allowed values.
fn one_of(cx: &mut Ctxt, key: &str, item: &Item, allowed: &[&'static str]) -> Option<Text> {
    if let Some(found) = allowed.iter().find(|a| a.eq_ignore_ascii_case(&item.value)) {
        return Some(Text::Borrowed(found));
    }
    let suggestion = did_you_mean(&item.value, allowed)
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    cx.error_at(
        item.span,
        format!(
            "`{key}` = {:?} is not one of {}{suggestion}",
            item.value,
            allowed
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    None
}

/// Validates parsed `#[webhook]` arguments. Returns the marker when nothing was wrong;
/// otherwise every problem is in `cx`.
///
/// Each key is checked in turn, then the webhook object the generator would build from them.
pub fn validate(args: &WebhookArgs, cx: &mut Ctxt) -> Option<WebhookMarker> {
    check_required_keys(args, cx);
    let name = webhook_name(args, cx);
    let mutating = matches!(args.values.get("mutating"), Some(Value::Bool(true, _)));
    let failure_policy =
        choice(args, "failure_policy", &["Fail", "Ignore"], cx).unwrap_or_default();
    let match_policy = choice(args, "match_policy", &["Exact", "Equivalent"], cx);
    let side_effects = side_effects(args, cx);
    let timeout_seconds = timeout_seconds(args, cx);
    let groups = groups(args, cx);
    let resources = resources(args, cx);
    let verbs = operations(args, cx);
    let versions = list(args, "versions").map_or_else(Vec::new, |(items, _)| values(&items));
    let admission_review_versions = admission_review_versions(args, cx);
    check_webhook_versions(args, cx);
    let reinvocation_policy = choice(args, "reinvocation_policy", &["Never", "IfNeeded"], cx);
    let client = client(args, cx)?;
    let m = WebhookMarker {
        name,
        mutating,
        failure_policy,
        match_policy,
        side_effects,
        timeout_seconds,
        groups,
        resources,
        verbs,
        versions,
        client,
        admission_review_versions,
        reinvocation_policy,
        patch: string(args, "patch").map(|patch| patch.value.into()),
    };
    // The object is built from good values only.
    if !cx.has_errors() {
        check_webhook_object(args, &m, cx);
    }
    (!cx.has_errors()).then_some(m)
}

/// controller-gen's required arguments (`missing argument "..."`).
fn check_required_keys(args: &WebhookArgs, cx: &mut Ctxt) {
    for (key, example) in [
        ("name", "name = \"vmydatabase.example.com\""),
        ("mutating", "mutating = false"),
        ("failure_policy", "failure_policy = \"Fail\""),
        ("groups", "groups = \"db.example.com\""),
        ("resources", "resources = \"mydatabases\""),
        ("verbs", "verbs = \"create;update\""),
        ("versions", "versions = \"v1\""),
        (
            "admission_review_versions",
            "admission_review_versions = \"v1\"",
        ),
    ] {
        if !args.present(key) {
            cx.error_at(
                Span::call_site(),
                format!(
                    "missing `{key}`: #[webhook] needs it, as controller-gen does, e.g. `{example}`"
                ),
            );
        }
    }
}

/// `name`, as the API server wants it: a DNS subdomain of at least three segments.
fn webhook_name(args: &WebhookArgs, cx: &mut Ctxt) -> Text {
    let Some(name) = string(args, "name") else {
        return Text::default();
    };
    if let Err(why) = names::dns1123_subdomain(&name.value) {
        cx.error_at(name.span, format!("`name` {:?}: {why}", name.value));
    } else if !names::webhook_name_has_three_segments(&name.value) {
        cx.error_at(
            name.span,
            format!(
                "`name` {:?} must be a domain with at least three segments separated by \
                 dots, e.g. \"vmydatabase.example.com\" (the API server requires it)",
                name.value
            ),
        );
    }
    name.value.into()
}

/// `side_effects`: `None` or `NoneOnDryRun`; v1 refuses the other two.
fn side_effects(args: &WebhookArgs, cx: &mut Ctxt) -> Option<Text> {
    let item = string(args, "side_effects")?;
    if ["Some", "Unknown"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(&item.value))
    {
        cx.error_at(
            item.span,
            format!(
                "`side_effects` = {:?}: admissionregistration.k8s.io/v1 webhooks must not \
                 have side effects `Some` or `Unknown`; use `None`, or `NoneOnDryRun` if the \
                 handler skips its side effects on dry-run requests",
                item.value
            ),
        );
        return None;
    }
    one_of(cx, "side_effects", &item, &["None", "NoneOnDryRun"])
}

fn timeout_seconds(args: &WebhookArgs, cx: &mut Ctxt) -> Option<i32> {
    let Some(Value::Int(n, span)) = args.values.get("timeout_seconds") else {
        return None;
    };
    if !(1..=30).contains(n) {
        cx.error_at(
            *span,
            format!("`timeout_seconds` = {n}: it must be between 1 and 30 seconds"),
        );
        return None;
    }
    Some(*n as i32)
}

/// `groups`: API groups, the core group (`""` or `core`) or `*`.
fn groups(args: &WebhookArgs, cx: &mut Ctxt) -> Vec<Text> {
    let Some((items, _)) = list(args, "groups") else {
        return Vec::new();
    };
    for item in &items {
        if item.value.is_empty() || item.value == "core" || item.value == "*" {
            continue;
        }
        if let Err(why) = names::api_group(&item.value) {
            cx.error_at(
                item.span,
                format!("`groups` element {:?}: {why}", item.value),
            );
        }
    }
    values(&items)
}

/// `resources`: resources (`pods/status`), `*` or `*/subresource`.
fn resources(args: &WebhookArgs, cx: &mut Ctxt) -> Vec<Text> {
    let Some((items, _)) = list(args, "resources") else {
        return Vec::new();
    };
    for item in &items {
        if item.value != "*"
            && !item.value.starts_with("*/")
            && let Err(why) = names::resource(&item.value)
        {
            cx.error_at(
                item.span,
                format!("`resources` element {:?}: {why}", item.value),
            );
        }
    }
    values(&items)
}

/// `verbs`: admission operations, written in any case as controller-gen allows, each kept as
/// the API server spells it.
fn operations(args: &WebhookArgs, cx: &mut Ctxt) -> Vec<Text> {
    const OPERATIONS: &[&str] = &["CREATE", "UPDATE", "DELETE", "CONNECT", "*"];
    let Some((items, _)) = list(args, "verbs") else {
        return Vec::new();
    };
    let mut operations = Vec::new();
    for item in &items {
        match OPERATIONS
            .iter()
            .find(|op| op.eq_ignore_ascii_case(&item.value))
        {
            Some(op) => operations.push(Text::Borrowed(op)),
            None => {
                let lower: Vec<String> =
                    OPERATIONS.iter().map(|o| o.to_ascii_lowercase()).collect();
                let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
                let hint = did_you_mean(&item.value, &lower)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                cx.error_at(
                    item.span,
                    format!(
                        "`verbs` element {:?} is not an admission operation{hint} (expected \
                         create, update, delete, connect or *)",
                        item.value
                    ),
                );
            }
        }
    }
    operations
}

fn admission_review_versions(args: &WebhookArgs, cx: &mut Ctxt) -> Vec<Text> {
    let Some((items, _)) = list(args, "admission_review_versions") else {
        return Vec::new();
    };
    for item in &items {
        if !matches!(item.value.as_str(), "v1" | "v1beta1") {
            cx.error_at(
                item.span,
                format!(
                    "`admission_review_versions` element {:?}: the API server speaks \
                     AdmissionReview `v1` and `v1beta1`",
                    item.value
                ),
            );
        }
    }
    values(&items)
}

/// `webhook_versions`, controller-gen's, where only `v1` is left.
fn check_webhook_versions(args: &WebhookArgs, cx: &mut Ctxt) {
    let Some((items, _)) = list(args, "webhook_versions") else {
        return;
    };
    for item in items.iter().filter(|i| i.value != "v1") {
        cx.error_at(
            item.span,
            format!(
                "unsupported webhook version: {} (controller-gen generates only \
                 admissionregistration.k8s.io/v1 configurations; remove `webhook_versions` \
                 or write \"v1\")",
                item.value
            ),
        );
    }
}

/// The webhook object as the generator builds it: the patch's own problems, and what the
/// patched object must satisfy (controller-gen checks these after patching). A problem is
/// blamed on the `patch` when there is one, else on the key that made the value.
fn check_webhook_object(args: &WebhookArgs, m: &WebhookMarker, cx: &mut Ctxt) {
    let Err(problems) = object::webhook_object(m) else {
        return;
    };
    let call_site = Span::call_site();
    let patch_span = string(args, "patch").map(|p| p.span);
    for problem in problems {
        let span = match problem {
            ObjectProblem::Patch(_) => patch_span.unwrap_or(call_site),
            ObjectProblem::Final { key, .. } => match patch_span {
                Some(span) => span,
                None => args.values.get(key).map_or(call_site, |v| v.span()),
            },
        };
        cx.error_at(span, problem);
    }
}

/// `path` (with the service keys) or `url`: exactly one.
fn client(args: &WebhookArgs, cx: &mut Ctxt) -> Option<WebhookClient> {
    let path = string(args, "path");
    let url = string(args, "url");
    match (path, url) {
        (Some(_), Some(url)) => {
            cx.error_at(
                url.span,
                "`url` and `path` are mutually exclusive: `path` is served by the webhook \
                 Service, `url` names an external endpoint",
            );
            None
        }
        (None, None) if !args.present("path") && !args.present("url") => {
            cx.error_at(
                Span::call_site(),
                "missing `path` or `url`: one of them is required, e.g. \
                 `path = \"/validate-db-example-com-v1-mydatabase\"`",
            );
            None
        }
        (None, None) => None,
        (Some(path), None) => Some(service_client(args, path, cx)),
        (None, Some(url)) => Some(url_client(args, url, cx)),
    }
}

/// `path` on the webhook Service, which the service keys name.
fn service_client(args: &WebhookArgs, path: Item, cx: &mut Ctxt) -> WebhookClient {
    if !path.value.starts_with('/') {
        cx.error_at(
            path.span,
            format!("`path` {:?} must start with `/`", path.value),
        );
    }
    let port = match args.values.get("service_port") {
        Some(Value::Int(n, span)) if !(1..=65535).contains(n) => {
            cx.error_at(
                *span,
                format!("`service_port` = {n}: a port is between 1 and 65535"),
            );
            None
        }
        Some(Value::Int(n, _)) => Some(*n as i32),
        _ => None,
    };
    // A Service's name is a DNS-1035 label (the API server creates no Service named `1svc`,
    // so a webhook pointing there would fail every call); a namespace's a DNS-1123 label.
    let name = dns_label(args, "service_name", names::dns1035_label, cx);
    let namespace = dns_label(args, "service_namespace", names::dns1123_label, cx);
    WebhookClient::Service {
        name: name.map(Text::from),
        namespace: namespace.map(Text::from),
        port,
        path: path.value.into(),
    }
}

/// The string of `key`, a label as `check` wants it (recorded when it is not).
fn dns_label(
    args: &WebhookArgs,
    key: &str,
    check: fn(&str) -> Result<(), String>,
    cx: &mut Ctxt,
) -> Option<String> {
    let item = string(args, key)?;
    if let Err(why) = check(&item.value) {
        cx.error_at(item.span, format!("`{key}` {:?}: {why}", item.value));
    }
    Some(item.value)
}

/// `url`, an external endpoint: `https://`, and none of the service keys.
fn url_client(args: &WebhookArgs, url: Item, cx: &mut Ctxt) -> WebhookClient {
    for key in ["service_name", "service_namespace", "service_port"] {
        if let Some(v) = args.values.get(key) {
            cx.error_at(
                v.span(),
                format!("`{key}` applies to `path` (a webhook Service), not to `url`"),
            );
        }
    }
    let ok = url
        .value
        .strip_prefix("https://")
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
    if !ok || url.value.contains(['?', '#']) {
        cx.error_at(
            url.span,
            format!(
                "`url` {:?} must be `https://host[:port][/path]`, without query or \
                 fragment (the API server requires it)",
                url.value
            ),
        );
    }
    WebhookClient::Url(url.value.into())
}

/// Validates parsed `#[webhook_configuration]` arguments.
pub fn validate_configuration(
    args: &WebhookArgs,
    cx: &mut Ctxt,
) -> Option<WebhookConfigurationMarker> {
    let mut m = WebhookConfigurationMarker::default();
    match args.values.get("mutating") {
        Some(Value::Bool(b, _)) => m.mutating = *b,
        _ if !args.present("mutating") => cx.error_at(
            Span::call_site(),
            "missing `mutating`: say which configuration this names, `mutating = true` \
             (MutatingWebhookConfiguration) or `mutating = false` \
             (ValidatingWebhookConfiguration)",
        ),
        _ => {}
    }
    if let Some(name) = string(args, "name") {
        if let Err(why) = names::dns1123_subdomain(&name.value) {
            cx.error_at(name.span, format!("`name` {:?}: {why}", name.value));
        }
        m.name = Some(name.value.into());
    }
    (!cx.has_errors()).then_some(m)
}
