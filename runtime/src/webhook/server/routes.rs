//! From an HTTP request to a handler's answer: the path picks the route, the method, media type
//! and size are checked, dry-run requests are kept from handlers with side effects.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{ALLOW, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use kube::core::Resource;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use serde::de::DeserializeOwned;

use super::ServerError;
use crate::webhook::{__handle, HandlerFn, HandlerFuture, SideEffects};
use kube_markers_registry::WebhookEntry;

/// A type-erased handler, a [`HandlerFn`] or a closure around a typed one.
type Handler = Arc<dyn Fn(Vec<u8>) -> HandlerFuture + Send + Sync>;

/// One webhook to serve: a path, its handler and the side effects its configuration declares.
#[derive(Clone)]
pub struct Route {
    pub(crate) path: String,
    pub(crate) side_effects: SideEffects,
    pub(crate) handler: Handler,
    pub(crate) origin: String,
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("path", &self.path)
            .field("side_effects", &self.side_effects)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl Route {
    /// A route to a registered (type-erased) handler, with side effects `None`; errors name
    /// the route by the place of this call (see [`Route::origin`]).
    #[track_caller]
    pub fn new(path: impl Into<String>, handler: HandlerFn) -> Self {
        Self::with_handler(path.into(), Arc::new(handler))
    }

    /// The route of a `#[kube_markers::webhook]` on an `async fn`: the path the API server
    /// calls (its `path`, or the path of its `url`), its handler, its `sideEffects` (the
    /// `patch`'s when that sets them; `Unknown` when neither says), named by the attribute's
    /// place. `None` for an attribute without a handler, served some other way.
    pub fn from_entry(entry: &WebhookEntry) -> Option<Route> {
        let handler = entry.handler?;
        let webhook = &entry.attribute.marker;
        let patched = webhook
            .patch
            .as_deref()
            .and_then(|patch| serde_json::from_str::<serde_json::Value>(patch).ok())
            .and_then(|patch| patch.get("sideEffects")?.as_str().map(str::to_string));
        let side_effects = patched
            .as_deref()
            .or(webhook.side_effects.as_deref())
            .and_then(SideEffects::parse)
            .unwrap_or(SideEffects::Unknown);
        Some(Route {
            path: webhook.client.path().to_string(),
            side_effects,
            handler: Arc::new(handler),
            origin: entry.attribute.source.to_string(),
        })
    }

    /// A route to an `async fn(AdmissionRequest<K>) -> AdmissionResponse`, for handlers not
    /// registered by `#[kube_markers::webhook]` (tests, say).
    #[track_caller]
    pub fn typed<K, F, Fut>(path: impl Into<String>, handler: F) -> Self
    where
        K: Resource + DeserializeOwned + Send + 'static,
        F: Fn(AdmissionRequest<K>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AdmissionResponse> + Send + 'static,
    {
        Self::with_handler(path.into(), Arc::new(move |body| __handle(body, &handler)))
    }

    #[track_caller]
    fn with_handler(path: String, handler: Handler) -> Self {
        let caller = std::panic::Location::caller();
        Route {
            path,
            side_effects: SideEffects::None,
            handler,
            origin: format!("{}:{}", caller.file(), caller.line()),
        }
    }

    /// The `sideEffects` of the webhook's configuration: with `Some` or `Unknown`, dry-run
    /// requests are denied without calling the handler.
    pub fn side_effects(mut self, side_effects: SideEffects) -> Self {
        self.side_effects = side_effects;
        self
    }

    /// What start-up errors call this route (an attribute's `file:line (item)`).
    pub fn origin(mut self, origin: impl Into<String>) -> Self {
        self.origin = origin.into();
        self
    }

    /// The path it serves.
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// The routes by path, checked: every path once, each starting with `/`.
#[derive(Debug)]
pub(crate) struct RouteTable {
    routes: BTreeMap<String, Route>,
    body_limit: usize,
}

impl RouteTable {
    /// The table, or every problem of the routes at once.
    pub(crate) fn new(routes: Vec<Route>, body_limit: usize) -> Result<Self, Vec<ServerError>> {
        let mut errors = Vec::new();
        if routes.is_empty() {
            errors.push(ServerError::NoRoutes);
        }
        let mut table: BTreeMap<String, Route> = BTreeMap::new();
        for route in routes {
            if !route.path.starts_with('/') || route.path.contains(['?', '#']) {
                errors.push(ServerError::InvalidPath {
                    path: route.path.clone(),
                    origin: route.origin.clone(),
                });
            } else if let Some(first) = table.get(&route.path) {
                errors.push(ServerError::DuplicatePath {
                    path: route.path.clone(),
                    first: first.origin.clone(),
                    second: route.origin.clone(),
                });
            } else {
                table.insert(route.path.clone(), route);
            }
        }
        if errors.is_empty() {
            Ok(RouteTable {
                routes: table,
                body_limit,
            })
        } else {
            Err(errors)
        }
    }

    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.routes.keys().map(String::as_str)
    }

    /// The answer to one request.
    pub(crate) async fn respond<B>(&self, request: Request<B>) -> Response<Full<Bytes>>
    where
        B: hyper::body::Body,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let path = request.uri().path();
        let Some(route) = self.routes.get(path) else {
            let served: Vec<&str> = self.paths().collect();
            return text(
                StatusCode::NOT_FOUND,
                format!(
                    "no webhook is served at {path}; the paths served are {}",
                    served.join(", ")
                ),
            );
        };
        if request.method() != Method::POST {
            let mut response = text(
                StatusCode::METHOD_NOT_ALLOWED,
                format!(
                    "{path} takes POST requests with an AdmissionReview, not {}",
                    request.method()
                ),
            );
            response
                .headers_mut()
                .insert(ALLOW, http::HeaderValue::from_static("POST"));
            return response;
        }
        let content_type = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let media_type = content_type.split(';').next().unwrap_or("").trim();
        if !media_type.eq_ignore_ascii_case("application/json") {
            return text(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "{path} takes Content-Type application/json, not {:?}",
                    content_type
                ),
            );
        }
        let body = match Limited::new(request.into_body(), self.body_limit)
            .collect()
            .await
        {
            Ok(body) => body.to_bytes(),
            Err(e) if e.is::<LengthLimitError>() => {
                return text(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request body exceeds {} bytes", self.body_limit),
                );
            }
            Err(e) => {
                return text(
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {e}"),
                );
            }
        };
        route.call(body.to_vec()).await
    }
}

impl Route {
    async fn call(&self, body: Vec<u8>) -> Response<Full<Bytes>> {
        if !self.side_effects.allows_dry_run()
            && let Some(denial) = dry_run_denial(&body, self)
        {
            return json(denial);
        }
        // A task of its own, so that a handler that panics is a 500 naming the webhook rather
        // than a connection closed under the API server.
        let handler = self.handler.clone();
        match tokio::spawn(async move { handler(body).await }).await {
            Ok(Ok(review)) => json(review),
            Ok(Err(e)) => text(StatusCode::BAD_REQUEST, e.to_string()),
            Err(e) => {
                tracing::error!(path = %self.path, origin = %self.origin, "webhook handler failed: {e}");
                text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the webhook handler at {} panicked", self.path),
                )
            }
        }
    }
}

/// The parts of a review that decide whether it is a dry run, and how to answer it.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DryRunProbe {
    api_version: String,
    kind: String,
    request: Option<DryRunProbeRequest>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DryRunProbeRequest {
    uid: String,
    #[serde(default)]
    dry_run: bool,
}

/// The denial of a dry-run request to a webhook with side effects, or `None` when the body is
/// not a dry-run review (the handler then answers it, or reports the body as not a review).
fn dry_run_denial(body: &[u8], route: &Route) -> Option<Vec<u8>> {
    let probe: DryRunProbe = serde_json::from_slice(body).ok()?;
    let request = probe.request.filter(|r| r.dry_run)?;
    let mut response = AdmissionResponse::invalid("").deny(format!(
        "the webhook at {} has sideEffects {} and is not called for a dry-run request",
        route.path, route.side_effects
    ));
    response.uid = request.uid;
    response.result.reason = "Forbidden".into();
    response.result.code = 403;
    let mut review = serde_json::to_value(response.into_review()).ok()?;
    review["apiVersion"] = probe.api_version.into();
    review["kind"] = probe.kind.into();
    serde_json::to_vec(&review).ok()
}

fn text(status: StatusCode, message: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(message)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn json(body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response.headers_mut().insert(
        CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}
