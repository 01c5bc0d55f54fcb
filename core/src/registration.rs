//! What every attribute's expansion registers: one plain-data `static` in a linkme
//! distributed slice of the registry, written straight into its link section where possible.

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The registration of one attribute: a `const _` block holding one record `static` of type
/// `ty` in the slice `slice` (see [`registry_static`]): the registry's `Record`, i.e. the
/// validated attribute as one string (`data`, `crate::record`'s format) and the call site;
/// with `extra` fields (`handler: ...,`), a `ty` that embeds that `Record` as `record` beside
/// them.
///
/// `checked_line` is the call-site check ([`SiteCheck::line`]): it yields the record's `line`
/// outside unit-test builds, so the check costs no `const` of its own.
///
/// [`SiteCheck::line`]: crate::call_site::SiteCheck::line
pub fn record_static(
    slice: &str,
    ty: TokenStream,
    data: &str,
    checked_line: Option<TokenStream>,
    extra: TokenStream,
) -> TokenStream {
    let line = match checked_line {
        Some(checked) => quote! {
            #[cfg(not(test))]
            line: #checked,
            #[cfg(test)]
            line: ::core::line!(),
        },
        None => quote!(line: ::core::line!(),),
    };
    let record = quote! {
        data: #data,
        file: ::core::file!(),
        #line
        column: ::core::column!(),
        module_path: ::core::module_path!(),
    };
    let value = if extra.is_empty() {
        quote!(#ty { #record })
    } else {
        quote! {
            #ty {
                record: ::kube_markers::__private::Record { #record },
                #extra
            }
        }
    };
    let entry = registry_static(slice, ty, value);
    quote! {
        const _: () = {
            #entry
        };
    }
}

/// `static ENTRY: #ty = #value;` as an element of the linkme distributed slice `slice` (a name
/// in `kube_markers::__private`; `ty` is the slice's element type by construction).
///
/// On Linux ([`DIRECT_SECTION_TARGET`]) the static carries the link section linkme names the
/// slice's there (`linkme_<SLICE>`) itself: no macro to expand, which is most of what an element
/// cost the compiler beyond its static. On every other target (Apple's hashed section names,
/// Windows, the other ELF systems) it goes through the slice's own `macro_rules!`, which is
/// what linkme's `#[distributed_slice(...)]` on an element expands to, less a second
/// proc-macro that parses the static again and a type-check function per element; on a target
/// linkme does not support, the slice's declaration is a compile error. A `cfg`'d-out item is
/// never expanded, so each target pays for one of the two. The runtime checks at its own
/// compile time that linkme's section names are the ones written here (`kube-markers-registry`,
/// `expect_linkme_sections!`).
pub fn registry_static(slice: &str, ty: TokenStream, value: TokenStream) -> TokenStream {
    let section = format!("linkme_{slice}");
    let slice = proc_macro2::Ident::new(slice, Span::call_site());
    let target: TokenStream = DIRECT_SECTION_TARGET
        .parse()
        .expect("the target is a cfg predicate");
    quote! {
        #[cfg(#target)]
        #[used]
        #[unsafe(link_section = #section)]
        static ENTRY: #ty = #value;
        #[cfg(not(#target))]
        ::kube_markers::__private::#slice! {
            #![linkme_macro = ::kube_markers::__private::#slice]
            static ENTRY: #ty = #value;
        }
    }
}

/// Where [`registry_static`] writes the link section itself: Linux, whose ELF section linkme
/// 0.3 names `linkme_<SLICE>`. Android, FreeBSD, OpenBSD and Fuchsia share that name, but
/// each predicate in the `cfg` pair costs every attribute's expansion (a list of the seven
/// ELF targets cost ≈0.1 M instructions more per attribute than Linux alone), and operators
/// run on Linux: the others keep linkme's own macro.
pub const DIRECT_SECTION_TARGET: &str = "target_os = \"linux\"";

/// The registry's `Source` of the attribute being expanded. `file!()`, `line!()` and
/// `column!()` are expanded at the call site, i.e. at the attribute, which is what the
/// workspace scan matches against.
pub fn source_expr(item_name: &str) -> TokenStream {
    quote! {
        ::kube_markers::registry::Source::__new(
            ::core::file!(),
            ::core::line!(),
            ::core::column!(),
            ::core::module_path!(),
            #item_name,
        )
    }
}
