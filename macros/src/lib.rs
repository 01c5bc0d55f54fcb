//! The proc-macro shim of kube-markers: each attribute forwards to `kube-markers-core`, where
//! the parser, validator and expander live (and are unit-tested). Use these through the
//! `kube-markers` crate, which re-exports them.

use proc_macro::TokenStream;

/// controller-gen's `+kubebuilder:rbac` marker. See `kube_markers::rbac` for the full docs.
#[proc_macro_attribute]
pub fn rbac(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::rbac::expand(args.into(), item.into()).into()
}
