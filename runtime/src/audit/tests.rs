//! The audit layer in front of a mock API server: no cluster.

use super::*;
use crate::rbac;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube_markers_registry::{RbacEntry, rbac_entries};
use std::convert::Infallible;
use std::future::Ready;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use tower_layer::Layer;

const DEPLOYMENTS_LINE: u32 = line!() + 2;
#[allow(dead_code)]
#[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]
fn reconcile() {}

const DIRECTORY_LINE: u32 = line!() + 2;
#[allow(dead_code)]
#[rbac(
    groups = "",
    resources = "configmaps",
    verbs = "patch;create",
    namespace = "tenants"
)]
fn publish() {}

/// The attributes of this module.
fn here() -> Vec<&'static RbacEntry> {
    rbac_entries()
        .into_iter()
        .filter(|e| e.source.module_path == module_path!())
        .collect()
}

/// An environment without the bundle's variables.
fn no_env(_: &str) -> Option<String> {
    None
}

fn audit(mode: Mode) -> Audit {
    let user = permissions::operator_user_from(no_env);
    Audit::new(Permissions::from_entries_for(&here(), user), mode)
}

/// An API server that answers every request with `status` and `body`, counting calls.
#[derive(Clone)]
struct MockApi {
    calls: Arc<AtomicUsize>,
    status: StatusCode,
    body: &'static str,
}

impl MockApi {
    fn new(status: StatusCode, body: &'static str) -> Self {
        MockApi {
            calls: Arc::default(),
            status,
            body,
        }
    }
}

impl<B> tower_service::Service<Request<B>> for MockApi {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request<B>) -> Self::Future {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut response = Response::new(Full::new(Bytes::from_static(self.body.as_bytes())));
        *response.status_mut() = self.status;
        std::future::ready(Ok(response))
    }
}

fn client(audit: &Audit, api: &MockApi) -> kube::Client {
    kube::Client::new(audit.layer().layer(api.clone()), "default")
}

const EMPTY_LIST: &str = r#"{"apiVersion":"v1","kind":"List","metadata":{},"items":[]}"#;
const CONFIG_MAP: &str =
    r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dir","namespace":"tenants"}}"#;

#[test]
fn an_uncovered_request_is_reported_with_the_attribute_that_covers_it() {
    let audit = audit(Mode::Record);
    for (method, url) in [
        ("GET", "/apis/apps/v1/namespaces/web/deployments?watch=true"),
        ("GET", "/apis/apps/v1/namespaces/web/deployments/api/scale"),
        ("GET", "/apis/apps/v1/namespaces/web/deployments/db/scale"),
        ("PATCH", "/api/v1/namespaces/tenants/configmaps/dir"),
        ("GET", "/api/v1/namespaces/tenants/configmaps/dir"),
        ("DELETE", "/api/v1/pods"),
        ("GET", "/metrics"),
        // Discovery is every authenticated user's.
        ("GET", "/apis/apps/v1"),
        (
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        ),
    ] {
        audit.check(method, url);
    }
    let report = audit.report();
    let suggestions: Vec<_> = report
        .uncovered
        .iter()
        .map(|u| {
            (
                u.request.as_str(),
                u.count,
                u.suggestion.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        suggestions,
        [
            (
                r#""get" resource "deployments.apps/scale" in namespace "web""#,
                2,
                r#"#[kube_markers::rbac(groups = "apps", resources = "deployments/scale", verbs = "get")]"#
            ),
            // Only a Role grants configmaps, in this namespace: the suggestion goes there.
            (
                r#""get" resource "configmaps" in namespace "tenants""#,
                1,
                r#"#[kube_markers::rbac(groups = "", resources = "configmaps", verbs = "get", namespace = "tenants")]"#
            ),
            (
                r#""deletecollection" resource "pods" cluster-wide"#,
                1,
                r#"#[kube_markers::rbac(groups = "", resources = "pods", verbs = "deletecollection")]"#
            ),
            (
                r#""get" nonResourceURL "/metrics""#,
                1,
                r#"#[kube_markers::rbac(urls = "/metrics", verbs = "get")]"#
            ),
        ]
    );
    assert_eq!(report.requests, 9);
    assert_eq!(
        report.uncovered[0].url,
        "/apis/apps/v1/namespaces/web/deployments/api/scale"
    );
    assert!(!report.is_clean());

    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["uncovered"][3],
        serde_json::json!({
            "request": "\"get\" nonResourceURL \"/metrics\"",
            "method": "GET",
            "url": "/metrics",
            "count": 1,
            "suggestion": "#[kube_markers::rbac(urls = \"/metrics\", verbs = \"get\")]",
        })
    );
}

#[test]
fn a_namespaced_request_outside_the_roles_namespace_is_uncovered() {
    let audit = audit(Mode::Record);
    let check = audit.check("PATCH", "/api/v1/namespaces/other/configmaps/dir");
    assert!(!check.allowed);
    // A ClusterRole would be needed: no namespace in the suggestion.
    assert_eq!(
        audit.report().uncovered[0].suggestion.as_deref(),
        Some(r#"#[kube_markers::rbac(groups = "", resources = "configmaps", verbs = "patch")]"#)
    );
}

#[test]
fn unused_rules_are_listed_per_verb_with_file_and_line() {
    let audit = audit(Mode::Record);
    audit.check("GET", "/apis/apps/v1/deployments?watch=1");
    audit.check("GET", "/apis/apps/v1/namespaces/web/deployments/api");
    let report = audit.report();
    let file = file!();
    let unused: Vec<_> = report
        .unused
        .iter()
        .map(|u| (u.declared.as_str(), u.verbs.clone(), u.line))
        .collect();
    let deployments = format!("{file}:{DEPLOYMENTS_LINE} (reconcile)");
    let directory = format!("{file}:{DIRECTORY_LINE} (publish)");
    assert_eq!(
        unused,
        [
            (
                deployments.as_str(),
                vec!["list".to_string()],
                Some(DEPLOYMENTS_LINE)
            ),
            (
                directory.as_str(),
                vec!["patch".to_string(), "create".to_string()],
                Some(DIRECTORY_LINE)
            ),
        ]
    );
    assert_eq!(
        report.to_string(),
        format!(
            "kube-markers audit: 2 requests, 0 not covered by the roles, 2 declared rules with unused verbs, 0 rules with verbs never needed alone\n\
             never used:\n  \
             {deployments}: list of #[rbac(groups = \"apps\", resources = \"deployments\", verbs = \"get;list;watch\")]\n  \
             {directory}: patch, create of #[rbac(groups = \"\", resources = \"configmaps\", verbs = \"patch;create\", namespace = \"tenants\")]\n"
        )
    );

    // Accepted with a reason, the unused verbs no longer make the report unclean.
    let mut report = report;
    assert!(!report.expect_unused(&format!("{file}:{DEPLOYMENTS_LINE}"), "get", "used"));
    assert!(report.expect_unused(&format!("{file}:{DEPLOYMENTS_LINE}"), "list", "watch only"));
    assert!(report.expect_unused(&format!("{file}:{DIRECTORY_LINE}"), "patch", "no tenants"));
    assert!(report.expect_unused(&format!("{file}:{DIRECTORY_LINE}"), "create", "no tenants"));
    assert!(report.is_clean());
    assert!(
        report
            .to_string()
            .contains("    expected: patch: no tenants; create: no tenants\n")
    );
}

#[tokio::test]
async fn record_mode_passes_every_request_through() {
    let audit = audit(Mode::Record);
    let api = MockApi::new(StatusCode::OK, EMPTY_LIST);
    let client = client(&audit, &api);
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::all(client.clone());
    pods.list(&ListParams::default()).await.unwrap();
    let deployments: Api<Deployment> = Api::namespaced(client, "web");
    deployments.list(&ListParams::default()).await.unwrap();
    assert_eq!(api.calls.load(Ordering::SeqCst), 2);
    let report = audit.report();
    assert_eq!(report.requests, 2);
    assert_eq!(
        report.uncovered[0].suggestion.as_deref(),
        Some(r#"#[kube_markers::rbac(groups = "", resources = "pods", verbs = "list")]"#)
    );
    assert_eq!(report.uncovered.len(), 1);
}

#[tokio::test]
async fn deny_mode_answers_403_forbidden_without_calling_the_server() {
    let audit = audit(Mode::Deny).permissions().clone();
    let audit = Audit::new(
        audit.with_user_name("system:serviceaccount:ops:op"),
        Mode::Deny,
    );
    let api = MockApi::new(StatusCode::OK, CONFIG_MAP);
    let client = client(&audit, &api);
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "other");
    let error = configmaps.get("dir").await.unwrap_err();
    let kube::Error::Api(status) = error else {
        panic!("expected the API's refusal, got {error:?}");
    };
    assert_eq!(status.code, 403);
    assert_eq!(status.reason, "Forbidden");
    assert_eq!(
        status.message,
        "configmaps \"dir\" is forbidden: User \"system:serviceaccount:ops:op\" cannot get \
         resource \"configmaps\" in API group \"\" in the namespace \"other\": no #[rbac] \
         attribute allows it (kube_markers::audit)"
    );
    let details = status.details.unwrap();
    assert_eq!(
        (details.name.as_str(), details.kind.as_str()),
        ("dir", "configmaps")
    );
    assert_eq!(
        api.calls.load(Ordering::SeqCst),
        0,
        "the request was never sent"
    );

    // Allowed requests go through.
    let tenants: Api<ConfigMap> = Api::namespaced(client, "tenants");
    tenants
        .patch(
            "dir",
            &PatchParams::apply("op"),
            &Patch::Apply(ConfigMap::default()),
        )
        .await
        .unwrap();
    assert_eq!(api.calls.load(Ordering::SeqCst), 1);
    assert_eq!(audit.report().uncovered.len(), 1);
}

/// Under the deploy bundle's Deployment, the denial names the Pod's ServiceAccount (from the
/// downward API's variables), and its roles still apply to it; without them, the placeholder.
#[tokio::test]
async fn deny_mode_names_the_pods_service_account_from_the_bundles_variables() {
    let bundle_env = |name: &str| match name {
        NAMESPACE_ENV => Some("backup-system".to_string()),
        SERVICE_ACCOUNT_ENV => Some("backup-controller-manager".to_string()),
        _ => None,
    };
    let user = permissions::operator_user_from(bundle_env);
    assert_eq!(
        user,
        UserInfo::service_account("backup-system", "backup-controller-manager")
    );
    let audit = Audit::new(Permissions::from_entries_for(&here(), user), Mode::Deny);
    assert_eq!(
        audit.permissions().user().name,
        "system:serviceaccount:backup-system:backup-controller-manager"
    );
    let api = MockApi::new(StatusCode::OK, CONFIG_MAP);
    let client = client(&audit, &api);
    let (code, message) = match Api::<ConfigMap>::namespaced(client.clone(), "other")
        .get("dir")
        .await
    {
        Err(kube::Error::Api(status)) => (status.code, status.message),
        other => panic!("expected the in-process refusal, got {other:?}"),
    };
    assert_eq!(code, 403);
    assert!(
        message.starts_with(
            "configmaps \"dir\" is forbidden: User \"system:serviceaccount:backup-system:\
             backup-controller-manager\" cannot get resource"
        ),
        "{message}"
    );
    // The roles are bound to that user: its allowed requests are sent.
    Api::<ConfigMap>::namespaced(client, "tenants")
        .patch(
            "dir",
            &PatchParams::apply("op"),
            &Patch::Apply(ConfigMap::default()),
        )
        .await
        .unwrap();
    assert_eq!(api.calls.load(Ordering::SeqCst), 1);

    // One of the two variables, or an empty one, is not an identity: the placeholder.
    for partial in [
        &(|name: &str| (name == NAMESPACE_ENV).then(|| "ops".to_string()))
            as &dyn Fn(&str) -> Option<String>,
        &|name: &str| (name == SERVICE_ACCOUNT_ENV).then(|| "op".to_string()),
        &|_: &str| Some(String::new()),
        &no_env,
    ] {
        let user = permissions::operator_user_from(partial);
        assert_eq!(
            user,
            UserInfo::new(PLACEHOLDER_USER, ["system:authenticated"])
        );
    }
}

#[tokio::test]
async fn an_apply_that_creates_its_object_uses_create() {
    let audit = audit(Mode::Record);
    let api = MockApi::new(StatusCode::CREATED, CONFIG_MAP);
    let tenants: Api<ConfigMap> = Api::namespaced(client(&audit, &api), "tenants");
    tenants
        .patch(
            "dir",
            &PatchParams::apply("op"),
            &Patch::Apply(ConfigMap::default()),
        )
        .await
        .unwrap();
    let report = audit.report();
    assert_eq!(report.requests, 1);
    assert!(report.uncovered.is_empty(), "{report}");
    // patch and create of the directory attribute are both used.
    assert!(
        report.unused.iter().all(|u| u.line != Some(DIRECTORY_LINE)),
        "{report}"
    );

    // Without `create`, the same 201 is uncovered.
    let audit = Audit::new(Permissions::from_entries(&here()[..1]), Mode::Record);
    let api = MockApi::new(StatusCode::CREATED, CONFIG_MAP);
    let client = client(&audit, &api);
    let deployments: Api<Deployment> = Api::namespaced(client, "web");
    // The mock answers with a ConfigMap: only what was sent matters here.
    let _ = deployments
        .patch(
            "api",
            &PatchParams::apply("op"),
            &Patch::Apply(Deployment::default()),
        )
        .await;
    let requests: Vec<_> = audit
        .report()
        .uncovered
        .iter()
        .map(|u| u.request.clone())
        .collect();
    assert_eq!(
        requests,
        [
            r#""patch" resource "deployments.apps" in namespace "web""#,
            r#""create" resource "deployments.apps" in namespace "web""#
        ]
    );
}

#[test]
fn the_decision_is_the_generated_roles_and_agrees_with_the_attributes() {
    // The roles come from the same aggregation as role.yaml.
    let permissions = Permissions::from_entries(&here());
    let here = here();
    let roles = kube_markers_rbac::generate_roles(
        here.iter().map(|e| &e.marker),
        kube_markers_rbac::DEFAULT_ROLE_NAME,
    );
    assert_eq!(
        permissions.authorizer.cluster_roles[0].rules,
        Some(roles[0].policy_rules())
    );
    for (method, url) in [
        ("GET", "/apis/apps/v1/deployments"),
        ("GET", "/apis/apps/v1/namespaces/a/deployments/x"),
        ("POST", "/apis/apps/v1/namespaces/a/deployments"),
        ("PATCH", "/api/v1/namespaces/tenants/configmaps/dir"),
        ("PATCH", "/api/v1/namespaces/other/configmaps/dir"),
        ("POST", "/api/v1/namespaces/tenants/configmaps"),
        ("GET", "/api/v1/namespaces/tenants/configmaps"),
    ] {
        let attributes = RequestAttributes::from(&request_info(method, url));
        let by_attribute = permissions.declared().iter().any(|p| p.allows(&attributes));
        assert_eq!(
            permissions.allows(&attributes),
            by_attribute,
            "{method} {url}"
        );
        // The rules resolved once decide as the authorizer walking the bindings.
        let decision = permissions
            .authorizer
            .authorize(&permissions.user, &attributes);
        assert_eq!(
            permissions.allows(&attributes),
            decision.is_allowed(),
            "{method} {url}"
        );
    }
}

#[test]
fn permissions_from_the_generated_manifests() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../rbac-out"));
    let permissions = Permissions::from_manifests(dir, None).unwrap();
    for (method, url) in [
        ("GET", "/apis/apps/v1/deployments?watch=true"),
        (
            "PATCH",
            "/api/v1/namespaces/db-tenants/configmaps/directory",
        ),
        ("PATCH", "/api/v1/namespaces/e2e/configmaps/directory"),
        (
            "PATCH",
            "/apis/coordination.k8s.io/v1/namespaces/example-operator-system/leases/x",
        ),
        (
            "PATCH",
            "/apis/coordination.k8s.io/v1/namespaces/e2e/leases/x",
        ),
        ("POST", "/apis/authentication.k8s.io/v1/tokenreviews"),
        ("GET", "/apis"),
    ] {
        let attributes = RequestAttributes::from(&request_info(method, url));
        let decision = permissions
            .authorizer
            .authorize(&permissions.user, &attributes);
        assert_eq!(
            permissions.allows(&attributes),
            decision.is_allowed(),
            "{method} {url}"
        );
    }
    let audit = Audit::new(permissions, Mode::Record);
    assert!(
        audit
            .check("GET", "/apis/apps/v1/deployments?watch=true")
            .allowed
    );
    assert!(
        audit
            .check(
                "PATCH",
                "/api/v1/namespaces/db-tenants/configmaps/directory"
            )
            .allowed
    );
    assert!(
        !audit
            .check("PATCH", "/api/v1/namespaces/e2e/configmaps/directory")
            .allowed
    );
    let report = audit.report();
    let unused: Vec<_> = report.unused.iter().map(|u| u.declared.as_str()).collect();
    assert!(
        unused
            .iter()
            .all(|d| d.starts_with("rule ") && d.contains("role.yaml (document")),
        "{unused:#?}"
    );
    // Deployments: the watch used one verb of the rule; the others are listed.
    assert!(report.unused.iter().any(|u| u.attribute
        == r#"#[rbac(groups = "apps", resources = "deployments", verbs = "create;list;patch;watch")]"#
        && u.verbs == ["create", "list", "patch"]), "{report}");

    let missing = Permissions::from_manifests(&dir.join("role.yaml"), None).unwrap_err();
    assert!(
        missing.to_string().contains("defines 0 ServiceAccounts"),
        "{missing}"
    );
}

mod overlapping {
    #[allow(dead_code)]
    #[kube_markers::rbac(groups = "", resources = "*", verbs = "get")]
    #[kube_markers::rbac(groups = "", resources = "pods", verbs = "get;list")]
    fn reconcile() {}
}

#[test]
fn a_rule_whose_requests_another_rule_also_allows_is_unneeded() {
    let entries: Vec<_> = rbac_entries()
        .into_iter()
        .filter(|e| e.source.module_path.ends_with("::overlapping"))
        .collect();
    let audit = Audit::new(Permissions::from_entries(&entries), Mode::Record);
    audit.check("GET", "/api/v1/namespaces/a/pods/x");
    audit.check("GET", "/api/v1/namespaces/a/configmaps/y");
    audit.check("GET", "/api/v1/pods");
    let report = audit.report();
    assert!(
        report.uncovered.is_empty() && report.unused.is_empty(),
        "{report}"
    );
    // `get pods` is `*`'s too: the pods rule was needed for `list` only.
    let unneeded: Vec<_> = report
        .unneeded
        .iter()
        .map(|r| (r.declared.as_str(), r.attribute.as_str(), r.verbs.clone()))
        .collect();
    assert_eq!(
        unneeded,
        [(
            r#"rule 2 of ClusterRole "manager-role""#,
            r#"#[rbac(groups = "", resources = "pods", verbs = "get")]"#,
            vec!["get".to_string()]
        )]
    );
    assert!(!report.is_clean());
    assert!(report.to_string().ends_with(
        "never needed alone (unused, or another rule allowed each request):\n  \
         rule 2 of ClusterRole \"manager-role\": get of #[rbac(groups = \"\", resources = \"pods\", verbs = \"get\")]\n"
    ), "{report}");
}

mod split {
    #[allow(dead_code)]
    #[kube_markers::rbac(groups = "", resources = ["pods", "services"], verbs = "get")]
    fn reconcile() {}
}

#[test]
fn a_generated_rule_never_used_is_unneeded_even_when_its_attribute_was_used() {
    let entries: Vec<_> = rbac_entries()
        .into_iter()
        .filter(|e| e.source.module_path.ends_with("::split"))
        .collect();
    let audit = Audit::new(Permissions::from_entries(&entries), Mode::Record);
    audit.check("GET", "/api/v1/namespaces/a/services/x");
    let report = audit.report();
    // The attribute's `get` was used (on services), but pods were never read.
    assert!(report.unused.is_empty(), "{report}");
    let unneeded: Vec<_> = report
        .unneeded
        .iter()
        .map(|u| u.attribute.as_str())
        .collect();
    assert_eq!(
        unneeded,
        [r#"#[rbac(groups = "", resources = "pods", verbs = "get")]"#]
    );
}
