//! `can-i --explain`: the rule, role and binding that allow the request, with the files they
//! were read from and the `#[rbac]` attributes behind the role (found by the names the
//! attributes give, before kustomize's prefix and namespace); or, when nothing allows it, the
//! rules that apply and the attribute that would.

use super::{Context, DEFAULT_ROLES_SERVER_VERSION, default_role, describe_rule, granting_entries};
use super::{ResourceSource, suggestions};
use kube_markers_rbac::authorize::{Decision, RequestAttributes, RoleKind};
use kube_markers_rbac::policy_rule;
use std::fmt::Write as _;

/// " in FILE (document N)", or " (a default ...)" for the default roles and bindings.
fn origin(c: &Context, kind: &str, namespace: Option<&str>, name: &str) -> String {
    if let Some(o) = c.manifests.origin(kind, namespace, name) {
        return format!(" in {o}");
    }
    match default_role(name) {
        Some(_) if c.opts.default_roles && namespace.is_none() => {
            format!(" (a default of kube-apiserver {DEFAULT_ROLES_SERVER_VERSION})")
        }
        _ => String::new(),
    }
}

pub(super) fn explain(
    out: &mut String,
    c: &Context,
    request: &RequestAttributes,
    decision: &Decision,
) {
    let (opts, manifests) = (c.opts, c.manifests);
    let _ = writeln!(out, "request: {request}");
    if let Some(from) = c.resolved_from
        && *from != ResourceSource::BuiltIn
    {
        let _ = writeln!(
            out,
            "         {}.{} is {from}",
            request.resource, request.api_group
        );
    }
    let _ = writeln!(out, "as:      {}, from {}", c.user, c.identity_source);
    let read = |kind: &str| manifests.origins.keys().filter(|k| k.0 == kind).count();
    let rendered = match &manifests.kustomization {
        Some(k) => format!(
            "{} rendered as `kubectl apply -k` installs it: ",
            k.display()
        ),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "from:    {} ({rendered}{} YAML file(s): {} ClusterRole(s), {} Role(s), {} ClusterRoleBinding(s), {} RoleBinding(s))",
        opts.from.display(),
        manifests.files,
        read("ClusterRole"),
        read("Role"),
        read("ClusterRoleBinding"),
        read("RoleBinding"),
    );
    if opts.default_roles {
        let names: Vec<&str> = super::DEFAULT_ROLES.iter().map(|r| r.name).collect();
        let _ = writeln!(
            out,
            "         and kube-apiserver {DEFAULT_ROLES_SERVER_VERSION}'s default roles for every user: {} (--no-default-roles leaves them out)",
            names.join(", ")
        );
    }
    match decision {
        Decision::Allow(grant) => {
            let s = &grant.source;
            let role_kind = s.role_kind.to_string();
            let _ = writeln!(
                out,
                "rule:    rules[{}] of {} {:?}{}",
                grant.rule_index,
                role_kind,
                s.role_name,
                origin(c, &role_kind, s.role_namespace.as_deref(), &s.role_name)
            );
            let _ = writeln!(out, "         {}", describe_rule(&grant.rule));
            let _ = writeln!(
                out,
                "binding: {}{}",
                s,
                origin(
                    c,
                    &s.binding_kind.to_string(),
                    s.binding_namespace.as_deref(),
                    &s.binding_name
                )
            );
            let in_manifests = manifests
                .origin(&role_kind, s.role_namespace.as_deref(), &s.role_name)
                .is_some();
            if !in_manifests && s.role_kind == RoleKind::ClusterRole {
                let _ = writeln!(
                    out,
                    "#[rbac]: none needed: every cluster grants this to every such user"
                );
                return;
            }
            // The attributes name the role as written, before kustomize renamed or moved it.
            let (name, namespace) =
                manifests.as_in_file(&role_kind, s.role_namespace.as_deref(), &s.role_name);
            let granting = granting_entries(
                c.entries,
                s.role_kind,
                namespace.as_deref(),
                &name,
                &opts.role_name,
                request,
            );
            let written = if name == s.role_name {
                String::new()
            } else {
                format!(" ({name:?} in its file)")
            };
            if granting.is_empty()
                && c.entries.is_empty()
                && kube_markers_registry::generator().is_none()
            {
                // No generator linked (the installed `kube-markers`): no attributes to name.
            } else if granting.is_empty() {
                let _ = writeln!(
                    out,
                    "#[rbac]: none of this generator's attributes grants this in {} {:?}{written} on its own",
                    role_kind, s.role_name
                );
            } else {
                let _ = writeln!(out, "#[rbac]:{written}");
                for e in granting {
                    let _ = writeln!(
                        out,
                        "  {} ({})",
                        e.source,
                        describe_rule(&policy_rule(&e.marker))
                    );
                }
            }
        }
        Decision::NoOpinion { errors } => {
            let applicable = manifests.authorizer.rules_for(c.user, &request.namespace);
            let scope = if request.namespace.is_empty() {
                "cluster-wide".to_string()
            } else {
                format!("in namespace {:?}", request.namespace)
            };
            if applicable.rules.is_empty() {
                let _ = writeln!(out, "rules:   no binding gives this user any rule {scope}");
            } else {
                let _ = writeln!(out, "rules:   none of these rules {scope} allows it:");
                for r in &applicable.rules {
                    let _ = writeln!(
                        out,
                        "  rules[{}] of {} {:?} (bound by {} {:?}): {}",
                        r.rule_index,
                        r.source.role_kind,
                        r.source.role_name,
                        r.source.binding_kind,
                        r.source.binding_name,
                        describe_rule(r.rule)
                    );
                }
            }
            for e in errors {
                let _ = writeln!(out, "error:   {e}");
            }
            let (any, narrowest) = suggestions(request);
            let _ = writeln!(out, "to allow it: {any}");
            if let Some(narrowest) = narrowest {
                let _ = writeln!(out, "  or only this: {narrowest}");
            }
        }
    }
}
