//! Kubernetes authorization, offline, with kube-apiserver's own semantics.
//!
//! - [`request_info`] turns an HTTP method and URL into what the API server authorizes
//!   (verb, group, resource, subresource, name, namespace), as kube-apiserver's
//!   `RequestInfoFactory` does (k8s.io/apiserver `pkg/endpoints/request/requestinfo.go`):
//!   `GET` on a collection is `list` or `watch`, `DELETE` on one is `deletecollection`, a
//!   `fieldSelector=metadata.name=x` names the object of a list or watch, `/namespaces/NAME` is
//!   in namespace `NAME`, the legacy `/watch/` and `/proxy/` paths, and the rest.
//! - [`Authorizer`] evaluates Roles, ClusterRoles and their bindings for a [`UserInfo`], as
//!   kube-apiserver's RBAC authorizer does (`plugin/pkg/auth/authorizer/rbac/rbac.go`,
//!   `pkg/registry/rbac/validation/rule.go`, `pkg/apis/rbac/v1/evaluation_helpers.go`), and
//!   says which binding, role and rule allowed a request ([`Decision`]).
//!
//! ```
//! use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! use kube_markers_rbac::authorize::{Authorizer, RequestAttributes, UserInfo, request_info};
//!
//! let role = ClusterRole {
//!     metadata: ObjectMeta { name: Some("manager-role".into()), ..ObjectMeta::default() },
//!     rules: Some(vec![PolicyRule {
//!         api_groups: Some(vec!["apps".into()]),
//!         resources: Some(vec!["deployments".into()]),
//!         verbs: vec!["list".into(), "watch".into()],
//!         ..PolicyRule::default()
//!     }]),
//!     ..ClusterRole::default()
//! };
//! let binding = ClusterRoleBinding {
//!     metadata: ObjectMeta { name: Some("manager-rolebinding".into()), ..ObjectMeta::default() },
//!     role_ref: RoleRef { api_group: Some("rbac.authorization.k8s.io".into()), kind: "ClusterRole".into(), name: "manager-role".into() },
//!     subjects: Some(vec![Subject { kind: "ServiceAccount".into(), name: "op".into(), namespace: Some("ops".into()), ..Subject::default() }]),
//! };
//! let authorizer = Authorizer { cluster_roles: vec![role], cluster_role_bindings: vec![binding], ..Authorizer::default() };
//! let operator = UserInfo::service_account("ops", "op");
//!
//! let watch = request_info("GET", "/apis/apps/v1/namespaces/web/deployments?watch=true");
//! let decision = authorizer.authorize(&operator, &RequestAttributes::from(&watch));
//! assert_eq!(decision.to_string(), r#"RBAC: allowed by ClusterRoleBinding "manager-rolebinding" of ClusterRole "manager-role" to ServiceAccount "op/ops""#);
//!
//! let delete = request_info("DELETE", "/apis/apps/v1/namespaces/web/deployments/api");
//! assert!(!authorizer.authorize(&operator, &RequestAttributes::from(&delete)).is_allowed());
//! ```

mod authorizer;
pub mod defaults;
pub mod manifests;
mod request_info;
mod rules;
mod selectors;

pub use authorizer::{
    Authorizer, BindingKind, Decision, Grant, RoleKind, RoleRefError, RuleSource, RulesFor,
    SourcedRule, UserInfo, split_service_account_name,
};
pub use request_info::{RequestError, RequestInfo, request_info};
pub use rules::{
    RequestAttributes, api_group_matches, non_resource_url_matches, resource_matches,
    resource_name_matches, rule_allows, rule_covers, rules_allow, verb_matches,
};
