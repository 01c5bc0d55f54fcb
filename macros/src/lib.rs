//! The proc-macro shim of kube-markers: each attribute forwards to `kube-markers-core`, where
//! the parser, validator and expander live (and are unit-tested). Use these through the
//! `kube-markers` crate, which re-exports them.

use kube_markers_core::call_site::{CallSite, check_call_site};
use kube_markers_core::model::AttrKind;
use proc_macro::{Span, TokenStream};

/// What the compiler knows about the attribute being expanded; only a proc-macro can ask.
fn call_site() -> CallSite {
    let span = Span::call_site();
    let file = span.local_file();
    let test_or_bench_target = kube_markers_core::call_site::is_test_or_bench_file(
        file.as_deref(),
        std::env::var_os("CARGO_TARGET_TMPDIR").is_some(),
        std::env::var_os("CARGO_MANIFEST_DIR")
            .as_deref()
            .map(std::path::Path::new),
        std::env::current_dir().ok().as_deref(),
    );
    CallSite {
        text: span.source_text(),
        file,
        file_name: span.file(),
        line: span.line(),
        column: span.column(),
        out_dir: std::env::var_os("OUT_DIR").map(Into::into),
        test_or_bench_target,
    }
}

/// controller-gen's `+kubebuilder:rbac` marker. See `kube_markers::rbac` for the full docs.
#[proc_macro_attribute]
pub fn rbac(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::rbac::expand(args.into(), item.into(), &call_site()).into()
}

/// Registers a `#[derive(CustomResource)]` type for CRD generation and applies the `#[k8s]`
/// schema markers of its spec struct. See `kube_markers::crd` for the full docs.
#[proc_macro_attribute]
pub fn crd(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut out = kube_markers_core::schema::expand_crd(args.into(), item.into());
    // `#[crd]` stands on a struct, where a `const _` item is valid beside it.
    let check = check_call_site(AttrKind::Crd, &call_site());
    out.extend(check.beside);
    out.extend(check.within);
    out.into()
}

/// Applies the `#[k8s]` schema markers of a struct or enum used in a CRD's schema.
#[proc_macro_attribute]
pub fn schema(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::schema::expand_schema(args.into(), item.into()).into()
}

/// controller-gen's `+kubebuilder:webhook` marker. See `kube_markers::webhook` for the full docs.
#[proc_macro_attribute]
pub fn webhook(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::webhook::expand(args.into(), item.into(), &call_site()).into()
}

/// Registers an `impl kube_markers::conversion::Spoke<Hub> for Spoke` as the conversion of a
/// served version of a kind to and from its storage version. See `kube_markers::conversion`
/// for the full docs.
#[proc_macro_attribute]
pub fn conversion(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::conversion::expand(args.into(), item.into(), &call_site()).into()
}

/// controller-gen's `+kubebuilder:webhookconfiguration` marker. See
/// `kube_markers::webhook_configuration` for the full docs.
#[proc_macro_attribute]
pub fn webhook_configuration(args: TokenStream, item: TokenStream) -> TokenStream {
    kube_markers_core::webhook::expand_configuration(args.into(), item.into(), &call_site()).into()
}
