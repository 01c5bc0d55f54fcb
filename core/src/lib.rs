//! The plain-library half of kube-markers' attributes.
//!
//! The proc-macro crate (`kube-markers-macros`) is a thin shim over this crate, and the
//! generator's workspace scan (`kube_markers::codegen`) parses the very same attribute
//! arguments with the very same functions, so the macro and the scan can never disagree
//! about what an attribute means. Nothing here is a stable API: depend on `kube-markers`.
//!
//! Data flows parse → validate → expand:
//! - [`args`] is the one parser of attribute arguments (`key`, `key = value`, `key(...)`) that
//!   every attribute shares, with key tables and value readers for the typed models on top;
//! - [`rbac::parse_args`] turns attribute tokens into a typed, spanned [`rbac::RbacArgs`];
//! - [`rbac::validate`] checks it the way the API server and controller-gen would, producing an
//!   [`rbac::RbacMarker`];
//! - [`rbac::expand`] emits the annotated item unchanged plus a link-time registry entry.
//!
//! Errors are accumulated in a [`ctxt::Ctxt`] and reported together, each on its own span.

pub mod lints;
pub mod model;
pub mod record;

#[cfg(feature = "parse")]
pub mod args;
#[cfg(feature = "parse")]
pub mod cel;
#[cfg(feature = "parse")]
pub mod ctxt;
#[cfg(feature = "parse")]
pub mod item_header;
#[cfg(feature = "parse")]
pub mod names;
#[cfg(feature = "parse")]
pub mod rbac;
#[cfg(feature = "parse")]
pub mod scan;
#[cfg(feature = "parse")]
pub mod schema;
#[cfg(feature = "parse")]
pub mod suggest;
#[cfg(feature = "parse")]
pub mod webhook;
