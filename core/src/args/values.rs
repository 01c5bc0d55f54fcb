//! The value readers: each turns the value of `key = value` into the shape its key wants, every
//! error on the offending token and naming the key.

use super::{Arg, ArgValue, Value};
use crate::ctxt::Ctxt;
use proc_macro2::Span;

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
    /// Whether every element was well formed. When not, `items` holds the good ones (the
    /// others' errors are recorded), so that their own checks still run in the same compile;
    /// checks of the list as a whole must not draw conclusions from a partial list.
    pub complete: bool,
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

/// A literal, looking through nothing: [`super::parse_value`] has already unwrapped invisible
/// groups.
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
    // Parsed with its sign, so that `-9223372036854775808` is in range.
    let digits = lit.base10_digits();
    let signed = if negative {
        format!("-{digits}")
    } else {
        digits.to_string()
    };
    let n: i64 = signed.parse().map_err(|_| {
        value.range().error(format!(
            "`{key} = {signed}` does not fit in a 64-bit integer ({} to {})",
            i64::MIN,
            i64::MAX
        ))
    })?;
    Ok((n, value.span()))
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
/// (each on its literal). `None` when the value is no list at all (or an empty one); a list
/// with bad elements comes back with its good ones and `complete: false`, so that each good
/// element is still checked and every mistake is reported in one compile.
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
    let (items, trimmed) = trimmed(items, key, cx);
    ok &= trimmed;
    if items.is_empty() {
        if ok {
            cx.error_at(
                value.span(),
                format!("`{key}` is empty; list at least one element or leave `{key}` out"),
            );
        }
        return None;
    }
    Some(ListArg {
        key_span: arg.key.span(),
        items,
        value_span: value.span(),
        complete: ok,
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

/// The elements without leading or trailing whitespace, and whether that was all of them;
/// records each that has some (its other checks would only repeat the point).
fn trimmed(items: Vec<Item>, key: &str, cx: &mut Ctxt) -> (Vec<Item>, bool) {
    let before = items.len();
    let kept: Vec<Item> = items
        .into_iter()
        .filter(|item| {
            let clean = item.value.trim() == item.value;
            if !clean {
                cx.error_at(
                    item.span,
                    format!(
                        "`{key}` element {:?} has leading or trailing whitespace",
                        item.value
                    ),
                );
            }
            clean
        })
        .collect();
    let all = kept.len() == before;
    (kept, all)
}
