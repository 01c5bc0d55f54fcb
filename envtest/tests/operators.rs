//! The example operators, run against a real API server under the generated deploy bundle
//! (`rbac-out/kustomization.yaml`) with one rule of the generated roles taken away at a time:
//! they are denied exactly what that rule granted. (That they converge with zero Forbidden
//! responses under the whole bundle is `bundle.rs`.)

mod common;
use common::bundle::{rendered, service_account};
use common::operators::{NS, create_objects, start};
use common::{assets, root};
use kube::Client;
use kube_markers_envtest::{Envtest, parse_manifests};
use serde_json::Value;
use std::time::{Duration, Instant};

fn generated_roles() -> Vec<Value> {
    let text = std::fs::read_to_string(root().join("rbac-out/role.yaml")).unwrap();
    parse_manifests(&text).unwrap()
}

/// The bundle's `namePrefix`.
fn name_prefix() -> String {
    let text = std::fs::read_to_string(root().join("rbac-out/kustomization.yaml")).unwrap();
    let kustomization = parse_manifests(&text).unwrap().remove(0);
    kustomization["namePrefix"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// An environment with the examples' bundle installed, `role.yaml`'s roles in it replaced by
/// `roles`, and a client acting as the generated ServiceAccount (with a token from the
/// TokenRequest API). Returns the environment, the client and the account's user name.
async fn environment(roles: Vec<Value>) -> (Envtest, Client, String) {
    let env = Envtest::builder()
        .assets(assets())
        .apiserver_arg("--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    for ns in [NS, mydatabase_operator::TENANT_NAMESPACE] {
        env.ensure_namespace(ns).await.unwrap();
    }
    let mut docs = rendered();
    let prefix = name_prefix();
    for role in roles {
        let name = format!("{prefix}{}", role["metadata"]["name"].as_str().unwrap());
        let target = docs
            .iter_mut()
            .find(|d| {
                d["kind"] == role["kind"]
                    && d["metadata"]["name"] == name.as_str()
                    && d["metadata"]["namespace"] == role["metadata"]["namespace"]
            })
            .unwrap_or_else(|| panic!("the bundle has no {} {name}", role["kind"]));
        target["rules"] = role["rules"].clone();
    }
    env.apply_objects(docs.clone()).await.unwrap();
    let (namespace, name) = service_account(&docs);
    let token = env.service_account_token(&namespace, &name).await.unwrap();
    let client = env.client_for_token(&token, &namespace).unwrap();
    (
        env,
        client,
        format!("system:serviceaccount:{namespace}:{name}"),
    )
}

/// Whether a denied permission (`verb group/resource` or `verb /path`) falls under `rule`.
fn grants(rule: &Value, denied: &str) -> bool {
    let list = |key: &str| -> Vec<String> {
        rule[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let Some((verb, target)) = denied.split_once(' ') else {
        return false;
    };
    let verbs = list("verbs");
    if !verbs.iter().any(|v| v == verb || v == "*") {
        return false;
    }
    if target.starts_with('/') && list("nonResourceURLs").iter().any(|u| u == target) {
        return true;
    }
    let Some((group, resource)) = target.split_once('/') else {
        return false;
    };
    list("apiGroups").iter().any(|g| g == group || g == "*")
        && list("resources").iter().any(|r| r == resource || r == "*")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_any_one_rule_the_operators_are_denied_exactly_that() {
    let roles = generated_roles();
    let mut cases = Vec::new();
    for (doc, role) in roles.iter().enumerate() {
        for index in 0..role["rules"].as_array().unwrap().len() {
            cases.push((doc, index));
        }
    }
    assert_eq!(
        cases.len(),
        8,
        "every rule of the generated roles: {cases:?}"
    );
    for (doc, index) in cases {
        let mut reduced = roles.clone();
        let removed = reduced[doc]["rules"].as_array_mut().unwrap().remove(index);
        let (env, operator, user) = environment(reduced).await;
        let admin = env.admin_client().unwrap();
        let operators = start(operator);
        create_objects(&admin).await;

        // Wait for the first denial, then a little longer for any others to show.
        let deadline = Instant::now() + Duration::from_secs(45);
        while env.forbidden_requests_of(&user).unwrap().is_empty() {
            assert!(
                Instant::now() < deadline,
                "nothing was denied without {removed}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        tokio::time::sleep(Duration::from_secs(3)).await;
        for task in operators {
            task.abort();
        }
        let forbidden = env.forbidden_requests_of(&user).unwrap();
        let stray: Vec<&String> = forbidden.iter().filter(|d| !grants(&removed, d)).collect();
        assert!(
            stray.is_empty(),
            "without {removed} the operators were also denied {stray:#?}"
        );
    }
}
