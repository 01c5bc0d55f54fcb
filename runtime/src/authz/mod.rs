//! Kubernetes authorization, offline, with kube-apiserver's own semantics.
//!
//! - [`request_info`] turns an HTTP method and URL into what the API server authorizes
//!   (verb, group, resource, subresource, name, namespace), as kube-apiserver's
//!   `RequestInfoFactory` does (k8s.io/apiserver `pkg/endpoints/request/requestinfo.go`):
//!   `GET` on a collection is `list` or `watch`, `DELETE` on one is `deletecollection`, a
//!   `fieldSelector=metadata.name=x` names the object of a list or watch, `/namespaces/NAME` is
//!   in namespace `NAME`, the legacy `/watch/` and `/proxy/` paths, and the rest.
//!
//! ```
//! let info = kube_markers::authz::request_info("GET", "/apis/apps/v1/namespaces/web/deployments?watch=true");
//! assert_eq!((info.verb.as_str(), info.api_group.as_str(), info.namespace.as_str()), ("watch", "apps", "web"));
//! ```

mod request_info;
mod selectors;

pub use request_info::{RequestInfo, request_info};
