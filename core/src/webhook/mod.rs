//! `#[webhook(...)]` and `#[webhook_configuration(...)]`: controller-gen's
//! `+kubebuilder:webhook` and `+kubebuilder:webhookconfiguration` markers as Rust attributes.
//!
//! ```text
//! #[webhook(name = "vmydatabase.example.com", mutating = false, path = "/validate-mydatabase",
//!           failure_policy = "Fail", side_effects = "None", groups = "db.example.com",
//!           resources = "mydatabases", verbs = "create;update", versions = "v1",
//!           admission_review_versions = "v1")]
//! async fn validate(req: AdmissionRequest<MyDatabase>) -> AdmissionResponse { ... }
//!
//! #[webhook_configuration(mutating = true, name = "mydatabase-mutating")]
//! const _: () = ();
//! ```

mod expand;
pub mod object;
mod parse;
mod validate;

pub use expand::{expand, expand_configuration};
pub use object::{ObjectProblem, base_object, webhook_object};
pub use parse::{Item, Value, WebhookArgs};
pub use validate::{validate, validate_configuration};

pub use crate::model::{WebhookClient, WebhookConfigurationMarker, WebhookMarker};

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;

/// Parses `#[webhook]` arguments.
pub fn parse_args(tokens: TokenStream, cx: &mut Ctxt) -> WebhookArgs {
    parse::parse_args(&parse::WEBHOOK_KEYS, tokens, cx)
}

/// Parses and validates `#[webhook]` arguments; every problem found is in the one error.
pub fn parse_marker(tokens: TokenStream) -> syn::Result<WebhookMarker> {
    let mut cx = Ctxt::new();
    let args = parse_args(tokens, &mut cx);
    let marker = validate(&args, &mut cx);
    cx.check()?;
    Ok(marker.unwrap_or_default())
}

/// Parses and validates `#[webhook_configuration]` arguments.
pub fn parse_configuration(tokens: TokenStream) -> syn::Result<WebhookConfigurationMarker> {
    let mut cx = Ctxt::new();
    let args = parse::parse_args(&parse::CONFIGURATION_KEYS, tokens, &mut cx);
    let marker = validate_configuration(&args, &mut cx);
    cx.check()?;
    Ok(marker.unwrap_or_default())
}

#[cfg(test)]
mod tests;
