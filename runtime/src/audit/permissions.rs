//! What the operator may do, as [`Permissions`]: the generated roles (for the decision, with
//! the RBAC authorizer's semantics) and each rule traced back to where it was declared (for the
//! report).

use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_markers_rbac::authorize::defaults::{DEFAULT_ROLES, DefaultRole};
use kube_markers_rbac::authorize::manifests::ManifestProblem;
use kube_markers_rbac::authorize::rules_allow;
use kube_markers_rbac::authorize::{
    Authorizer, BindingKind, RequestAttributes, RoleKind, RoleRefError, UserInfo, manifests,
    rule_allows,
};
use kube_markers_rbac::{DEFAULT_ROLE_NAME, generate_roles, policy_rule};
use kube_markers_registry::{RbacEntry, Source};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";
const AUTHENTICATED: &str = "system:authenticated";

/// The Pod's namespace, which the deploy bundle's Deployment sets from the downward API
/// (`fieldRef: metadata.namespace`).
pub const NAMESPACE_ENV: &str = "POD_NAMESPACE";
/// The Pod's ServiceAccount, which the deploy bundle's Deployment sets from the downward API
/// (`fieldRef: spec.serviceAccountName`): the name after kustomize's `namePrefix`, as the API
/// server admitted the Pod.
pub const SERVICE_ACCOUNT_ENV: &str = "POD_SERVICE_ACCOUNT";
/// Who the generated roles are evaluated for when the operator's ServiceAccount is not known.
pub const PLACEHOLDER_USER: &str = "operator";

/// The user the operator's requests are made as: its ServiceAccount,
/// `system:serviceaccount:<POD_NAMESPACE>:<POD_SERVICE_ACCOUNT>` with the groups the API server
/// gives it, when both variables are set (the deploy bundle's Deployment sets them); else the
/// placeholder user [`PLACEHOLDER_USER`] in `system:authenticated`.
pub fn operator_user() -> UserInfo {
    operator_user_from(|name| std::env::var(name).ok())
}

/// [`operator_user`], from this environment.
pub(crate) fn operator_user_from(env: impl Fn(&str) -> Option<String>) -> UserInfo {
    let set = |name| env(name).filter(|v| !v.trim().is_empty());
    match (set(NAMESPACE_ENV), set(SERVICE_ACCOUNT_ENV)) {
        (Some(namespace), Some(name)) => UserInfo::service_account(namespace.trim(), name.trim()),
        _ => UserInfo::new(PLACEHOLDER_USER, [AUTHENTICATED]),
    }
}

/// Where a [`Permission`] was declared.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Declared {
    /// An `#[rbac(...)]` attribute of the linked registry.
    Attribute(Source),
    /// A rule of a Role or ClusterRole: generated from the attributes, or read from manifests.
    Rule {
        /// `ClusterRole "manager-role"`, or how a binding gives the role to the user.
        role: String,
        /// Index of the rule in the role (0-based).
        rule_index: usize,
        /// The file and document the role was read from (`None`: generated in-process).
        origin: Option<String>,
    },
}

impl fmt::Display for Declared {
    /// `src/lib.rs:12 (reconcile)`, or `rule 2 of ClusterRole "x" (role.yaml (document 1))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declared::Attribute(source) => source.fmt(f),
            Declared::Rule {
                role,
                rule_index,
                origin,
            } => {
                write!(f, "rule {} of {role}", rule_index + 1)?;
                match origin {
                    Some(origin) => write!(f, " ({origin})"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// One declared rule: an attribute (all its groups, resources and verbs) or one rule of a role.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Permission {
    /// Where it was declared.
    pub declared: Declared,
    /// `Some(namespace)` for a Role's rule: it applies in that namespace only.
    pub namespace: Option<String>,
    /// The rule, with the core group as `""`.
    pub rule: PolicyRule,
}

impl Permission {
    fn from_entry(entry: &RbacEntry) -> Self {
        Permission {
            declared: Declared::Attribute(entry.source.clone()),
            namespace: entry.marker.namespace.as_deref().map(str::to_string),
            rule: policy_rule(&entry.marker),
        }
    }

    /// Whether this rule allows the request (its namespace included).
    pub fn allows(&self, request: &RequestAttributes) -> bool {
        self.applies_in(&request.namespace) && rule_allows(request, &self.rule)
    }

    fn applies_in(&self, namespace: &str) -> bool {
        self.namespace.as_deref().is_none_or(|ns| ns == namespace)
    }

    /// The rule as an `#[rbac(...)]` attribute.
    pub fn attribute_text(&self) -> String {
        let list = |l: &Option<Vec<String>>| l.as_deref().unwrap_or_default().join(";");
        let mut args = Vec::new();
        if let Some(urls) = &self.rule.non_resource_urls {
            args.push(format!("urls = {:?}", urls.join(";")));
        } else {
            args.push(format!("groups = {:?}", list(&self.rule.api_groups)));
            args.push(format!("resources = {:?}", list(&self.rule.resources)));
            if self.rule.resource_names.is_some() {
                args.push(format!(
                    "resource_names = {:?}",
                    list(&self.rule.resource_names)
                ));
            }
        }
        args.push(format!("verbs = {:?}", self.rule.verbs.join(";")));
        if let Some(ns) = &self.namespace {
            args.push(format!("namespace = {ns:?}"));
        }
        format!("#[rbac({})]", args.join(", "))
    }
}

/// The operator's permissions: the roles requests are checked against, and the declared rules
/// the report names.
///
/// - [`Permissions::from_registry`]: the `#[rbac]` attributes linked into this binary,
///   aggregated exactly as the generator writes `role.yaml` (the generator's own aggregation),
///   with each ClusterRole bound cluster-wide and each Role in its namespace, as the deploy
///   bundle binds them.
/// - [`Permissions::from_manifests`]: Roles, ClusterRoles and their bindings from YAML files (a
///   directory with a kustomization as `kubectl apply -k` installs it), for a ServiceAccount
///   (what `codegen can-i --from` reads).
///
/// Both include what every cluster grants every user (kube-apiserver's default roles,
/// `kube_markers_rbac::authorize::defaults`: discovery paths, `/healthz`, `/version`, self
/// access reviews; for ServiceAccounts the OIDC documents), so a client's discovery requests and
/// [`preflight`](crate::preflight) are covered; those rules are never reported as unused.
#[derive(Debug, Clone)]
pub struct Permissions {
    pub(crate) authorizer: Authorizer,
    pub(crate) user: UserInfo,
    pub(crate) permissions: Vec<Permission>,
    /// The rules of the roles bound to the user (the generated ones, or the manifests'), to
    /// tell which rule each request needs.
    pub(crate) rules: Vec<Permission>,
    /// `rules` were generated from `permissions` (not the same list).
    pub(crate) rules_generated: bool,
    /// The authorizer's rules for the user, resolved once ([`Authorizer::rules_for`]): those of
    /// its ClusterRoleBindings (everywhere) ...
    pub(crate) cluster_wide: Vec<PolicyRule>,
    /// ... and those of its RoleBindings, by namespace.
    pub(crate) in_namespace: HashMap<String, Vec<PolicyRule>>,
    /// The cluster's defaults for every authenticated user (part of `cluster_wide`).
    pub(crate) defaults: Vec<PolicyRule>,
}

/// The manifests could not be read, or name no single ServiceAccount to evaluate as.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestsError {
    /// The files could not be read, or hold objects that are not valid.
    #[error("{HEADING}{}", lines(.0))]
    Unreadable(Vec<ManifestProblem>),
    /// No user was given, and the manifests do not define exactly one ServiceAccount.
    #[error(
        "{HEADING}\n  {} defines {count} ServiceAccounts: name the user to evaluate as",
        path.display()
    )]
    NotOneServiceAccount {
        /// The manifests.
        path: PathBuf,
        /// How many ServiceAccounts they define.
        count: usize,
    },
    /// Bindings of the user refer to roles the manifests do not define.
    #[error("{HEADING}{}", lines(.0))]
    UnresolvedRoles(Vec<RoleRefError>),
}

const HEADING: &str = "cannot read the operator's permissions from manifests:";

/// `\n  ` before each problem, with its sources.
fn lines<E: std::error::Error>(problems: &[E]) -> String {
    problems
        .iter()
        .map(|p| format!("\n  {}", crate::with_sources(p)))
        .collect()
}

impl Permissions {
    /// The attributes of the linked registry ([`kube_markers_registry::rbac_entries`]), for
    /// [`operator_user`]: the Pod's ServiceAccount under the deploy bundle, else a placeholder
    /// user (name the user with [`with_user_name`](Self::with_user_name)).
    pub fn from_registry() -> Self {
        Permissions::from_entries(&kube_markers_registry::rbac_entries())
    }

    /// These attributes (a subset of the registry, say one crate's), for [`operator_user`].
    pub fn from_entries(entries: &[&RbacEntry]) -> Self {
        Permissions::from_entries_for(entries, operator_user())
    }

    pub(crate) fn from_entries_for(entries: &[&RbacEntry], user: UserInfo) -> Self {
        let subject = Subject {
            kind: "User".into(),
            api_group: Some(RBAC_GROUP.into()),
            name: user.name.clone(),
            namespace: None,
        };
        let mut authorizer = Authorizer::default();
        let mut rules = Vec::new();
        for role in generate_roles(entries.iter().map(|e| &e.marker), DEFAULT_ROLE_NAME) {
            let name = role.key.name.clone();
            let described = if role.is_cluster_role() {
                format!("ClusterRole {name:?}")
            } else {
                format!("Role {name:?} in {:?}", role.key.namespace)
            };
            for (rule_index, rule) in role.policy_rules().into_iter().enumerate() {
                rules.push(Permission {
                    declared: Declared::Rule {
                        role: described.clone(),
                        rule_index,
                        origin: None,
                    },
                    namespace: (!role.is_cluster_role()).then(|| role.key.namespace.clone()),
                    rule,
                });
            }
            let role_ref = |kind: &str| RoleRef {
                // `String` before k8s-openapi's v1_36, `Option<String>` since.
                api_group: String::from(RBAC_GROUP).into(),
                kind: kind.into(),
                name: name.clone(),
            };
            let rules = Some(role.policy_rules());
            if role.is_cluster_role() {
                authorizer.cluster_roles.push(ClusterRole {
                    metadata: meta(&name, None),
                    rules,
                    ..ClusterRole::default()
                });
                authorizer.cluster_role_bindings.push(ClusterRoleBinding {
                    metadata: meta(&name, None),
                    role_ref: role_ref("ClusterRole"),
                    subjects: Some(vec![subject.clone()]),
                });
            } else {
                let ns = role.key.namespace.as_str();
                authorizer.roles.push(Role {
                    metadata: meta(&name, Some(ns)),
                    rules,
                });
                authorizer.role_bindings.push(RoleBinding {
                    metadata: meta(&name, Some(ns)),
                    role_ref: role_ref("Role"),
                    subjects: Some(vec![subject.clone()]),
                });
            }
        }
        Permissions::resolved(
            authorizer,
            user,
            entries.iter().map(|e| Permission::from_entry(e)).collect(),
            rules,
            true,
        )
    }

    /// The roles and bindings in the YAML files under `path` (a file or a directory, as
    /// `codegen can-i --from`), for `user`, or, when `None`, for the one ServiceAccount the
    /// manifests define (the deploy bundle's). Each rule of a role bound to the user is one
    /// [`Permission`].
    pub fn from_manifests(path: &Path, user: Option<UserInfo>) -> Result<Self, ManifestsError> {
        let loaded = manifests::load(path).map_err(ManifestsError::Unreadable)?;
        let user = match (user, loaded.service_accounts.as_slice()) {
            (Some(user), _) => user,
            (None, [(ns, name, _)]) => UserInfo::service_account(ns, name),
            (None, accounts) => {
                return Err(ManifestsError::NotOneServiceAccount {
                    path: path.to_path_buf(),
                    count: accounts.len(),
                });
            }
        };
        let authorizer = loaded.authorizer.clone();
        let mut permissions = Vec::new();
        let mut namespaces: Vec<&str> = authorizer
            .role_bindings
            .iter()
            .filter_map(|b| b.metadata.namespace.as_deref())
            .collect();
        namespaces.sort_unstable();
        namespaces.dedup();
        let mut errors = Vec::new();
        for namespace in std::iter::once("").chain(namespaces) {
            let found = authorizer.rules_for(&user, namespace);
            errors.extend(found.errors);
            for sourced in found.rules {
                let source = &sourced.source;
                // Cluster-wide bindings are seen once, with the empty namespace.
                let scoped = source.binding_kind == BindingKind::RoleBinding;
                if scoped == namespace.is_empty() {
                    continue;
                }
                let kind = match source.role_kind {
                    RoleKind::ClusterRole => "ClusterRole",
                    RoleKind::Role => "Role",
                };
                let origin = loaded
                    .origin(kind, source.role_namespace.as_deref(), &source.role_name)
                    .map(|o| o.to_string());
                permissions.push(Permission {
                    declared: Declared::Rule {
                        role: source.to_string(),
                        rule_index: sourced.rule_index,
                        origin,
                    },
                    namespace: scoped.then(|| namespace.to_string()),
                    rule: sourced.rule.clone(),
                });
            }
        }
        if !errors.is_empty() {
            return Err(ManifestsError::UnresolvedRoles(errors));
        }
        let rules = permissions.clone();
        Ok(Permissions::resolved(
            authorizer,
            user,
            permissions,
            rules,
            false,
        ))
    }

    /// Adds the cluster's defaults and resolves the rules that apply to the user, once: the
    /// objects do not change, so each request is matched against the rules kube-apiserver's
    /// RBAC authorizer would visit for it, without walking the bindings again.
    fn resolved(
        mut authorizer: Authorizer,
        user: UserInfo,
        permissions: Vec<Permission>,
        rules: Vec<Permission>,
        rules_generated: bool,
    ) -> Self {
        let defaults = add_cluster_defaults(&mut authorizer, &user);
        let cluster_wide = authorizer
            .rules_for(&user, "")
            .rules
            .iter()
            .map(|r| r.rule.clone())
            .collect();
        let mut in_namespace: HashMap<String, Vec<PolicyRule>> = HashMap::new();
        for binding in &authorizer.role_bindings {
            let Some(ns) = binding.metadata.namespace.as_deref() else {
                continue;
            };
            if in_namespace.contains_key(ns) {
                continue;
            }
            let scoped = authorizer
                .rules_for(&user, ns)
                .rules
                .iter()
                .filter(|r| r.source.binding_kind == BindingKind::RoleBinding)
                .map(|r| r.rule.clone())
                .collect();
            in_namespace.insert(ns.to_string(), scoped);
        }
        Permissions {
            authorizer,
            user,
            permissions,
            rules,
            rules_generated,
            cluster_wide,
            in_namespace,
            defaults,
        }
    }

    /// The same permissions, with requests made (and denied, in [`Mode::Deny`]) as the user
    /// `name` (default: [`operator_user`] for the registry's, the manifests' ServiceAccount
    /// for theirs), say `system:serviceaccount:ops:op` when the operator runs outside the
    /// bundle's Deployment. Only the denial message shows the name: the generated roles are
    /// bound to whoever makes the requests, and the groups stay as they were.
    ///
    /// [`Mode::Deny`]: super::Mode::Deny
    pub fn with_user_name(mut self, name: &str) -> Self {
        for binding in &mut self.authorizer.cluster_role_bindings {
            for subject in binding.subjects.iter_mut().flatten() {
                if subject.kind == "User" && subject.name == self.user.name {
                    subject.name = name.to_string();
                }
            }
        }
        for binding in &mut self.authorizer.role_bindings {
            for subject in binding.subjects.iter_mut().flatten() {
                if subject.kind == "User" && subject.name == self.user.name {
                    subject.name = name.to_string();
                }
            }
        }
        self.user.name = name.to_string();
        self
    }

    /// The user requests are evaluated for, and denials name.
    pub fn user(&self) -> &UserInfo {
        &self.user
    }

    /// The declared rules, in registry (or manifest) order.
    pub fn declared(&self) -> &[Permission] {
        &self.permissions
    }

    /// Whether the roles allow the request (as `Authorizer::authorize` would decide).
    pub fn allows(&self, request: &RequestAttributes) -> bool {
        rules_allow(request, &self.cluster_wide).is_some()
            || (!request.namespace.is_empty()
                && self
                    .in_namespace
                    .get(&request.namespace)
                    .is_some_and(|rules| rules_allow(request, rules).is_some()))
    }

    /// Whether the cluster's defaults for authenticated users allow the request.
    pub(crate) fn allowed_by_defaults(&self, request: &RequestAttributes) -> bool {
        rules_allow(request, &self.defaults).is_some()
    }
}

fn meta(name: &str, namespace: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: namespace.map(str::to_string),
        ..ObjectMeta::default()
    }
}

/// kube-apiserver's default roles for every user (`kube_markers_rbac::authorize::defaults`,
/// the table `codegen can-i` uses), bound as the server binds them; returns the rules of those
/// bound to a group of `user`.
fn add_cluster_defaults(authorizer: &mut Authorizer, user: &UserInfo) -> Vec<PolicyRule> {
    authorizer
        .cluster_roles
        .extend(DEFAULT_ROLES.iter().map(DefaultRole::cluster_role));
    authorizer
        .cluster_role_bindings
        .extend(DEFAULT_ROLES.iter().map(DefaultRole::cluster_role_binding));
    DEFAULT_ROLES
        .iter()
        .filter(|role| {
            role.groups
                .iter()
                .any(|g| user.groups.iter().any(|u| u == g))
        })
        .flat_map(DefaultRole::rules)
        .collect()
}
