//! Overhead of the request-audit layer per request: `cargo bench -p kube-markers --features
//! audit,k8s-openapi/latest --bench audit`. The inner service is a mock that answers at once,
//! so the difference between `direct` and `audited` is what the layer adds to every request
//! (parse the URL as kube-apiserver does, authorize against the generated roles, attribute to
//! the declared rules, record). Results go into BENCHMARKS.md.

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use kube_markers::audit::{Audit, Mode, Permissions};
use kube_markers::rbac;
use std::convert::Infallible;
use std::future::{Future, Ready};
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use tower_layer::Layer;
use tower_service::Service;

fn main() {
    divan::main();
}

// The example operators' attributes (rbac-out/role.yaml): ten attributes, two roles.
#[rbac(
    groups = "cache.example.com",
    resources = "memcacheds",
    verbs = "list;watch;patch"
)]
#[rbac(
    groups = "cache.example.com",
    resources = "memcacheds/status",
    verbs = "patch"
)]
#[rbac(
    groups = "apps",
    resources = "deployments",
    verbs = "list;watch;create;patch"
)]
#[rbac(
    groups = "db.example.com",
    resources = "mydatabases",
    verbs = "list;watch;patch"
)]
#[rbac(
    groups = "db.example.com",
    resources = "mydatabases/status",
    verbs = "patch"
)]
#[rbac(
    groups = "apps",
    resources = "deployments",
    verbs = "list;watch;create;patch"
)]
#[rbac(groups = "", resources = "services", verbs = "create;patch")]
#[rbac(
    groups = "",
    resources = "configmaps",
    verbs = "patch;create",
    namespace = "db-tenants",
    role_name = "mydatabase-tenant"
)]
#[rbac(urls = "/metrics", verbs = "get")]
#[allow(dead_code)]
fn reconcile() {}

/// Answers every request at once.
struct Ok200;

impl<B> Service<Request<B>> for Ok200 {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request<B>) -> Self::Future {
        std::future::ready(Ok(Response::new(Full::new(Bytes::new()))))
    }
}

fn ready<F: Future>(future: F) -> F::Output {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(out) => out,
        Poll::Pending => unreachable!("the mock answers at once"),
    }
}

const REQUESTS: &[(&str, &str)] = &[
    // A watch of a covered resource, as kube-runtime's watcher sends it.
    (
        "GET",
        "/apis/apps/v1/deployments?&watch=true&timeoutSeconds=290&allowWatchBookmarks=true&resourceVersion=12345",
    ),
    // A server-side apply of a covered object.
    (
        "PATCH",
        "/apis/apps/v1/namespaces/e2e/deployments/mc?&force=true&fieldManager=memcached-operator",
    ),
    // A Role's namespace.
    (
        "PATCH",
        "/api/v1/namespaces/db-tenants/configmaps/directory?&force=true&fieldManager=x",
    ),
    // Not covered: recorded (Record mode), with its suggestion the first time.
    ("GET", "/api/v1/namespaces/e2e/pods?labelSelector=app%3Dmc"),
];

fn request(method: &str, url: &str) -> Request<Vec<u8>> {
    Request::builder()
        .method(method)
        .uri(url)
        .body(Vec::new())
        .unwrap()
}

#[divan::bench(args = [0, 1, 2, 3])]
fn direct(bencher: divan::Bencher, which: usize) {
    let (method, url) = REQUESTS[which];
    let mut service = Ok200;
    bencher
        .with_inputs(|| request(method, url))
        .bench_local_values(|request| ready(service.call(request)).unwrap());
}

#[divan::bench(args = [0, 1, 2, 3])]
fn audited(bencher: divan::Bencher, which: usize) {
    let (method, url) = REQUESTS[which];
    let audit = Audit::new(Permissions::from_registry(), Mode::Record);
    let mut service = audit.layer().layer(Ok200);
    bencher
        .with_inputs(|| request(method, url))
        .bench_local_values(|request| ready(service.call(request)).unwrap());
}
