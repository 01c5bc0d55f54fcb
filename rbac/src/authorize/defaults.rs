//! The ClusterRoles and ClusterRoleBindings kube-apiserver creates at startup that grant every
//! user something: to every authenticated user (`system:authenticated`), every anonymous one
//! (`system:unauthenticated`) and every ServiceAccount (`system:serviceaccounts`: the OIDC
//! discovery documents, and reading ClusterTrustBundles). Without
//! them, an offline answer says "no" to `get /healthz` or `create selfsubjectaccessreviews`
//! where every real cluster says "yes".
//!
//! The rules are kube-apiserver 1.37.2's (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy`),
//! in the order the server stores them (each list sorted); `envtest/tests/can_i_differential.rs`
//! reads them back from a real server and compares rule for rule. The defaults bound to single
//! users (`system:kube-scheduler`, ...) or to the special groups `system:masters` and
//! `system:monitoring` are left out: no operator runs as those.

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// The kube-apiserver release the table is taken from.
pub const DEFAULT_ROLES_SERVER_VERSION: &str = "1.37.2";

/// One rule of a default role.
struct DefaultRule {
    verbs: &'static [&'static str],
    api_groups: &'static [&'static str],
    resources: &'static [&'static str],
    non_resource_urls: &'static [&'static str],
}

/// A default ClusterRole and the groups its ClusterRoleBinding (of the same name) binds.
pub struct DefaultRole {
    /// The ClusterRole's (and its ClusterRoleBinding's) name.
    pub name: &'static str,
    /// The groups the binding's subjects name.
    pub groups: &'static [&'static str],
    rules: &'static [DefaultRule],
}

const fn urls(non_resource_urls: &'static [&'static str]) -> DefaultRule {
    DefaultRule {
        verbs: &["get"],
        api_groups: &[],
        resources: &[],
        non_resource_urls,
    }
}

/// The table.
pub static DEFAULT_ROLES: &[DefaultRole] = &[
    DefaultRole {
        name: "system:basic-user",
        groups: &["system:authenticated"],
        rules: &[
            DefaultRule {
                verbs: &["create"],
                api_groups: &["authorization.k8s.io"],
                resources: &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                non_resource_urls: &[],
            },
            DefaultRule {
                verbs: &["create"],
                api_groups: &["authentication.k8s.io"],
                resources: &["selfsubjectreviews"],
                non_resource_urls: &[],
            },
        ],
    },
    DefaultRole {
        name: "system:cluster-trust-bundle-discovery",
        groups: &["system:serviceaccounts"],
        rules: &[DefaultRule {
            verbs: &["get", "list", "watch"],
            api_groups: &["certificates.k8s.io"],
            resources: &["clustertrustbundles"],
            non_resource_urls: &[],
        }],
    },
    DefaultRole {
        name: "system:discovery",
        groups: &["system:authenticated"],
        rules: &[urls(&[
            "/api",
            "/api/*",
            "/apis",
            "/apis/*",
            "/healthz",
            "/livez",
            "/openapi",
            "/openapi/*",
            "/readyz",
            "/version",
            "/version/",
        ])],
    },
    DefaultRole {
        name: "system:public-info-viewer",
        groups: &["system:authenticated", "system:unauthenticated"],
        rules: &[urls(&[
            "/healthz",
            "/livez",
            "/readyz",
            "/version",
            "/version/",
        ])],
    },
    DefaultRole {
        name: "system:service-account-issuer-discovery",
        groups: &["system:serviceaccounts"],
        rules: &[urls(&[
            "/.well-known/openid-configuration",
            "/.well-known/openid-configuration/",
            "/openid/v1/jwks",
            "/openid/v1/jwks/",
        ])],
    },
];

fn strings(items: &[&str]) -> Option<Vec<String>> {
    (!items.is_empty()).then(|| items.iter().map(|s| s.to_string()).collect())
}

impl DefaultRole {
    /// The role's rules, as the API server returns them.
    pub fn rules(&self) -> Vec<PolicyRule> {
        self.rules
            .iter()
            .map(|r| PolicyRule {
                api_groups: strings(r.api_groups),
                resources: strings(r.resources),
                non_resource_urls: strings(r.non_resource_urls),
                resource_names: None,
                verbs: r.verbs.iter().map(|s| s.to_string()).collect(),
            })
            .collect()
    }

    /// The ClusterRole.
    pub fn cluster_role(&self) -> ClusterRole {
        ClusterRole {
            metadata: ObjectMeta {
                name: Some(self.name.to_string()),
                ..ObjectMeta::default()
            },
            rules: Some(self.rules()),
            ..ClusterRole::default()
        }
    }

    /// The ClusterRoleBinding of the same name, to its groups.
    pub fn cluster_role_binding(&self) -> ClusterRoleBinding {
        ClusterRoleBinding {
            metadata: ObjectMeta {
                name: Some(self.name.to_string()),
                ..ObjectMeta::default()
            },
            role_ref: RoleRef {
                // `Option<String>` from k8s-openapi's v1_36, `String` before: `into` builds
                // either, so that the crate compiles with every version a user picks.
                api_group: String::from("rbac.authorization.k8s.io").into(),
                kind: "ClusterRole".into(),
                name: self.name.to_string(),
            },
            subjects: Some(
                self.groups
                    .iter()
                    .map(|g| Subject {
                        kind: "Group".into(),
                        api_group: Some("rbac.authorization.k8s.io".into()),
                        name: g.to_string(),
                        namespace: None,
                    })
                    .collect(),
            ),
        }
    }
}

/// The default role of this name, if it is one of the table's.
pub fn default_role(name: &str) -> Option<&'static DefaultRole> {
    DEFAULT_ROLES.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authorize::{Authorizer, RequestAttributes, UserInfo};

    fn with_defaults() -> Authorizer {
        Authorizer {
            cluster_roles: DEFAULT_ROLES
                .iter()
                .map(DefaultRole::cluster_role)
                .collect(),
            cluster_role_bindings: DEFAULT_ROLES
                .iter()
                .map(DefaultRole::cluster_role_binding)
                .collect(),
            ..Authorizer::default()
        }
    }

    fn ssar(verb: &str, group: &str, resource: &str) -> RequestAttributes {
        RequestAttributes::resource(verb, group, resource)
    }

    #[test]
    fn every_user_gets_what_the_server_gives() {
        let rbac = with_defaults();
        let sa = UserInfo::service_account("ops", "op");
        let anonymous = UserInfo::impersonated("system:anonymous", &[]);
        for url in ["/healthz", "/version", "/readyz", "/livez", "/version/"] {
            let get = RequestAttributes::non_resource("get", url);
            assert!(rbac.authorize(&sa, &get).is_allowed(), "{url}");
            assert!(rbac.authorize(&anonymous, &get).is_allowed(), "{url}");
        }
        for url in ["/api", "/apis/apps/v1", "/openapi/v3"] {
            let get = RequestAttributes::non_resource("get", url);
            assert!(rbac.authorize(&sa, &get).is_allowed(), "{url}");
            assert!(!rbac.authorize(&anonymous, &get).is_allowed(), "{url}");
        }
        let jwks = RequestAttributes::non_resource("get", "/openid/v1/jwks");
        assert!(rbac.authorize(&sa, &jwks).is_allowed());
        let alice = UserInfo::impersonated("alice", &[]);
        assert!(!rbac.authorize(&alice, &jwks).is_allowed());
        let review = ssar("create", "authorization.k8s.io", "selfsubjectaccessreviews");
        assert!(rbac.authorize(&alice, &review).is_allowed());
        assert!(!rbac.authorize(&anonymous, &review).is_allowed());
        // Nothing more: no verb but get on URLs, no other resource.
        for denied in [
            RequestAttributes::non_resource("post", "/healthz"),
            RequestAttributes::non_resource("get", "/metrics"),
            RequestAttributes::non_resource("get", "/healthz/etcd"),
            ssar("get", "authorization.k8s.io", "selfsubjectaccessreviews"),
            ssar("create", "authorization.k8s.io", "subjectaccessreviews"),
        ] {
            assert!(!rbac.authorize(&sa, &denied).is_allowed(), "{denied}");
        }
    }

    #[test]
    fn names_are_unique_and_bindings_name_their_role() {
        let mut names: Vec<&str> = DEFAULT_ROLES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DEFAULT_ROLES.len());
        for role in DEFAULT_ROLES {
            assert_eq!(role.cluster_role_binding().role_ref.name, role.name);
            assert_eq!(default_role(role.name).map(|r| r.name), Some(role.name));
        }
        assert!(default_role("manager-role").is_none());
    }
}
