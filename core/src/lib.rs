//! The attribute language of kube-markers: what its attributes mean, and (feature `parse`) how
//! they are read.
//!
//! The proc-macro crate (`kube-markers-macros`) is a thin shim over this crate, and the
//! generator's workspace scan parses the very same attribute arguments with the very same
//! functions, so the macro and the scan can never disagree about what an attribute means.
//! Nothing here is a stable API: depend on `kube-markers`.
//!
//! Without features, only the plain data every side shares: the [`model`] (one type per
//! attribute, from the parser through the registry to the aggregation), the registry's
//! [`record`] format and the [`lints`]' names. With `parse`, data flows parse → validate →
//! expand:
//! - [`args`] is the one parser of attribute arguments (`key`, `key = value`, `key(...)`) that
//!   every attribute shares, with key tables and value readers for the typed models on top;
//! - [`rbac::parse_args`] turns attribute tokens into a typed, spanned [`rbac::RbacArgs`];
//! - [`rbac::validate`] checks it the way the API server and controller-gen would, producing an
//!   [`model::RbacMarker`];
//! - [`rbac::expand`] emits the annotated item unchanged plus a link-time registry record, and
//!   [`call_site`] makes every spelling the generator's scan could not find a compile error.
//!
//! Errors are accumulated in a [`ctxt::Ctxt`] and reported together, each on its own span.

pub mod error_text;
pub mod lints;
pub mod model;
pub mod record;
pub mod schema_types;

#[cfg(feature = "parse")]
pub mod args;
#[cfg(feature = "parse")]
pub mod call_site;
#[cfg(feature = "parse")]
pub mod cel;
#[cfg(feature = "parse")]
pub mod cfg;
#[cfg(feature = "parse")]
pub mod conversion;
#[cfg(feature = "parse")]
pub mod ctxt;
#[cfg(feature = "parse")]
pub mod item_header;
#[cfg(feature = "parse")]
pub mod names;
#[cfg(feature = "parse")]
pub mod rbac;
#[cfg(feature = "parse")]
pub mod registration;
#[cfg(feature = "parse")]
pub mod schema;
#[cfg(feature = "parse")]
pub mod suggest;
#[cfg(feature = "parse")]
pub mod webhook;
