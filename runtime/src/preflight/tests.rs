//! Preflight against a mock API server that answers SelfSubjectAccessReviews.

use super::*;
use crate::rbac;
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use kube::client::Body;
use kube_markers_registry::rbac_entries;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

const DEPLOYMENTS_LINE: u32 = line!() + 2;
#[allow(dead_code)]
#[rbac(groups = "apps", resources = ["deployments", "deployments/scale"], verbs = "get;patch")]
fn reconcile() {}

const DIRECTORY_LINE: u32 = line!() + 2;
#[allow(dead_code)]
#[rbac(
    groups = "core",
    resources = "configmaps",
    resource_names = "dir",
    verbs = "patch",
    namespace = "tenants"
)]
fn publish() {}

const METRICS_LINE: u32 = line!() + 1;
#[rbac(urls = "/metrics", verbs = "get")]
#[allow(dead_code)]
fn metrics() {}

fn here() -> Vec<&'static RbacEntry> {
    rbac_entries()
        .into_iter()
        .filter(|e| e.source.module_path == module_path!())
        .collect()
}

/// Answers each review: denied when `deny` says so. Keeps the reviews it was asked.
#[derive(Clone)]
struct Reviews {
    deny: fn(&serde_json::Value) -> bool,
    asked: Arc<Mutex<Vec<serde_json::Value>>>,
}

impl tower_service::Service<Request<Body>> for Reviews {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            assert_eq!(
                request.uri().path(),
                "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
            );
            let body = request.into_body().collect_bytes().await.unwrap();
            let mut review: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let denied = (this.deny)(&review["spec"]);
            this.asked.lock().unwrap().push(review["spec"].clone());
            review["status"] = serde_json::json!({
                "allowed": !denied,
                "reason": if denied { "" } else { "RBAC: allowed" },
            });
            Ok(Response::new(Full::new(Bytes::from(review.to_string()))))
        })
    }
}

async fn run(deny: fn(&serde_json::Value) -> bool) -> (Preflight, Vec<serde_json::Value>) {
    let reviews = Reviews {
        deny,
        asked: Arc::default(),
    };
    let client = kube::Client::new(reviews.clone(), "default");
    let preflight = preflight_for(&client, &here()).await.unwrap();
    let mut asked = reviews.asked.lock().unwrap().clone();
    asked.sort_by_key(|a| a.to_string());
    (preflight, asked)
}

#[tokio::test]
async fn every_permission_is_asked_once() {
    let (preflight, asked) = run(|_| false).await;
    assert!(preflight.is_complete());
    assert_eq!(preflight.checked, 6);
    assert_eq!(
        preflight.to_string(),
        "preflight: all 6 registered permissions are granted"
    );
    let ra = |ns: Option<&str>,
              verb: &str,
              group: &str,
              resource: &str,
              sub: Option<&str>,
              name: Option<&str>| {
        let mut a = serde_json::json!({"verb": verb, "group": group, "resource": resource});
        if let Some(ns) = ns {
            a["namespace"] = ns.into();
        }
        if let Some(sub) = sub {
            a["subresource"] = sub.into();
        }
        if let Some(name) = name {
            a["name"] = name.into();
        }
        serde_json::json!({ "resourceAttributes": a })
    };
    let mut expected = vec![
        ra(None, "get", "apps", "deployments", None, None),
        ra(None, "patch", "apps", "deployments", None, None),
        ra(None, "get", "apps", "deployments", Some("scale"), None),
        ra(None, "patch", "apps", "deployments", Some("scale"), None),
        ra(
            Some("tenants"),
            "patch",
            "",
            "configmaps",
            None,
            Some("dir"),
        ),
        serde_json::json!({"nonResourceAttributes": {"path": "/metrics", "verb": "get"}}),
    ];
    expected.sort_by_key(|a| a.to_string());
    assert_eq!(asked, expected);
}

#[tokio::test]
async fn missing_permissions_name_their_attributes() {
    let (preflight, _) = run(|spec| {
        spec["resourceAttributes"]["subresource"] == "scale"
            || spec["resourceAttributes"]["namespace"] == "tenants"
            || spec["nonResourceAttributes"]["path"] == "/metrics"
    })
    .await;
    let file = file!();
    assert_eq!(
        preflight.to_string(),
        format!(
            "preflight: 4 of 6 registered permissions are not granted:\n  \
             get /metrics — declared at {file}:{METRICS_LINE} (metrics)\n  \
             get deployments.apps/scale cluster-wide — declared at {file}:{DEPLOYMENTS_LINE} (reconcile)\n  \
             patch deployments.apps/scale cluster-wide — declared at {file}:{DEPLOYMENTS_LINE} (reconcile)\n  \
             patch configmaps \"dir\" in namespace \"tenants\" — declared at {file}:{DIRECTORY_LINE} (publish)\n"
        )
    );
    let json = serde_json::to_value(&preflight).unwrap();
    assert_eq!(json["missing"][3]["permission"]["namespace"], "tenants");
    assert_eq!(
        json["missing"][3]["declaredBy"][0],
        format!("{file}:{DIRECTORY_LINE} (publish)")
    );
}

#[test]
fn permissions_follow_the_aggregated_roles() {
    // One review per verb × group × resource × name (or verb × URL) of the aggregated rules.
    let needed = needed(&here());
    let here = here();
    let roles = kube_markers_rbac::generate_roles(
        here.iter().map(|e| &e.marker),
        kube_markers_rbac::DEFAULT_ROLE_NAME,
    );
    let from_roles: usize = roles
        .iter()
        .flat_map(|r| &r.rules)
        .map(|r| {
            r.verbs.len()
                * (r.urls.len()
                    + r.groups.len() * r.resources.len() * r.resource_names.len().max(1))
        })
        .sum();
    assert_eq!(needed.len(), from_roles);
}

#[tokio::test]
async fn nothing_linked_is_not_a_pass() {
    // An operator whose attributes are not linked must not read "all granted" at startup.
    let reviews = Reviews {
        deny: |_| false,
        asked: Arc::default(),
    };
    let client = kube::Client::new(reviews.clone(), "default");
    let preflight = preflight_for(&client, &[]).await.unwrap();
    assert_eq!(preflight.checked, 0);
    assert!(reviews.asked.lock().unwrap().is_empty());
    assert!(!preflight.is_complete());
    assert_eq!(
        preflight.to_string(),
        "preflight: no #[rbac] attribute is linked into this binary, so no permission was checked"
    );
}
