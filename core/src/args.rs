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

use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;
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

// ---------------------------------------------------------------------------------------------
// Keys

/// One key an attribute accepts.
pub struct KeySpec<T: 'static = ()> {
    /// The canonical, snake_case name.
    pub name: &'static str,
    /// Another spelling accepted for it (controller-gen's camelCase).
    pub alias: Option<&'static str>,
    /// Whether the key may be given more than once (`allow(...)`, `validation(...)`).
    pub repeatable: bool,
    /// How the list of keys in errors shows it, where its form matters: `validation(...)`.
    pub shown_as: Option<&'static str>,
    /// What the attribute's model attaches to the key: the value's shape, the field it fills.
    pub data: T,
}

impl<T> KeySpec<T> {
    pub const fn new(name: &'static str, data: T) -> Self {
        KeySpec {
            name,
            alias: None,
            repeatable: false,
            shown_as: None,
            data,
        }
    }

    pub const fn alias(mut self, alias: &'static str) -> Self {
        self.alias = Some(alias);
        self
    }

    pub const fn repeatable(mut self) -> Self {
        self.repeatable = true;
        self
    }

    pub const fn shown_as(mut self, form: &'static str) -> Self {
        self.shown_as = Some(form);
        self
    }

    fn matches(&self, written: &str) -> bool {
        self.name == written || self.alias == Some(written)
    }
}

/// The keys of one attribute (or of one `key(...)`), and how errors name the attribute.
pub struct KeyTable<T: 'static> {
    /// The attribute as errors name it: `#[rbac]`, `` `validation(...)` ``.
    pub place: &'static str,
    pub keys: &'static [KeySpec<T>],
}

/// What [`KeyTable::read`] learned besides the values: which keys were written, including
/// those whose value was malformed (the error is recorded) and the keys an unknown key was a
/// typo of, so that validation never reports them as missing too.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub keys: Vec<&'static str>,
}

impl Written {
    pub fn contains(&self, key: &str) -> bool {
        self.keys.contains(&key)
    }

    fn add(&mut self, key: &'static str) {
        if !self.contains(key) {
            self.keys.push(key);
        }
    }
}

impl<T> KeyTable<T> {
    pub fn find(&self, written: &str) -> Option<&'static KeySpec<T>> {
        self.keys.iter().find(|k| k.matches(written))
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.keys.iter().map(|k| k.name).collect()
    }

    /// The error for a key not in the table, with a did-you-mean and the keys there are.
    /// Returns the key it is likely a typo of.
    pub fn unknown(&self, key: &Key, cx: &mut Ctxt) -> Option<&'static str> {
        let names = self.names();
        let suggestion = did_you_mean(key.as_str(), &names);
        let hint = suggestion
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let shown: Vec<&str> = self
            .keys
            .iter()
            .map(|k| k.shown_as.unwrap_or(k.name))
            .collect();
        cx.push(key.error(format!(
            "unknown key `{key}` in {}{hint} (expected one of: {})",
            self.place,
            shown.join(", ")
        )));
        suggestion
    }

    /// Resolves each argument's key and hands known, first-time keys to `read`, which returns
    /// `false` when it recorded an error for the value. Unknown keys and repeated keys are
    /// reported here, on the key.
    pub fn read<'a>(
        &self,
        args: &'a [Arg],
        cx: &mut Ctxt,
        mut read: impl FnMut(&'static KeySpec<T>, &'a Arg, &mut Ctxt) -> bool,
    ) -> Written {
        let mut written = Written::default();
        for arg in args {
            let Some(spec) = self.find(arg.name()) else {
                // A misspelled key was meant as that key: don't also report it as missing.
                if let Some(meant) = self.unknown(&arg.key, cx) {
                    written.add(meant);
                }
                continue;
            };
            // A value that did not parse has its error: the key only counts as written.
            if matches!(arg.value, ArgValue::Invalid) {
                written.add(spec.name);
                continue;
            }
            if written.contains(spec.name) && !spec.repeatable {
                let alias = if spec.name != arg.name() {
                    format!(" (`{}` is another spelling of `{}`)", arg.name(), spec.name)
                } else {
                    String::new()
                };
                cx.push(arg.key.error(format!(
                    "duplicate key `{}` in {}{alias}",
                    spec.name, self.place
                )));
                continue;
            }
            written.add(spec.name);
            read(spec, arg, cx);
        }
        written
    }
}

// ---------------------------------------------------------------------------------------------
// Values

/// One string, with the span of the literal it came from.
///
/// Elements of a `"a;b"` string share that string's span: stable Rust cannot point inside a
/// literal.
#[derive(Debug, Clone)]
pub struct Item {
    pub value: String,
    pub span: Span,
}

/// A list-valued argument such as `verbs = "get;list"` or `verbs = ["get", "list"]`.
#[derive(Debug, Clone)]
pub struct ListArg {
    pub key_span: Span,
    pub items: Vec<Item>,
    /// Span of the whole value, for errors about the list as a whole.
    pub value_span: Span,
}

/// The value of `key = value`, or the error for a flag or `key(...)`.
pub fn value_of<'a>(arg: &'a Arg, example: &str) -> syn::Result<&'a Value> {
    let key = arg.name();
    match &arg.value {
        ArgValue::Value(value) => Ok(value),
        ArgValue::Flag => Err(arg
            .key
            .error(format!("`{key}` needs a value, e.g. `{key} = {example}`"))),
        ArgValue::Nested(group) => Err(syn::Error::new(
            group.span(),
            format!("`{key}` takes a value (`{key} = {example}`), not `{key}(...)`"),
        )),
        // Never handed to a reader by `KeyTable::read`; a plain error for other callers.
        ArgValue::Invalid => Err(arg.key.error(format!("`{key}` has no valid value"))),
    }
}

/// A literal, looking through nothing: [`parse_value`] has already unwrapped invisible groups.
fn lit(value: &Value) -> Option<&syn::Lit> {
    match value {
        Value::Lit(lit) => Some(lit),
        _ => None,
    }
}

/// "; quote it: `key = "word"`" for a bare word, where a string was wanted.
fn quote_hint(key: &str, value: &Value) -> String {
    match value {
        Value::Word(word) => format!("; quote it: `{key} = \"{word}\"`"),
        _ => String::new(),
    }
}

/// `key = "text"`.
pub fn string(arg: &Arg) -> syn::Result<Item> {
    string_like(arg, "...")
}

/// `key = "text"`, with an example of the text for errors.
pub fn string_like(arg: &Arg, example: &str) -> syn::Result<Item> {
    let key = arg.name();
    let example = format!("\"{example}\"");
    let value = value_of(arg, &example)?;
    match lit(value) {
        Some(syn::Lit::Str(s)) => Ok(Item {
            value: s.value(),
            span: s.span(),
        }),
        _ => Err(value.range().error(format!(
            "`{key}` takes one string, e.g. `{key} = {example}`{}",
            quote_hint(key, value)
        ))),
    }
}

/// `key` or `key = true`/`false`: a flag.
pub fn flag(arg: &Arg) -> syn::Result<(bool, Span)> {
    let key = arg.name();
    match &arg.value {
        ArgValue::Flag => Ok((true, arg.key.span())),
        ArgValue::Value(Value::Lit(syn::Lit::Bool(b))) => Ok((b.value, b.span)),
        _ => Err(arg.value_range().error(format!(
            "`{key}` is a flag: write `{key}` or `{key} = true`"
        ))),
    }
}

/// `key = true`/`false` (`key` alone reads as `true`): a setting with two values.
pub fn boolean(arg: &Arg) -> syn::Result<(bool, Span)> {
    let key = arg.name();
    flag(arg).map_err(|_| {
        arg.value_range().error(format!(
            "`{key}` takes a bool: `{key} = true` or `{key} = false`"
        ))
    })
}

/// `key = 10` or `key = -1`.
pub fn int(arg: &Arg) -> syn::Result<(i64, Span)> {
    let key = arg.name();
    let value = value_of(arg, "10")?;
    let wrong = || {
        value.range().error(format!(
            "`{key}` takes an integer literal, e.g. `{key} = 10`"
        ))
    };
    let (lit, negative) = match value {
        Value::Lit(syn::Lit::Int(i)) => (i, false),
        Value::Neg(syn::Lit::Int(i), _) => (i, true),
        _ => return Err(wrong()),
    };
    let n: i64 = lit
        .base10_parse()
        .map_err(|e| value.range().error(format!("`{key}`: {e}")))?;
    Ok((if negative { -n } else { n }, value.span()))
}

/// What a list key accepts beyond non-empty strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elements {
    NonEmpty,
    /// `""` is an element (the core API group): the whole of a `""` string, or any array
    /// element.
    CoreGroup,
}

/// `key = "a;b"` or `key = ["a", "b"]`: a list of strings. Every problem is recorded in `cx`
/// (each on its literal); `None` when there was one.
pub fn list(arg: &Arg, elements: Elements, cx: &mut Ctxt) -> Option<ListArg> {
    let key = arg.name();
    let value = match value_of(arg, "\"a;b\"") {
        Ok(value) => value,
        Err(e) => {
            cx.push(e);
            return None;
        }
    };
    let empty_ok = elements == Elements::CoreGroup;
    let (items, mut ok) = match value {
        Value::Lit(syn::Lit::Str(lit)) => semicolon_list(lit, key, empty_ok, cx),
        Value::Array(elems, _) => array_list(elems, key, empty_ok, cx),
        other => {
            cx.push(other.range().error(format!(
                "`{key}` takes a list of strings, e.g. `{key} = \"a;b\"` or `[\"a\", \"b\"]`{}",
                quote_hint(key, other)
            )));
            return None;
        }
    };
    ok &= check_trimmed(&items, key, cx);
    if ok && items.is_empty() {
        cx.error_at(
            value.span(),
            format!("`{key}` is empty; list at least one element or leave `{key}` out"),
        );
        ok = false;
    }
    ok.then_some(ListArg {
        key_span: arg.key.span(),
        items,
        value_span: value.span(),
    })
}

/// The elements of `key = "a;b"`, each with the string's span, and whether none was empty
/// (the error is recorded). `""` alone is the core group where the key takes it.
fn semicolon_list(
    lit: &syn::LitStr,
    key: &str,
    empty_ok: bool,
    cx: &mut Ctxt,
) -> (Vec<Item>, bool) {
    let text = lit.value();
    let item = |value: &str| Item {
        value: value.to_string(),
        span: lit.span(),
    };
    if text.is_empty() {
        let items = if empty_ok { vec![item("")] } else { Vec::new() };
        return (items, true);
    }
    let items = text
        .split(';')
        .filter(|p| !p.is_empty())
        .map(item)
        .collect();
    if !text.split(';').any(str::is_empty) {
        return (items, true);
    }
    let what = if text.ends_with(';') || text.starts_with(';') {
        "a leading or trailing `;`"
    } else {
        "`;;`"
    };
    let hint = if empty_ok {
        format!("; to name the core group among others write an array: `{key} = [\"\", \"apps\"]`")
    } else {
        String::new()
    };
    cx.error_at(
        lit.span(),
        format!("empty element in `{key}` (\"{text}\" has {what}){hint}"),
    );
    (items, false)
}

/// The elements of `key = ["a", "b"]`, and whether all were good: string literals, not empty
/// (but where `empty_ok`), without `;`. Each bad one is recorded and left out.
fn array_list(elems: &[Value], key: &str, empty_ok: bool, cx: &mut Ctxt) -> (Vec<Item>, bool) {
    let mut items = Vec::new();
    let mut ok = true;
    for elem in elems {
        let Value::Lit(syn::Lit::Str(lit)) = elem else {
            cx.push(
                elem.range()
                    .error("list elements must be string literals, e.g. `[\"get\", \"list\"]`"),
            );
            ok = false;
            continue;
        };
        let text = lit.value();
        if text.is_empty() && !empty_ok {
            cx.error_at(lit.span(), format!("empty element in `{key}`"));
            ok = false;
            continue;
        }
        if text.contains(';') {
            cx.error_at(
                lit.span(),
                format!(
                    "`;` inside an array element of `{key}`: use either \"a;b\" or [\"a\", \"b\"], not both"
                ),
            );
            ok = false;
            continue;
        }
        items.push(Item {
            value: text,
            span: lit.span(),
        });
    }
    (items, ok)
}

/// Whether no element has leading or trailing whitespace; records each that has.
fn check_trimmed(items: &[Item], key: &str, cx: &mut Ctxt) -> bool {
    let mut ok = true;
    for item in items {
        if item.value.trim() != item.value {
            cx.error_at(
                item.span,
                format!(
                    "`{key}` element {:?} has leading or trailing whitespace",
                    item.value
                ),
            );
            ok = false;
        }
    }
    ok
}

#[cfg(test)]
mod tests;
