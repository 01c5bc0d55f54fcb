//! [`RbacArgs`] → [`RbacMarker`]: the checks the API server (and a careful reviewer) would make.

use super::{Item, ListArg, RbacArgs, RbacMarker};
use crate::ctxt::Ctxt;
use crate::model::Text;
use crate::names;
use crate::suggest::did_you_mean;
use proc_macro2::Span;

fn values(list: &Option<ListArg>) -> Vec<Text> {
    list.as_ref()
        .map(|l| l.items.iter().map(|i| i.value.clone().into()).collect())
        .unwrap_or_default()
}

fn present(args: &RbacArgs, list: &Option<ListArg>, key: &str) -> bool {
    list.is_some() || args.present(key)
}

/// Validates parsed arguments. Returns the marker when nothing was wrong; otherwise every
/// problem is in `cx` and the result is `None`.
pub fn validate(args: &RbacArgs, cx: &mut Ctxt) -> Option<RbacMarker> {
    let errors_before = cx.has_errors();
    let mut failed = false;
    let mut error = |cx: &mut Ctxt, span: Span, msg: String| {
        cx.error_at(span, msg);
        failed = true;
    };
    let call_site = Span::call_site();

    let has_resources = present(args, &args.resources, "resources");
    let has_urls = present(args, &args.urls, "urls");

    // Shape of the rule.
    if !present(args, &args.verbs, "verbs") {
        error(
            cx,
            call_site,
            "missing `verbs`: every rule needs verbs, e.g. `verbs = \"get;list;watch\"`".into(),
        );
    }
    if !has_resources && !has_urls {
        error(
            cx,
            call_site,
            "a rule needs `resources` (with `groups`) or `urls`, e.g. \
             `groups = \"apps\", resources = \"deployments\"` or `urls = \"/metrics\"`"
                .into(),
        );
    }
    if has_urls {
        for (list, key) in [
            (&args.resources, "resources"),
            (&args.groups, "groups"),
            (&args.resource_names, "resource_names"),
        ] {
            if let Some(list) = list {
                error(
                    cx,
                    list.key_span,
                    format!(
                        "`{key}` cannot be combined with `urls`: a rule grants either API \
                         resources or non-resource URLs; write two #[rbac] attributes"
                    ),
                );
            }
        }
        if let Some((span, _)) = &args.namespace {
            error(
                cx,
                *span,
                "`urls` cannot have a `namespace`: non-resource URLs exist only in \
                 ClusterRoles, and the API server rejects them in a Role"
                    .into(),
            );
        }
    } else if has_resources && !present(args, &args.groups, "groups") {
        let span = args.resources.as_ref().map_or(call_site, |l| l.key_span);
        error(
            cx,
            span,
            "`resources` needs `groups`: the API server rejects a rule without apiGroups; \
             use `groups = \"\"` (or \"core\") for the core group"
                .into(),
        );
    }
    // Empty lists are reported by the parser ([`crate::args::list`]).

    // Elements.
    for item in args.groups.iter().flat_map(|l| &l.items) {
        if let Err(why) = names::api_group(&item.value) {
            error(
                cx,
                item.span,
                format!("malformed API group `{}`: {why}", item.value),
            );
        }
    }
    for item in args.resources.iter().flat_map(|l| &l.items) {
        if item.value.chars().any(|c| c.is_ascii_uppercase()) {
            error(
                cx,
                item.span,
                format!(
                    "resource `{}` has uppercase letters: RBAC matches the lowercase plural in \
                     the URL, so this never matches; write `{}`",
                    item.value,
                    item.value.to_ascii_lowercase()
                ),
            );
        } else if let Err(why) = names::resource(&item.value) {
            error(
                cx,
                item.span,
                format!("malformed resource `{}`: {why}", item.value),
            );
        }
    }
    let signers_only = args
        .resources
        .as_ref()
        .is_some_and(|l| !l.items.is_empty() && l.items.iter().all(|r| r.value == "signers"));
    for item in args.resource_names.iter().flat_map(|l| &l.items) {
        if let Err(why) = names::resource_name(&item.value, signers_only) {
            error(
                cx,
                item.span,
                format!("malformed resource name `{}`: {why}", item.value),
            );
        }
    }
    for item in args.urls.iter().flat_map(|l| &l.items) {
        if let Err(why) = names::non_resource_url(&item.value) {
            error(
                cx,
                item.span,
                format!("malformed URL `{}`: {why}", item.value),
            );
        }
    }
    if let Some((_, item)) = &args.namespace {
        if item.value.is_empty() {
            error(
                cx,
                item.span,
                "`namespace` is empty: leave it out for a ClusterRole".into(),
            );
        } else if let Err(why) = names::dns1123_label(&item.value) {
            error(
                cx,
                item.span,
                format!(
                    "malformed namespace `{}`: {why}; namespaces are DNS-1123 labels",
                    item.value
                ),
            );
        }
    }
    if let Some((_, item)) = &args.role_name
        && let Err(why) = names::dns1123_subdomain(&item.value)
    {
        error(
            cx,
            item.span,
            format!(
                "malformed role name `{}`: {why}; role names are DNS-1123 subdomains",
                item.value
            ),
        );
    }

    // A malformed `custom_verbs` was meant to allow custom verbs: don't pile on.
    let custom = args
        .custom_verbs
        .map_or(args.present("custom_verbs"), |(_, on)| on);
    for item in args.verbs.iter().flat_map(|l| &l.items) {
        if let Some(msg) = check_verb(item, has_urls, custom) {
            error(cx, item.span, msg);
        }
    }

    if let (Some(names), Some(verbs), Some(resources)) =
        (&args.resource_names, &args.verbs, &args.resources)
        && never_named(&verbs.items, &resources.items)
    {
        let mut verbs: Vec<&str> = verbs.items.iter().map(|v| v.value.as_str()).collect();
        verbs.sort_unstable();
        verbs.dedup();
        error(
            cx,
            names.key_span,
            format!(
                "`resource_names` can never match here: the API server sees no object name \
                 in {} requests (`create` on a collection, `deletecollection`), so this rule \
                 would grant nothing; drop `resource_names` or split the rule",
                verbs
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        );
    }

    if failed || errors_before {
        return None;
    }
    Some(RbacMarker {
        groups: values(&args.groups),
        resources: values(&args.resources),
        resource_names: values(&args.resource_names),
        verbs: values(&args.verbs),
        urls: values(&args.urls),
        namespace: args.namespace.as_ref().map(|(_, i)| i.value.clone().into()),
        role_name: args.role_name.as_ref().map(|(_, i)| i.value.clone().into()),
        allow: args
            .allow
            .iter()
            .flat_map(|a| {
                a.lints.iter().map(|(lint, _)| crate::model::Allow {
                    lint: Text::Borrowed(lint.name()),
                    reason: a.reason.clone().into(),
                })
            })
            .collect(),
    })
}

fn check_verb(item: &Item, url_rule: bool, custom: bool) -> Option<String> {
    let verb = item.value.as_str();
    if verb == "*" {
        return None;
    }
    if verb.chars().any(|c| c.is_ascii_uppercase()) {
        return Some(format!(
            "verb `{verb}` has uppercase letters: RBAC compares verbs exactly and the API \
             server's are lowercase; write `{}`",
            verb.to_ascii_lowercase()
        ));
    }
    let (known, what): (&[&str], &str) = if url_rule {
        (
            names::URL_VERBS,
            "non-resource URLs take lowercase HTTP methods",
        )
    } else {
        (
            names::RESOURCE_VERBS,
            "resources take the API server's verbs",
        )
    };
    if known.contains(&verb) {
        return None;
    }
    if custom {
        return names::custom_verb(verb)
            .err()
            .map(|why| format!("malformed custom verb `{verb}`: {why}"));
    }
    let hint = did_you_mean(verb, known)
        .map(|s| format!("did you mean `{s}`? "))
        .unwrap_or_default();
    Some(format!(
        "unknown verb `{verb}`: {hint}{what} ({} or `*`){custom_hint}",
        known.join(", "),
        custom_hint = if url_rule {
            ""
        } else {
            "; a custom verb of an aggregated API needs `custom_verbs = true`"
        }
    ))
}

/// True when no (verb, resource) pair of the rule can carry an object name, so a
/// `resourceNames` restriction makes the whole rule dead. `create` on a subresource
/// (`serviceaccounts/token`, `pods/eviction`) names its parent object and stays useful.
fn never_named(verbs: &[Item], resources: &[Item]) -> bool {
    !verbs.is_empty()
        && !resources.is_empty()
        && verbs.iter().all(|v| {
            v.value == "deletecollection"
                || (v.value == "create" && resources.iter().all(|r| !r.value.contains('/')))
        })
}
