//! A checked `#[conversion]` impl → the impl, unchanged, plus one `ConversionEntry` in the
//! registry: both types' CRDs (their group, kind and version), the two directions type-erased
//! (JSON in, JSON out), the types as written and the attribute's place.

use super::parse::{ConversionImpl, compact, parse};
use crate::call_site::{CallSite, check_call_site};
use crate::model::AttrKind;
use crate::registration::{registry_static, source_expr};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// `#[conversion]`: parse, check, emit. On any error the item is emitted as written, next to
/// the `compile_error!`s.
pub fn expand(args: TokenStream, item: TokenStream, site: &CallSite) -> TokenStream {
    let check = check_call_site(AttrKind::Conversion, site);
    let beside = check.beside;
    let parsed = match parse(args, item.clone()) {
        Ok(parsed) => parsed,
        Err(err) => {
            let errors = err.to_compile_error();
            return quote!(#item #beside #errors);
        }
    };
    let ConversionImpl { item, spoke, hub } = parsed;
    let (spoke_text, hub_text) = (compact(&spoke), compact(&hub));
    let item_name = format!("{spoke_text} -> {hub_text}");
    let source = source_expr(&item_name);
    let within = check.within;
    // The bounds are checked where the user wrote the types: an impl of another trait named
    // `Spoke`, or a type that is not a kube-derive resource, is an error on that type.
    let spoke_crd = quote::quote_spanned!(type_span(&spoke)=>
        <#spoke as ::kube::CustomResourceExt>::crd);
    let hub_crd = quote::quote_spanned!(type_span(&hub)=>
        <#hub as ::kube::CustomResourceExt>::crd);
    let to_hub = quote::quote_spanned!(type_span(&spoke)=>
        ::kube_markers::__private::conversion_to_hub::<#spoke, #hub>);
    let from_hub = quote::quote_spanned!(type_span(&spoke)=>
        ::kube_markers::__private::conversion_from_hub::<#spoke, #hub>);
    let entry = registry_static(
        "CONVERSION_ENTRIES",
        quote!(::kube_markers::registry::ConversionEntry),
        quote! {
            ::kube_markers::registry::ConversionEntry::__new(
                #spoke_crd,
                #hub_crd,
                #to_hub,
                #from_hub,
                #spoke_text,
                #hub_text,
                #source,
            )
        },
    );
    quote! {
        #item
        const _: () = {
            #within
            #entry
        };
        #beside
    }
}

fn type_span(ty: &syn::Type) -> proc_macro2::Span {
    ty.to_token_stream()
        .into_iter()
        .last()
        .map_or_else(proc_macro2::Span::call_site, |tt| tt.span())
}
