//! Admission webhooks: the handlers `#[kube_markers::webhook]` registers, and how a request
//! body reaches them.
//!
//! A handler is an `async fn(AdmissionRequest<K>) -> AdmissionResponse` for any kube resource
//! type `K` (use [`DynamicObject`] to see any kind). The attribute
//! registers, next to its manifest configuration, a [`HandlerFn`] that decodes the
//! `AdmissionReview`, calls the handler and encodes the reply; servers only route bytes.

use std::future::Future;

use kube::core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use kube::core::{DynamicObject, Resource};
use serde::de::DeserializeOwned;

pub use kube_markers_registry::webhook::{HandlerError, HandlerFn, HandlerFuture};

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

/// A webhook's `sideEffects`, as the API server reads them: whether calling the handler
/// changes anything outside the admitted object, and so whether it may be called for a
/// dry-run request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SideEffects {
    /// No side effects: called for dry-run requests too.
    #[default]
    None,
    /// Side effects that the handler skips when the request's `dryRun` is set.
    NoneOnDryRun,
    /// Side effects: never to be called for a dry-run request.
    Some,
    /// Unknown side effects: treated as [`SideEffects::Some`].
    Unknown,
}

impl SideEffects {
    /// The value as a manifest spells it (`None`, `NoneOnDryRun`, `Some`, `Unknown`).
    pub fn as_str(self) -> &'static str {
        match self {
            SideEffects::None => "None",
            SideEffects::NoneOnDryRun => "NoneOnDryRun",
            SideEffects::Some => "Some",
            SideEffects::Unknown => "Unknown",
        }
    }

    /// Parses a manifest's spelling; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "None" => SideEffects::None,
            "NoneOnDryRun" => SideEffects::NoneOnDryRun,
            "Some" => SideEffects::Some,
            "Unknown" => SideEffects::Unknown,
            _ => return None,
        })
    }

    /// Whether a handler with these side effects may run for a dry-run request.
    pub fn allows_dry_run(self) -> bool {
        matches!(self, SideEffects::None | SideEffects::NoneOnDryRun)
    }
}

impl std::fmt::Display for SideEffects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The JSON patch (RFC 6902) that turns `original` into `mutated`, for a mutating handler
/// that changes a copy of the request's object rather than writing patch operations.
///
/// ```
/// use kube::core::DynamicObject;
/// use kube::core::admission::{AdmissionRequest, AdmissionResponse};
///
/// async fn default_replicas(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
///     let response = AdmissionResponse::from(&request);
///     let Some(original) = request.object else { return response };
///     let mut mutated = original.clone();
///     if mutated.data["spec"].get("replicas").is_none() {
///         mutated.data["spec"]["replicas"] = 1.into();
///     }
///     kube_markers::webhook::patch_response(response, &original, &mutated)
///         .unwrap_or_else(|e| AdmissionResponse::invalid(e))
/// }
///
/// # let object = serde_json::json!({"apiVersion": "v1", "kind": "X", "metadata": {}, "spec": {}});
/// # let original: DynamicObject = serde_json::from_value(object).unwrap();
/// let mut mutated = original.clone();
/// mutated.data["spec"]["replicas"] = 1.into();
/// let patch = kube_markers::webhook::diff(&original, &mutated).unwrap();
/// assert_eq!(
///     serde_json::to_value(&patch).unwrap(),
///     serde_json::json!([{"op": "add", "path": "/spec/replicas", "value": 1}])
/// );
/// ```
pub fn diff<K: serde::Serialize>(
    original: &K,
    mutated: &K,
) -> Result<json_patch::Patch, PatchError> {
    let original = serde_json::to_value(original).map_err(PatchError::Serialize)?;
    let mutated = serde_json::to_value(mutated).map_err(PatchError::Serialize)?;
    Ok(json_patch::diff(&original, &mutated))
}

/// `response` with the JSON patch from `original` to `mutated` (see [`diff`]); `response`
/// unchanged (no empty patch) when the two are equal.
pub fn patch_response<K: serde::Serialize>(
    response: AdmissionResponse,
    original: &K,
    mutated: &K,
) -> Result<AdmissionResponse, PatchError> {
    let patch = diff(original, mutated)?;
    if patch.0.is_empty() {
        return Ok(response);
    }
    response.with_patch(patch).map_err(PatchError::Encode)
}

/// Why a patch could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PatchError {
    /// An object could not be serialized to JSON.
    #[error("the object could not be serialized to JSON: {0}")]
    Serialize(#[source] serde_json::Error),
    /// The patch could not be encoded into the response.
    #[error("the JSON patch could not be encoded: {0}")]
    Encode(#[source] kube::core::admission::SerializePatchError),
}

/// The JSON patch types of [`diff`] (the `json-patch` crate, as kube-core uses it).
pub use json_patch;

#[cfg(feature = "webhook-server")]
#[cfg_attr(docsrs, doc(cfg(feature = "webhook-server")))]
pub mod server;
