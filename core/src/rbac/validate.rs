//! [`RbacArgs`] → [`RbacMarker`]: the checks the API server (and a careful reviewer) would make.
//!
//! [`validate`] runs one check per concern, each recording its problems in the [`Ctxt`]: the
//! rule's shape (which keys go together), the names in it, its verbs, and whether
//! `resource_names` can match at all.

use super::{Item, ListArg, RbacArgs, RbacMarker};
use crate::ctxt::Ctxt;
use crate::model::Text;
use crate::names;
use crate::suggest::did_you_mean;
use proc_macro2::Span;

/// The strings of a list argument, as the marker keeps them.
fn values(list: &Option<ListArg>) -> Vec<Text> {
    list.as_ref()
        .map(|l| l.items.iter().map(|i| i.value.clone().into()).collect())
        .unwrap_or_default()
}

/// Whether a list key was written, its value well-formed or not.
fn present(args: &RbacArgs, list: &Option<ListArg>, key: &str) -> bool {
    list.is_some() || args.present(key)
}

/// The elements of a list argument, none when it was not written.
fn items(list: &Option<ListArg>) -> impl Iterator<Item = &Item> {
    list.iter().flat_map(|l| &l.items)
}

/// Validates parsed arguments. Returns the marker when nothing was wrong; otherwise every
/// problem is in `cx` and the result is `None`.
pub fn validate(args: &RbacArgs, cx: &mut Ctxt) -> Option<RbacMarker> {
    check_rule_shape(args, cx);
    // Empty lists are reported by the parser ([`crate::args::list`]).
    check_groups(args, cx);
    check_resources(args, cx);
    check_resource_names(args, cx);
    check_urls(args, cx);
    check_namespace(args, cx);
    check_role_name(args, cx);
    check_verbs(args, cx);
    check_resource_names_can_match(args, cx);
    // The parser's problems count too: it left their values out of `args`.
    if cx.has_errors() {
        return None;
    }
    Some(marker(args))
}

/// A rule has verbs, and either API resources (with their groups) or non-resource URLs.
fn check_rule_shape(args: &RbacArgs, cx: &mut Ctxt) {
    let call_site = Span::call_site();
    let has_resources = present(args, &args.resources, "resources");
    let has_urls = present(args, &args.urls, "urls");
    if !present(args, &args.verbs, "verbs") {
        cx.error_at(
            call_site,
            "missing `verbs`: every rule needs verbs, e.g. `verbs = \"get;list;watch\"`",
        );
    }
    if !has_resources && !has_urls {
        cx.error_at(
            call_site,
            "a rule needs `resources` (with `groups`) or `urls`, e.g. \
             `groups = \"apps\", resources = \"deployments\"` or `urls = \"/metrics\"`",
        );
    }
    if has_urls {
        check_url_rule_keys(args, cx);
    } else if has_resources && !present(args, &args.groups, "groups") {
        let span = args.resources.as_ref().map_or(call_site, |l| l.key_span);
        cx.error_at(
            span,
            "`resources` needs `groups`: the API server rejects a rule without apiGroups; \
             use `groups = \"\"` (or \"core\") for the core group",
        );
    }
}

/// A rule of non-resource URLs has none of the keys of a resource rule.
fn check_url_rule_keys(args: &RbacArgs, cx: &mut Ctxt) {
    for (list, key) in [
        (&args.resources, "resources"),
        (&args.groups, "groups"),
        (&args.resource_names, "resource_names"),
    ] {
        if let Some(list) = list {
            cx.error_at(
                list.key_span,
                format!(
                    "`{key}` cannot be combined with `urls`: a rule grants either API \
                     resources or non-resource URLs; write two #[rbac] attributes"
                ),
            );
        }
    }
    if let Some((span, _)) = &args.namespace {
        cx.error_at(
            *span,
            "`urls` cannot have a `namespace`: non-resource URLs exist only in \
             ClusterRoles, and the API server rejects them in a Role",
        );
    }
    // The API server's verb for a non-resource URL is the request's HTTP method, lowercased:
    // there is no custom verb to allow.
    if let Some((span, true)) = args.custom_verbs {
        cx.error_at(
            span,
            format!(
                "`custom_verbs` cannot be combined with `urls`: the verb of a non-resource URL \
                 is the request's HTTP method ({}); custom verbs belong to the resources of an \
                 aggregated API",
                names::URL_VERBS.join(", ")
            ),
        );
    }
}

fn check_groups(args: &RbacArgs, cx: &mut Ctxt) {
    for item in items(&args.groups) {
        if let Err(why) = names::api_group(&item.value) {
            cx.error_at(
                item.span,
                format!("malformed API group `{}`: {why}", item.value),
            );
        }
    }
}

fn check_resources(args: &RbacArgs, cx: &mut Ctxt) {
    for item in items(&args.resources) {
        if item.value.chars().any(|c| c.is_ascii_uppercase()) {
            cx.error_at(
                item.span,
                format!(
                    "resource `{}` has uppercase letters: RBAC matches the lowercase plural in \
                     the URL, so this never matches; write `{}`",
                    item.value,
                    item.value.to_ascii_lowercase()
                ),
            );
        } else if let Err(why) = names::resource(&item.value) {
            cx.error_at(
                item.span,
                format!("malformed resource `{}`: {why}", item.value),
            );
        }
    }
}

fn check_resource_names(args: &RbacArgs, cx: &mut Ctxt) {
    // The objects of `signers` are named by signer names, which have a `/`.
    let signers_only = args
        .resources
        .as_ref()
        .is_some_and(|l| !l.items.is_empty() && l.items.iter().all(|r| r.value == "signers"));
    for item in items(&args.resource_names) {
        if let Err(why) = names::resource_name(&item.value, signers_only) {
            cx.error_at(
                item.span,
                format!("malformed resource name `{}`: {why}", item.value),
            );
        }
    }
}

fn check_urls(args: &RbacArgs, cx: &mut Ctxt) {
    for item in items(&args.urls) {
        if let Err(why) = names::non_resource_url(&item.value) {
            cx.error_at(item.span, format!("malformed URL `{}`: {why}", item.value));
        }
    }
}

fn check_namespace(args: &RbacArgs, cx: &mut Ctxt) {
    let Some((_, item)) = &args.namespace else {
        return;
    };
    if item.value.is_empty() {
        cx.error_at(
            item.span,
            "`namespace` is empty: leave it out for a ClusterRole",
        );
    } else if let Err(why) = names::dns1123_label(&item.value) {
        cx.error_at(
            item.span,
            format!(
                "malformed namespace `{}`: {why}; namespaces are DNS-1123 labels",
                item.value
            ),
        );
    }
}

fn check_role_name(args: &RbacArgs, cx: &mut Ctxt) {
    if let Some((_, item)) = &args.role_name
        && let Err(why) = names::dns1123_subdomain(&item.value)
    {
        cx.error_at(
            item.span,
            format!(
                "malformed role name `{}`: {why}; role names are DNS-1123 subdomains",
                item.value
            ),
        );
    }
}

fn check_verbs(args: &RbacArgs, cx: &mut Ctxt) {
    let url_rule = present(args, &args.urls, "urls");
    // A malformed `custom_verbs` was meant to allow custom verbs: don't pile on.
    let custom = args
        .custom_verbs
        .map_or(args.present("custom_verbs"), |(_, on)| on);
    for item in items(&args.verbs) {
        if let Some(msg) = check_verb(item, url_rule, custom) {
            cx.error_at(item.span, msg);
        }
    }
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

/// `resource_names` restricts a rule to named objects: it must leave some request that names
/// one.
fn check_resource_names_can_match(args: &RbacArgs, cx: &mut Ctxt) {
    let (Some(names), Some(verbs), Some(resources)) =
        (&args.resource_names, &args.verbs, &args.resources)
    else {
        return;
    };
    // A verb or resource that was left out for its own error could make the rule useful.
    if !verbs.complete || !resources.complete {
        return;
    }
    if !never_named(&verbs.items, &resources.items) {
        return;
    }
    let mut verbs: Vec<&str> = verbs.items.iter().map(|v| v.value.as_str()).collect();
    verbs.sort_unstable();
    verbs.dedup();
    cx.error_at(
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

/// The marker of arguments that passed every check.
fn marker(args: &RbacArgs) -> RbacMarker {
    RbacMarker {
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
    }
}
