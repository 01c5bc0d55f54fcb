//! What an attribute means, as plain data: the one model of an RBAC rule that the parser
//! produces, the scan compares, and the generator aggregates (the registry holds the same
//! fields as statics, and converts to this).

/// A validated `#[rbac]` attribute: the same fields as controller-gen's `rbac.Rule` plus where
/// the rule goes.
///
/// Lists keep the order and spelling the user wrote (`core` stays `core`): normalising is the
/// aggregator's job, so that provenance reports can quote the attribute as written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct RbacMarker {
    /// API groups as written (`core` is mapped to `""` during normalization).
    pub groups: Vec<String>,
    /// Resources, possibly with `/subresource`.
    pub resources: Vec<String>,
    /// Object names the rule is restricted to.
    pub resource_names: Vec<String>,
    /// Verbs.
    pub verbs: Vec<String>,
    /// Non-resource URLs.
    pub urls: Vec<String>,
    /// Namespace of the Role; `None` for the ClusterRole.
    pub namespace: Option<String>,
    /// Name of the (Cluster)Role; `None` for the generator's default.
    pub role_name: Option<String>,
    /// `allow(lint, ..., reason = "...")`: the generator's lints this attribute accepts, one
    /// entry per lint, in the order written.
    pub allow: Vec<Allow>,
}

/// One lint an attribute accepts, and why.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Allow {
    /// The lint's kebab-case name (one of [`crate::lints::Lint::ALL`]).
    pub lint: String,
    /// The reason the attribute states (never empty).
    pub reason: String,
}
