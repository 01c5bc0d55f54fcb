//! The type-erased admission handler a `#[kube_markers::webhook]` on an `async fn` registers
//! beside its webhook (re-exported as `kube_markers::webhook::{HandlerFn, HandlerFuture,
//! HandlerError}`): an `AdmissionReview` request body in, the response body out, so servers
//! only route bytes.

use std::future::Future;
use std::pin::Pin;

/// The reply to one `AdmissionReview` request, or why the body was not one.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Vec<u8>, HandlerError>> + Send>>;

/// A registered handler, type-erased: an `AdmissionReview` request body in, the
/// `AdmissionReview` response body out.
pub type HandlerFn = fn(body: Vec<u8>) -> HandlerFuture;

/// A request body that is not an `AdmissionReview` with a request in it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The body is not JSON of an `AdmissionReview` for the handler's type.
    #[error("the request body is not an AdmissionReview: {0}")]
    Decode(#[source] serde_json::Error),
    /// The `AdmissionReview` carries no `request`.
    #[error("the AdmissionReview has no request")]
    NoRequest,
    /// The response could not be encoded.
    #[error("the AdmissionReview response could not be encoded: {0}")]
    Encode(#[source] serde_json::Error),
    /// A body another route's review type refuses (the `/convert` route's `ConversionReview`),
    /// with that route's reason.
    #[error("{0}")]
    Refused(String),
}
