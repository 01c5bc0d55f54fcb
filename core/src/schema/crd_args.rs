//! The arguments of `#[kube_markers::crd(...)]`: `storage`, root `validation(...)` rules, and
//! `allow(NAME, reason = "...")`, the generator's refusals of a kind that this type accepts
//! (its own, and the upgrade check's, as `#[k8s(allow(...))]` on the struct accepts them).

use super::patch::Patch;
use super::shape::Shape;
use super::vocabulary::{self, Place};
use crate::args::{self, Arg, ArgValue, KeySpec, KeyTable, parse_args};
use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;
use proc_macro2::{Span, TokenStream};

/// What the generator refuses of a kind and `allow(...)` may accept, each with what accepting
/// it means. The generator spells the same names (`kube_markers_registry::crd::versions`).
pub const CRD_ALLOWANCES: &[(&str, &str)] = &[(
    "unconverted-versions",
    "the kind's versions have different schemas and no #[kube_markers::conversion]: the API \
     server converts them by rewriting `apiVersion` only, and a field one version lacks is lost \
     when a client of that version writes the object back",
)];

pub(super) struct CrdArgs {
    pub storage: bool,
    pub root: Patch,
    /// `allow(...)`: each name with its span, and the reason, in the order written.
    pub allow: Vec<CrdAllowArg>,
}

/// One name an `allow(...)` accepts, and why.
pub(super) struct CrdAllowArg {
    pub name: &'static str,
    pub reason: String,
    /// Where the name is written (1-based line and column).
    pub line: u32,
    pub column: u32,
}

impl CrdAllowArg {
    /// An upgrade check's name (kept with the kind's `#[k8s(allow(...))]`), not one of
    /// [`CRD_ALLOWANCES`].
    pub fn is_compat_check(&self) -> bool {
        crate::schema_types::COMPAT_CHECKS.contains(&self.name)
    }
}

/// What a `#[kube_markers::crd(...)]` key sets.
#[derive(Clone, Copy)]
enum CrdKey {
    Storage,
    Validation,
    Allow,
}

const CRD_KEYS: KeyTable<CrdKey> = KeyTable {
    place: "#[kube_markers::crd]",
    keys: &[
        KeySpec::new("storage", CrdKey::Storage),
        KeySpec::new("validation", CrdKey::Validation)
            .repeatable()
            .shown_as("validation(...)"),
        KeySpec::new("allow", CrdKey::Allow)
            .repeatable()
            .shown_as("allow(...)"),
    ],
};

pub(super) fn parse_crd_args(args: TokenStream, cx: &mut Ctxt) -> CrdArgs {
    let mut out = CrdArgs {
        storage: false,
        root: Patch::default(),
        allow: Vec::new(),
    };
    let parsed = parse_args(
        args,
        "expected `storage`, `validation(...)` or `allow(...)`, e.g. \
         `#[kube_markers::crd(storage)]`",
        cx,
    );
    CRD_KEYS.read(&parsed, cx, |spec, arg, cx| match spec.data {
        CrdKey::Storage => match &arg.value {
            ArgValue::Flag => {
                out.storage = true;
                true
            }
            _ => {
                cx.push(
                    arg.value_range()
                        .error("`storage` is a flag: `#[kube_markers::crd(storage)]`"),
                );
                false
            }
        },
        CrdKey::Validation => {
            // Root rules: `self` is the whole object.
            let parsed = vocabulary::parse(
                std::slice::from_ref(arg),
                Place::Type,
                Shape::Unknown,
                None,
                cx,
            );
            out.root.validations.extend(parsed.patch.validations);
            true
        }
        CrdKey::Allow => parse_allow(arg, &mut out.allow, cx),
    });
    out
}

const ALLOW_EXAMPLE: &str = "e.g. `allow(unconverted-versions, reason = \"v1alpha1 is read-only \
                             and its clients never write back\")`";

/// `allow(name, ..., reason = "why")` ([`args::parse_allow`]). Its names go into `allowed`
/// (names already there, from earlier `allow`s, are duplicates). `false` when it recorded an
/// error.
fn parse_allow(arg: &Arg, allowed: &mut Vec<CrdAllowArg>, cx: &mut Ctxt) -> bool {
    let words = args::AllowWords {
        name: "a name",
        names: "a name",
        example: ALLOW_EXAMPLE,
        names_nothing: &format!("`allow` names nothing to allow, {ALLOW_EXAMPLE}"),
        why: "this kind may do what the generator refuses",
    };
    let mut names: Vec<(&'static str, Span)> = Vec::new();
    let Some(reason) = args::parse_allow(arg, &words, cx, |piece, cx| {
        read_name(piece, allowed, &mut names, cx)
    }) else {
        return false;
    };
    allowed.extend(names.into_iter().map(|(name, span)| {
        let at = span.start();
        CrdAllowArg {
            name,
            reason: reason.clone(),
            line: at.line as u32,
            column: at.column as u32 + 1,
        }
    }));
    true
}

/// A name in `allow(...)`: one of [`CRD_ALLOWANCES`] or of the upgrade check's
/// ([`COMPAT_CHECKS`](crate::schema_types::COMPAT_CHECKS)), not allowed before on this
/// attribute.
fn read_name(
    piece: &Arg,
    earlier: &[CrdAllowArg],
    names: &mut Vec<(&'static str, Span)>,
    cx: &mut Ctxt,
) -> bool {
    let own: Vec<&'static str> = CRD_ALLOWANCES.iter().map(|(name, _)| *name).collect();
    let checks = crate::schema_types::COMPAT_CHECKS;
    let written = piece.name();
    // `unconverted_versions` is the same name, as `#[rbac]`'s lints accept it; the upgrade
    // check's names are crdify's spelling, exactly.
    let found = own
        .iter()
        .copied()
        .find(|n| *n == written.replace('_', "-"))
        .or_else(|| checks.iter().copied().find(|n| *n == written));
    let Some(name) = found else {
        let known: Vec<&str> = own.iter().chain(checks.iter()).copied().collect();
        let hint = if crate::schema_types::SchemaLint::from_name(written).is_some() {
            format!(
                "; `{written}` is an API-convention lint: allow it with \
                 `#[k8s(allow({written}, reason = \"...\"))]` on the struct or the field"
            )
        } else {
            did_you_mean(written, &known)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default()
        };
        cx.push(piece.key.error(format!(
            "unknown name `{written}` in `allow` of #[kube_markers::crd]{hint} (it allows: {}; \
             and the upgrade check's: {})",
            own.join(", "),
            checks.join(", ")
        )));
        return false;
    };
    if names.iter().any(|(n, _)| *n == name) || earlier.iter().any(|a| a.name == name) {
        cx.push(piece.key.error(format!("`{name}` allowed twice")));
        return false;
    }
    names.push((name, piece.key.span()));
    true
}
