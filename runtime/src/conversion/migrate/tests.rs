//! The migration against a scripted API server (a tower service behind a `kube::Client`): the
//! paths a real one only takes under races (a conflict, an object deleted between the list and
//! its update, an expired continue token, the storage version changing meanwhile), each
//! forced. `envtest/tests/conversion.rs` runs it against kube-apiserver.

use super::*;
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

const CRD: &str = "widgets.example.com";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";
const LIST: &str = "/apis/example.com/v2/widgets";

/// What the fake API server holds, what it is scripted to do, and what it was sent.
#[derive(Default)]
struct State {
    /// Object name (all in namespace `a`) → resourceVersion.
    objects: BTreeMap<String, u64>,
    /// Storage version the CRD reports, per GET of the CRD (the last one repeats).
    storage: Vec<&'static str>,
    crd_gets: usize,
    stored_versions: Vec<String>,
    /// 409s to answer to the next updates of an object.
    conflicts: BTreeMap<String, u32>,
    /// Objects deleted just before their update (404).
    deleted_before_update: BTreeSet<String>,
    /// Objects deleted as their first conflict is answered (the GET after it is a 404).
    deleted_on_conflict: BTreeSet<String>,
    /// The next list with this continue token is answered 410, offering this token.
    expire: Option<(String, Option<String>)>,
    /// 409s to answer to the status patches.
    status_conflicts: u32,
    /// Sent: `PUT name rv apiVersion` per update; the status patches' bodies.
    updates: Vec<String>,
    status_patches: Vec<Value>,
}

#[derive(Clone)]
struct FakeApi(Arc<Mutex<State>>);

fn reply(status: StatusCode, body: Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

fn failure(code: u16, reason: &str, continue_: Option<String>) -> Value {
    let mut status = json!({
        "apiVersion": "v1", "kind": "Status", "status": "Failure",
        "code": code, "reason": reason, "message": format!("{reason} (scripted)"),
    });
    if let Some(token) = continue_ {
        status["metadata"] = json!({ "continue": token });
    }
    status
}

fn object(name: &str, rv: u64) -> Value {
    json!({
        "apiVersion": "example.com/v2", "kind": "Widget",
        "metadata": {"name": name, "namespace": "a", "resourceVersion": rv.to_string()},
        "spec": {"size": 1},
    })
}

impl State {
    fn crd(&mut self) -> Value {
        let storage = self.storage[self.crd_gets.min(self.storage.len() - 1)];
        self.crd_gets += 1;
        let versions: Vec<Value> = ["v1", "v2", "v3"]
            .iter()
            .map(|v| json!({"name": v, "served": true, "storage": *v == storage}))
            .collect();
        json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": CRD, "resourceVersion": format!("crd-{}", self.crd_gets)},
            "spec": {
                "group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": versions,
            },
            "status": {"storedVersions": self.stored_versions},
        })
    }

    fn handle(
        &mut self,
        method: &Method,
        path: &str,
        query: &str,
        body: &[u8],
    ) -> Response<Full<Bytes>> {
        let params: BTreeMap<&str, &str> = query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .collect();
        match (method.as_str(), path) {
            ("GET", CRDS) => {
                let crd = self.crd();
                reply(StatusCode::OK, crd)
            }
            ("PATCH", p) if p == format!("{CRDS}/status") => {
                let patch: Value = serde_json::from_slice(body).unwrap();
                self.status_patches.push(patch.clone());
                if self.status_conflicts > 0 {
                    self.status_conflicts -= 1;
                    return reply(StatusCode::CONFLICT, failure(409, "Conflict", None));
                }
                self.stored_versions =
                    serde_json::from_value(patch["status"]["storedVersions"].clone()).unwrap();
                let crd = self.crd();
                reply(StatusCode::OK, crd)
            }
            ("GET", LIST) => {
                let token = params.get("continue").map(|t| t.to_string());
                if let Some((expired, offered)) = self.expire.clone()
                    && token.as_deref() == Some(expired.as_str())
                {
                    self.expire = None;
                    return reply(StatusCode::GONE, failure(410, "Expired", offered));
                }
                // As etcd's: the token is the last key listed; the next page starts after it.
                let limit: usize = params["limit"].parse().unwrap();
                let after: Vec<&String> = self
                    .objects
                    .keys()
                    .filter(|n| token.as_deref().is_none_or(|t| n.as_str() > t))
                    .collect();
                let page: Vec<Value> = after
                    .iter()
                    .take(limit)
                    .map(|n| object(n, self.objects[*n]))
                    .collect();
                let continue_ = if after.len() > limit {
                    after[limit - 1].clone()
                } else {
                    String::new()
                };
                reply(
                    StatusCode::OK,
                    json!({
                        "apiVersion": "example.com/v2", "kind": "WidgetList",
                        "metadata": {"continue": continue_, "resourceVersion": "1"},
                        "items": page,
                    }),
                )
            }
            (method, p) if p.starts_with("/apis/example.com/v2/namespaces/a/widgets/") => {
                let name = p.rsplit('/').next().unwrap().to_string();
                if method == "GET" {
                    return match self.objects.get(&name) {
                        Some(rv) => reply(StatusCode::OK, object(&name, *rv)),
                        None => reply(StatusCode::NOT_FOUND, failure(404, "NotFound", None)),
                    };
                }
                assert_eq!(method, "PUT");
                let sent: Value = serde_json::from_slice(body).unwrap();
                self.updates.push(format!(
                    "PUT {name} {} {}",
                    sent["metadata"]["resourceVersion"].as_str().unwrap(),
                    sent["apiVersion"].as_str().unwrap()
                ));
                if self.deleted_before_update.remove(&name) {
                    self.objects.remove(&name);
                    return reply(StatusCode::NOT_FOUND, failure(404, "NotFound", None));
                }
                if let Some(n) = self.conflicts.get_mut(&name)
                    && *n > 0
                {
                    *n -= 1;
                    // Someone wrote it meanwhile (or deleted it).
                    if self.deleted_on_conflict.remove(&name) {
                        self.objects.remove(&name);
                    } else {
                        *self.objects.get_mut(&name).unwrap() += 100;
                    }
                    return reply(StatusCode::CONFLICT, failure(409, "Conflict", None));
                }
                let rv = self.objects.get_mut(&name).unwrap();
                *rv += 1;
                reply(StatusCode::OK, object(&name, *rv))
            }
            _ => panic!("unexpected request {method} {path}?{query}"),
        }
    }
}

impl tower_service::Service<Request<kube::client::Body>> for FakeApi {
    type Response = Response<Full<Bytes>>;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<kube::client::Body>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = body.collect_bytes().await.unwrap();
            let query = parts.uri.query().unwrap_or_default().to_string();
            let response =
                state
                    .lock()
                    .unwrap()
                    .handle(&parts.method, parts.uri.path(), &query, &body);
            Ok(response)
        })
    }
}

fn server(objects: &[&str]) -> (Client, Arc<Mutex<State>>) {
    let state = Arc::new(Mutex::new(State {
        objects: objects.iter().map(|n| (n.to_string(), 1)).collect(),
        storage: vec!["v2"],
        stored_versions: vec!["v1".into(), "v2".into()],
        ..State::default()
    }));
    (Client::new(FakeApi(state.clone()), "default"), state)
}

#[tokio::test]
async fn conflicts_deletions_and_an_expired_token_are_all_done() {
    let (client, state) = server(&["w1", "w2", "w3", "w4", "w5"]);
    {
        let mut s = state.lock().unwrap();
        s.conflicts = BTreeMap::from([("w2".into(), 2), ("w5".into(), 1)]);
        s.deleted_before_update.insert("w3".into());
        s.deleted_on_conflict.insert("w5".into());
        // The second page's token has expired; the API server offers one that goes on.
        s.expire = Some(("w2".into(), Some("w2".into())));
        s.status_conflicts = 1;
    }
    let migrated = Migration::new(client).chunk(2).run_crd(CRD).await.unwrap();
    assert_eq!(
        migrated.progress,
        Progress {
            listed: 5,
            rewritten: 3,
            gone: 2,
            conflicts: 3,
        }
    );
    assert_eq!(migrated.storage_version, "v2");
    assert_eq!(migrated.stored_before, ["v1", "v2"]);
    let s = state.lock().unwrap();
    // Each update is the object as last read, at the storage version.
    assert_eq!(
        s.updates,
        [
            "PUT w1 1 example.com/v2",
            "PUT w2 1 example.com/v2",
            "PUT w2 101 example.com/v2",
            "PUT w2 201 example.com/v2",
            "PUT w3 1 example.com/v2",
            "PUT w4 1 example.com/v2",
            "PUT w5 1 example.com/v2",
        ]
    );
    assert_eq!(s.stored_versions, ["v2"]);
    // storedVersions is written with the CRD's resourceVersion as a precondition, read again
    // after a conflict.
    assert_eq!(s.status_patches.len(), 2);
    assert_eq!(
        s.status_patches[1],
        json!({"metadata": {"resourceVersion": "crd-3"}, "status": {"storedVersions": ["v2"]}})
    );
}

#[tokio::test]
async fn an_expired_token_without_a_new_one_starts_over() {
    let (client, state) = server(&["w1", "w2", "w3"]);
    state.lock().unwrap().expire = Some(("w2".into(), None));
    let reports: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = reports.clone();
    let migrated = Migration::new(client)
        .chunk(2)
        .on_progress(move |p| seen.lock().unwrap().push(p.to_string()))
        .run_crd(CRD)
        .await
        .unwrap();
    // w1 and w2 are rewritten twice: harmless, and every object is done.
    assert_eq!(
        (migrated.progress.listed, migrated.progress.rewritten),
        (5, 5)
    );
    assert_eq!(state.lock().unwrap().stored_versions, ["v2"]);
    assert_eq!(
        *reports.lock().unwrap(),
        [
            "2 listed, 2 rewritten, 0 deleted meanwhile, 0 conflicts retried",
            "4 listed, 4 rewritten, 0 deleted meanwhile, 0 conflicts retried",
            "5 listed, 5 rewritten, 0 deleted meanwhile, 0 conflicts retried",
            "5 listed, 5 rewritten, 0 deleted meanwhile, 0 conflicts retried",
        ]
    );
}

#[tokio::test]
async fn a_storage_version_that_changes_meanwhile_leaves_stored_versions_alone() {
    let (client, state) = server(&["w1"]);
    state.lock().unwrap().storage = vec!["v2", "v3"];
    let error = Migration::new(client).run_crd(CRD).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "storage migration of widgets.example.com: the storage version changed from v2 to v3 \
         during the migration; run it again"
    );
    let s = state.lock().unwrap();
    assert!(s.status_patches.is_empty());
    assert_eq!(s.stored_versions, ["v1", "v2"]);
}

#[tokio::test]
async fn an_object_written_all_the_time_is_named() {
    let (client, state) = server(&["w1"]);
    state.lock().unwrap().conflicts = BTreeMap::from([("w1".into(), 100)]);
    let error = Migration::new(client).run_crd(CRD).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "storage migration of widgets.example.com: rewriting a/w1: 11 conflicting writes in a \
         row; it is being written all the time, run again later"
    );
    assert!(state.lock().unwrap().status_patches.is_empty());
}

#[tokio::test]
async fn a_kind_already_migrated_is_left_alone() {
    let (client, state) = server(&["w1"]);
    state.lock().unwrap().stored_versions = vec!["v2".into()];
    let migrated = Migration::new(client).run_crd(CRD).await.unwrap();
    assert_eq!(migrated.progress, Progress::default());
    let s = state.lock().unwrap();
    assert!(s.updates.is_empty() && s.status_patches.is_empty());
}
