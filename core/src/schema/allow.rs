//! `#[k8s(allow(NAME, reason = "..."))]`: one API-convention lint or one compatibility check
//! accepted on a field or a type, with the reason required (the shape of `#[rbac(allow(...))]`,
//! one name each, so that every accepted name carries its own reason).

use crate::args::{self, Arg};
use crate::ctxt::Ctxt;
use crate::schema_types::{KIND_ONLY, SchemaAllow, allow_names};
use crate::suggest::did_you_mean;
use proc_macro2::Span;

const EXAMPLE: &str = "e.g. `allow(integers, reason = \"counts bytes of files up to 4 GiB\")`";

/// Where an `allow` stands: which names it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllowPlace {
    /// On the `#[kube_markers::crd]` struct: the kind.
    Kind,
    /// On a `#[kube_markers::schema]` type.
    Type,
    /// On a field of a struct.
    Field,
}

/// Splits the `allow(...)` arguments off a `#[k8s]` list.
pub fn take_allows(args: &mut Vec<Arg>) -> Vec<Arg> {
    let (allows, rest) = std::mem::take(args)
        .into_iter()
        .partition(|a| a.name() == "allow");
    *args = rest;
    allows
}

/// Reads the `allow(...)` arguments of one field or type, each error on its own token; what
/// is read is kept even when another `allow` of the list is wrong.
pub fn parse_allows(args: &[Arg], place: AllowPlace, cx: &mut Ctxt) -> Vec<SchemaAllow> {
    let mut out: Vec<SchemaAllow> = Vec::new();
    for arg in args {
        if let Some(allow) = parse_allow(arg, place, &out, cx) {
            out.push(allow);
        }
    }
    out
}

/// Reports `allow(...)` where no allow may stand (`what` says where that is).
pub fn reject_allows(args: &[Arg], what: &str, cx: &mut Ctxt) {
    for arg in args {
        cx.push(arg.key.error(format!("`allow` is not supported {what}")));
    }
}

fn parse_allow(
    arg: &Arg,
    place: AllowPlace,
    earlier: &[SchemaAllow],
    cx: &mut Ctxt,
) -> Option<SchemaAllow> {
    let words = args::AllowWords {
        name: "a name",
        names: "a name",
        example: EXAMPLE,
        names_nothing: &format!(
            "`allow` names no lint or check, {EXAMPLE} (the names: {})",
            allow_names().join(", ")
        ),
        why: "this field or type is right as it is",
    };
    let mut name: Option<(String, Span)> = None;
    let reason = args::parse_allow(arg, &words, cx, |piece, cx| {
        read_name(piece, place, earlier, &mut name, cx)
    })?;
    let (name, span) = name?;
    let at = span.start();
    Some(SchemaAllow {
        name: name.into(),
        reason: reason.into(),
        line: at.line as u32,
        column: at.column as u32 + 1,
    })
}

/// A name in `allow(...)`: one, known, at its place, not allowed before here.
fn read_name(
    piece: &Arg,
    place: AllowPlace,
    earlier: &[SchemaAllow],
    name: &mut Option<(String, Span)>,
    cx: &mut Ctxt,
) -> bool {
    let written = piece.name();
    if name.is_some() {
        cx.push(piece.key.error(format!(
            "one name per `allow(...)`, each with its own reason: write `allow({written}, \
             reason = \"...\")` beside it"
        )));
        return false;
    }
    let names = allow_names();
    let Some(known) = names.iter().copied().find(|n| *n == written) else {
        // `maxlength` (the lint) and `maxLength` (crdify's check) differ only in case: name both.
        let same_letters: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| n.eq_ignore_ascii_case(written))
            .collect();
        let hint = match same_letters.as_slice() {
            [a, b] => {
                format!("; did you mean `{a}` (the lint) or `{b}` (the compatibility check)?")
            }
            _ => did_you_mean(written, &names)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default(),
        };
        cx.push(piece.key.error(format!(
            "unknown name `{written}` in `allow`{hint} (the API-convention lints: {}; the \
             compatibility checks: {})",
            crate::schema_types::SchemaLint::ALL.map(|l| l.name()).join(", "),
            crate::schema_types::COMPAT_CHECKS.join(", "),
        )));
        return false;
    };
    if place != AllowPlace::Kind && KIND_ONLY.contains(&known) {
        cx.push(piece.key.error(format!(
            "`{known}` is about the whole kind: allow it on the #[kube_markers::crd] struct, \
             not {}",
            match place {
                AllowPlace::Field => "on a field",
                _ => "on a #[kube_markers::schema] type",
            }
        )));
        return false;
    }
    if earlier.iter().any(|a| a.name == known) {
        cx.push(piece.key.error(format!("`{known}` allowed twice here")));
        return false;
    }
    *name = Some((known.to_string(), piece.key.span()));
    true
}
