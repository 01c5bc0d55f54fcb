//! `#[rbac(...)]`: controller-gen's `+kubebuilder:rbac` marker as a Rust attribute.
//!
//! ```text
//! #[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]
//! #[rbac(groups = ["", "apps"], resources = ["pods/status"], verbs = ["get", "update"])]
//! #[rbac(urls = "/metrics", verbs = "get")]
//! #[rbac(groups = "", resources = "secrets", verbs = "get", namespace = "tenant", role_name = "tenant-reader")]
//! ```

mod expand;
mod parse;
mod validate;

pub use expand::{expand, impl_name, registration};
pub use parse::{AllowArg, Item, ListArg, RbacArgs, parse_args};
pub use validate::validate;

use proc_macro2::TokenStream;

pub use crate::model::{Allow, RbacMarker};

/// Parses and validates attribute arguments; every problem found is in the one error.
pub fn parse_marker(args: TokenStream) -> syn::Result<RbacMarker> {
    let mut cx = crate::ctxt::Ctxt::new();
    let parsed = parse_args(args, &mut cx);
    let marker = validate(&parsed, &mut cx);
    cx.check()?;
    // `validate` only returns `None` after recording an error, so this is reached with `Some`.
    Ok(marker.unwrap_or_default())
}

#[cfg(test)]
mod tests;
