//! The generator's RBAC lints: the one list that the attribute's `allow(...)` is checked
//! against at compile time and that the generator checks each attribute with.
//!
//! Each lint has a stable kebab-case name (what `allow(...)` and the warnings spell) and names
//! the public guidance it follows. The checks themselves are the generator's
//! (`kube_markers::codegen`), which matches on [`Lint`] so that every lint here has one.

/// One lint. [`Lint::ALL`] lists them in the order the generator reports them.
///
/// Not `#[non_exhaustive]`: the generator matches on it exhaustively, so a lint added here
/// does not compile until it has a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lint {
    /// `verbs` contains `*`.
    WildcardVerbs,
    /// `resources` contains `*` or `*/subresource`.
    WildcardResources,
    /// `groups` contains `*`.
    WildcardGroups,
    /// `escalate` on roles or clusterroles: create or update roles with permissions the holder
    /// does not have.
    Escalate,
    /// `bind` on roles or clusterroles: bind roles with permissions the holder does not have.
    Bind,
    /// `impersonate` (or a constrained-impersonation verb) on users, groups, ServiceAccounts,
    /// UIDs or user extras.
    Impersonate,
    /// Writes to Roles, ClusterRoles, RoleBindings or ClusterRoleBindings.
    RbacWrite,
    /// `get`, `list` or `watch` on Secrets in a ClusterRole: every Secret of the cluster.
    ClusterSecretsRead,
    /// Running code in existing Pods: `pods/exec`, `pods/attach`, `pods/portforward`,
    /// `pods/ephemeralcontainers`.
    PodsExec,
    /// Any verb on `nodes/proxy`: the kubelet API of every node.
    NodesProxy,
    /// `create` on `serviceaccounts/token`: tokens of any ServiceAccount in scope.
    TokenRequest,
    /// Creating or changing Pods or the controllers that make them: runs as any ServiceAccount
    /// and mounts any Secret of the namespace.
    WorkloadWrite,
    /// `create` on PersistentVolumes: hostPath volumes, so the node's file system.
    PersistentVolumeCreate,
    /// Approving CertificateSigningRequests: client certificates for any identity.
    CsrApproval,
    /// Writes to validating or mutating webhook configurations: read or change every
    /// admitted object.
    WebhookConfigWrite,
    /// `update` or `patch` on Namespaces: relabel a namespace to a laxer Pod Security level.
    NamespaceModify,
    /// The attribute's rule grants nothing that another attribute on the same item does not
    /// already grant in the same role (the same grant on two items documents each).
    Redundant,
    /// The attribute grants a verb that no kube call found in its crate's code needs.
    Unused,
}

impl Lint {
    /// Every lint, in report order.
    pub const ALL: [Lint; 18] = [
        Lint::WildcardVerbs,
        Lint::WildcardResources,
        Lint::WildcardGroups,
        Lint::Escalate,
        Lint::Bind,
        Lint::Impersonate,
        Lint::RbacWrite,
        Lint::ClusterSecretsRead,
        Lint::PodsExec,
        Lint::NodesProxy,
        Lint::TokenRequest,
        Lint::WorkloadWrite,
        Lint::PersistentVolumeCreate,
        Lint::CsrApproval,
        Lint::WebhookConfigWrite,
        Lint::NamespaceModify,
        Lint::Redundant,
        Lint::Unused,
    ];

    /// The stable kebab-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Lint::WildcardVerbs => "wildcard-verbs",
            Lint::WildcardResources => "wildcard-resources",
            Lint::WildcardGroups => "wildcard-groups",
            Lint::Escalate => "escalate",
            Lint::Bind => "bind",
            Lint::Impersonate => "impersonate",
            Lint::RbacWrite => "rbac-write",
            Lint::ClusterSecretsRead => "cluster-secrets-read",
            Lint::PodsExec => "pods-exec",
            Lint::NodesProxy => "nodes-proxy",
            Lint::TokenRequest => "token-request",
            Lint::WorkloadWrite => "workload-write",
            Lint::PersistentVolumeCreate => "persistent-volume-create",
            Lint::CsrApproval => "csr-approval",
            Lint::WebhookConfigWrite => "webhook-config-write",
            Lint::NamespaceModify => "namespace-modify",
            Lint::Redundant => "redundant",
            Lint::Unused => "unused",
        }
    }

    /// Why it matters, in one sentence.
    pub const fn risk(self) -> &'static str {
        match self {
            Lint::WildcardVerbs => {
                "`*` verbs grant every verb, including escalate, bind and impersonate, and verbs added later"
            }
            Lint::WildcardResources => {
                "`*` resources grant every resource type, including ones installed later"
            }
            Lint::WildcardGroups => {
                "`*` groups grant every API group, including ones installed later"
            }
            Lint::Escalate => {
                "escalate lets the holder create or update roles with permissions it does not have"
            }
            Lint::Bind => {
                "bind lets the holder bind roles with permissions it does not have, to anyone"
            }
            Lint::Impersonate => {
                "impersonate lets the holder act as other users, groups or ServiceAccounts, with their permissions"
            }
            Lint::RbacWrite => {
                "writing roles or bindings changes who may do what; the API server's escalation checks are all that stands in the way"
            }
            Lint::ClusterSecretsRead => {
                "reading Secrets cluster-wide reveals every credential and ServiceAccount token of the cluster"
            }
            Lint::PodsExec => {
                "exec, attach, port-forward and ephemeral containers run code in existing Pods, with their ServiceAccounts and mounts"
            }
            Lint::NodesProxy => {
                "nodes/proxy reaches the kubelet API, which runs commands in every Pod of the node, bypassing audit and admission"
            }
            Lint::TokenRequest => {
                "creating serviceaccounts/token issues tokens of existing ServiceAccounts"
            }
            Lint::WorkloadWrite => {
                "who can create or change Pods, or the controllers that make them, can run them as any ServiceAccount and mount any Secret, ConfigMap or volume of the namespace"
            }
            Lint::PersistentVolumeCreate => {
                "creating PersistentVolumes includes hostPath volumes: the node's file system"
            }
            Lint::CsrApproval => {
                "approving CertificateSigningRequests issues client certificates, for any user or group"
            }
            Lint::WebhookConfigWrite => {
                "webhook configurations decide who sees, and may change, every admitted object"
            }
            Lint::NamespaceModify => {
                "changing a Namespace's labels can relax its Pod Security level"
            }
            Lint::Redundant => {
                "the rule adds nothing: another attribute on the same item already grants all of it"
            }
            Lint::Unused => {
                "a grant no code needs widens what a stolen token can do; some grants serve code the scan cannot read (another crate's, a macro's, a generic function's)"
            }
        }
    }

    /// The public guidance the lint follows.
    pub const fn source(self) -> &'static str {
        match self {
            Lint::WildcardVerbs | Lint::WildcardResources | Lint::WildcardGroups => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Least privilege)"
            }
            Lint::Escalate => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Escalate verb); kubernetes.io/docs/reference/access-authn-authz/rbac (Privilege escalation prevention)"
            }
            Lint::Bind => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Bind verb); kubernetes.io/docs/reference/access-authn-authz/rbac (Restrictions on role binding creation or update)"
            }
            Lint::Impersonate => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Impersonate verb)"
            }
            Lint::RbacWrite => {
                "kubernetes.io/docs/reference/access-authn-authz/rbac (Privilege escalation prevention and bootstrapping)"
            }
            Lint::ClusterSecretsRead => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Listing secrets)"
            }
            Lint::PodsExec => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Workload creation); Kubernetes 1.35 feature gate AuthorizePodWebsocketUpgradeCreatePermission (websocket exec, attach and port-forward need create; before it, get sufficed)"
            }
            Lint::NodesProxy => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Access to proxy subresource of Nodes)"
            }
            Lint::TokenRequest => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Token request)"
            }
            Lint::WorkloadWrite => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Workload creation)"
            }
            Lint::PersistentVolumeCreate => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Persistent volume creation)"
            }
            Lint::CsrApproval => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (CSRs and certificate issuing)"
            }
            Lint::WebhookConfigWrite => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Control admission webhooks)"
            }
            Lint::NamespaceModify => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Namespace modification)"
            }
            Lint::Redundant => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Periodic review: redundant entries)"
            }
            Lint::Unused => {
                "kubernetes.io/docs/concepts/security/rbac-good-practices (Least privilege); docs/least-privilege.md (The RBAC the code needs)"
            }
        }
    }

    /// The lint of this name. `_` is read as `-`, so `cluster_secrets_read` also names
    /// `cluster-secrets-read`.
    pub fn from_name(name: &str) -> Option<Lint> {
        let name = name.replace('_', "-");
        Lint::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Every name, for did-you-mean suggestions and messages.
    pub fn names() -> [&'static str; 18] {
        Lint::ALL.map(Lint::name)
    }
}

impl std::fmt::Display for Lint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let names = Lint::names();
        for (i, name) in names.iter().enumerate() {
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name}"
            );
            assert!(!names[..i].contains(name), "{name} twice");
            assert_eq!(Lint::from_name(name).map(Lint::name), Some(*name));
            assert_eq!(
                Lint::from_name(&name.replace('-', "_")).map(Lint::name),
                Some(*name)
            );
        }
        assert_eq!(Lint::from_name("secrets"), None);
    }
}
