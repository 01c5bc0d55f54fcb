//! The tower layer and service.

use super::{Audit, Check, Mode, warn};
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::{Either, Full};
use kube_markers_rbac::authorize::RequestAttributes;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Wraps a service with an [`Audit`]: give it to `kube::client::ClientBuilder::with_layer` or a
/// `tower::ServiceBuilder`. Put it outermost, so that it sees the paths kube builds (before a
/// base URI's path prefix is added).
#[derive(Debug, Clone)]
pub struct AuditLayer {
    pub(super) audit: Audit,
}

impl<S> tower_layer::Layer<S> for AuditLayer {
    type Service = AuditService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuditService {
            inner,
            audit: self.audit.clone(),
        }
    }
}

/// A service whose requests are audited (see [`AuditLayer`]).
#[derive(Debug, Clone)]
pub struct AuditService<S> {
    inner: S,
    audit: Audit,
}

/// The response future of [`AuditService`].
pub type ResponseFuture<B, E> =
    Pin<Box<dyn Future<Output = Result<Response<Either<B, Full<Bytes>>>, E>> + Send>>;

impl<S, ReqBody, B> tower_service::Service<Request<ReqBody>> for AuditService<S>
where
    S: tower_service::Service<Request<ReqBody>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<Either<B, Full<Bytes>>>;
    type Error = S::Error;
    type Future = ResponseFuture<B, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let method = request.method().clone();
        let url = request
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        let check = self.audit.check(method.as_str(), &url);
        if !check.allowed {
            let mode = self.audit.mode();
            if mode != Mode::Record {
                warn(&check, self.audit.permissions(), method.as_str(), &url);
            }
            if mode == Mode::Deny {
                let response = forbidden(&check, &self.audit.permissions().user.name);
                return Box::pin(std::future::ready(Ok(response.map(Either::Right))));
            }
        }
        let sent = self.inner.call(request);
        // Only an update or apply can turn into a create on the server.
        let audit = (check.attributes.resource_request
            && (method == Method::PATCH || method == Method::PUT))
            .then(|| self.audit.clone());
        Box::pin(async move {
            let response = sent.await?;
            if let Some(audit) = audit
                && response.status() == StatusCode::CREATED
            {
                audit.created(&check, method.as_str(), &url);
            }
            Ok(response.map(Either::Left))
        })
    }
}

/// The API server's answer to a request RBAC does not allow: 403 and a `Status` of reason
/// `Forbidden`, with kube-apiserver's message (`responsewriters.forbiddenMessage`).
fn forbidden(check: &Check, user: &str) -> Response<Full<Bytes>> {
    let request: &RequestAttributes = &check.attributes;
    let verb = &request.verb;
    let why = "no #[rbac] attribute allows it (kube_markers::audit)";
    let (message, details) = if request.resource_request {
        let mut resource = request.resource.clone();
        if !request.subresource.is_empty() {
            resource = format!("{resource}/{}", request.subresource);
        }
        let group = &request.api_group;
        let scope = if request.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace {:?}", request.namespace)
        };
        let qualified = if group.is_empty() {
            request.resource.clone()
        } else {
            format!("{}.{group}", request.resource)
        };
        let object = if request.name.is_empty() {
            qualified
        } else {
            format!("{qualified} {:?}", request.name)
        };
        let mut details = serde_json::json!({"group": group, "kind": request.resource});
        if !request.name.is_empty() {
            details["name"] = request.name.clone().into();
        }
        (
            format!(
                "{object} is forbidden: User {user:?} cannot {verb} resource {resource:?} in API group {group:?} {scope}: {why}"
            ),
            details,
        )
    } else {
        (
            format!(
                "forbidden: User {user:?} cannot {verb} path {:?}: {why}",
                request.path
            ),
            serde_json::json!({}),
        )
    };
    let status = serde_json::json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Forbidden",
        "details": details,
        "code": 403,
    });
    let mut response = Response::new(Full::new(Bytes::from(status.to_string())));
    *response.status_mut() = StatusCode::FORBIDDEN;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}
