//! A small parser for nested attribute arguments: `key`, `key = value`, `key(nested, ...)`.
//!
//! Each comma-separated argument is parsed on its own, so one malformed argument is reported
//! without hiding the others (the same approach as the `#[rbac]` parser).

use crate::ctxt::Ctxt;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, Token};

/// One argument.
#[derive(Clone)]
pub struct Arg {
    /// The key, keywords allowed (`enum`, `type`).
    pub key: Ident,
    pub value: ArgValue,
}

/// What follows the key.
#[derive(Clone)]
pub enum ArgValue {
    /// `key`
    Flag,
    /// `key = <expr>`
    Expr(syn::Expr),
    /// `key(<args>)`
    Nested(Vec<Arg>, Span),
}

impl Arg {
    pub fn name(&self) -> String {
        self.key.unraw().to_string()
    }

    /// Span of the whole argument's value, or of the key for a flag.
    pub fn value_span(&self) -> Span {
        match &self.value {
            ArgValue::Flag => self.key.span(),
            ArgValue::Expr(e) => syn::spanned::Spanned::span(e),
            ArgValue::Nested(_, span) => *span,
        }
    }
}

/// Parses a comma-separated argument list, recording malformed arguments in `cx`.
pub fn parse_args(tokens: TokenStream, cx: &mut Ctxt) -> Vec<Arg> {
    let mut out = Vec::new();
    for chunk in split_commas(tokens) {
        if let Some(arg) = parse_arg(chunk, cx) {
            out.push(arg);
        }
    }
    out
}

/// Splits attribute arguments at top-level commas (groups are single tokens, so nested commas
/// stay inside their argument).
pub fn split_commas(tokens: TokenStream) -> Vec<TokenStream> {
    let mut chunks = Vec::new();
    let mut current = Vec::new();
    for tt in tokens {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => chunks.push(current.drain(..).collect()),
            _ => current.push(tt),
        }
    }
    if !current.is_empty() {
        chunks.push(current.into_iter().collect());
    }
    chunks
}

/// The raw shape of one argument before its nested arguments are parsed.
enum Raw {
    Flag(Ident),
    Expr(Ident, syn::Expr),
    Nested(Ident, TokenStream, Span),
}

fn parse_arg(chunk: TokenStream, cx: &mut Ctxt) -> Option<Arg> {
    let first = chunk.clone().into_iter().next()?;
    let parser = |input: ParseStream| -> syn::Result<Raw> {
        let key = Ident::parse_any(input)?;
        if input.is_empty() {
            return Ok(Raw::Flag(key));
        }
        if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            let expr: syn::Expr = input.parse()?;
            if !input.is_empty() {
                return Err(
                    input.error("unexpected tokens after the value; separate arguments with `,`")
                );
            }
            return Ok(Raw::Expr(key, expr));
        }
        let group: proc_macro2::Group = input.parse()?;
        if group.delimiter() != Delimiter::Parenthesis {
            return Err(syn::Error::new(
                group.span(),
                "expected `key(...)`, `key = value` or `key`",
            ));
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after `(...)`; separate arguments with `,`"));
        }
        Ok(Raw::Nested(key, group.stream(), group.span()))
    };
    match parser.parse2(chunk) {
        Ok(Raw::Flag(key)) => Some(Arg {
            key,
            value: ArgValue::Flag,
        }),
        Ok(Raw::Expr(key, expr)) => Some(Arg {
            key,
            value: ArgValue::Expr(expr),
        }),
        Ok(Raw::Nested(key, inner, span)) => Some(Arg {
            key,
            value: ArgValue::Nested(parse_args(inner, cx), span),
        }),
        Err(e) => {
            // An error at the end of the input has no useful span: point at the argument.
            let msg = e.to_string();
            cx.error_at(first.span(), msg);
            None
        }
    }
}
