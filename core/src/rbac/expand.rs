//! [`RbacMarker`] + the annotated item → the item, unchanged, plus a registry entry.

use super::{RbacMarker, parse_marker};
use crate::call_site::{CallSite, check_call_site};
use crate::item_header::{ItemHeader, ItemKind};
use crate::model::AttrKind;
use crate::record::RbacRecordData;
use crate::registration::record_static;
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
    let args_text = crate::call_site::normalized_tokens(&args);
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

/// The registry record of one attribute (see [`record_static`]): the validated attribute as
/// one string ([`RbacRecordData`]) and the call site. `args_text` is the arguments'
/// [`normalized_tokens`](crate::call_site::normalized_tokens) text (the cross-check's cheap
/// "same attribute" test); `checked_line` is the call-site check.
pub fn registration(
    marker: &RbacMarker,
    args_text: &str,
    item_name: &str,
    checked_line: Option<TokenStream>,
) -> TokenStream {
    let data = RbacRecordData::new(marker, item_name, args_text).encode();
    record_static(
        "RBAC_RECORDS",
        quote!(::kube_markers::__private::RbacRecord),
        &data,
        checked_line,
        TokenStream::new(),
    )
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
        let item: syn::Item = match syn::parse2(tokens.clone()) {
            Ok(item) => item,
            Err(e) => return Err(statement(tokens).unwrap_or(e)),
        };
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
    syn::Error::new(span, cannot_stand_on(what))
}

/// The error for tokens that are a statement rather than an item (`let x = ...;`, an
/// expression): rustc hands attribute macros on statements over (after its own E0658, as they
/// are unstable there), and syn's "expected one of `fn`, ..." would not say what to do.
fn statement(tokens: TokenStream) -> Option<syn::Error> {
    let what = match syn::parse2::<syn::Stmt>(tokens.clone()).ok()? {
        syn::Stmt::Local(_) => "a `let` statement",
        syn::Stmt::Expr(..) => "an expression",
        syn::Stmt::Macro(_) => "a macro invocation",
        syn::Stmt::Item(_) => return None,
    };
    // The statement's first token after its own attributes: `let`, or the expression's.
    let span = tokens
        .into_iter()
        .scan(false, |after_hash, tt| {
            let skip = *after_hash;
            *after_hash = matches!(&tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == '#');
            Some((skip, tt))
        })
        .find(|(skip, tt)| {
            !skip && !matches!(tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == '#')
        })
        .map_or_else(Span::call_site, |(_, tt)| tt.span());
    Some(syn::Error::new(span, cannot_stand_on(what)))
}

fn cannot_stand_on(what: &str) -> String {
    format!(
        "#[rbac] cannot stand on {what}: put it on the reconciler function or method, an \
         `impl` block, a struct, an enum, or `const _: () = ();`"
    )
}

fn first_token_span(item: &syn::Item) -> Span {
    item.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |tt| tt.span())
}
