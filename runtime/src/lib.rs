//! controller-gen's markers as Rust attributes, for Kubernetes operators written with kube-rs.
//!
//! Annotate reconcilers with [`rbac`](macro@rbac); each attribute is validated at compile time and
//! registered in a link-time [`registry`]. A generator binary whose `main` is
//! `kube_markers::codegen::main` (feature `codegen`, with the crates it collects named by
//! [`link!`]) merges every entry into ClusterRole/Role manifests exactly as controller-gen does
//! and writes them with controller-gen's YAML conventions.
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
//!     .find(|e| e.marker.resources == ["deployments"])
//!     .unwrap();
//! assert_eq!(entry.marker.verbs, ["get", "list", "watch"]);
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

pub mod conversion;
pub mod crd;
mod expansion;
#[doc(inline)]
pub use kube_markers_registry as registry;

#[cfg(feature = "webhook")]
#[cfg_attr(docsrs, doc(cfg(feature = "webhook")))]
pub mod webhook;

/// The generator (the `kube-markers-codegen` crate): a generator binary's `main` is
/// [`codegen::main`], with the crates it collects named by [`link!`].
#[cfg(feature = "codegen")]
#[cfg_attr(docsrs, doc(cfg(feature = "codegen")))]
#[doc(inline)]
pub use kube_markers_codegen as codegen;

/// The light generator: a generator binary whose [`export::main`] leaves the checks and the
/// writing to the installed `kube-markers` command.
#[cfg(feature = "export")]
#[cfg_attr(docsrs, doc(cfg(feature = "export")))]
pub mod export;

#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub mod audit;

#[cfg(feature = "health")]
#[cfg_attr(docsrs, doc(cfg(feature = "health")))]
pub mod health;

#[cfg(feature = "leader-election")]
#[cfg_attr(docsrs, doc(cfg(feature = "leader-election")))]
pub mod leader_election;

#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
mod preflight;
#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub use preflight::{Missing, Needed, Preflight, preflight, preflight_for};

pub(crate) use kube_markers_core::error_text::with_sources;

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
/// argument is checked at compile time: see `docs/attributes.md` for the full list of errors. The
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
        // The generator's identity: its package names its ledgers and finds its bundle
        // metadata, and its messages say `cargo run -p <package>`.
        const _: () = {
            #[$crate::__private::linkme::distributed_slice($crate::__private::GENERATOR_RECORDS)]
            #[linkme(crate = $crate::__private::linkme)]
            static GENERATOR: $crate::__private::GeneratorRecord = $crate::__private::GeneratorRecord {
                package: ::core::env!("CARGO_PKG_NAME"),
                bin: ::core::option_env!("CARGO_BIN_NAME"),
                manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
            };
        };
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
/// Arguments: `storage` (this type is the storage version of a kind with several versions),
/// `validation(rule = ..., ...)` (rules whose `self` is the whole object) and
/// `allow(unconverted-versions, reason = "...")` (the kind's versions have different schemas and
/// no conversion, and the loss that makes is accepted: see `docs/crds.md`, versions that
/// evolve). Types used inside the
/// spec take their markers with [`schema`](macro@schema). The generator writes one CRD per
/// group and kind; see `docs/crds.md` for the `#[k8s]` vocabulary. A running operator gets the same
/// CRDs from [`crd::definition`] and [`crd::definitions`], to install them from code.
pub use kube_markers_macros::crd;

/// Applies the `#[k8s]` schema markers of a struct or enum used inside a CRD (see
/// [`crd`](macro@crd)).
pub use kube_markers_macros::schema;

/// controller-gen's `+kubebuilder:webhook` marker: an admission webhook of the generated
/// `{Mutating,Validating}WebhookConfiguration` (`<out>/webhook/manifests.yaml`).
///
/// On an `async fn(AdmissionRequest<K>) -> AdmissionResponse` it also registers the function
/// as the webhook's handler (feature `webhook`); on a struct, an enum or `const _: () = ();` it
/// only generates the manifest.
///
/// ```ignore
/// #[kube_markers::webhook(
///     name = "vmydatabase.db.example.com", mutating = false, failure_policy = "Fail",
///     side_effects = "None", groups = "db.example.com", resources = "mydatabases",
///     verbs = "create;update", versions = "v1", admission_review_versions = "v1",
///     path = "/validate-db-example-com-v1-mydatabase",
/// )]
/// async fn validate(req: AdmissionRequest<MyDatabase>) -> AdmissionResponse { /* … */ }
/// ```
///
/// | key | value | meaning |
/// |---|---|---|
/// | `name` | string, required | the webhook's name, a domain of three or more segments |
/// | `mutating` | bool, required | mutating (`true`) or validating (`false`) |
/// | `failure_policy` (`failurePolicy`) | string, required | `Fail` or `Ignore` (any case) |
/// | `groups`, `resources`, `versions` | list, required | what the rule matches; `core` is `""` |
/// | `verbs` | list, required | `create`, `update`, `delete`, `connect`, `*` |
/// | `admission_review_versions` (`admissionReviewVersions`) | list, required | `v1`, `v1beta1` |
/// | `side_effects` (`sideEffects`) | string | `None` or `NoneOnDryRun`; required unless `patch` sets it |
/// | `path` / `url` | string, one required | served behind the webhook Service / an `https://` URL |
/// | `service_name`, `service_namespace`, `service_port` | string, string, int | the Service (default `webhook-service` in `system`) |
/// | `match_policy` (`matchPolicy`) | string | `Exact` or `Equivalent` |
/// | `timeout_seconds` (`timeoutSeconds`) | int | 1 to 30 |
/// | `reinvocation_policy` (`reinvocationPolicy`) | string | `Never` or `IfNeeded` (mutating only) |
/// | `webhook_versions` (`webhookVersions`) | list | only `v1` |
/// | `patch` | string | a JSON object merged into the webhook (selectors, `matchConditions`, …) |
pub use kube_markers_macros::webhook;

/// controller-gen's `+kubebuilder:webhookconfiguration` marker: names the
/// `MutatingWebhookConfiguration` (`mutating = true`) or `ValidatingWebhookConfiguration`
/// (`mutating = false`) instead of `mutating-webhook-configuration` /
/// `validating-webhook-configuration`. One of each kind per generator.
///
/// ```
/// #[kube_markers::webhook_configuration(mutating = true, name = "mydatabase-mutating")]
/// const _: () = ();
/// # fn main() {}
/// ```
pub use kube_markers_macros::webhook_configuration;

/// Registers an `impl` of [`conversion::Spoke`] as the conversion of a served version of a
/// kind (the spoke) to and from its storage version (the hub): the generator gives the kind's
/// CRD `spec.conversion`, and `kube_markers::webhook::server` serves it at `/convert`.
///
/// ```ignore
/// use kube_markers::conversion::Spoke;
///
/// #[kube_markers::conversion]
/// impl Spoke<v2::MyDatabase> for v1::MyDatabase {
///     type Error = String;
///     fn to_hub(self) -> Result<v2::MyDatabase, String> {
///         Ok(v2::MyDatabase {
///             metadata: self.metadata,
///             spec: v2::MyDatabaseSpec { size: self.spec.replicas, engine: "postgres".into() },
///             status: None,
///         })
///     }
///     fn from_hub(hub: v2::MyDatabase) -> Result<Self, String> { /* … */ }
/// }
/// ```
///
/// It takes no arguments. The `impl` must be of `Spoke<Hub>` (written `Spoke`,
/// `conversion::Spoke` or `kube_markers::conversion::Spoke`), not generic, and between two
/// different kube-derive types of one group and kind; the webhook server refuses to start on
/// two conversions of one version, or two hubs of one kind. Conversions take whole objects;
/// see [`conversion`](mod@conversion) for the contract and the round-trip checks for tests,
/// and `docs/conversions.md` for the workflow.
pub use kube_markers_macros::conversion;

/// `#[webhook]` on a handler, with the `webhook` feature: its type-erased handler, for the
/// `handler` of its registry record.
#[cfg(feature = "webhook")]
#[doc(hidden)]
#[macro_export]
macro_rules! __webhook_handler {
    ($handler:ident) => {{
        fn __kube_markers_webhook_handler(
            body: ::std::vec::Vec<u8>,
        ) -> $crate::webhook::HandlerFuture {
            $crate::webhook::__handle(body, $handler)
        }
        ::core::option::Option::Some(__kube_markers_webhook_handler as $crate::webhook::HandlerFn)
    }};
}

/// `#[webhook]` on a handler without the `webhook` feature: one clear error.
#[cfg(not(feature = "webhook"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __webhook_handler {
    ($handler:ident) => {
        ::core::compile_error!(::core::concat!(
            "#[webhook] on `",
            ::core::stringify!($handler),
            "` registers it as an admission handler, which needs the `webhook` feature of \
             kube-markers: enable it in Cargo.toml, \
             `kube-markers = { version = \"...\", features = [\"webhook\"] }` \
             (for manifests only, put the attribute on `const _: () = ();` instead)"
        ))
    };
}

#[doc(hidden)]
pub mod __private {
    pub use crate::__webhook_handler as webhook_handler;
    pub use crate::conversion::{__from_hub as conversion_from_hub, __to_hub as conversion_to_hub};
    pub use crate::expansion::{
        conversion_written_here, crd_written_here, rbac_written_here,
        webhook_configuration_written_here, webhook_written_here,
    };
    pub use kube_markers_registry::crd::SchemaPatch;
    pub use kube_markers_registry::{
        CONVERSION_ENTRIES, CRD_ENTRIES, GENERATOR_RECORDS, GeneratorRecord, LINKED_CRATES,
        RBAC_RECORDS, RbacRecord, Record, WEBHOOK_CONFIGURATION_RECORDS, WEBHOOK_RECORDS,
        WebhookConfigurationRecord, WebhookRecord,
    };
    pub use kube_markers_registry::{SCHEMA_TYPE_RECORDS, SchemaTypeRecord};
    pub use linkme;
}
