//! controller-gen's markers as Rust attributes, for Kubernetes operators written with kube-rs.
//!
//! Annotate reconcilers with [`rbac`](macro@rbac); each attribute is validated at compile time and
//! registered in a link-time [`registry`]. A generator binary whose `main` is
//! `kube_markers::codegen::main` (feature `codegen`, with the crates it collects named by
//! [`link!`]) merges every entry into ClusterRole/Role manifests exactly as controller-gen does
//! ([`rbac`](mod@rbac)) and writes them with controller-gen's YAML conventions.
//!
//! ```
//! use kube_markers::rbac;
//!
//! #[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]
//! #[rbac(groups = "", resources = "pods/status", verbs = "get;update")]
//! async fn reconcile() { /* … */ }
//!
//! # fn main() {
//! let entry = kube_markers::registry::rbac_entries()
//!     .into_iter()
//!     .find(|e| e.resources == ["deployments"])
//!     .unwrap();
//! assert_eq!(entry.verbs, ["get", "list", "watch"]);
//! assert_eq!(entry.source.item, "reconcile");
//! # }
//! ```
//!
//! Custom resources take [`crd`](macro@crd) above kube-rs' `#[derive(CustomResource)]`, with
//! controller-gen's schema markers as `#[k8s(...)]`; the generator writes one CRD per group and
//! kind, checked against the API server's structural-schema rules:
//!
//! ```
//! use kube::CustomResource;
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[kube_markers::crd]
//! #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
//! #[kube(group = "db.example.com", version = "v1", kind = "Database", namespaced)]
//! pub struct DatabaseSpec {
//!     #[k8s(minimum = 1, maximum = 10)]
//!     pub replicas: i32,
//! }
//!
//! # fn main() {
//! use kube::CustomResourceExt;
//! let schema = serde_json::to_value(Database::crd()).unwrap();
//! let replicas = &schema["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
//!     ["spec"]["properties"]["replicas"];
//! assert_eq!(replicas["maximum"], 10.0);
//! assert!(kube_markers::registry::crd_entries().iter().any(|e| e.type_name == "Database"));
//! # }
//! ```
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// Lets the attributes' `::kube_markers::…` paths resolve inside this crate's own tests.
extern crate self as kube_markers;

pub mod authz;
pub mod crd;
pub mod rbac;
pub mod registry;
pub mod yaml;

#[cfg(feature = "webhook")]
#[cfg_attr(docsrs, doc(cfg(feature = "webhook")))]
pub mod webhook;

#[cfg(feature = "codegen")]
#[cfg_attr(docsrs, doc(cfg(feature = "codegen")))]
pub mod codegen;

#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub mod audit;

#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
mod preflight;
#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub use preflight::{Missing, Needed, Preflight, preflight, preflight_for};

/// controller-gen's `+kubebuilder:rbac` marker.
///
/// ```
/// use kube_markers::rbac;
///
/// #[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch;create;update;patch")]
/// #[rbac(groups = "", resources = ["pods", "pods/status"], verbs = ["get", "list", "watch"])]
/// #[rbac(urls = "/metrics", verbs = "get")]
/// async fn reconcile() {}
/// # fn main() {}
/// ```
///
/// | key | value | meaning |
/// |---|---|---|
/// | `groups` | list | API groups; `""` or `core` is the core group, `*` all groups |
/// | `resources` | list | plural resources, `res/subresource`, `*/subresource` or `*` |
/// | `resource_names` (`resourceNames`) | list | restrict to these object names |
/// | `verbs` | list, required | `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, `escalate`, `bind`, `impersonate`, `use`, `approve`, `sign`, `attest` or `*`; HTTP methods for `urls` |
/// | `urls` | list | non-resource URLs (`/metrics`, `/healthz*`); ClusterRole only |
/// | `namespace` | string | emit a Role in this namespace instead of the ClusterRole |
/// | `role_name` (`roleName`) | string | name of the (Cluster)Role; default from the generator |
/// | `custom_verbs` | flag | allow verbs of aggregated APIs beyond the built-in ones |
///
/// A list is a semicolon string (`"get;list"`) or an array (`["get", "list"]`). Every
/// argument is checked at compile time: see the README for the full list of errors. The
/// attribute may stand on functions and methods (async or not), `impl` blocks, structs, enums
/// and `const _: () = ();`, any number of times; the item is emitted unchanged.
pub use kube_markers_macros::rbac;

/// Names the crates whose attributes a generator collects, so that the linker keeps them.
///
/// A crate that no code of the final binary mentions is not linked, and its registry entries
/// silently vanish. Put this at the top level of your generator's `main.rs`:
///
/// ```ignore
/// kube_markers::link!(memcached_operator, mydatabase_operator);
///
/// fn main() -> std::process::ExitCode {
///     kube_markers::codegen::main()
/// }
/// ```
#[macro_export]
macro_rules! link {
    ($($krate:ident),+ $(,)?) => {
        $(
            #[allow(unused_imports)]
            use $krate as _;
            const _: () = {
                #[$crate::__private::linkme::distributed_slice($crate::__private::LINKED_CRATES)]
                #[linkme(crate = $crate::__private::linkme)]
                static LINKED: &str = ::core::stringify!($krate);
            };
        )+
    };
}

/// Registers a `#[derive(CustomResource)]` type for CRD generation, and applies the `#[k8s]`
/// schema markers of its spec struct and fields.
///
/// Put it above the derive, on the spec struct:
///
/// ```ignore
/// #[kube_markers::crd]
/// #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
/// #[kube(group = "db.example.com", version = "v1", kind = "MyDatabase", namespaced)]
/// #[k8s(validation(rule = "self.replicas >= 3 || !self.highAvailability", message = "HA needs 3 replicas"))]
/// pub struct MyDatabaseSpec {
///     #[k8s(minimum = 1, maximum = 10)]
///     pub replicas: i32,
///     #[k8s(pattern = "^[a-z0-9./-]+(:[A-Za-z0-9._-]+)?$")]
///     pub image: String,
/// }
/// ```
///
/// Arguments: `storage` (this type is the storage version of a kind with several versions) and
/// `validation(rule = ..., ...)` (rules whose `self` is the whole object). Types used inside the
/// spec take their markers with [`schema`](macro@schema). The generator writes one CRD per
/// group and kind; see the README for the `#[k8s]` vocabulary. A running operator gets the same
/// CRDs from [`crd::definition`] and [`crd::definitions`], to install them from code.
pub use kube_markers_macros::crd;

/// Applies the `#[k8s]` schema markers of a struct or enum used inside a CRD (see
/// [`crd`](macro@crd)).
pub use kube_markers_macros::schema;

#[doc(hidden)]
pub mod __private {
    /// `a == b` in a constant: the macros check with it that `file!()` is the file the compiler
    /// placed the attribute in.
    pub const fn same_str(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    pub use crate::crd::SchemaPatch;
    pub use crate::registry::{CRD_ENTRIES, LINKED_CRATES, RBAC_ENTRIES};
    pub use linkme;
}
