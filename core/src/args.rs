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

/// A literal value: what `key = value` attribute arguments hold.
#[derive(Clone)]
pub enum Literal {
    /// `"text"`
    Str(syn::LitStr),
    /// `true` / `false`
    Bool(syn::LitBool),
    /// `10`, `-1` (with the span of the whole number)
    Int(i64, Span),
    /// `["a", "b"]`: string literals only (with the span of the brackets)
    Array(Vec<syn::LitStr>, Span),
}

impl Literal {
    /// The literal's span.
    pub fn span(&self) -> Span {
        match self {
            Literal::Str(s) => s.span(),
            Literal::Bool(b) => b.span,
            Literal::Int(_, span) | Literal::Array(_, span) => *span,
        }
    }
}

/// Reads an argument's value as a [`Literal`]; anything else is an error naming the key.
pub fn literal(arg: &Arg) -> syn::Result<Literal> {
    use syn::spanned::Spanned;
    let key = arg.name();
    let expr = match &arg.value {
        ArgValue::Expr(expr) => expr,
        ArgValue::Flag => {
            return Err(syn::Error::new(
                arg.key.span(),
                format!("`{key}` needs a value, e.g. `{key} = \"...\"`"),
            ));
        }
        ArgValue::Nested(_, span) => {
            return Err(syn::Error::new(
                *span,
                format!("`{key}` takes a value (`{key} = ...`), not `{key}(...)`"),
            ));
        }
    };
    let int = |lit: &syn::LitInt, negative: bool, span: Span| -> syn::Result<Literal> {
        let n: i64 = lit.base10_parse()?;
        Ok(Literal::Int(if negative { -n } else { n }, span))
    };
    match expr {
        syn::Expr::Lit(lit) => match &lit.lit {
            syn::Lit::Str(s) => Ok(Literal::Str(s.clone())),
            syn::Lit::Bool(b) => Ok(Literal::Bool(b.clone())),
            syn::Lit::Int(i) => int(i, false, i.span()),
            other => Err(syn::Error::new(
                other.span(),
                format!("`{key}` takes a string, a bool, an integer or an array of strings"),
            )),
        },
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr: inner,
            ..
        }) => match &**inner {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => int(i, true, expr.span()),
            _ => Err(syn::Error::new(
                expr.span(),
                format!("`{key}`: expected a literal"),
            )),
        },
        syn::Expr::Array(array) => {
            let mut items = Vec::new();
            for elem in &array.elems {
                match elem {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => items.push(s.clone()),
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "list elements must be string literals, e.g. `[\"a\", \"b\"]`",
                        ));
                    }
                }
            }
            Ok(Literal::Array(items, array.bracket_token.span.join()))
        }
        syn::Expr::Path(path) if path.path.get_ident().is_some() => {
            let ident = path
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            Err(syn::Error::new(
                expr.span(),
                format!("`{key}` takes a literal; quote it: `{key} = \"{ident}\"`"),
            ))
        }
        other => Err(syn::Error::new(
            other.span(),
            format!("`{key}` takes a literal: a string, a bool, an integer or an array of strings"),
        )),
    }
}
