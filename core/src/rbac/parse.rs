//! Attribute tokens → [`RbacArgs`]: syntax only, every value kept with its span.

use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, Lit, LitStr, Token};

use crate::lints::Lint;

/// One string of a list, with the span of the literal it came from.
///
/// Elements of a semicolon string share that string's span: stable Rust cannot point inside
/// a literal.
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

/// The arguments of one `#[rbac(...)]`, as written. Keys that failed to parse are absent
/// (their error is already recorded), so validation never reports a second, derived error.
#[derive(Debug, Clone, Default)]
pub struct RbacArgs {
    pub groups: Option<ListArg>,
    pub resources: Option<ListArg>,
    pub resource_names: Option<ListArg>,
    pub verbs: Option<ListArg>,
    pub urls: Option<ListArg>,
    pub namespace: Option<(Span, Item)>,
    pub role_name: Option<(Span, Item)>,
    pub custom_verbs: Option<(Span, bool)>,
    /// `allow(lint, ..., reason = "...")`, each one as written (already checked: known lint
    /// names, a non-empty reason, no lint twice).
    pub allow: Vec<AllowArg>,
    /// Keys that were present but whose value was malformed: validation must not claim they
    /// are missing.
    pub malformed: Vec<&'static str>,
}

/// One `allow(...)`: the lints it names, each with its span, and its reason.
#[derive(Debug, Clone)]
pub struct AllowArg {
    pub lints: Vec<(Lint, Span)>,
    pub reason: String,
}

/// Canonical keys, then controller-gen's spellings accepted as aliases.
const KEYS: &[&str] = &[
    "groups",
    "resources",
    "resource_names",
    "verbs",
    "urls",
    "namespace",
    "role_name",
    "custom_verbs",
    "allow",
];

fn canonical_key(key: &str) -> Option<&'static str> {
    match key {
        "resourceNames" => Some("resource_names"),
        "roleName" => Some("role_name"),
        "customVerbs" => Some("custom_verbs"),
        _ => KEYS.iter().find(|k| **k == key).copied(),
    }
}

/// Parses `key = value, ...`. Each comma-separated argument is parsed on its own, so a
/// mistake in one does not hide mistakes (or valid values) in the others.
pub fn parse_args(tokens: TokenStream, cx: &mut Ctxt) -> RbacArgs {
    let mut args = RbacArgs::default();
    for chunk in crate::args::split_commas(tokens) {
        parse_one(chunk, &mut args, cx);
    }
    args
}

/// A value as written, before we know what the key wants.
enum RawValue {
    Str(LitStr),
    Array(Span, Vec<LitStr>),
    Bool(Span, bool),
}

fn parse_one(chunk: TokenStream, args: &mut RbacArgs, cx: &mut Ctxt) {
    let Some(first) = chunk.clone().into_iter().next() else {
        return; // `a, , b` or a trailing comma: nothing to parse
    };
    let key: Ident = match syn::parse2::<ArgHead>(chunk.clone()) {
        Ok(head) => head.0,
        Err(_) => {
            cx.error_at(
                first.span(),
                "expected `key = value`, e.g. `verbs = \"get;list;watch\"`",
            );
            return;
        }
    };
    let key_str = key.unraw().to_string();
    let Some(canonical) = canonical_key(&key_str) else {
        let suggestion = did_you_mean(&key_str, KEYS);
        // A misspelled key was meant as that key: don't also report it as missing.
        if let Some(meant) = suggestion
            && !args.malformed.contains(&meant)
        {
            args.malformed.push(meant);
        }
        let hint = suggestion
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        cx.error_at(
            key.span(),
            format!(
                "unknown key `{key_str}` in #[rbac]{hint} (expected one of: {})",
                KEYS.join(", ")
            ),
        );
        return;
    };
    if canonical == "allow" {
        parse_allow(chunk, key, args, cx);
        return;
    }
    if is_set(args, canonical) {
        let alias = if canonical != key_str {
            format!(" (`{key_str}` is another spelling of `{canonical}`)")
        } else {
            String::new()
        };
        cx.error_at(key.span(), format!("duplicate key `{canonical}`{alias}"));
        return;
    }

    let value = match parse_value(chunk, canonical == "custom_verbs") {
        Ok(v) => v,
        Err(err) => {
            cx.push(err);
            args.malformed.push(canonical);
            return;
        }
    };

    let key_span = key.span();
    match canonical {
        "namespace" | "role_name" => {
            let RawValue::Str(lit) = value else {
                cx.error_at(
                    raw_span(&value),
                    format!("`{canonical}` takes one string, e.g. `{canonical} = \"my-name\"`"),
                );
                args.malformed.push(canonical);
                return;
            };
            let item = Item {
                value: lit.value(),
                span: lit.span(),
            };
            let slot = if canonical == "namespace" {
                &mut args.namespace
            } else {
                &mut args.role_name
            };
            *slot = Some((key_span, item));
        }
        "custom_verbs" => {
            let RawValue::Bool(span, b) = value else {
                cx.error_at(
                    raw_span(&value),
                    "`custom_verbs` is a flag: write `custom_verbs` or `custom_verbs = true`",
                );
                args.malformed.push(canonical);
                return;
            };
            args.custom_verbs = Some((span, b));
        }
        _ => {
            let Some(list) = list_value(canonical, key_span, value, cx) else {
                args.malformed.push(canonical);
                return;
            };
            let slot = match canonical {
                "groups" => &mut args.groups,
                "resources" => &mut args.resources,
                "resource_names" => &mut args.resource_names,
                "verbs" => &mut args.verbs,
                _ => &mut args.urls,
            };
            *slot = Some(list);
        }
    }
}

/// `allow(lint-name, other_lint, reason = "why")`: the shape of Rust's own
/// `#[allow(lint, reason = "...")]`, with the reason required. Lint names are kebab-case as the
/// generator prints them (`cluster-secrets-read`), or the same with `_`.
fn parse_allow(chunk: TokenStream, key: Ident, args: &mut RbacArgs, cx: &mut Ctxt) {
    let example =
        "e.g. `allow(cluster-secrets-read, reason = \"the operator mirrors TLS Secrets\")`";
    let mut tokens = chunk.into_iter().skip(1);
    let group = match (tokens.next(), tokens.next()) {
        (Some(TokenTree::Group(g)), None) if g.delimiter() == Delimiter::Parenthesis => g,
        (Some(other), _) => {
            cx.error_at(
                other.span(),
                format!("`allow` takes lint names and a reason in parentheses, {example}"),
            );
            return;
        }
        (None, _) => {
            cx.error_at(
                key.span(),
                format!("`allow` needs lint names and a reason, {example}"),
            );
            return;
        }
    };
    let mut lints: Vec<(Lint, Span)> = Vec::new();
    let mut reason: Option<(Span, String)> = None;
    let mut reason_written = false;
    let mut ok = true;
    for piece in crate::args::split_commas(group.stream()) {
        let first = match piece.clone().into_iter().next() {
            Some(first) => first,
            None => continue,
        };
        let is_reason = matches!(&first, TokenTree::Ident(i) if i == "reason")
            && piece.clone().into_iter().nth(1).is_some();
        if is_reason {
            reason_written = true;
            match syn::parse2::<ReasonArg>(piece) {
                Ok(ReasonArg(lit)) if reason.is_some() => {
                    cx.error_at(lit.span(), "`reason` given twice in one `allow(...)`");
                    ok = false;
                }
                Ok(ReasonArg(lit)) if lit.value().trim().is_empty() => {
                    cx.error_at(
                        lit.span(),
                        "empty `reason`: say why this attribute needs what the lint warns about",
                    );
                    ok = false;
                }
                Ok(ReasonArg(lit)) => reason = Some((lit.span(), lit.value())),
                Err(e) => {
                    cx.push(e);
                    ok = false;
                }
            }
            continue;
        }
        let Some((name, span)) = lint_name(&piece) else {
            cx.error_at(
                first.span(),
                format!("expected a lint name or `reason = \"...\"` in `allow`, {example}"),
            );
            ok = false;
            continue;
        };
        let Some(lint) = Lint::from_name(&name) else {
            let names = Lint::names();
            // A typo, or a part of the name (`secrets-read` for `cluster-secrets-read`).
            let part = name.replace('_', "-");
            let hint = did_you_mean(&name, &names)
                .or_else(|| {
                    let mut containing = names.iter().filter(|n| n.contains(&part));
                    containing
                        .next()
                        .filter(|_| containing.next().is_none())
                        .copied()
                })
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            cx.error_at(
                span,
                format!(
                    "unknown lint `{name}` in `allow`{hint} (the lints: {})",
                    names.join(", ")
                ),
            );
            ok = false;
            continue;
        };
        let twice = lints.iter().any(|(l, _)| *l == lint)
            || args
                .allow
                .iter()
                .any(|a| a.lints.iter().any(|(l, _)| *l == lint));
        if twice {
            cx.error_at(span, format!("lint `{lint}` allowed twice"));
            ok = false;
            continue;
        }
        lints.push((lint, span));
    }
    if lints.is_empty() && ok {
        cx.error_at(group.span(), format!("`allow` names no lint, {example}"));
        return;
    }
    let Some((_, reason)) = reason else {
        if !reason_written {
            cx.error_at(
                group.span(),
                format!(
                    "`allow` needs a `reason = \"...\"`: say why this attribute needs what the lint warns about, {example}"
                ),
            );
        }
        return;
    };
    if ok {
        args.allow.push(AllowArg { lints, reason });
    }
}

/// `reason = "..."`.
struct ReasonArg(LitStr);

impl syn::parse::Parse for ReasonArg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.parse::<Ident>()?;
        input.parse::<Token![=]>()?;
        let lit: LitStr = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "`reason` takes a string, e.g. `reason = \"...\"`")
        })?;
        if !input.is_empty() {
            return Err(
                input.error("unexpected tokens after the reason; separate arguments with `,`")
            );
        }
        Ok(ReasonArg(lit))
    }
}

/// A lint name as tokens: `words-joined-by-dashes` or `snake_case`, with the span from its
/// first to its last token where the compiler can join them.
fn lint_name(piece: &TokenStream) -> Option<(String, Span)> {
    let mut name = String::new();
    let mut span: Option<Span> = None;
    let mut want_word = true;
    for tt in piece.clone() {
        match (&tt, want_word) {
            (TokenTree::Ident(i), true) => name.push_str(&i.unraw().to_string()),
            (TokenTree::Punct(p), false) if p.as_char() == '-' => name.push('-'),
            _ => return None,
        }
        want_word = !want_word;
        span = Some(span.map_or(tt.span(), |s| s.join(tt.span()).unwrap_or(s)));
    }
    (!want_word).then(|| (name, span.unwrap_or_else(Span::call_site)))
}

fn is_set(args: &RbacArgs, key: &str) -> bool {
    args.malformed.contains(&key)
        || match key {
            "groups" => args.groups.is_some(),
            "resources" => args.resources.is_some(),
            "resource_names" => args.resource_names.is_some(),
            "verbs" => args.verbs.is_some(),
            "urls" => args.urls.is_some(),
            "namespace" => args.namespace.is_some(),
            "role_name" => args.role_name.is_some(),
            _ => args.custom_verbs.is_some(),
        }
}

/// The key of an argument: any identifier, keywords included (`crate`, `type`, …), so that
/// a wrong key is reported as an unknown key rather than as a syntax error.
struct ArgHead(Ident);

impl syn::parse::Parse for ArgHead {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let ident = Ident::parse_any(input)?;
        input.step(|cursor| {
            let mut rest = *cursor;
            while let Some((_, next)) = rest.token_tree() {
                rest = next;
            }
            Ok(((), rest))
        })?;
        Ok(ArgHead(ident))
    }
}

fn raw_span(value: &RawValue) -> Span {
    match value {
        RawValue::Str(lit) => lit.span(),
        RawValue::Array(span, _) | RawValue::Bool(span, _) => *span,
    }
}

/// `key`, `key = "..."`, `key = [..]` or `key = true`.
fn parse_value(chunk: TokenStream, flag_allowed: bool) -> syn::Result<RawValue> {
    let parser = |input: ParseStream| -> syn::Result<RawValue> {
        let key = Ident::parse_any(input)?;
        if input.is_empty() {
            return if flag_allowed {
                Ok(RawValue::Bool(key.span(), true))
            } else {
                Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` needs a value, e.g. `{key} = \"...\"`"),
                ))
            };
        }
        input.parse::<Token![=]>()?;
        let value = if input.peek(syn::token::Bracket) {
            let content;
            let bracket = syn::bracketed!(content in input);
            let elems: Punctuated<TokenStream, Token![,]> =
                Punctuated::parse_terminated_with(&content, |p: ParseStream| {
                    p.step(|cursor| {
                        let mut rest = *cursor;
                        let mut tokens = Vec::new();
                        while let Some((tt, next)) = rest.token_tree() {
                            if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ',') {
                                break;
                            }
                            tokens.push(tt);
                            rest = next;
                        }
                        Ok((tokens.into_iter().collect::<TokenStream>(), rest))
                    })
                })?;
            let mut lits = Vec::new();
            for elem in elems {
                lits.push(syn::parse2::<LitStr>(elem.clone()).map_err(|_| {
                    syn::Error::new_spanned(
                        &elem,
                        "list elements must be string literals, e.g. `[\"get\", \"list\"]`",
                    )
                })?);
            }
            RawValue::Array(bracket.span.join(), lits)
        } else if input.peek(Lit) {
            match input.parse::<Lit>()? {
                Lit::Str(s) => RawValue::Str(s),
                Lit::Bool(b) => RawValue::Bool(b.span, b.value),
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "expected a string such as \"get;list\" or an array such as [\"get\", \"list\"]",
                    ));
                }
            }
        } else {
            let tt: TokenTree = input.parse()?;
            let hint = match &tt {
                TokenTree::Ident(i) => format!("; quote it: `{key} = \"{i}\"`"),
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                    "; lists are arrays in brackets or semicolon strings".to_string()
                }
                _ => String::new(),
            };
            return Err(syn::Error::new(
                tt.span(),
                format!(
                    "expected a string such as \"get;list\" or an array such as [\"get\", \"list\"]{hint}"
                ),
            ));
        };
        if !input.is_empty() {
            return Err(
                input.error("unexpected tokens after the value; separate arguments with `,`")
            );
        }
        Ok(value)
    };
    parser.parse2(chunk)
}

/// Turns a raw value into a list, reporting empty elements and stray whitespace.
fn list_value(key: &str, key_span: Span, value: RawValue, cx: &mut Ctxt) -> Option<ListArg> {
    // `""` is the core group, in both forms; elsewhere an empty element is a mistake.
    let empty_ok = key == "groups";
    let mut items = Vec::new();
    let mut ok = true;
    let value_span = raw_span(&value);
    match value {
        RawValue::Bool(span, _) => {
            cx.error_at(
                span,
                format!(
                    "`{key}` takes a list of strings, e.g. `{key} = \"a;b\"` or `[\"a\", \"b\"]`"
                ),
            );
            return None;
        }
        RawValue::Str(lit) => {
            let text = lit.value();
            if text.is_empty() {
                if empty_ok {
                    items.push(Item {
                        value: String::new(),
                        span: lit.span(),
                    });
                }
                // Otherwise an empty list: validation reports it with the key's meaning.
            } else {
                let parts: Vec<&str> = text.split(';').collect();
                if parts.iter().any(|p| p.is_empty()) {
                    let what = if text.ends_with(';') || text.starts_with(';') {
                        "a leading or trailing `;`"
                    } else {
                        "`;;`"
                    };
                    let hint = if empty_ok {
                        "; to name the core group among others write an array: `groups = [\"\", \"apps\"]`"
                    } else {
                        ""
                    };
                    cx.error_at(
                        lit.span(),
                        format!("empty element in `{key}` (\"{text}\" has {what}){hint}"),
                    );
                    ok = false;
                }
                for part in parts.into_iter().filter(|p| !p.is_empty()) {
                    items.push(Item {
                        value: part.to_string(),
                        span: lit.span(),
                    });
                }
            }
        }
        RawValue::Array(_, lits) => {
            for lit in lits {
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
        }
    }
    for item in &items {
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
    ok.then_some(ListArg {
        key_span,
        items,
        value_span,
    })
}
