//! One `PolicyRule` against one request: kube-apiserver's `RuleAllows`
//! (`plugin/pkg/auth/authorizer/rbac/rbac.go`) and its matchers
//! (`pkg/apis/rbac/v1/evaluation_helpers.go`). Every comparison is exact and case-sensitive.

use super::RequestInfo;
use k8s_openapi::api::rbac::v1::PolicyRule;

/// The attributes RBAC looks at. Built from a [`RequestInfo`] with [`From`], or by hand for the
/// checks the API server makes on its own (`bind`, `escalate`, `impersonate`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct RequestAttributes {
    /// `true` for API resources; `false` for non-resource URLs (`/metrics`, `/healthz`).
    pub resource_request: bool,
    /// The Kubernetes verb, or the lowercased HTTP method of a non-resource request.
    pub verb: String,
    /// API group; `""` is the core group.
    pub api_group: String,
    /// Namespace; `""` for cluster-scoped and all-namespace requests. Decides which bindings
    /// apply; never matched against a rule.
    pub namespace: String,
    /// Plural resource.
    pub resource: String,
    /// Subresource, `""` if none.
    pub subresource: String,
    /// Object name, `""` if none.
    pub name: String,
    /// URL path of a non-resource request.
    pub path: String,
}

impl From<&RequestInfo> for RequestAttributes {
    fn from(info: &RequestInfo) -> Self {
        RequestAttributes {
            resource_request: info.is_resource_request,
            verb: info.verb.clone(),
            api_group: info.api_group.clone(),
            namespace: info.namespace.clone(),
            resource: info.resource.clone(),
            subresource: info.subresource.clone(),
            name: info.name.clone(),
            path: info.path.clone(),
        }
    }
}

impl RequestAttributes {
    /// A resource request (`verb` on `resource[/subresource]` in `group`, optionally named and
    /// namespaced).
    pub fn resource(verb: &str, api_group: &str, resource: &str) -> Self {
        RequestAttributes {
            resource_request: true,
            verb: verb.into(),
            api_group: api_group.into(),
            resource: resource.into(),
            ..RequestAttributes::default()
        }
    }

    /// A non-resource request (`verb` is the lowercased HTTP method).
    pub fn non_resource(verb: &str, path: &str) -> Self {
        RequestAttributes {
            verb: verb.into(),
            path: path.into(),
            ..RequestAttributes::default()
        }
    }

    /// The same request in a namespace.
    pub fn in_namespace(mut self, namespace: &str) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// The same request on a subresource.
    pub fn with_subresource(mut self, subresource: &str) -> Self {
        self.subresource = subresource.into();
        self
    }

    /// The same request on a named object.
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }
}

impl std::fmt::Display for RequestAttributes {
    /// kube-apiserver's wording in its RBAC denial log: `"get" resource "deployments.apps/scale"
    /// named "web" in namespace "ns"`, `"get" nonResourceURL "/metrics"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.resource_request {
            return write!(f, "{:?} nonResourceURL {:?}", self.verb, self.path);
        }
        let mut resource = self.resource.clone();
        if !self.api_group.is_empty() {
            resource = format!("{resource}.{}", self.api_group);
        }
        if !self.subresource.is_empty() {
            resource = format!("{resource}/{}", self.subresource);
        }
        write!(f, "{:?} resource {resource:?}", self.verb)?;
        if !self.name.is_empty() {
            write!(f, " named {:?}", self.name)?;
        }
        if self.namespace.is_empty() {
            f.write_str(" cluster-wide")
        } else {
            write!(f, " in namespace {:?}", self.namespace)
        }
    }
}

fn list(v: &Option<Vec<String>>) -> &[String] {
    v.as_deref().unwrap_or_default()
}

/// `verbs` contains `*` or the verb.
pub fn verb_matches(rule: &PolicyRule, verb: &str) -> bool {
    rule.verbs.iter().any(|v| v == "*" || v == verb)
}

/// `apiGroups` contains `*` or the group (`""` only matches the core group).
pub fn api_group_matches(rule: &PolicyRule, group: &str) -> bool {
    list(&rule.api_groups)
        .iter()
        .any(|g| g == "*" || g == group)
}

/// `resources` contains `*`, the resource (`pods`, or `pods/status` for a subresource), or
/// `*/subresource`. There is no other wildcard: `pods/*` is a literal.
pub fn resource_matches(rule: &PolicyRule, resource: &str, subresource: &str) -> bool {
    list(&rule.resources).iter().any(|r| {
        r == "*"
            || (subresource.is_empty() && r == resource)
            || (!subresource.is_empty()
                && (r.strip_prefix(resource).and_then(|s| s.strip_prefix('/'))
                    == Some(subresource)
                    || r.strip_prefix("*/") == Some(subresource)))
    })
}

/// `resourceNames` is empty, or contains the name (so a non-empty list never matches a request
/// without a name: `create` on a collection, `list` without a `metadata.name` field selector,
/// `deletecollection`).
pub fn resource_name_matches(rule: &PolicyRule, name: &str) -> bool {
    let names = list(&rule.resource_names);
    names.is_empty() || names.iter().any(|n| n == name)
}

/// `nonResourceURLs` contains `*`, the path, or a prefix of it written with a trailing `*`
/// (a plain string prefix: `/healthz*` matches `/healthzXYZ`).
pub fn non_resource_url_matches(rule: &PolicyRule, path: &str) -> bool {
    list(&rule.non_resource_urls).iter().any(|u| {
        u == "*" || u == path || (u.ends_with('*') && path.starts_with(u.trim_end_matches('*')))
    })
}

/// Whether one rule allows the request. A resource request ignores `nonResourceURLs`; a
/// non-resource request ignores `apiGroups`, `resources` and `resourceNames`.
pub fn rule_allows(request: &RequestAttributes, rule: &PolicyRule) -> bool {
    if request.resource_request {
        verb_matches(rule, &request.verb)
            && api_group_matches(rule, &request.api_group)
            && resource_matches(rule, &request.resource, &request.subresource)
            && resource_name_matches(rule, &request.name)
    } else {
        verb_matches(rule, &request.verb) && non_resource_url_matches(rule, &request.path)
    }
}

/// The index of the first rule that allows the request.
pub fn rules_allow(request: &RequestAttributes, rules: &[PolicyRule]) -> Option<usize> {
    rules.iter().position(|rule| rule_allows(request, rule))
}

/// Whether `owner` grants everything `requested` grants, as kube-apiserver compares rules to
/// prevent escalation (`Covers` in `k8s.io/component-helpers/auth/rbac/validation`): every
/// (group, resource, verb[, name]) and (URL, verb) of `requested` must be granted by `owner`
/// alone. `*` in `requested` is covered only by `*`; a requested rule without `resourceNames`
/// only by an owner without them; `*/sub` in `owner` covers any `res/sub`; an owner URL
/// ending in `*` covers the URLs it prefixes.
pub fn rule_covers(owner: &PolicyRule, requested: &PolicyRule) -> bool {
    let verbs_ok = requested.verbs.iter().all(|v| verb_matches(owner, v));
    if !verbs_ok {
        return false;
    }
    let groups_ok = list(&requested.api_groups)
        .iter()
        .all(|g| api_group_matches(owner, g));
    let resources_ok = list(&requested.resources).iter().all(|r| {
        list(&owner.resources).iter().any(|o| {
            o == "*"
                || o == r
                || o.strip_prefix('*').is_some_and(|sub| {
                    sub.starts_with('/') && r.ends_with(sub) && r.len() > sub.len()
                })
        })
    });
    let names = list(&requested.resource_names);
    let names_ok = if names.is_empty() {
        list(&owner.resource_names).is_empty()
    } else {
        names.iter().all(|n| resource_name_matches(owner, n))
    };
    let urls_ok = list(&requested.non_resource_urls).iter().all(|u| {
        list(&owner.non_resource_urls)
            .iter()
            .any(|o| o == u || (o.ends_with('*') && u.starts_with(o.trim_end_matches('*'))))
    });
    groups_ok && resources_ok && names_ok && urls_ok
}
