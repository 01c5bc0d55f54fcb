//! `kube_markers_rbac::authorize` against the vectors taken from kube-apiserver's own tests
//! (`shared/testdata/*-vectors.json`, beside the repository): RequestInfoFactory's
//! `TestGetAPIRequestInfo`, `TestGetNonAPIRequestInfo` and `TestSelectorParsing`, and the RBAC
//! authorizer's `TestAuthorizer`, `TestRuleMatches` and `TestResourceMatches`.

use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, RoleBinding, RoleRef, Subject,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_markers_rbac::authorize::{
    Authorizer, BindingKind, Decision, RequestAttributes, UserInfo, request_info, rules_allow,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `shared/testdata/<file>` in the nearest ancestor of the workspace root that has it (CI
/// keeps `shared/` beside the clone; a worktree may sit one level deeper).
fn testdata(file: &str) -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let path: PathBuf = root
        .ancestors()
        .skip(1)
        .map(|dir| dir.join("shared/testdata").join(file))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no shared/testdata/{file} beside {}", root.display()));
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn upstream_count(vectors: &[Value]) -> usize {
    vectors
        .iter()
        .filter(|v| v["kind"] == "upstream-test")
        .count()
}

#[test]
fn request_info_matches_every_vector() {
    let vectors = testdata("requestinfo-vectors.json");
    assert_eq!(upstream_count(&vectors), 57);
    let mut failures = Vec::new();
    for v in &vectors {
        let method = v["method"].as_str().unwrap();
        let url = v["url"].as_str().unwrap();
        let info = request_info(method, url);
        let mut actual = serde_json::to_value(&info).unwrap();
        let errored = actual.as_object_mut().unwrap().remove("error").is_some();
        let expected_error = v["expectedError"].as_bool().unwrap_or(false);
        if actual != v["expected"] || errored != expected_error {
            failures.push(format!(
                "{method} {url} ({}):\n  expected {} (error: {expected_error})\n  actual   {actual} (error: {errored})",
                v["source"], v["expected"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors differ:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}

fn meta(name: &str, namespace: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: namespace.map(Into::into),
        ..ObjectMeta::default()
    }
}

fn request(v: &Value) -> RequestAttributes {
    let r = &v["request"];
    let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
    RequestAttributes {
        resource_request: r["resourceRequest"].as_bool().unwrap(),
        verb: s("verb"),
        api_group: s("apiGroup"),
        namespace: s("namespace"),
        resource: s("resource"),
        subresource: s("subresource"),
        name: s("name"),
        path: s("path"),
    }
}

/// The vector's rules in a ClusterRole, bound to `user` by a ClusterRoleBinding, or by a
/// RoleBinding in `namespace`.
fn authorizer(
    rules: &[PolicyRule],
    user: &UserInfo,
    binding: BindingKind,
    namespace: &str,
) -> Authorizer {
    let subjects = Some(vec![Subject {
        kind: "User".into(),
        name: user.name.clone(),
        ..Subject::default()
    }]);
    let role_ref = RoleRef {
        api_group: Some("rbac.authorization.k8s.io".into()),
        kind: "ClusterRole".into(),
        name: "vector-role".into(),
    };
    let mut authorizer = Authorizer {
        cluster_roles: vec![ClusterRole {
            metadata: meta("vector-role", None),
            rules: Some(rules.to_vec()),
            ..ClusterRole::default()
        }],
        ..Authorizer::default()
    };
    match binding {
        BindingKind::ClusterRoleBinding => {
            authorizer.cluster_role_bindings.push(ClusterRoleBinding {
                metadata: meta("vector-binding", None),
                role_ref,
                subjects,
            })
        }
        BindingKind::RoleBinding => authorizer.role_bindings.push(RoleBinding {
            metadata: meta("vector-binding", Some(namespace)),
            role_ref,
            subjects,
        }),
    }
    authorizer
}

#[test]
fn rbac_matches_every_vector() {
    let vectors = testdata("rbac-eval-vectors.json");
    assert_eq!(upstream_count(&vectors), 116);
    let mut failures = Vec::new();
    for (i, v) in vectors.iter().enumerate() {
        let rules: Vec<PolicyRule> = serde_json::from_value(v["rules"].clone()).unwrap();
        let request = request(v);
        let expected = v["allowed"].as_bool().unwrap();
        let user = UserInfo::new(
            v["user"]["name"].as_str().unwrap_or("vector-user"),
            v["user"]["groups"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|g| g.as_str().unwrap().to_string()),
        );
        if v["binding"].is_null() && rules_allow(&request, &rules).is_some() != expected {
            failures.push(format!(
                "#{i} rules: expected allowed={expected}\n  request {request:?}\n  rules {}\n  {}",
                v["rules"], v["source"]
            ));
        }
        let mut check = |what: &str, decision: Decision, expected: bool| {
            if decision.is_allowed() != expected {
                failures.push(format!(
                    "#{i} {what}: expected allowed={expected}, got {decision}\n  request {request:?}\n  rules {}\n  {}",
                    v["rules"], v["source"]
                ));
            }
            if let Decision::Allow(grant) = &decision {
                // The grant names the rule that allows it.
                assert!(kube_markers_rbac::authorize::rule_allows(
                    &request,
                    &grant.rule
                ));
                assert_eq!(grant.rule, rules[grant.rule_index]);
                assert_eq!(grant.source.role_name, "vector-role");
            }
        };
        match v["binding"]["kind"].as_str() {
            None => {
                // The same rules bound cluster-wide decide the same; bound in the request's
                // namespace, too, except that a RoleBinding never grants a cluster-wide request.
                let crb = authorizer(&rules, &user, BindingKind::ClusterRoleBinding, "");
                check(
                    "bound by a ClusterRoleBinding",
                    crb.authorize(&user, &request),
                    expected,
                );
                let ns = if request.namespace.is_empty() {
                    "elsewhere"
                } else {
                    &request.namespace
                };
                let rb = authorizer(&rules, &user, BindingKind::RoleBinding, ns);
                check(
                    "bound by a RoleBinding in the request's namespace",
                    rb.authorize(&user, &request),
                    expected && !request.namespace.is_empty(),
                );
            }
            Some("ClusterRoleBinding") => {
                let crb = authorizer(&rules, &user, BindingKind::ClusterRoleBinding, "");
                check(
                    "ClusterRoleBinding",
                    crb.authorize(&user, &request),
                    expected,
                );
            }
            Some("RoleBinding") => {
                let ns = v["binding"]["namespace"].as_str().unwrap();
                assert_eq!(v["binding"]["roleRefKind"], "ClusterRole");
                let rb = authorizer(&rules, &user, BindingKind::RoleBinding, ns);
                check(
                    &format!("RoleBinding in {ns}"),
                    rb.authorize(&user, &request),
                    expected,
                );
                // Nobody else is bound.
                let stranger = UserInfo::new("stranger", ["system:authenticated"]);
                check(
                    "RoleBinding, another user",
                    rb.authorize(&stranger, &request),
                    false,
                );
            }
            Some(other) => panic!("#{i}: unknown binding kind {other}"),
        }
    }
    assert!(
        failures.is_empty(),
        "{} checks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
