//! A validated attribute + the annotated item → the item, unchanged, plus a registry entry
//! (and, on an `async fn`, the type-erased handler the server calls).

use super::{WebhookConfigurationMarker, parse_configuration, parse_marker};
use crate::call_site::{CallSite, check_call_site, normalized_tokens};
use crate::model::AttrKind;
use crate::record::{encode_webhook, encode_webhook_configuration};
use crate::registration::record_static;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};

/// `#[webhook]`: parse, validate, emit. On any error the item is emitted as written, next
/// to the `compile_error!`s.
pub fn expand(args: TokenStream, item: TokenStream, site: &CallSite) -> TokenStream {
    let check = check_call_site(AttrKind::Webhook, site);
    let args_text = normalized_tokens(&args);
    let marker = parse_marker(args);
    let target = Target::parse(item.clone(), "webhook");
    let beside = check.beside;
    match (marker, target) {
        (Ok(marker), Ok(target)) => {
            let data = encode_webhook(&marker, &target.name, &args_text);
            let handler = match target.handler {
                Some(handler) => quote! {
                    handler: ::kube_markers::__private::webhook_handler!(#handler),
                },
                None => quote!(handler: ::core::option::Option::None,),
            };
            let registration = record_static(
                "WEBHOOK_RECORDS",
                quote!(::kube_markers::__private::WebhookRecord),
                &data,
                check.line,
                handler,
            );
            let item = target.item;
            quote!(#item #registration #beside)
        }
        (marker, target) => errors(item, beside, marker.err(), target.err()),
    }
}

/// `#[webhook_configuration]`: parse, validate, emit.
pub fn expand_configuration(args: TokenStream, item: TokenStream, site: &CallSite) -> TokenStream {
    let check = check_call_site(AttrKind::WebhookConfiguration, site);
    let args_text = normalized_tokens(&args);
    let marker = parse_configuration(args);
    let target = Target::parse(item.clone(), "webhook_configuration");
    let beside = check.beside;
    let sibling = match (&marker, &target) {
        (Ok(marker), Ok(target)) => second_of_kind(marker, &target.item).err(),
        _ => None,
    };
    match (marker, target, sibling) {
        (Ok(marker), Ok(target), None) => {
            let data = encode_webhook_configuration(&marker, &target.name, &args_text);
            let registration = record_static(
                "WEBHOOK_CONFIGURATION_RECORDS",
                quote!(::kube_markers::__private::WebhookConfigurationRecord),
                &data,
                check.line,
                TokenStream::new(),
            );
            let item = target.item;
            quote!(#item #registration #beside)
        }
        (marker, target, sibling) => {
            let mut out = errors(item, beside, marker.err(), target.err());
            if let Some(err) = sibling {
                out.extend(err.to_compile_error());
            }
            out
        }
    }
}

fn errors(
    item: TokenStream,
    beside: TokenStream,
    marker: Option<syn::Error>,
    target: Option<syn::Error>,
) -> TokenStream {
    let mut errors = beside;
    for err in [marker, target].into_iter().flatten() {
        errors.extend(err.to_compile_error());
    }
    quote!(#item #errors)
}

/// controller-gen refuses two `webhookconfiguration` markers of one kind in a package; a
/// macro sees only its own item, so here: two on one item (the generator checks the rest).
fn second_of_kind(marker: &WebhookConfigurationMarker, item: &syn::Item) -> syn::Result<()> {
    let attrs: &[syn::Attribute] = match item {
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Enum(e) => &e.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Impl(i) => &i.attrs,
        _ => return Ok(()),
    };
    for attr in attrs {
        let is_configuration =
            crate::call_site::attr_kind(attr.path()) == Some(AttrKind::WebhookConfiguration);
        let Ok(list) = attr.meta.require_list() else {
            continue;
        };
        if is_configuration
            && let Ok(other) = parse_configuration(list.tokens.clone())
            && other.mutating == marker.mutating
        {
            let kind = if marker.mutating {
                "MutatingWebhookConfiguration"
            } else {
                "ValidatingWebhookConfiguration"
            };
            return Err(syn::Error::new_spanned(
                attr,
                format!(
                    "a second #[webhook_configuration(mutating = {})]: there is one \
                     {kind}, so one attribute names it",
                    marker.mutating
                ),
            ));
        }
    }
    Ok(())
}

/// Where the attribute stands.
struct Target {
    item: syn::Item,
    name: String,
    /// The handler function, for `#[webhook]` on an `async fn`.
    handler: Option<syn::Ident>,
}

impl Target {
    fn parse(tokens: TokenStream, attr: &str) -> syn::Result<Self> {
        let item: syn::Item = syn::parse2(tokens)?;
        let mut handler = None;
        let name = match &item {
            syn::Item::Fn(f) => {
                if attr == "webhook" {
                    check_handler(&f.sig)?;
                    handler = Some(f.sig.ident.clone());
                }
                f.sig.ident.to_string()
            }
            syn::Item::Struct(s) => s.ident.to_string(),
            syn::Item::Enum(e) => e.ident.to_string(),
            syn::Item::Const(c) => c.ident.to_string(),
            other => {
                let span = other
                    .to_token_stream()
                    .into_iter()
                    .next()
                    .map_or_else(Span::call_site, |tt| tt.span());
                let on_fn = if attr == "webhook" {
                    "an `async fn` admission handler, "
                } else {
                    "a function, "
                };
                return Err(syn::Error::new(
                    span,
                    format!(
                        "#[{attr}] cannot stand here: put it on {on_fn}a struct, an enum, or \
                         `const _: () = ();` at module level"
                    ),
                ));
            }
        };
        Ok(Target {
            item,
            name,
            handler,
        })
    }
}

/// A handler is `async fn name(req: AdmissionRequest<K>) -> AdmissionResponse`: free, not
/// generic, one argument.
fn check_handler(sig: &syn::Signature) -> syn::Result<()> {
    const SHAPE: &str = "#[webhook] on a function registers it as the admission handler, \
        which is `async fn name(req: AdmissionRequest<K>) -> AdmissionResponse`";
    if sig.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            sig.fn_token,
            format!(
                "{SHAPE}: this function is not `async` (for manifests only, put the attribute \
                 on `const _: () = ();`)"
            ),
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            format!("{SHAPE}: it cannot be generic; name the resource type"),
        ));
    }
    if let Some(receiver) = sig.receiver() {
        return Err(syn::Error::new_spanned(
            receiver,
            format!("{SHAPE}: it cannot be a method; make it a free function"),
        ));
    }
    if sig.inputs.len() != 1 {
        return Err(syn::Error::new_spanned(
            &sig.inputs,
            format!("{SHAPE}: it takes exactly one argument, the request"),
        ));
    }
    Ok(())
}
