//! The requests kube-apiserver 1.37.2 also authorizes as `create`, beyond the verb their audit
//! event names: a websocket exec or attach, kube-rs' only way to run them (`Api::exec`/`attach`
//! send a GET with an upgrade: `get`, and `create` since 1.35's
//! `AuthorizePodWebsocketUpgradeCreatePermission`), and a server-side apply that creates its
//! object (`patch`, and `create` then). A recording of an operator's requests
//! (envtest/tests/record_requests.rs) shows the audit's verb only; these tests are why the call
//! analysis asks for both, and why the corpus test counts `create` for such a recorded request.

mod common;

use kube::Api;
use kube_markers_envtest::Envtest;

/// A websocket upgrade GET of `pods/<name>/<sub>` as the impersonated `user`: its HTTP status
/// and body.
async fn upgrade(env: &Envtest, user: &str, pod: &str, sub: &str) -> (u16, String) {
    let client = env.client_as(user, &[]).unwrap();
    let request = http::Request::get(format!(
        "/api/v1/namespaces/default/pods/{pod}/{sub}?command=ls&stdout=true&container=c"
    ))
    .header(http::header::CONNECTION, "Upgrade")
    .header(http::header::UPGRADE, "websocket")
    .header(http::header::SEC_WEBSOCKET_VERSION, "13")
    .header(http::header::SEC_WEBSOCKET_KEY, "dGhlIHNhbXBsZSBub25jZQ==")
    .header(http::header::SEC_WEBSOCKET_PROTOCOL, "v5.channel.k8s.io")
    .body(Vec::new())
    .unwrap();
    match client.request_text(request).await {
        Ok(body) => (200, body),
        Err(kube::Error::Api(status)) => (status.code, status.message),
        Err(other) => (0, other.to_string()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_exec_or_attach_needs_create_besides_get() {
    let env = Envtest::builder()
        .assets(common::assets())
        .start()
        .await
        .unwrap();
    let admin = env.admin_client().unwrap();
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(admin, "default");
    let pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}
    }))
    .unwrap();
    pods.create(&Default::default(), &pod).await.unwrap();
    let role = |name: &str, verbs: &[&str]| {
        serde_json::json!([
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
             "metadata": {"name": name, "namespace": "default"},
             "rules": [{"apiGroups": [""], "resources": ["pods/exec", "pods/attach"], "verbs": verbs}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
             "metadata": {"name": name, "namespace": "default"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
             "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}]},
        ])
    };
    for (user, verbs) in [
        ("get-only", &["get"][..]),
        ("get-and-create", &["get", "create"]),
    ] {
        env.apply_objects(serde_json::from_value(role(user, verbs)).unwrap())
            .await
            .unwrap();
    }
    env.apply_objects(serde_json::from_value(role("create-only", &["create"])).unwrap())
        .await
        .unwrap();
    for sub in ["exec", "attach"] {
        // get passes RBAC's check of the request's own verb, and the upgrade is refused still:
        // by the second check, of create (its message names no verb).
        let (code, message) = upgrade(&env, "get-only", "p", sub).await;
        assert_eq!(code, 403, "{sub} with get only: {message}");
        assert!(
            !message.contains("cannot get"),
            "{sub} with get only passes the check of get: {message}"
        );
        // create alone fails the check of the request's own verb, get.
        let (code, message) = upgrade(&env, "create-only", "p", sub).await;
        assert_eq!(code, 403, "{sub} with create only: {message}");
        assert!(
            message.contains(&format!("cannot get resource \"pods/{sub}\"")),
            "{sub} with create only is refused for get: {message}"
        );
        // With both, RBAC lets it through: it fails later, as the pod runs on no node.
        let (code, message) = upgrade(&env, "get-and-create", "p", sub).await;
        assert_ne!(code, 403, "{sub} with get and create: {message}");
    }
    // The audit event of the refused upgrade names the request's own verb, get.
    let refused: Vec<_> = env
        .audit_events()
        .unwrap()
        .into_iter()
        .filter(|e| {
            e["user"]["username"] == "get-only" || e["impersonatedUser"]["username"] == "get-only"
        })
        .filter(|e| e["objectRef"]["subresource"] == "exec")
        .map(|e| e["verb"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        !refused.is_empty() && refused.iter().all(|v| v == "get"),
        "the audit names the upgrade's verb get: {refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_side_apply_that_creates_needs_create_besides_patch() {
    use kube::api::{Patch, PatchParams};
    let env = Envtest::builder()
        .assets(common::assets())
        .start()
        .await
        .unwrap();
    let user = "patch-only";
    env.apply_objects(
        serde_json::from_value(serde_json::json!([
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
             "metadata": {"name": user, "namespace": "default"},
             "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["patch"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
             "metadata": {"name": user, "namespace": "default"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": user},
             "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]},
        ]))
        .unwrap(),
    )
    .await
    .unwrap();
    let configmaps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(env.client_as(user, &[]).unwrap(), "default");
    let apply = |value: &str| {
        Patch::Apply(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "applied"}, "data": {"k": value}
        }))
    };
    let params = PatchParams::apply("implied-create");
    let (code, message) = common::refusal(configmaps.patch("applied", &params, &apply("1")).await);
    assert_eq!(code, 403, "{message}");
    assert!(
        message.contains("cannot create resource \"configmaps\""),
        "an apply of a missing object is refused for create: {message}"
    );
    // Once the object exists, the same apply needs patch only.
    let admin: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(env.admin_client().unwrap(), "default");
    admin.patch("applied", &params, &apply("1")).await.unwrap();
    configmaps
        .patch("applied", &params, &apply("2"))
        .await
        .unwrap();
}
