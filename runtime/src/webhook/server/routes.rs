//! From an HTTP request to a handler's answer: the path picks the route; the method, media type,
//! size, review type and decoded size are checked for every route alike; the body and the
//! handler share the request deadline; dry-run requests are kept from handlers with side
//! effects.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use kube::core::Resource;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use serde::de::DeserializeOwned;

use super::ServerError;
use super::body::{BodyError, read_body};
use super::envelope::{ADMISSION_REVIEW, CONVERSION_REVIEW, Envelope, ReviewType};
use super::process::{LARGE_BODY, LargeRequest};
use crate::conversion::{CONVERSION_PATH, Conversions};
use crate::webhook::{__handle, HandlerError, HandlerFn, HandlerFuture, SideEffects};
use kube_markers_registry::WebhookEntry;
use std::time::Duration;
use tokio::time::Instant;

/// The size from which a `ConversionReview` is answered on tokio's blocking threads: about 45
/// objects of 1.4 KB, 3 ms of conversions (BENCHMARKS.md); smaller ones cost less than the
/// hand-over.
pub(crate) const BLOCKING_REVIEW: usize = 64 << 10;

/// A type-erased handler, a [`HandlerFn`] or a closure around a typed one.
type Handler = Arc<dyn Fn(Vec<u8>) -> HandlerFuture + Send + Sync>;

/// One webhook to serve: a path, its handler and the side effects its configuration declares.
#[derive(Clone)]
pub struct Route {
    pub(crate) path: String,
    pub(crate) side_effects: SideEffects,
    pub(crate) handler: Handler,
    pub(crate) origin: String,
    /// The `apiVersion` and `kind` of the bodies it takes.
    pub(crate) review: ReviewType,
    /// The CRDs whose conversions it serves (their `caBundle` is patched on request).
    #[cfg_attr(not(feature = "conversion-ca-bundle"), allow(dead_code))]
    pub(crate) conversion_crds: Vec<String>,
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
            review: ADMISSION_REVIEW,
            conversion_crds: Vec::new(),
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

    /// The route of the conversion webhook at [`CONVERSION_PATH`] (`/convert`): answers the
    /// API server's `ConversionReview`s with `conversions`. A conversion that fails or panics
    /// fails its review with a message naming the object; the server goes on.
    /// [`WebhookServerBuilder::registered`](super::WebhookServerBuilder::registered) adds it
    /// for the conversions the linked crates register.
    #[track_caller]
    pub fn conversions(conversions: Conversions) -> Self {
        let conversion_crds = conversions.crd_names();
        let conversions = Arc::new(conversions);
        // As many large reviews at once as there are CPUs, as when they ran on the workers:
        // each decodes to about 20 times its size, and 16 at once on 16 blocking threads
        // (each with its own malloc arena) took 95 MiB of RSS where 2 at a time take 28.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let blocking = Arc::new(tokio::sync::Semaphore::new(cpus));
        let handler: Handler = Arc::new(move |body: Vec<u8>| -> HandlerFuture {
            let (conversions, blocking) = (conversions.clone(), blocking.clone());
            Box::pin(async move {
                let answer = if body.len() < BLOCKING_REVIEW {
                    conversions.review(&body)
                } else {
                    // Converting thousands of objects is CPU work of a tenth of a second and
                    // more: off the async workers, which go on serving the other requests.
                    let permit = blocking.acquire_owned().await.expect("never closed");
                    let convert = move || {
                        let answer = conversions.review(&body);
                        drop(permit);
                        answer
                    };
                    match tokio::task::spawn_blocking(convert).await {
                        Ok(answer) => answer,
                        // `review` catches the conversions' panics: this is another, or the
                        // runtime shutting down (`into_panic` panics then). Either way a
                        // panic of this task, which `Route::call` answers with a 500.
                        Err(e) => std::panic::resume_unwind(e.into_panic()),
                    }
                };
                answer.map_err(|e| HandlerError::Refused(e.to_string()))
            })
        });
        Route {
            review: CONVERSION_REVIEW,
            conversion_crds,
            ..Self::with_handler(CONVERSION_PATH.into(), handler)
        }
    }

    #[track_caller]
    fn with_handler(path: String, handler: Handler) -> Self {
        let caller = std::panic::Location::caller();
        Route {
            path,
            side_effects: SideEffects::None,
            handler,
            origin: format!("{}:{}", caller.file(), caller.line()),
            review: ADMISSION_REVIEW,
            conversion_crds: Vec::new(),
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
    decode_limit: usize,
    request_timeout: Duration,
}

impl RouteTable {
    /// The table, or every problem of the routes at once.
    pub(crate) fn new(
        routes: Vec<Route>,
        body_limit: usize,
        decode_limit: usize,
        request_timeout: Duration,
    ) -> Result<Self, Vec<ServerError>> {
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
                decode_limit,
                request_timeout,
            })
        } else {
            Err(errors)
        }
    }

    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.routes.keys().map(String::as_str)
    }

    /// The answer to one request whose body and handler must be done by `deadline`.
    pub(crate) async fn respond<B>(
        &self,
        request: Request<B>,
        deadline: Instant,
    ) -> Response<Full<Bytes>>
    where
        B: hyper::body::Body + Unpin,
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
                    "{path} takes POST requests with an {}, not {}",
                    route.review.kind,
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
        // hyper has checked that a Content-Length is one number.
        let content_length = request
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        let mut large = content_length
            .filter(|&length| length >= LARGE_BODY as u64)
            .map(|_| LargeRequest::begin());
        let body = match read_body(
            request.into_body(),
            content_length,
            self.body_limit,
            deadline,
        )
        .await
        {
            Ok(body) => body,
            Err(BodyError::TooLarge) => {
                return text(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request body exceeds {} bytes", self.body_limit),
                );
            }
            Err(BodyError::TimedOut) => {
                let mut response = text(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request body did not arrive within {} s of the request",
                        self.request_timeout.as_secs_f64()
                    ),
                );
                response
                    .headers_mut()
                    .insert(CONNECTION, http::HeaderValue::from_static("close"));
                return response;
            }
            Err(BodyError::Read(e)) => {
                return text(
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {e}"),
                );
            }
        };
        if large.is_none() && body.capacity() >= LARGE_BODY {
            large = Some(LargeRequest::begin());
        }
        let envelope = match Envelope::read(&body) {
            Ok(envelope) => envelope,
            Err(e) => {
                return text(
                    StatusCode::BAD_REQUEST,
                    format!("the request body is not an {}: {e}", route.review),
                );
            }
        };
        if let Some(mismatch) = envelope.mismatch(route.review) {
            return text(StatusCode::BAD_REQUEST, mismatch);
        }
        if envelope.decoded_size > self.decode_limit as u64 {
            return text(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "decoding the {} would take about {} MiB, over the server's decode limit of {} MiB",
                    route.review.kind,
                    envelope.decoded_size >> 20,
                    self.decode_limit >> 20
                ),
            );
        }
        let response = route.call(body, &envelope, deadline).await;
        drop(large);
        response
    }
}

impl Route {
    async fn call(
        &self,
        body: Vec<u8>,
        envelope: &Envelope,
        deadline: Instant,
    ) -> Response<Full<Bytes>> {
        if !self.side_effects.allows_dry_run()
            && let Some(denial) = dry_run_denial(envelope, self)
        {
            return json(denial);
        }
        // A task of its own, so that a handler that panics is a 500 naming the webhook rather
        // than a connection closed under the API server.
        let handler = self.handler.clone();
        let mut task = tokio::spawn(async move { handler(body).await });
        match tokio::time::timeout_at(deadline, &mut task).await {
            Ok(Ok(Ok(review))) => json(review),
            Ok(Ok(Err(e))) => text(StatusCode::BAD_REQUEST, e.to_string()),
            Ok(Err(e)) => {
                tracing::error!(path = %self.path, origin = %self.origin, "webhook handler failed: {e}");
                text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the webhook handler at {} panicked", self.path),
                )
            }
            Err(_) => {
                // The API server has given up by now (its webhook timeout is at most 30 s).
                task.abort();
                tracing::warn!(path = %self.path, origin = %self.origin, "webhook handler did not answer by the request deadline: cancelled");
                text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!(
                        "the webhook handler at {} did not answer in time",
                        self.path
                    ),
                )
            }
        }
    }
}

/// The denial of a dry-run request to a webhook with side effects, or `None` when the review
/// is not a dry run (the handler then answers it, or reports the body as not a review).
fn dry_run_denial(envelope: &Envelope, route: &Route) -> Option<Vec<u8>> {
    let request = envelope.request.as_ref().filter(|r| r.dry_run)?;
    let mut response = AdmissionResponse::invalid("").deny(format!(
        "the webhook at {} has sideEffects {} and is not called for a dry-run request",
        route.path, route.side_effects
    ));
    response.uid = request.uid.clone().unwrap_or_default();
    response.result.reason = "Forbidden".into();
    response.result.code = 403;
    let mut review = serde_json::to_value(response.into_review()).ok()?;
    review["apiVersion"] = route.review.api_version.into();
    review["kind"] = route.review.kind.into();
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
