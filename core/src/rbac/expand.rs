//! [`RbacMarker`] + the annotated item → the item, unchanged, plus a registry entry.

use super::{RbacMarker, parse_marker};
use crate::item_header::{ItemHeader, ItemKind};
use crate::record::RbacRecordData;
use crate::scan::{AttrKind, CallSite, check_call_site};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};

/// The whole attribute: parse, validate, and emit.
///
/// On any error the item is still emitted exactly as written, next to the `compile_error!`s,
/// so that one typo in an attribute doesn't turn into "cannot find function" elsewhere.
///
/// `site` is where the compiler says the attribute stands: an attribute the generator's
/// workspace scan could not find there is a compile error (see [`check_call_site`]).
pub fn expand(args: TokenStream, item: TokenStream, site: &CallSite) -> TokenStream {
    let check = check_call_site(AttrKind::Rbac, site);
    let args_text = crate::scan::normalized_tokens(&args);
    let marker = parse_marker(args);
    let target = Target::parse(item.clone());
    let beside = check.beside;
    match (marker, target) {
        (Ok(marker), Ok(target)) => {
            let registration = registration(&marker, &args_text, target.name(), check.line);
            let emitted = target.emit(registration);
            quote!(#emitted #beside)
        }
        (marker, target) => {
            let mut errors = beside;
            for err in [marker.err(), target.err()].into_iter().flatten() {
                errors.extend(err.to_compile_error());
            }
            quote!(#item #errors)
        }
    }
}

/// The registry entry for one attribute: a `const _` block holding one plain-data `static`
/// in the registry's link section (see [`registry_static`]): the validated attribute as one
/// string ([`RbacRecordData`]) and the call site. `args_text` is the arguments'
/// [`normalized_tokens`](crate::scan::normalized_tokens) text (the cross-check's cheap "same
/// attribute" test). `checked_line` is the call-site check ([`SiteCheck::line`]): it yields
/// the record's `line` outside unit-test builds, so the check costs no `const` of its own.
///
/// [`SiteCheck::line`]: crate::scan::SiteCheck::line
pub fn registration(
    marker: &RbacMarker,
    args_text: &str,
    item_name: &str,
    checked_line: Option<TokenStream>,
) -> TokenStream {
    let data = RbacRecordData::new(marker, item_name, args_text).encode();
    let line = match checked_line {
        Some(checked) => quote! {
            #[cfg(not(test))]
            line: #checked,
            #[cfg(test)]
            line: ::core::line!(),
        },
        None => quote!(line: ::core::line!(),),
    };
    let value = quote! {
        ::kube_markers::__private::RbacRecord {
            data: #data,
            file: ::core::file!(),
            #line
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    };
    let entry = registry_static(
        "RBAC_RECORDS",
        quote!(::kube_markers::__private::RbacRecord),
        value,
    );
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
/// compile time that linkme's section names are the ones written here (`registry.rs`,
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

/// Where the attribute stands, and how to attach a registration to it.
enum Target {
    /// Read from the item's header tokens alone (most items: see [`ItemHeader`]).
    Header(ItemHeader),
    /// Parsed in full: `impl` blocks, whose name is printed from their types, and items the
    /// header reader does not recognize (the parse reports what is wrong with them).
    Parsed { item: Box<syn::Item>, name: String },
}

impl Target {
    fn parse(tokens: TokenStream) -> syn::Result<Self> {
        if let Some(header) = ItemHeader::read(tokens.clone()) {
            return Ok(Target::Header(header));
        }
        let item: syn::Item = syn::parse2(tokens)?;
        let name = match &item {
            syn::Item::Fn(f) => f.sig.ident.to_string(),
            syn::Item::Struct(s) => s.ident.to_string(),
            syn::Item::Enum(e) => e.ident.to_string(),
            syn::Item::Const(c) => c.ident.to_string(),
            syn::Item::Impl(i) => impl_name(i),
            other => return Err(unsupported(other)),
        };
        Ok(Target::Parsed {
            item: Box::new(item),
            name,
        })
    }

    fn name(&self) -> &str {
        match self {
            Target::Header(header) => &header.name,
            Target::Parsed { name, .. } => name,
        }
    }

    /// Functions and methods get the entry as the first item of their body (an `impl` block
    /// cannot hold a `static`); other items get it right after themselves.
    fn emit(self, registration: TokenStream) -> TokenStream {
        match self {
            Target::Header(header) if header.kind == ItemKind::Fn => header
                .with_first_in_body(registration)
                .expect("a function read from its header has a body"),
            Target::Header(header) => {
                let item = header.into_tokens();
                quote!(#item #registration)
            }
            Target::Parsed { item, .. } => match *item {
                syn::Item::Fn(mut f) => {
                    let stmt: syn::Stmt = syn::Stmt::Item(syn::Item::Verbatim(registration));
                    f.block.stmts.insert(0, stmt);
                    f.into_token_stream()
                }
                item => quote!(#item #registration),
            },
        }
    }
}

/// The name an `impl` block is registered under: `impl Trait for Type` or `impl Type`.
pub fn impl_name(item: &syn::ItemImpl) -> String {
    let self_ty = compact(item.self_ty.to_token_stream());
    match &item.trait_ {
        Some((path, _)) => format!("impl {} for {self_ty}", compact(path.to_token_stream())),
        None => format!("impl {self_ty}"),
    }
}

/// `Foo < T >` → `Foo<T>`: token streams print with spaces everywhere.
fn compact(tokens: TokenStream) -> String {
    let s = tokens.to_string();
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let prev = out.chars().last();
            let next = chars.peek().copied();
            let glue = matches!(prev, Some('<' | ':' | '&' | '(' | '['))
                || matches!(next, Some('<' | '>' | ':' | ',' | ')' | ']'));
            if glue {
                continue;
            }
        }
        out.push(c);
    }
    out
}

fn unsupported(item: &syn::Item) -> syn::Error {
    let what = match item {
        syn::Item::Mod(_) => "a module",
        syn::Item::Trait(_) => "a trait",
        syn::Item::Use(_) => "a `use` declaration",
        syn::Item::Static(_) => "a static",
        syn::Item::Type(_) => "a type alias",
        syn::Item::Union(_) => "a union",
        syn::Item::Macro(_) => "a macro invocation",
        syn::Item::ExternCrate(_) => "an `extern crate`",
        syn::Item::ForeignMod(_) => "an `extern` block",
        syn::Item::TraitAlias(_) => "a trait alias",
        syn::Item::Verbatim(tokens) if tokens.to_string().contains("fn") => {
            "a function without a body (a trait method declaration)"
        }
        _ => "this item",
    };
    let span = first_token_span(item);
    syn::Error::new(
        span,
        format!(
            "#[rbac] cannot stand on {what}: put it on the reconciler function or method, \
             an `impl` block, a struct, an enum, or `const _: () = ();`"
        ),
    )
}

fn first_token_span(item: &syn::Item) -> Span {
    item.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |tt| tt.span())
}
