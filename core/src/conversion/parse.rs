//! The attribute's arguments (none) and its item: an `impl Spoke<Hub> for SpokeType` that is
//! not generic, between two different named types.

use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;

/// The trait the attribute's `impl` implements, as the messages name it.
pub const TRAIT: &str = "kube_markers::conversion::Spoke";

/// The trait's own name, the last segment of its path.
const SHORT: &str = "Spoke";

/// What the expansion needs of a checked `#[conversion]` impl.
pub struct ConversionImpl {
    /// The `impl` item, as written.
    pub item: syn::ItemImpl,
    /// The type the impl is for: the spoke version.
    pub spoke: syn::Type,
    /// The trait's type argument: the hub (storage) version.
    pub hub: syn::Type,
}

/// Reads the attribute's arguments and item; every problem found is in the one error.
pub fn parse(args: TokenStream, item: TokenStream) -> syn::Result<ConversionImpl> {
    let mut cx = Ctxt::new();
    if let Some(first) = args.clone().into_iter().next() {
        cx.error_at(
            first.span(),
            format!(
                "#[conversion] takes no arguments: the `impl {SHORT}<Hub> for Spoke` it stands \
                 on says what converts"
            ),
        );
    }
    let item: syn::Item = syn::parse2(item)?;
    let parsed = match item {
        syn::Item::Impl(item) => check_impl(item, &mut cx),
        other => {
            let span = other
                .to_token_stream()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |tt| tt.span());
            cx.error_at(
                span,
                format!(
                    "#[conversion] stands on an `impl {TRAIT}<Hub> for Spoke` block (the \
                     conversion of one served version of a kind to and from its storage \
                     version), not on this item"
                ),
            );
            None
        }
    };
    cx.check()?;
    parsed.ok_or_else(|| syn::Error::new(Span::call_site(), "#[conversion]: no impl"))
}

/// Checks the `impl`: a trait impl of `Spoke<Hub>`, safe, positive, not generic, between two
/// different named types.
fn check_impl(item: syn::ItemImpl, cx: &mut Ctxt) -> Option<ConversionImpl> {
    let errors = cx.error_count();
    if let Some(unsafety) = &item.unsafety {
        cx.error_at(
            unsafety.span(),
            format!("#[conversion]: `{TRAIT}` is a safe trait; remove `unsafe`"),
        );
    }
    if !item.generics.params.is_empty() {
        cx.error_at(
            item.generics.span(),
            "#[conversion] registers the conversion of one version of a kind to another: the \
             impl cannot be generic; name both types",
        );
    }
    let spoke = (*item.self_ty).clone();
    if !is_named_type(&spoke) {
        cx.error_at(
            spoke.span(),
            "#[conversion]: the impl is for the spoke version's kube-derive type (a named \
             type such as `v1::MyDatabase`), not this type",
        );
    }
    let Some((path, _)) = &item.trait_ else {
        cx.error_at(
            item.self_ty.span(),
            format!(
                "#[conversion] stands on `impl {TRAIT}<Hub> for Spoke`, not on an inherent \
                 impl: implement the trait, converting to and from the hub (storage) version"
            ),
        );
        return None;
    };
    if let Some(bang) = &item.modifiers.polarity {
        cx.error_at(
            bang.span(),
            "#[conversion] registers a conversion: a negative impl converts nothing",
        );
    }
    let last = path.segments.last()?;
    let prefix: Vec<String> = path
        .segments
        .iter()
        .take(path.segments.len() - 1)
        .map(|s| s.ident.to_string())
        .collect();
    let known_prefix = matches!(
        prefix
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        [] | ["conversion"] | ["kube_markers", "conversion"]
    );
    if last.ident != SHORT || !known_prefix {
        cx.error_at(
            path.span(),
            format!(
                "#[conversion] stands on an impl of `{TRAIT}<Hub>`, not of `{}` (write the \
                 trait as `Spoke`, `conversion::Spoke` or `{TRAIT}`)",
                compact(path)
            ),
        );
        return None;
    }
    let hub = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(hub) => Some(hub.clone()),
            other => {
                cx.error_at(
                    other.span(),
                    "#[conversion]: the trait's argument is the hub (storage) version's \
                     kube-derive type",
                );
                None
            }
        },
        _ => {
            cx.error_at(
                last.span(),
                "#[conversion]: name the hub (storage) version as the trait's one type \
                 argument, `Spoke<v2::MyDatabase>`",
            );
            None
        }
    }?;
    if is_self(&hub) || same_type(&hub, &spoke) {
        cx.error_at(
            hub.span(),
            "#[conversion]: the hub is the spoke itself; a conversion is between two versions \
             of a kind, the spoke (the impl's type) and the hub (the storage version)",
        );
    } else if !is_named_type(&hub) {
        cx.error_at(
            hub.span(),
            "#[conversion]: the hub is the storage version's kube-derive type (a named type \
             such as `v2::MyDatabase`), not this type",
        );
    }
    if cx.error_count() > errors {
        return None;
    }
    Some(ConversionImpl { item, spoke, hub })
}

/// A path type without `Self` or a qualified self (`<T as Trait>::X`).
fn is_named_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.qself.is_none() && !is_self(ty),
        syn::Type::Group(g) => is_named_type(&g.elem),
        syn::Type::Paren(p) => is_named_type(&p.elem),
        _ => false,
    }
}

fn is_self(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

/// The same type as written, up to spacing (a type spelled two ways is told apart by the
/// server's check of the two versions at start).
fn same_type(a: &syn::Type, b: &syn::Type) -> bool {
    compact(a) == compact(b)
}

/// The tokens of `tokens` without spaces, as the messages and the registry show them.
pub(crate) fn compact(tokens: &impl ToTokens) -> String {
    tokens
        .to_token_stream()
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}
