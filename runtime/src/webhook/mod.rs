//! Admission webhooks: the handlers `#[kube_markers::webhook]` registers, and how a request
//! body reaches them.
//!
//! A handler is an `async fn(AdmissionRequest<K>) -> AdmissionResponse` for any kube resource
//! type `K` (use [`DynamicObject`] to see any kind). The attribute
//! registers, next to its manifest configuration, a [`HandlerFn`] that decodes the
//! `AdmissionReview`, calls the handler and encodes the reply; servers only route bytes.

use std::future::Future;
use std::pin::Pin;

use kube::core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use kube::core::{DynamicObject, Resource};
use serde::de::DeserializeOwned;

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
}

/// Decodes `body`, calls `handler` and encodes its answer: what the attribute's expansion
/// registers for each handler.
#[doc(hidden)]
pub fn __handle<K, F, Fut>(body: Vec<u8>, handler: F) -> HandlerFuture
where
    K: Resource + DeserializeOwned + Send + 'static,
    F: FnOnce(AdmissionRequest<K>) -> Fut,
    Fut: Future<Output = AdmissionResponse> + Send + 'static,
{
    let review: AdmissionReview<K> = match serde_json::from_slice(&body) {
        Ok(review) => review,
        Err(e) => return Box::pin(std::future::ready(Err(HandlerError::Decode(e)))),
    };
    let request: AdmissionRequest<K> = match review.try_into() {
        Ok(request) => request,
        Err(_) => return Box::pin(std::future::ready(Err(HandlerError::NoRequest))),
    };
    let reply = handler(request);
    Box::pin(async move {
        let review: AdmissionReview<DynamicObject> = reply.await.into_review();
        serde_json::to_vec(&review).map_err(HandlerError::Encode)
    })
}
