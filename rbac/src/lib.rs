//! RBAC as kube-markers needs it: the rules of `#[rbac]` attributes merged into roles exactly
//! as controller-gen merges them ([`aggregate`]), and requests authorized against roles
//! exactly as kube-apiserver's RBAC authorizer does ([`authorize`]), offline.
//!
//! Both the run-time audit of `kube-markers` (feature `audit`) and its generator use this
//! crate; operators reach it through them. Nothing here is a stable API: depend on
//! `kube-markers`.

pub mod aggregate;
pub mod authorize;
#[doc(hidden)]
pub mod sample;

pub use aggregate::{
    DEFAULT_ROLE_NAME, ExplainedRole, GeneratedRole, Origins, RoleKey, RoleObject, Rule,
    generate_roles, generate_roles_counting, generate_roles_explained, merge_collisions, normalize,
    normalize_counting, policy_rule,
};
