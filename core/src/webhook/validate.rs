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

/// `value` as one of `allowed`, compared case-insensitively as controller-gen does; an error
/// names the key and the allowed values.
fn one_of(
    cx: &mut Ctxt,
    key: &str,
    item: &Item,
    allowed: &[&'static str],
    hint: &str,
) -> Option<Text> {
    if let Some(found) = allowed.iter().find(|a| a.eq_ignore_ascii_case(&item.value)) {
        return Some(Text::Borrowed(found));
    }
    let suggestion = did_you_mean(&item.value, allowed)
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    cx.error_at(
        item.span,
        format!(
            "`{key}` = {:?} is not one of {}{suggestion}{hint}",
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
pub fn validate(args: &WebhookArgs, cx: &mut Ctxt) -> Option<WebhookMarker> {
    let errors_before = cx.has_errors();
    let call_site = Span::call_site();
    let mut m = WebhookMarker::default();

    // controller-gen's required arguments (`missing argument "..."`).
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
                call_site,
                format!(
                    "missing `{key}`: #[webhook] needs it, as controller-gen does, e.g. `{example}`"
                ),
            );
        }
    }

    if let Some(name) = string(args, "name") {
        // The API server: a webhook's name is a DNS subdomain of at least three segments.
        if let Err(why) = names::dns1123_subdomain(&name.value) {
            cx.error_at(name.span, format!("`name` {:?}: {why}", name.value));
        } else if name.value.split('.').count() < 3 {
            cx.error_at(
                name.span,
                format!(
                    "`name` {:?} must be a domain with at least three segments separated by \
                     dots, e.g. \"vmydatabase.example.com\" (the API server requires it)",
                    name.value
                ),
            );
        }
        m.name = name.value.into();
    }
    if let Some(Value::Bool(b, _)) = args.values.get("mutating") {
        m.mutating = *b;
    }
    if let Some(item) = string(args, "failure_policy") {
        m.failure_policy =
            one_of(cx, "failure_policy", &item, &["Fail", "Ignore"], "").unwrap_or_default();
    }
    if let Some(item) = string(args, "match_policy") {
        m.match_policy = one_of(cx, "match_policy", &item, &["Exact", "Equivalent"], "");
    }
    if let Some(item) = string(args, "side_effects") {
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
        } else {
            m.side_effects = one_of(cx, "side_effects", &item, &["None", "NoneOnDryRun"], "");
        }
    }
    if let Some(Value::Int(n, span)) = args.values.get("timeout_seconds") {
        if !(1..=30).contains(n) {
            cx.error_at(
                *span,
                format!("`timeout_seconds` = {n}: it must be between 1 and 30 seconds"),
            );
        } else {
            m.timeout_seconds = Some(*n as i32);
        }
    }
    if let Some((items, _)) = list(args, "groups") {
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
        m.groups = values(&items);
    }
    if let Some((items, _)) = list(args, "resources") {
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
        m.resources = values(&items);
    }
    if let Some((items, _)) = list(args, "verbs") {
        const OPERATIONS: &[&str] = &["CREATE", "UPDATE", "DELETE", "CONNECT", "*"];
        for item in &items {
            match OPERATIONS
                .iter()
                .find(|op| op.eq_ignore_ascii_case(&item.value))
            {
                Some(op) => m.verbs.push(Text::Borrowed(op)),
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
    }
    if let Some((items, _)) = list(args, "versions") {
        m.versions = values(&items);
    }
    if let Some((items, _)) = list(args, "admission_review_versions") {
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
        m.admission_review_versions = values(&items);
    }
    if let Some((items, _)) = list(args, "webhook_versions") {
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
    if let Some(item) = string(args, "reinvocation_policy") {
        m.reinvocation_policy =
            one_of(cx, "reinvocation_policy", &item, &["Never", "IfNeeded"], "");
    }

    m.client = client(args, cx)?;

    if let Some(patch) = string(args, "patch") {
        m.patch = Some(patch.value.clone().into());
    }

    // The webhook object as the generator builds it: the patch's own problems, and what the
    // patched object must satisfy (controller-gen checks these after patching).
    if !cx.has_errors() && !errors_before {
        let patch_span = string(args, "patch").map(|p| p.span);
        if let Err(problems) = object::webhook_object(&m) {
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
    }
    (!cx.has_errors()).then_some(m)
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
        (Some(path), None) => {
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
            let dns = |key: &str, label: bool, cx: &mut Ctxt| -> Option<String> {
                let item = string(args, key)?;
                let checked = if label {
                    names::dns1123_label(&item.value)
                } else {
                    names::dns1123_subdomain(&item.value)
                };
                if let Err(why) = checked {
                    cx.error_at(item.span, format!("`{key}` {:?}: {why}", item.value));
                }
                Some(item.value)
            };
            let name = dns("service_name", true, cx);
            let namespace = dns("service_namespace", true, cx);
            Some(WebhookClient::Service {
                name: name.map(Text::from),
                namespace: namespace.map(Text::from),
                port,
                path: path.value.into(),
            })
        }
        (None, Some(url)) => {
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
            Some(WebhookClient::Url(url.value.into()))
        }
    }
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
