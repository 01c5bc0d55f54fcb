//! Attribute tokens → [`RbacArgs`]: which key fills which field, every value kept with its
//! span. Syntax, key lookup and value shapes come from the shared parser ([`crate::args`]);
//! this module knows `#[rbac]`'s keys and `allow(...)`.

use crate::args::{self, Arg, Elements, KeySpec, KeyTable};
use crate::ctxt::Ctxt;
use crate::lints::Lint;
use crate::suggest::did_you_mean;
use proc_macro2::{Span, TokenStream};

pub use crate::args::{Item, ListArg};

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
    /// Keys that were written, malformed values and misspelled keys included: validation must
    /// not claim they are missing.
    pub written: args::Written,
}

impl RbacArgs {
    /// Whether `key` was written (even if its value was malformed).
    pub fn present(&self, key: &str) -> bool {
        self.written.contains(key)
    }
}

/// One `allow(...)`: the lints it names, each with its span, and its reason.
#[derive(Debug, Clone)]
pub struct AllowArg {
    pub lints: Vec<(Lint, Span)>,
    pub reason: String,
}

/// The field of [`RbacArgs`] a key fills.
#[derive(Clone, Copy)]
enum Field {
    List(Elements, fn(&mut RbacArgs) -> &mut Option<ListArg>),
    /// One string; the example errors show.
    Str(&'static str, fn(&mut RbacArgs) -> &mut Option<(Span, Item)>),
    CustomVerbs,
    Allow,
}

/// `#[rbac]`'s keys, with controller-gen's spellings as aliases.
const KEYS: KeyTable<Field> = KeyTable {
    place: "#[rbac]",
    keys: &[
        KeySpec::new(
            "groups",
            Field::List(Elements::CoreGroup, |a| &mut a.groups),
        ),
        KeySpec::new(
            "resources",
            Field::List(Elements::NonEmpty, |a| &mut a.resources),
        ),
        KeySpec::new(
            "resource_names",
            Field::List(Elements::NonEmpty, |a| &mut a.resource_names),
        )
        .alias("resourceNames"),
        KeySpec::new("verbs", Field::List(Elements::NonEmpty, |a| &mut a.verbs)),
        KeySpec::new("urls", Field::List(Elements::NonEmpty, |a| &mut a.urls)),
        KeySpec::new("namespace", Field::Str("my-name", |a| &mut a.namespace)),
        KeySpec::new("role_name", Field::Str("my-name", |a| &mut a.role_name)).alias("roleName"),
        KeySpec::new("custom_verbs", Field::CustomVerbs).alias("customVerbs"),
        KeySpec::new("allow", Field::Allow).repeatable(),
    ],
};

/// Parses `key = value, ...`. Each comma-separated argument is parsed on its own, so a
/// mistake in one does not hide mistakes (or valid values) in the others.
pub fn parse_args(tokens: TokenStream, cx: &mut Ctxt) -> RbacArgs {
    let parsed = args::parse_args(
        tokens,
        "expected `key = value`, e.g. `verbs = \"get;list;watch\"`",
        cx,
    );
    let mut out = RbacArgs::default();
    let written = KEYS.read(&parsed, cx, |spec, arg, cx| match spec.data {
        Field::List(elements, field) => {
            let list = args::list(arg, elements, cx);
            // A list with bad elements keeps its good ones, for their own checks.
            let ok = list.as_ref().is_some_and(|l| l.complete);
            *field(&mut out) = list;
            ok
        }
        Field::Str(example, field) => match args::string_like(arg, example) {
            Ok(item) => {
                *field(&mut out) = Some((arg.key.span(), item));
                true
            }
            Err(e) => {
                cx.push(e);
                false
            }
        },
        Field::CustomVerbs => match args::flag(arg) {
            Ok((on, span)) => {
                out.custom_verbs = Some((span, on));
                true
            }
            Err(e) => {
                cx.push(e);
                false
            }
        },
        Field::Allow => {
            let allow = parse_allow(arg, &out.allow, cx);
            let ok = allow.is_some();
            out.allow.extend(allow);
            ok
        }
    });
    out.written = written;
    out
}

const ALLOW_EXAMPLE: &str =
    "e.g. `allow(cluster-secrets-read, reason = \"the operator mirrors TLS Secrets\")`";

/// `allow(lint-name, other_lint, reason = "why")` ([`args::parse_allow`]). Lint names are
/// kebab-case as the generator prints them (`cluster-secrets-read`), or the same with `_`: in
/// the shared parser they are flags whose key is the lint name. `earlier` are the attribute's
/// previous `allow`s.
fn parse_allow(arg: &Arg, earlier: &[AllowArg], cx: &mut Ctxt) -> Option<AllowArg> {
    let words = args::AllowWords {
        name: "a lint name",
        names: "lint names",
        example: ALLOW_EXAMPLE,
        names_nothing: &format!("`allow` names no lint, {ALLOW_EXAMPLE}"),
        why: "this attribute needs what the lint warns about",
    };
    let mut lints: Vec<(Lint, Span)> = Vec::new();
    let reason = args::parse_allow(arg, &words, cx, |piece, cx| {
        read_lint(piece, earlier, &mut lints, cx)
    })?;
    Some(AllowArg { lints, reason })
}

/// A lint name in `allow(...)`, into `lints`: a known lint, not allowed before in this
/// attribute. `false` when it recorded a problem.
fn read_lint(
    piece: &Arg,
    earlier: &[AllowArg],
    lints: &mut Vec<(Lint, Span)>,
    cx: &mut Ctxt,
) -> bool {
    let name = piece.name();
    let Some(lint) = Lint::from_name(name) else {
        cx.push(piece.key.error(format!(
            "unknown lint `{name}` in `allow`{} (the lints: {})",
            lint_hint(name),
            Lint::names().join(", ")
        )));
        return false;
    };
    let twice = lints.iter().any(|(l, _)| *l == lint)
        || earlier
            .iter()
            .any(|a| a.lints.iter().any(|(l, _)| *l == lint));
    if twice {
        cx.push(piece.key.error(format!("lint `{lint}` allowed twice")));
        return false;
    }
    lints.push((lint, piece.key.span()));
    true
}

/// "; did you mean `...`?" for an unknown lint name: a typo of a lint's name, or a part of
/// just one (`secrets-read` for `cluster-secrets-read`).
fn lint_hint(name: &str) -> String {
    let names = Lint::names();
    let part = name.replace('_', "-");
    did_you_mean(name, &names)
        .or_else(|| {
            let mut containing = names.iter().filter(|n| n.contains(&part));
            containing
                .next()
                .filter(|_| containing.next().is_none())
                .copied()
        })
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default()
}
