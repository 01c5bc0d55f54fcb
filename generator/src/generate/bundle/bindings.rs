//! Bindings that follow the roles: a ClusterRoleBinding for every ClusterRole and a
//! RoleBinding, in the Role's namespace, for every Role, each binding the role to the
//! operator's ServiceAccount. A binding exists only beside its role, so a role that disappears
//! takes its binding with it.

use kube_markers_rbac::{GeneratedRole, RoleKey};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// One binding of a role to the ServiceAccount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Namespace and name of the binding; an empty namespace makes a ClusterRoleBinding.
    pub key: RoleKey,
    /// The role it binds (same namespace).
    pub role: RoleKey,
}

impl Binding {
    /// `true` for a ClusterRoleBinding.
    pub fn is_cluster_binding(&self) -> bool {
        self.key.namespace.is_empty()
    }

    /// The binding object, its subject the ServiceAccount `namespace/name`.
    ///
    /// Written as JSON rather than k8s-openapi types, whose shapes differ between the
    /// Kubernetes versions a user's build may select (`roleRef.apiGroup` became optional).
    pub fn to_value(
        &self,
        service_account: (&str, &str),
        labels: &BTreeMap<String, String>,
    ) -> Value {
        let (kind, role_kind) = if self.is_cluster_binding() {
            ("ClusterRoleBinding", "ClusterRole")
        } else {
            ("RoleBinding", "Role")
        };
        let mut metadata = json!({"name": self.key.name});
        if !self.is_cluster_binding() {
            metadata["namespace"] = json!(self.key.namespace);
        }
        if !labels.is_empty() {
            metadata["labels"] = json!(labels);
        }
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": kind,
            "metadata": metadata,
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": role_kind,
                "name": self.role.name,
            },
            "subjects": [{
                "kind": "ServiceAccount",
                "name": service_account.1,
                "namespace": service_account.0,
            }],
        })
    }
}

/// kubebuilder's binding names: `manager-role` → `manager-rolebinding`,
/// `leader-election-role` → `leader-election-rolebinding`; other names get `-rolebinding`.
pub fn binding_name(role_name: &str) -> String {
    match role_name.strip_suffix("-role") {
        Some(stem) => format!("{stem}-rolebinding"),
        None => format!("{role_name}-rolebinding"),
    }
}

/// One binding per role, in the roles' order.
pub fn bindings_for<'a>(roles: impl IntoIterator<Item = &'a GeneratedRole>) -> Vec<Binding> {
    roles
        .into_iter()
        .map(|role| Binding {
            key: RoleKey {
                namespace: role.key.namespace.clone(),
                name: binding_name(&role.key.name),
            },
            role: role.key.clone(),
        })
        .collect()
}
