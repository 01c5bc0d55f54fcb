//! The one parser of attribute arguments, behind `#[rbac]`, `#[webhook]`,
//! `#[webhook_configuration]`, `#[kube_markers::crd]` and `#[k8s]`.
//!
//! Two layers, as in serde_derive's `attr.rs` or darling:
//! - syntax ([`parse_args`]): `key`, `key = value`, `key(...)`, with keys that may be keywords
//!   (`enum`, `type`) or kebab-case (`cluster-secrets-read`, the lint names of `allow(...)`).
//!   Values are literals, negated numbers, arrays, bare words and, for anything else, a span.
//!   Each argument is parsed on its own, so one malformed argument is reported without hiding
//!   the others; `key(...)` is parsed when the attribute's model asks, since only it knows what
//!   belongs inside;
//! - typed models: a [`KeyTable`] per attribute (its keys, controller-gen's spellings of them,
//!   which may repeat, plus whatever the attribute attaches to a key) resolves every argument,
//!   reporting unknown keys (with a did-you-mean) and duplicates in one place, and the value
//!   readers ([`string`], [`flag`], [`boolean`], [`int`], [`list`]) turn a value into the shape
//!   its key wants, each error on the offending token and naming the key.
//!
//! It walks the token trees once, without building syn's parse buffers: the workspace scan runs
//! it on every `#[rbac]` of the workspace.

mod allow;
mod keys;
mod values;

pub use allow::{AllowWords, parse_allow};
pub use keys::{KeySpec, KeyTable, Written};
pub use values::{
    Elements, Item, ListArg, boolean, flag, int, list, string, string_like, value_of,
};

use crate::ctxt::Ctxt;
use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use std::iter::Peekable;
use syn::ext::IdentExt;

/// A stretch of source from one token to another. rustc underlines the whole stretch of an
/// error built from it, even where `Span::join` is unavailable (stable proc macros).
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub first: Span,
    pub last: Span,
}

impl Range {
    fn of(span: Span) -> Self {
        Range {
            first: span,
            last: span,
        }
    }

    /// One span for the stretch where the compiler can join spans, else its first token's.
    pub fn span(self) -> Span {
        self.first.join(self.last).unwrap_or(self.first)
    }

    /// An error underlining the whole stretch.
    pub fn error(self, msg: impl std::fmt::Display) -> syn::Error {
        let mut first = Punct::new('.', Spacing::Alone);
        first.set_span(self.first);
        let mut last = Punct::new('.', Spacing::Alone);
        last.set_span(self.last);
        let tokens: TokenStream = [TokenTree::Punct(first), TokenTree::Punct(last)]
            .into_iter()
            .collect();
        syn::Error::new_spanned(tokens, msg)
    }
}

/// A key as written: `name`, `r#type` (read as `type`) or `words-joined-by-dashes`.
#[derive(Debug, Clone)]
pub struct Key {
    name: String,
    range: Range,
}

impl Key {
    pub fn as_str(&self) -> &str {
        &self.name
    }

    /// The key's first token (all of it for a one-word key).
    pub fn span(&self) -> Span {
        self.range.first
    }

    /// An error underlining the whole key.
    pub fn error(&self, msg: impl std::fmt::Display) -> syn::Error {
        self.range.error(msg)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// One argument.
#[derive(Clone)]
pub struct Arg {
    pub key: Key,
    pub value: ArgValue,
}

/// What follows the key.
#[derive(Clone)]
pub enum ArgValue {
    /// `key`
    Flag,
    /// `key = value`
    Value(Value),
    /// `key(...)`, unparsed: [`Arg::nested`] parses it.
    Nested(Group),
    /// What followed the key did not parse; the error is recorded. The key is kept so that a
    /// model can tell it was written (and not, say, report it missing).
    Invalid,
}

/// The value of `key = value`.
#[derive(Clone)]
pub enum Value {
    /// `"text"`, `true`, `10`, `1.5`, …
    Lit(syn::Lit),
    /// `-1`, `-0.5`: the literal, negated, and the stretch from `-` to it.
    Neg(syn::Lit, Range),
    /// `[a, b]`, with the span of the brackets.
    Array(Vec<Value>, Span),
    /// A bare word such as `core` or `Fail`: usually forgotten quotes.
    Word(Ident),
    /// Anything else (a path, a call, an expression).
    Other(Range),
}

impl Value {
    pub fn range(&self) -> Range {
        match self {
            Value::Lit(lit) => Range::of(lit.span()),
            Value::Neg(_, range) | Value::Other(range) => *range,
            Value::Array(_, span) => Range::of(*span),
            Value::Word(word) => Range::of(word.span()),
        }
    }

    pub fn span(&self) -> Span {
        self.range().span()
    }
}

impl Arg {
    pub fn name(&self) -> &str {
        self.key.as_str()
    }

    /// The stretch of the argument's value, or of the key for a flag.
    pub fn value_range(&self) -> Range {
        match &self.value {
            ArgValue::Flag | ArgValue::Invalid => self.key.range,
            ArgValue::Value(value) => value.range(),
            ArgValue::Nested(group) => Range::of(group.span()),
        }
    }

    /// Span of the argument's value, or of the key for a flag.
    pub fn value_span(&self) -> Span {
        self.value_range().span()
    }

    /// The arguments inside `key(...)`, or `None` (nothing recorded) when the value has another
    /// form. `expected` is the error for something that is not an argument (see [`parse_args`]).
    pub fn nested(&self, expected: &str, cx: &mut Ctxt) -> Option<Vec<Arg>> {
        match &self.value {
            ArgValue::Nested(group) => Some(parse_args(group.stream(), expected, cx)),
            _ => None,
        }
    }
}

type Tokens = Peekable<proc_macro2::token_stream::IntoIter>;

fn is_punct(tt: &TokenTree, c: char) -> bool {
    matches!(tt, TokenTree::Punct(p) if p.as_char() == c)
}

/// Parses a comma-separated argument list, recording malformed arguments in `cx`. `expected`
/// is the whole error for an argument that does not start with a key, e.g. "expected
/// `key = value`, e.g. `verbs = \"get\"`": the attribute knows what it takes.
pub fn parse_args(tokens: TokenStream, expected: &str, cx: &mut Ctxt) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(next) = tokens.peek() {
        // `a, , b` or a trailing comma: nothing to parse.
        if is_punct(next, ',') {
            tokens.next();
            continue;
        }
        match parse_arg(&mut tokens, expected) {
            Ok(arg) => out.push(arg),
            Err((key, err)) => {
                cx.push(err);
                if let Some(key) = key {
                    out.push(Arg {
                        key,
                        value: ArgValue::Invalid,
                    });
                }
                // Resume at the next argument.
                for tt in tokens.by_ref() {
                    if is_punct(&tt, ',') {
                        break;
                    }
                }
            }
        }
    }
    out
}

/// One argument, and the comma after it when there is one. An error comes with the key when
/// the key itself parsed.
fn parse_arg(tokens: &mut Tokens, expected: &str) -> Result<Arg, (Option<Key>, syn::Error)> {
    let key = parse_key(tokens, expected).map_err(|e| (None, e))?;
    match parse_rest(tokens, &key) {
        Ok(value) => Ok(Arg { key, value }),
        Err(e) => Err((Some(key), e)),
    }
}

/// What follows the key, through the comma.
fn parse_rest(tokens: &mut Tokens, key: &Key) -> syn::Result<ArgValue> {
    let value = match tokens.peek() {
        None => ArgValue::Flag,
        Some(tt) if is_punct(tt, ',') => ArgValue::Flag,
        Some(tt) if is_punct(tt, '=') => {
            let eq = tokens.next().map(|tt| tt.span());
            match parse_value(tokens)? {
                Some(value) => ArgValue::Value(value),
                None => {
                    return Err(syn::Error::new(
                        eq.unwrap_or_else(Span::call_site),
                        format!("`{key} =` needs a value after `=`"),
                    ));
                }
            }
        }
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
            let group = g.clone();
            tokens.next();
            ArgValue::Nested(group)
        }
        Some(other) => {
            return Err(syn::Error::new(
                other.span(),
                format!("expected `{key} = value`, `{key}(...)` or `,` after `{key}`"),
            ));
        }
    };
    match tokens.peek() {
        None => {}
        Some(tt) if is_punct(tt, ',') => {
            tokens.next();
        }
        Some(other) => {
            let after = match value {
                ArgValue::Nested(_) => "`(...)`",
                _ => "the value",
            };
            return Err(syn::Error::new(
                other.span(),
                format!("unexpected tokens after {after}; separate arguments with `,`"),
            ));
        }
    }
    Ok(value)
}

/// `ident` (keywords and raw identifiers included) or `ident-ident-...`.
fn parse_key(tokens: &mut Tokens, expected: &str) -> syn::Result<Key> {
    let first = match tokens.next() {
        Some(TokenTree::Ident(ident)) => ident,
        Some(other) => return Err(syn::Error::new(other.span(), expected)),
        None => return Err(syn::Error::new(Span::call_site(), expected)),
    };
    let mut name = first.unraw().to_string();
    let mut range = Range::of(first.span());
    while tokens.peek().is_some_and(|tt| is_punct(tt, '-')) {
        let dash = tokens.next().map_or(range.last, |tt| tt.span());
        match tokens.peek() {
            Some(TokenTree::Ident(word)) => {
                name.push('-');
                name.push_str(&word.unraw().to_string());
                range.last = word.span();
                tokens.next();
            }
            _ => {
                return Err(syn::Error::new(
                    dash,
                    format!("expected a word after `{name}-`"),
                ));
            }
        }
    }
    Ok(Key { name, range })
}

/// The value after `=`, up to the next top-level comma; `None` when there is nothing.
fn parse_value(tokens: &mut Tokens) -> syn::Result<Option<Value>> {
    let Some(first) = tokens.next_if(|tt| !is_punct(tt, ',')) else {
        return Ok(None);
    };
    let value = value_from(first, tokens);
    // A literal followed by more tokens is a forgotten comma (`"pods" "services"`); after a
    // word or a path it is an expression, which the key's reader reports as a whole.
    match (&value, tokens.peek()) {
        (_, None) => Ok(Some(value)),
        (_, Some(tt)) if is_punct(tt, ',') => Ok(Some(value)),
        (Value::Word(_) | Value::Other(_), Some(_)) => {
            let mut range = value.range();
            while let Some(tt) = tokens.next_if(|tt| !is_punct(tt, ',')) {
                range.last = tt.span();
            }
            Ok(Some(Value::Other(range)))
        }
        (_, Some(_)) => Ok(Some(value)),
    }
}

/// One value starting at `first`, taking a literal after a leading `-`.
fn value_from(first: TokenTree, tokens: &mut Tokens) -> Value {
    match first {
        TokenTree::Literal(lit) => Value::Lit(syn::Lit::new(lit)),
        TokenTree::Ident(ident) if ident == "true" || ident == "false" => Value::Lit(
            syn::Lit::Bool(syn::LitBool::new(ident == "true", ident.span())),
        ),
        TokenTree::Ident(ident) => Value::Word(ident),
        TokenTree::Punct(p) if p.as_char() == '-' => {
            match tokens.next_if(|tt| matches!(tt, TokenTree::Literal(_))) {
                Some(TokenTree::Literal(lit)) => {
                    let range = Range {
                        first: p.span(),
                        last: lit.span(),
                    };
                    Value::Neg(syn::Lit::new(lit), range)
                }
                _ => Value::Other(Range::of(p.span())),
            }
        }
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
            Value::Array(array_elements(g.stream()), g.span())
        }
        // macro_rules! wraps a `$x:literal` or `$x:expr` in an invisible group.
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
            let mut inner = g.stream().into_iter().peekable();
            match inner.next() {
                Some(first) => {
                    let value = value_from(first, &mut inner);
                    if inner.peek().is_none() {
                        value
                    } else {
                        Value::Other(Range::of(g.span()))
                    }
                }
                None => Value::Other(Range::of(g.span())),
            }
        }
        other => Value::Other(Range::of(other.span())),
    }
}

/// The elements of `[a, b]`; an element of several tokens is [`Value::Other`].
fn array_elements(stream: TokenStream) -> Vec<Value> {
    let mut out = Vec::new();
    let mut tokens = stream.into_iter().peekable();
    while let Some(first) = tokens.next() {
        if is_punct(&first, ',') {
            continue;
        }
        let mut value = value_from(first, &mut tokens);
        if tokens.peek().is_some_and(|tt| !is_punct(tt, ',')) {
            let mut range = value.range();
            while let Some(tt) = tokens.next_if(|tt| !is_punct(tt, ',')) {
                range.last = tt.span();
            }
            value = Value::Other(range);
        }
        out.push(value);
    }
    out
}

#[cfg(test)]
mod tests;
