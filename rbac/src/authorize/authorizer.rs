//! kube-apiserver's RBAC authorizer over a fixed set of objects: which bindings apply to a
//! user, which rules they bring, and the first rule that allows a request
//! (`plugin/pkg/auth/authorizer/rbac/rbac.go` and `pkg/registry/rbac/validation/rule.go`).

use super::rules::{RequestAttributes, rule_allows};
use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject,
};
use std::fmt;

const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";
const ALL_SERVICE_ACCOUNTS: &str = "system:serviceaccounts";
const ALL_AUTHENTICATED: &str = "system:authenticated";
const ALL_UNAUTHENTICATED: &str = "system:unauthenticated";
const ANONYMOUS: &str = "system:anonymous";

/// Who makes the request: a user name and its groups, as the authenticator (or impersonation)
/// hands them to the authorizers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserInfo {
    /// `alice`, or `system:serviceaccount:NAMESPACE:NAME`.
    pub name: String,
    /// Groups, in the order they were given.
    pub groups: Vec<String>,
}

impl UserInfo {
    /// A user with exactly these groups.
    pub fn new(
        name: impl Into<String>,
        groups: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        UserInfo {
            name: name.into(),
            groups: groups.into_iter().map(Into::into).collect(),
        }
    }

    /// A ServiceAccount authenticated by its token: `system:serviceaccount:NS:NAME` in
    /// `system:serviceaccounts`, `system:serviceaccounts:NS` and `system:authenticated`.
    pub fn service_account(namespace: &str, name: &str) -> Self {
        UserInfo {
            name: format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"),
            groups: vec![
                ALL_SERVICE_ACCOUNTS.to_string(),
                format!("{ALL_SERVICE_ACCOUNTS}:{namespace}"),
                ALL_AUTHENTICATED.to_string(),
            ],
        }
    }

    /// The identity kube-apiserver builds for `Impersonate-User` / `Impersonate-Group`
    /// (`kubectl --as NAME --as-group G`): a ServiceAccount name without groups gets its
    /// ServiceAccount groups, and `system:authenticated` is added unless the name is
    /// `system:anonymous` or the groups already say authenticated or unauthenticated
    /// (`system:anonymous` gets `system:unauthenticated` instead).
    pub fn impersonated(name: &str, groups: &[String]) -> Self {
        let mut groups = groups.to_vec();
        if groups.is_empty()
            && let Some((namespace, _)) = split_service_account_name(name)
        {
            groups = vec![
                ALL_SERVICE_ACCOUNTS.to_string(),
                format!("{ALL_SERVICE_ACCOUNTS}:{namespace}"),
            ];
        }
        if name == ANONYMOUS {
            if !groups.iter().any(|g| g == ALL_UNAUTHENTICATED) {
                groups.push(ALL_UNAUTHENTICATED.to_string());
            }
        } else if !groups
            .iter()
            .any(|g| g == ALL_AUTHENTICATED || g == ALL_UNAUTHENTICATED)
        {
            groups.push(ALL_AUTHENTICATED.to_string());
        }
        UserInfo {
            name: name.to_string(),
            groups,
        }
    }

    /// `(namespace, name)` if this is a ServiceAccount's user name.
    pub fn service_account_name(&self) -> Option<(&str, &str)> {
        split_service_account_name(&self.name)
    }
}

impl fmt::Display for UserInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} (groups {:?})", self.name, self.groups)
    }
}

/// `system:serviceaccount:NS:NAME` → `(NS, NAME)` when NS is a DNS-1123 label and NAME a
/// DNS-1123 subdomain (apiserver's `serviceaccount.SplitUsername`); anything else is an
/// ordinary user name.
pub fn split_service_account_name(user: &str) -> Option<(&str, &str)> {
    let (namespace, name) = user.strip_prefix(SERVICE_ACCOUNT_PREFIX)?.split_once(':')?;
    let valid = !name.contains(':')
        && super::selectors::is_dns1123_label(namespace.as_bytes())
        && super::selectors::is_dns1123_subdomain(name.as_bytes());
    valid.then_some((namespace, name))
}

/// The RBAC objects of a cluster (or of a directory of manifests), and the authorizer over them.
///
/// Evaluation follows kube-apiserver: every ClusterRoleBinding whose subjects include the user,
/// then (for a namespaced request) every RoleBinding in the request's namespace; each binding's
/// role is resolved (a Role in the binding's namespace, or a ClusterRole), and the first rule
/// that allows the request decides. Bindings and rules are visited in the order of these
/// vectors. A role that does not exist contributes nothing (its error is reported when nothing
/// allows). RBAC never denies: without an allowing rule the answer is "no opinion", which the
/// API server turns into 403 when no other authorizer allows.
///
/// Not modelled: `system:masters`, which kube-apiserver allows before RBAC is asked, and the
/// other authorizers of a cluster (Node, webhooks).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Authorizer {
    /// Roles (looked up by namespace and name).
    pub roles: Vec<Role>,
    /// ClusterRoles (looked up by name).
    pub cluster_roles: Vec<ClusterRole>,
    /// RoleBindings (each applies in its own namespace only).
    pub role_bindings: Vec<RoleBinding>,
    /// ClusterRoleBindings (apply everywhere).
    pub cluster_role_bindings: Vec<ClusterRoleBinding>,
}

/// Which kind of binding granted something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BindingKind {
    /// A ClusterRoleBinding: applies in every namespace and cluster-wide.
    ClusterRoleBinding,
    /// A RoleBinding: applies in its namespace only.
    RoleBinding,
}

/// Which kind of role a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoleKind {
    /// A ClusterRole (bound cluster-wide, or in one namespace by a RoleBinding).
    ClusterRole,
    /// A Role.
    Role,
}

impl fmt::Display for BindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BindingKind::ClusterRoleBinding => "ClusterRoleBinding",
            BindingKind::RoleBinding => "RoleBinding",
        })
    }
}

impl fmt::Display for RoleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RoleKind::ClusterRole => "ClusterRole",
            RoleKind::Role => "Role",
        })
    }
}

/// Where a rule came from: the binding that applies to the user, the subject of it that
/// matched, and the role it refers to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RuleSource {
    /// ClusterRoleBinding or RoleBinding.
    pub binding_kind: BindingKind,
    /// The binding's name.
    pub binding_name: String,
    /// The binding's namespace (`None` for a ClusterRoleBinding).
    pub binding_namespace: Option<String>,
    /// The first subject of the binding that matched the user.
    pub subject: Subject,
    /// Index of that subject in the binding.
    pub subject_index: usize,
    /// ClusterRole or Role.
    pub role_kind: RoleKind,
    /// The role's name.
    pub role_name: String,
    /// The role's namespace (`None` for a ClusterRole).
    pub role_namespace: Option<String>,
}

impl fmt::Display for RuleSource {
    /// kube-apiserver's wording: `ClusterRoleBinding "b" of ClusterRole "r" to ServiceAccount
    /// "sa/ns"`, `RoleBinding "b/ns" of Role "r" to User "alice"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let binding = match &self.binding_namespace {
            Some(ns) => format!("{}/{ns}", self.binding_name),
            None => self.binding_name.clone(),
        };
        let subject = match (self.subject.kind.as_str(), &self.subject.namespace) {
            ("ServiceAccount", Some(ns)) if !ns.is_empty() => format!("{}/{ns}", self.subject.name),
            ("ServiceAccount", _) => format!(
                "{}/{}",
                self.subject.name,
                self.binding_namespace.as_deref().unwrap_or_default()
            ),
            _ => self.subject.name.clone(),
        };
        write!(
            f,
            "{} {binding:?} of {} {:?} to {} {subject:?}",
            self.binding_kind, self.role_kind, self.role_name, self.subject.kind
        )
    }
}

/// A rule that applies to a user, with its origin.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SourcedRule<'a> {
    /// Binding, subject and role.
    pub source: RuleSource,
    /// Index of the rule in the role's `rules`.
    pub rule_index: usize,
    /// The rule.
    pub rule: &'a PolicyRule,
}

/// Every rule that applies to a user in a namespace, and why some bindings brought none.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct RulesFor<'a> {
    /// In evaluation order.
    pub rules: Vec<SourcedRule<'a>>,
    /// Bindings that apply but whose role could not be resolved.
    pub errors: Vec<RoleRefError>,
}

/// A binding that applies refers to a role that cannot be resolved; kube-apiserver's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RoleRefError {
    /// No Role of this name in the binding's namespace.
    #[error(
        "role.rbac.authorization.k8s.io {name:?} not found{}",
        namespace.as_ref().map(|ns| format!(" in namespace {ns:?}")).unwrap_or_default()
    )]
    RoleNotFound {
        /// The Role's name.
        name: String,
        /// The binding's namespace (none for a ClusterRoleBinding, which cannot refer to a
        /// Role).
        namespace: Option<String>,
    },
    /// No ClusterRole of this name.
    #[error("clusterrole.rbac.authorization.k8s.io {name:?} not found")]
    ClusterRoleNotFound {
        /// The ClusterRole's name.
        name: String,
    },
    /// `roleRef.kind` is neither `Role` nor `ClusterRole`.
    #[error("unsupported role reference kind: {kind:?}")]
    UnsupportedKind {
        /// The kind given.
        kind: String,
    },
}

/// The authorizer's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// A rule allows the request.
    Allow(Box<Grant>),
    /// No rule allows it. RBAC has no opinion; the API server answers 403 unless another
    /// authorizer allows.
    NoOpinion {
        /// Role references that could not be resolved, as kube-apiserver reports them.
        errors: Vec<RoleRefError>,
    },
}

/// What allowed a request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Grant {
    /// Binding, subject and role.
    pub source: RuleSource,
    /// Index of the allowing rule in the role's `rules`.
    pub rule_index: usize,
    /// The allowing rule.
    pub rule: PolicyRule,
}

impl Decision {
    /// `true` for [`Decision::Allow`].
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allow(_))
    }

    /// The grant, if allowed.
    pub fn grant(&self) -> Option<&Grant> {
        match self {
            Decision::Allow(grant) => Some(grant),
            Decision::NoOpinion { .. } => None,
        }
    }
}

impl fmt::Display for Decision {
    /// kube-apiserver's reason text: `RBAC: allowed by …`, or the resolution errors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Allow(grant) => write!(f, "RBAC: allowed by {}", grant.source),
            Decision::NoOpinion { errors } if errors.is_empty() => {
                f.write_str("RBAC: no rule allows it")
            }
            Decision::NoOpinion { errors } => {
                f.write_str("RBAC: ")?;
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
        }
    }
}

/// A ServiceAccount subject without a namespace takes the binding's (none for a
/// ClusterRoleBinding, so it never matches there).
fn subject_applies(user: &UserInfo, subject: &Subject, binding_namespace: &str) -> bool {
    match subject.kind.as_str() {
        "User" => user.name == subject.name,
        "Group" => user.groups.contains(&subject.name),
        "ServiceAccount" => {
            let namespace = match subject.namespace.as_deref() {
                Some(ns) if !ns.is_empty() => ns,
                _ => binding_namespace,
            };
            !namespace.is_empty()
                && user
                    .name
                    .strip_prefix(SERVICE_ACCOUNT_PREFIX)
                    .and_then(|rest| rest.strip_prefix(namespace))
                    .and_then(|rest| rest.strip_prefix(':'))
                    == Some(subject.name.as_str())
        }
        _ => false,
    }
}

fn first_applying_subject<'s>(
    user: &UserInfo,
    subjects: &'s Option<Vec<Subject>>,
    binding_namespace: &str,
) -> Option<(usize, &'s Subject)> {
    subjects
        .iter()
        .flatten()
        .enumerate()
        .find(|(_, s)| subject_applies(user, s, binding_namespace))
}

impl Authorizer {
    /// Whether RBAC allows `user` to make `request`, and why.
    pub fn authorize(&self, user: &UserInfo, request: &RequestAttributes) -> Decision {
        let mut errors = Vec::new();
        let mut found = None;
        self.visit_rules_for(user, &request.namespace, &mut |item| match item {
            Ok(sourced) => {
                if rule_allows(request, sourced.rule) {
                    found = Some(Grant {
                        source: sourced.source,
                        rule_index: sourced.rule_index,
                        rule: sourced.rule.clone(),
                    });
                    return false;
                }
                true
            }
            Err(e) => {
                errors.push(e);
                true
            }
        });
        match found {
            Some(grant) => Decision::Allow(Box::new(grant)),
            None => Decision::NoOpinion { errors },
        }
    }

    /// Every rule that applies to `user` for requests in `namespace` (`""`: cluster-wide, so
    /// ClusterRoleBindings only), as kube-apiserver's `RulesFor`.
    pub fn rules_for(&self, user: &UserInfo, namespace: &str) -> RulesFor<'_> {
        let mut out = RulesFor::default();
        self.visit_rules_for(user, namespace, &mut |item| {
            match item {
                Ok(rule) => out.rules.push(rule),
                Err(e) => out.errors.push(e),
            }
            true
        });
        out
    }

    /// Feeds `visit` each applicable rule (or resolution error) in evaluation order until it
    /// returns `false`.
    fn visit_rules_for<'a>(
        &'a self,
        user: &UserInfo,
        namespace: &str,
        visit: &mut dyn FnMut(Result<SourcedRule<'a>, RoleRefError>) -> bool,
    ) {
        for binding in &self.cluster_role_bindings {
            let Some((subject_index, subject)) =
                first_applying_subject(user, &binding.subjects, "")
            else {
                continue;
            };
            let source = |role_kind, role_namespace| RuleSource {
                binding_kind: BindingKind::ClusterRoleBinding,
                binding_name: binding.metadata.name.clone().unwrap_or_default(),
                binding_namespace: None,
                subject: subject.clone(),
                subject_index,
                role_kind,
                role_name: binding.role_ref.name.clone(),
                role_namespace,
            };
            if !self.visit_role(
                &binding.role_ref.kind,
                &binding.role_ref.name,
                "",
                source,
                visit,
            ) {
                return;
            }
        }
        if namespace.is_empty() {
            return;
        }
        for binding in &self.role_bindings {
            if binding.metadata.namespace.as_deref() != Some(namespace) {
                continue;
            }
            let Some((subject_index, subject)) =
                first_applying_subject(user, &binding.subjects, namespace)
            else {
                continue;
            };
            let source = |role_kind, role_namespace| RuleSource {
                binding_kind: BindingKind::RoleBinding,
                binding_name: binding.metadata.name.clone().unwrap_or_default(),
                binding_namespace: Some(namespace.to_string()),
                subject: subject.clone(),
                subject_index,
                role_kind,
                role_name: binding.role_ref.name.clone(),
                role_namespace,
            };
            if !self.visit_role(
                &binding.role_ref.kind,
                &binding.role_ref.name,
                namespace,
                source,
                visit,
            ) {
                return;
            }
        }
    }

    /// Resolves a role reference (a Role in the binding's namespace, or a ClusterRole) and
    /// visits its rules; `false` when the visitor stopped.
    fn visit_role<'a>(
        &'a self,
        kind: &str,
        name: &str,
        binding_namespace: &str,
        source: impl Fn(RoleKind, Option<String>) -> RuleSource,
        visit: &mut dyn FnMut(Result<SourcedRule<'a>, RoleRefError>) -> bool,
    ) -> bool {
        let (rules, source) = match kind {
            "Role" => {
                let role = self.roles.iter().find(|r| {
                    !binding_namespace.is_empty()
                        && r.metadata.namespace.as_deref() == Some(binding_namespace)
                        && r.metadata.name.as_deref() == Some(name)
                });
                match role {
                    Some(role) => (
                        &role.rules,
                        source(RoleKind::Role, Some(binding_namespace.to_string())),
                    ),
                    None => {
                        return visit(Err(RoleRefError::RoleNotFound {
                            name: name.to_string(),
                            namespace: (!binding_namespace.is_empty())
                                .then(|| binding_namespace.to_string()),
                        }));
                    }
                }
            }
            "ClusterRole" => {
                let role = self
                    .cluster_roles
                    .iter()
                    .find(|r| r.metadata.name.as_deref() == Some(name));
                match role {
                    Some(role) => (&role.rules, source(RoleKind::ClusterRole, None)),
                    None => {
                        return visit(Err(RoleRefError::ClusterRoleNotFound {
                            name: name.to_string(),
                        }));
                    }
                }
            }
            other => {
                return visit(Err(RoleRefError::UnsupportedKind {
                    kind: other.to_string(),
                }));
            }
        };
        for (rule_index, rule) in rules.iter().flatten().enumerate() {
            let sourced = SourcedRule {
                source: source.clone(),
                rule_index,
                rule,
            };
            if !visit(Ok(sourced)) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impersonation_adds_the_groups_kube_apiserver_adds() {
        let sa = UserInfo::impersonated("system:serviceaccount:ops:op", &[]);
        assert_eq!(
            sa.groups,
            [
                "system:serviceaccounts",
                "system:serviceaccounts:ops",
                "system:authenticated"
            ]
        );
        assert_eq!(sa, UserInfo::service_account("ops", "op"));
        let with_group = UserInfo::impersonated("system:serviceaccount:ops:op", &["devs".into()]);
        assert_eq!(with_group.groups, ["devs", "system:authenticated"]);
        let user = UserInfo::impersonated("alice", &["system:authenticated".into(), "x".into()]);
        assert_eq!(user.groups, ["system:authenticated", "x"]);
        let anonymous = UserInfo::impersonated("system:anonymous", &[]);
        assert_eq!(anonymous.groups, ["system:unauthenticated"]);
        // Not a valid ServiceAccount name: an ordinary user.
        let odd = UserInfo::impersonated("system:serviceaccount:Ops:op", &[]);
        assert_eq!(odd.groups, ["system:authenticated"]);
        assert_eq!(odd.service_account_name(), None);
        assert_eq!(sa.service_account_name(), Some(("ops", "op")));
        assert_eq!(
            split_service_account_name("system:serviceaccount:a:b:c"),
            None
        );
    }

    #[test]
    fn service_account_subjects_default_to_the_binding_namespace() {
        let sa = UserInfo::service_account("ns", "op");
        let subject = |namespace: Option<&str>| Subject {
            kind: "ServiceAccount".into(),
            name: "op".into(),
            namespace: namespace.map(Into::into),
            ..Subject::default()
        };
        assert!(subject_applies(&sa, &subject(Some("ns")), ""));
        assert!(subject_applies(&sa, &subject(None), "ns"));
        assert!(subject_applies(&sa, &subject(Some("")), "ns"));
        assert!(!subject_applies(&sa, &subject(None), ""));
        assert!(!subject_applies(&sa, &subject(Some("other")), "ns"));
        let other = Subject {
            kind: "ServiceAccount".into(),
            name: "o".into(),
            namespace: Some("ns".into()),
            ..Subject::default()
        };
        assert!(!subject_applies(&sa, &other, ""));
        let group = Subject {
            kind: "Group".into(),
            name: "system:serviceaccounts:ns".into(),
            ..Subject::default()
        };
        assert!(subject_applies(&sa, &group, ""));
        let unknown = Subject {
            kind: "user".into(),
            name: sa.name.clone(),
            ..Subject::default()
        };
        assert!(!subject_applies(&sa, &unknown, ""));
    }
}
