//! `allow(NAME, ..., reason = "...")`, the one grammar behind `#[rbac(allow(...))]`,
//! `#[k8s(allow(...))]` and `#[kube_markers::crd(allow(...))]`: the shape of Rust's own
//! `#[allow(lint, reason = "...")]`, with the reason required. Which names an attribute knows,
//! and how many one `allow` may take, is the attribute's (its `read_name`); the words of the
//! messages are its too ([`AllowWords`]), so each says what it allows.

use super::{Arg, ArgValue, Value, value_of};
use crate::ctxt::Ctxt;

/// How an attribute's messages about its `allow(...)` speak.
#[derive(Debug, Clone, Copy)]
pub struct AllowWords<'a> {
    /// What one name is: `a lint name`, `a name`.
    pub name: &'a str,
    /// What an `allow` takes: `lint names`, `a name`.
    pub names: &'a str,
    /// A whole `allow(...)` as a user would write it on this attribute: `` e.g. `allow(...)` ``.
    pub example: &'a str,
    /// The whole message for an `allow` that names nothing.
    pub names_nothing: &'a str,
    /// What the reason explains: `this attribute needs what the lint warns about`.
    pub why: &'a str,
}

/// Reads one `allow(...)`: every piece but `reason` goes to `read_name` once it stands alone
/// (`read_name` checks it, records it, and returns `false` when it reported a problem), the
/// reason is read once and must say something. Returns the reason when the whole `allow` is
/// right; every problem is reported on its own token.
pub fn parse_allow(
    arg: &Arg,
    words: &AllowWords,
    cx: &mut Ctxt,
    mut read_name: impl FnMut(&Arg, &mut Ctxt) -> bool,
) -> Option<String> {
    // An argument that did not parse has its error already.
    if matches!(arg.value, ArgValue::Invalid) {
        return None;
    }
    let AllowWords {
        name,
        names,
        example,
        ..
    } = *words;
    let errors_before = cx.error_count();
    let Some(inner) = arg.nested(
        &format!("expected {name} or `reason = \"...\"` in `allow`, {example}"),
        cx,
    ) else {
        let msg = match arg.value {
            ArgValue::Flag => format!("`allow` needs {names} and a reason, {example}"),
            _ => format!("`allow` takes {names} and a reason in parentheses, {example}"),
        };
        cx.push(arg.value_range().error(msg));
        return None;
    };
    let mut named = false;
    let mut reason: Option<String> = None;
    let mut reason_written = false;
    // A piece that did not parse was a name or the reason, and has its error: no "names
    // nothing" or "needs a reason" on top.
    let mut ok = cx.error_count() == errors_before;
    for piece in &inner {
        if piece.name() == "reason" {
            reason_written = true;
            if !matches!(piece.value, ArgValue::Invalid) {
                ok &= read_reason(piece, words.why, &mut reason, cx);
            }
            continue;
        }
        named = true;
        if matches!(piece.value, ArgValue::Invalid) {
            continue;
        }
        if !matches!(piece.value, ArgValue::Flag) {
            cx.push(piece.value_range().error(format!(
                "{name} stands alone in `allow`: `{}` takes no value, {example}",
                piece.name()
            )));
            ok = false;
            continue;
        }
        ok &= read_name(piece, cx);
    }
    let group_span = arg.value_span();
    if !named && ok {
        cx.error_at(group_span, words.names_nothing);
        return None;
    }
    let Some(reason) = reason else {
        if !reason_written {
            cx.error_at(
                group_span,
                format!(
                    "`allow` needs a `reason = \"...\"`: say why {}, {example}",
                    words.why
                ),
            );
        }
        return None;
    };
    ok.then_some(reason)
}

/// `reason = "..."`: once, a string, saying something. `false` when it reported a problem.
fn read_reason(piece: &Arg, why: &str, reason: &mut Option<String>, cx: &mut Ctxt) -> bool {
    match value_of(piece, "\"...\"") {
        Ok(Value::Lit(syn::Lit::Str(lit))) => {
            if reason.is_some() {
                cx.error_at(lit.span(), "`reason` given twice in one `allow(...)`");
                false
            } else if lit.value().trim().is_empty() {
                cx.error_at(lit.span(), format!("empty `reason`: say why {why}"));
                false
            } else {
                *reason = Some(lit.value());
                true
            }
        }
        Ok(other) => {
            cx.push(
                other
                    .range()
                    .error("`reason` takes a string, e.g. `reason = \"...\"`"),
            );
            false
        }
        Err(e) => {
            cx.push(e);
            false
        }
    }
}
