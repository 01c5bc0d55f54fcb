//! `codegen can-i`: `kubectl auth can-i` without a cluster, against the generated manifests.
//!
//! The question is turned into the attributes a SelfSubjectAccessReview would carry (the
//! resource resolved as kubectl's discovery would, in `resources.rs`), and answered by
//! [`kube_markers_rbac::authorize::Authorizer`] over the Roles, ClusterRoles and bindings of
//! `--from` (by default the generator's output directory, rendered as `kubectl apply -k`
//! installs it) and the default roles every cluster gives every user
//! ([`kube_markers_rbac::authorize::defaults`]). Without `--as`, the identity is the
//! ServiceAccount of the manifests (the operator's, in the deploy bundle, by its installed
//! name). With `--explain`, the answer names the rule, role and binding, and the `#[rbac]`
//! attributes of this generator that produce the rule.

mod explain;
mod resources;

use kube_markers_rbac::authorize::defaults::default_role;
pub use kube_markers_rbac::authorize::defaults::{
    DEFAULT_ROLES, DEFAULT_ROLES_SERVER_VERSION, DefaultRole,
};
pub use kube_markers_rbac::authorize::manifests::{ManifestProblem, Manifests, Origin, load};
pub use resources::{KnownResource, ResourceSource, builtin_resources, resolve};

use crate::usage::UsageError;
use k8s_openapi::api::rbac::v1::PolicyRule;
use kube_markers_core::model::SuggestedRbac;
use kube_markers_rbac::authorize::{Decision, RequestAttributes, RoleKind, UserInfo, rule_allows};
use kube_markers_rbac::policy_rule;
use kube_markers_registry::RbacEntry;
use std::path::PathBuf;

/// What `can-i` is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CanIOptions {
    /// The verb, as given (`get`, `list`, `create`, `escalate`, …; an HTTP method for URLs).
    pub verb: String,
    /// The resource or URL asked about.
    pub target: Target,
    /// `-n/--namespace`; `None` asks cluster-wide, as `-A/--all-namespaces` does.
    pub namespace: Option<String>,
    /// `--subresource`.
    pub subresource: Option<String>,
    /// `--as`: the user to evaluate as; `None` for the ServiceAccount of the manifests.
    pub as_user: Option<String>,
    /// `--as-group`, repeatable.
    pub as_groups: Vec<String>,
    /// `--from`: a YAML file or a directory of them (default: `rbac-out`).
    pub from: PathBuf,
    /// `--from` was left out: `from` is the default `rbac-out`, which the command line places
    /// in the workspace, as the default `--out` is.
    pub from_is_default: bool,
    /// `--role-name`: the generator's default role name, to find the `#[rbac]` attributes of
    /// a role for `--explain` (default `manager-role`).
    pub role_name: String,
    /// `--explain`: say why.
    pub explain: bool,
    /// Include the default roles every cluster binds to every user (`system:discovery`,
    /// `system:basic-user`, ...); `false` with `--no-default-roles`.
    pub default_roles: bool,
}

/// The resource or URL of the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `TYPE[.GROUP][/NAME]`: a resource, as typed (lowercased); [`run`] resolves it.
    Resource {
        /// Plural, singular or short name (lowercased, as kubectl does).
        resource: String,
        /// API group; `""` when none is given.
        group: String,
        /// Object name, if one was given.
        name: Option<String>,
    },
    /// `/path`: a non-resource URL.
    NonResource(String),
}

impl Target {
    /// `--subresource` and `--namespace` mean nothing for a non-resource URL, as in kubectl.
    pub(crate) fn refuse_resource_flags(
        &self,
        subresource: bool,
        namespace: bool,
    ) -> Result<(), UsageError> {
        if let Target::NonResource(url) = self {
            for (given, flag) in [(subresource, "--subresource"), (namespace, "--namespace")] {
                if given {
                    return Err(UsageError::NotForUrl {
                        flag,
                        url: url.clone(),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Why `can-i` could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CanIError {
    /// The manifests could not be read.
    #[error("{}", problems(.0))]
    Manifests(Vec<ManifestProblem>),
    /// Without `--as`, the manifests must define a ServiceAccount to evaluate as.
    #[error(
        "no ServiceAccount in {} to evaluate as: pass `--as USER` \
         (`--as system:serviceaccount:NAMESPACE:NAME` for a ServiceAccount)",
        from.display()
    )]
    NoServiceAccount {
        /// `--from`.
        from: PathBuf,
    },
    /// Without `--as`, the manifests must define only one ServiceAccount.
    #[error(
        "{} ServiceAccounts in {} ({}): pass `--as system:serviceaccount:NAMESPACE:NAME` to say \
         which",
        accounts.len(),
        from.display(),
        accounts.iter().map(|(ns, name)| format!("{ns}/{name}")).collect::<Vec<_>>().join(", ")
    )]
    SeveralServiceAccounts {
        /// `--from`.
        from: PathBuf,
        /// Their namespaces and names.
        accounts: Vec<(String, String)>,
    },
}

/// One problem alone; several under a heading, one per line.
fn problems(problems: &[ManifestProblem]) -> String {
    match problems {
        [one] => kube_markers_core::error_text::with_sources(one),
        several => {
            let mut text = format!("{} problems with the manifests:\n", several.len());
            for p in several {
                text.push_str(&format!(
                    "  - {}\n",
                    kube_markers_core::error_text::with_sources(p)
                ));
            }
            text
        }
    }
}

/// An answer: the decision, and the text `can-i` prints.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CanIAnswer {
    /// The authorizer's decision.
    pub decision: Decision,
    /// `yes` or `no`, then (with `--explain`) the explanation; ends with a newline.
    pub text: String,
    /// What the user should know that is not the answer (printed to stderr): a resource
    /// nothing here knows, a `--as` ServiceAccount no binding names.
    pub warnings: Vec<String>,
}

impl CanIAnswer {
    /// `true` for yes.
    pub fn allowed(&self) -> bool {
        self.decision.is_allowed()
    }
}

/// The attributes of the question, as kube-apiserver builds them from a SubjectAccessReview.
pub fn request_attributes(opts: &CanIOptions) -> RequestAttributes {
    attributes_of(
        &opts.verb,
        &opts.target,
        opts.namespace.as_deref(),
        opts.subresource.as_deref(),
    )
}

/// A SubjectAccessReview's attributes from kubectl's parts of a question (`can-i`, `explain`).
pub(crate) fn attributes_of(
    verb: &str,
    target: &Target,
    namespace: Option<&str>,
    subresource: Option<&str>,
) -> RequestAttributes {
    match target {
        Target::NonResource(url) => RequestAttributes::non_resource(verb, url),
        Target::Resource {
            resource,
            group,
            name,
        } => RequestAttributes {
            resource_request: true,
            verb: verb.to_string(),
            api_group: group.clone(),
            namespace: namespace.unwrap_or_default().to_string(),
            resource: resource.clone(),
            subresource: subresource.unwrap_or_default().to_string(),
            name: name.clone().unwrap_or_default(),
            path: String::new(),
        },
    }
}

/// Who the question is asked for: `--as`/`--as-group` as the API server impersonates them, or
/// the one ServiceAccount of the manifests.
fn identity(opts: &CanIOptions, manifests: &Manifests) -> Result<(UserInfo, String), CanIError> {
    if let Some(user) = &opts.as_user {
        return Ok((UserInfo::impersonated(user, &opts.as_groups), "--as".into()));
    }
    match manifests.service_accounts.as_slice() {
        [(namespace, name, origin)] => Ok((
            UserInfo::service_account(namespace, name),
            format!("the ServiceAccount of {origin}"),
        )),
        [] => Err(CanIError::NoServiceAccount {
            from: opts.from.clone(),
        }),
        several => Err(CanIError::SeveralServiceAccounts {
            from: opts.from.clone(),
            accounts: several
                .iter()
                .map(|(ns, name, _)| (ns.clone(), name.clone()))
                .collect(),
        }),
    }
}

/// The resource `target` names, as kubectl resolves `TYPE`: among the built-in resources and
/// the CRDs `crds` gives (built only for a resource other than `*`); `can-i` and `explain`
/// both resolve through it. A name nothing knows is asked as typed, with a warning.
pub(crate) fn resolve_type(
    target: &Target,
    crds: impl FnOnce() -> Vec<KnownResource>,
    warnings: &mut Vec<String>,
) -> (Target, Option<ResourceSource>) {
    match target {
        Target::Resource { resource, .. } if resource != "*" => {
            let mut known = builtin_resources();
            known.extend(crds());
            resolve_target(target, &known, warnings)
        }
        _ => (target.clone(), None),
    }
}

/// The resource the question names, as kubectl's discovery resolves it: a built-in resource,
/// or a CRD of `known`; a name nothing knows is asked as typed (with a warning, as kubectl
/// warns).
fn resolve_target(
    target: &Target,
    known: &[KnownResource],
    warnings: &mut Vec<String>,
) -> (Target, Option<ResourceSource>) {
    let Target::Resource {
        resource,
        group,
        name,
    } = target
    else {
        return (target.clone(), None);
    };
    let wanted_group = (!group.is_empty()).then_some(group.as_str());
    match resolve(known, resource, wanted_group) {
        Some(found) => (
            Target::Resource {
                resource: found.plural.clone(),
                group: found.group.clone(),
                name: name.clone(),
            },
            Some(found.from.clone()),
        ),
        None => {
            if group.is_empty() {
                warnings.push(format!(
                    "Warning: `{resource}` is neither a resource of kube-apiserver \
                     {DEFAULT_ROLES_SERVER_VERSION} nor a CRD of this generator or --from: asked \
                     as the resource {resource:?} of the core group (write TYPE.GROUP for \
                     another group)"
                ));
            }
            (target.clone(), None)
        }
    }
}

/// The default roles' objects added to the manifests' authorizer, but for those the manifests
/// hold already (a dump of a cluster's roles has them).
fn add_default_roles(manifests: &mut Manifests) {
    let rbac = &mut manifests.authorizer;
    for role in DEFAULT_ROLES {
        let named = |name: &Option<String>| name.as_deref() == Some(role.name);
        if !rbac.cluster_roles.iter().any(|r| named(&r.metadata.name)) {
            rbac.cluster_roles.push(role.cluster_role());
        }
        if !rbac
            .cluster_role_bindings
            .iter()
            .any(|b| named(&b.metadata.name))
        {
            rbac.cluster_role_bindings.push(role.cluster_role_binding());
        }
    }
}

/// For `--as` a ServiceAccount that no binding names: the ServiceAccounts bindings do name, so
/// that a misspelt (or unprefixed) name is seen.
fn unbound_service_account(user: &UserInfo, manifests: &Manifests) -> Option<String> {
    let (namespace, name) = user.service_account_name()?;
    let rbac = &manifests.authorizer;
    let subjects = rbac
        .role_bindings
        .iter()
        .flat_map(|b| {
            b.subjects
                .iter()
                .flatten()
                .map(move |s| (s, b.metadata.namespace.as_deref()))
        })
        .chain(
            rbac.cluster_role_bindings
                .iter()
                .flat_map(|b| b.subjects.iter().flatten().map(|s| (s, None))),
        );
    let mut bound = Vec::new();
    for (subject, binding_namespace) in subjects {
        if subject.kind != "ServiceAccount" {
            continue;
        }
        // A RoleBinding's subject without a namespace is in the binding's.
        let ns = subject
            .namespace
            .as_deref()
            .or(binding_namespace)
            .unwrap_or_default();
        if ns == namespace && subject.name == name {
            return None;
        }
        let text = format!("system:serviceaccount:{ns}:{}", subject.name);
        if !bound.contains(&text) {
            bound.push(text);
        }
    }
    let hint = if bound.is_empty() {
        "no binding there names any ServiceAccount".to_string()
    } else {
        format!("the bindings name {}", bound.join(", "))
    };
    Some(format!(
        "Warning: no binding of --from names the ServiceAccount {namespace}/{name} (as \
         `kubectl apply -k` installs it): {hint}"
    ))
}

/// Answers the question against the manifests of `--from`; `entries` are the linked `#[rbac]`
/// attributes, named by `--explain`; `crds` gives the linked CRDs, whose resources the
/// question may name ([`KnownResource::from_registry`]).
pub fn run(
    opts: &CanIOptions,
    entries: &[&RbacEntry],
    crds: impl FnOnce() -> Vec<KnownResource>,
) -> Result<CanIAnswer, CanIError> {
    let mut manifests = load(&opts.from).map_err(CanIError::Manifests)?;
    let (user, identity_source) = identity(opts, &manifests)?;
    let mut warnings = Vec::new();
    if opts.as_user.is_some()
        && let Some(warning) = unbound_service_account(&user, &manifests)
    {
        warnings.push(warning);
    }
    if opts.default_roles {
        add_default_roles(&mut manifests);
    }
    // Every resource's names, as discovery would list them (resolved as kubectl's
    // shortcutExpander does: a plural or singular is never expanded as a short name). URLs
    // need none (nor the linked CRDs' schemas, built on the call).
    let (target, resolved_from) = resolve_type(
        &opts.target,
        || {
            let mut crds = crds();
            crds.extend(manifests.crds.iter().map(KnownResource::from_manifest));
            crds
        },
        &mut warnings,
    );
    let request = attributes_of(
        &opts.verb,
        &target,
        opts.namespace.as_deref(),
        opts.subresource.as_deref(),
    );
    let decision = manifests.authorizer.authorize(&user, &request);
    let mut text = String::from(if decision.is_allowed() {
        "yes\n"
    } else {
        "no\n"
    });
    if opts.explain {
        let context = Context {
            opts,
            manifests: &manifests,
            user: &user,
            identity_source: &identity_source,
            resolved_from: resolved_from.as_ref(),
            entries,
        };
        explain::explain(&mut text, &context, &request, &decision);
    }
    Ok(CanIAnswer {
        decision,
        text,
        warnings,
    })
}

/// What `--explain` draws on besides the request and decision.
struct Context<'a> {
    opts: &'a CanIOptions,
    manifests: &'a Manifests,
    user: &'a UserInfo,
    identity_source: &'a str,
    resolved_from: Option<&'a ResourceSource>,
    entries: &'a [&'a RbacEntry],
}

/// A manifest's rule on one line ([`Rule::describe`]).
fn describe_rule(rule: &PolicyRule) -> String {
    kube_markers_rbac::Rule::from(rule).describe()
}

/// The attributes that land in this role (`--role-name` for those that name none) and allow the
/// request on their own.
fn granting_entries<'e>(
    entries: &[&'e RbacEntry],
    role_kind: RoleKind,
    role_namespace: Option<&str>,
    role_name: &str,
    default_role_name: &str,
    request: &RequestAttributes,
) -> Vec<&'e RbacEntry> {
    entries
        .iter()
        .copied()
        .filter(|e| match role_kind {
            RoleKind::ClusterRole => e.marker.namespace.is_none(),
            RoleKind::Role => e.marker.namespace.as_deref() == role_namespace,
        })
        .filter(|e| e.marker.role_name.as_deref().unwrap_or(default_role_name) == role_name)
        .filter(|e| rule_allows(request, &policy_rule(&e.marker)))
        .collect()
}

/// The `#[rbac]` attribute that would allow the request, ready to paste: for any object
/// cluster-wide, and (when the request names an object or a namespace) the narrowest one.
pub(crate) fn suggestions(request: &RequestAttributes) -> (String, Option<String>) {
    if !request.resource_request {
        let url = SuggestedRbac {
            url: Some(&request.path),
            verbs: &request.verb,
            ..Default::default()
        };
        return (url.to_string(), None);
    }
    let mut resource = request.resource.clone();
    if !request.subresource.is_empty() {
        resource = format!("{resource}/{}", request.subresource);
    }
    let base = SuggestedRbac {
        group: &request.api_group,
        resource: &resource,
        verbs: &request.verb,
        ..Default::default()
    };
    let narrow = SuggestedRbac {
        resource_name: non_empty(&request.name),
        namespace: non_empty(&request.namespace),
        ..base
    };
    (
        base.to_string(),
        (narrow != base).then(|| narrow.to_string()),
    )
}

fn non_empty(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

/// kubectl's warning for a verb it does not know (the question is still answered).
pub(crate) fn unknown_verb_warning(opts: &CanIOptions) -> Option<String> {
    let known: &[&str] = match opts.target {
        Target::NonResource(_) => &["get", "put", "post", "head", "options", "delete", "patch"],
        Target::Resource { .. } => &[
            "get",
            "list",
            "watch",
            "create",
            "update",
            "patch",
            "delete",
            "deletecollection",
            "use",
            "bind",
            "impersonate",
            "*",
            "approve",
            "sign",
            "escalate",
            "attest",
        ],
    };
    (!known.contains(&opts.verb.as_str()))
        .then(|| format!("Warning: verb {:?} is not a known verb", opts.verb))
}

#[cfg(test)]
mod tests;
