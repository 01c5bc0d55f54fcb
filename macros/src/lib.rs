//! The proc-macro shim of kube-markers: each attribute forwards to `kube-markers-core`, where
//! the parser, validator and expander live (and are unit-tested). Use these through the
//! `kube-markers` crate, which re-exports them.

use proc_macro::TokenStream;

/// controller-gen's `+kubebuilder:rbac` marker. See `kube_markers::rbac` for the full docs.
#[proc_macro_attribute]
pub fn rbac(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::rbac::expand(args.into(), item.into()).into()
}

/// Registers a `#[derive(CustomResource)]` type for CRD generation and applies the `#[k8s]`
/// schema markers of its spec struct. See `kube_markers::crd` for the full docs.
#[proc_macro_attribute]
pub fn crd(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::schema::expand_crd(args.into(), item.into()).into()
}

/// Applies the `#[k8s]` schema markers of a struct or enum used in a CRD's schema.
#[proc_macro_attribute]
pub fn schema(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::schema::expand_schema(args.into(), item.into()).into()
}
