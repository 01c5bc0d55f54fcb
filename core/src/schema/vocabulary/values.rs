//! The value readers of `#[k8s]` keys: each turns a value into the shape its key wants, or
//! records why it cannot, on the offending token and naming the key.

use crate::args::{self, Arg, Value as ArgLiteral};
use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;
use proc_macro2::Span;
use serde_json::{Value, json};

/// A number literal, possibly negated.
fn number_of(value: &ArgLiteral) -> Option<serde_json::Number> {
    let (lit, sign) = match value {
        ArgLiteral::Lit(lit) => (lit, ""),
        ArgLiteral::Neg(lit, _) => (lit, "-"),
        _ => return None,
    };
    match lit {
        syn::Lit::Int(i) => format!("{sign}{}", i.base10_digits())
            .parse::<i64>()
            .ok()
            .map(Into::into),
        syn::Lit::Float(f) => {
            let v: f64 = format!("{sign}{}", f.base10_digits()).parse().ok()?;
            serde_json::Number::from_f64(v)
        }
        _ => None,
    }
}

/// The value of `key = value`, or `None` after recording why there is none.
fn value_of<'a>(arg: &'a Arg, example: &str, cx: &mut Ctxt) -> Option<&'a ArgLiteral> {
    args::value_of(arg, example).map_err(|e| cx.push(e)).ok()
}

pub(super) fn number(arg: &Arg, cx: &mut Ctxt) -> Option<serde_json::Number> {
    let value = value_of(arg, "1", cx)?;
    let n = number_of(value);
    let key = arg.name();
    if let (None, ArgLiteral::Lit(syn::Lit::Int(i)) | ArgLiteral::Neg(syn::Lit::Int(i), _)) =
        (&n, value)
    {
        // An integer literal, too large: say so, not that it is no number.
        let sign = if matches!(value, ArgLiteral::Neg(..)) {
            "-"
        } else {
            ""
        };
        cx.push(value.range().error(format!(
            "`{key} = {sign}{}` does not fit in a 64-bit integer ({} to {}), in which integer \
             bounds are kept exactly",
            i.base10_digits(),
            i64::MIN,
            i64::MAX
        )));
        return None;
    }
    if n.is_none() {
        cx.push(
            value
                .range()
                .error(format!("`{key}` takes a number literal, e.g. `{key} = 1`")),
        );
    }
    n
}

pub(super) fn count(arg: &Arg, cx: &mut Ctxt) -> Option<u64> {
    let value = value_of(arg, "1", cx)?;
    match value {
        ArgLiteral::Lit(syn::Lit::Int(i)) => i.base10_parse::<u64>().ok().or_else(|| {
            cx.error_at(
                i.span(),
                format!(
                    "`{} = {}` is too large: a count is at most {}",
                    arg.name(),
                    i.base10_digits(),
                    u64::MAX
                ),
            );
            None
        }),
        _ => {
            let key = arg.name();
            cx.push(value.range().error(format!(
                "`{key}` takes a non-negative integer, e.g. `{key} = 1`"
            )));
            None
        }
    }
}

pub(super) fn flag(arg: &Arg, cx: &mut Ctxt) -> Option<bool> {
    args::flag(arg)
        .map(|(on, _)| on)
        .map_err(|e| cx.push(e))
        .ok()
}

pub(super) fn string(arg: &Arg, cx: &mut Ctxt) -> Option<(String, Span)> {
    args::string(arg)
        .map(|item| (item.value, item.span))
        .map_err(|e| cx.push(e))
        .ok()
}

pub(super) fn choice(arg: &Arg, allowed: &[&str], cx: &mut Ctxt) -> Option<(String, Span)> {
    let (v, span) = string(arg, cx)?;
    if allowed.contains(&v.as_str()) {
        Some((v, span))
    } else {
        let hint = did_you_mean(&v, allowed)
            .map(|s| format!("; did you mean \"{s}\"?"))
            .unwrap_or_default();
        cx.error_at(
            span,
            format!(
                "`{}` must be one of {}{hint}",
                arg.name(),
                allowed
                    .iter()
                    .map(|a| format!("\"{a}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        None
    }
}

fn array_elems<'a>(arg: &'a Arg, cx: &mut Ctxt) -> Option<&'a [ArgLiteral]> {
    match value_of(arg, "[...]", cx)? {
        ArgLiteral::Array(elems, _) => Some(elems),
        other => {
            let key = arg.name();
            cx.push(
                other
                    .range()
                    .error(format!("`{key}` takes a list: `{key} = [...]`")),
            );
            None
        }
    }
}

pub(super) fn string_list_spanned(arg: &Arg, cx: &mut Ctxt) -> Option<Vec<(String, Span)>> {
    let elems = array_elems(arg, cx)?;
    let mut out = Vec::new();
    let mut ok = true;
    for e in elems {
        match e {
            ArgLiteral::Lit(syn::Lit::Str(s)) if !s.value().is_empty() => {
                out.push((s.value(), s.span()))
            }
            _ => {
                cx.push(e.range().error("expected a non-empty string"));
                ok = false;
            }
        }
    }
    if out.is_empty() && ok {
        cx.error_at(arg.value_span(), format!("`{}` is empty", arg.name()));
        ok = false;
    }
    ok.then_some(out)
}

pub(super) fn string_list(arg: &Arg, cx: &mut Ctxt) -> Option<Vec<String>> {
    string_list_spanned(arg, cx).map(|v| v.into_iter().map(|(s, _)| s).collect())
}

pub(super) fn enum_values(arg: &Arg, cx: &mut Ctxt) -> Option<(Vec<Value>, Vec<Span>)> {
    let elems = array_elems(arg, cx)?;
    let mut out: Vec<Value> = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    for e in elems {
        let value = match e {
            ArgLiteral::Lit(syn::Lit::Str(s)) => json!(s.value()),
            ArgLiteral::Lit(syn::Lit::Bool(b)) => json!(b.value),
            _ => match number_of(e) {
                Some(n) => Value::Number(n),
                None => {
                    cx.push(
                        e.range()
                            .error("enum values are string, number or bool literals"),
                    );
                    continue;
                }
            },
        };
        if out.contains(&value) {
            cx.push(e.range().error(format!("duplicate enum value {value}")));
            continue;
        }
        out.push(value);
        spans.push(e.span());
    }
    if out.is_empty() {
        cx.error_at(arg.value_span(), "`enum` is empty");
        return None;
    }
    Some((out, spans))
}
