//! A Rust file's tokens with its `#[rbac]` attributes left out: two texts with the same
//! stripped tokens compile to the same program but for the roles' registry entries, which
//! `--rbac-from-source` reads from the sources instead.
//!
//! An attribute is left out when its path is one the generator's scan reads as `#[rbac]`
//! (`rbac`, `kube_markers::rbac`, `::kube_markers::rbac`: `attr_kind_of`, the same list the
//! macro's call-site check enforces). Anything else, a `cfg_attr` holding an `rbac` included,
//! stays, so that a change to it takes the build.

use kube_markers_core::call_site::attr_kind_of;
use kube_markers_core::model::AttrKind;
use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use sha2::{Digest, Sha256};
use std::str::FromStr;

/// What a file's contents are, for the comparison with the last build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stripped {
    /// The SHA-256 of its tokens without `#[rbac]` attributes, as hex.
    Tokens(String),
    /// It does not lex as Rust: compared as bytes.
    NotRust,
}

/// `text`'s tokens without `#[rbac]` attributes, hashed.
pub(crate) fn stripped(text: &str) -> Stripped {
    match TokenStream::from_str(text) {
        Ok(tokens) => {
            let mut out = String::new();
            write_stripped(tokens, false, &mut out);
            Stripped::Tokens(hex(&Sha256::digest(out.as_bytes())))
        }
        Err(_) => Stripped::NotRust,
    }
}

/// The SHA-256 of `bytes`, as hex.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `tokens` as text, one token per line (a group's delimiters on lines of their own),
/// leaving out every `#[rbac...]` outside a macro's input (`in_macro`): the scan refuses
/// those, so an edit there must take the build.
fn write_stripped(tokens: TokenStream, in_macro: bool, out: &mut String) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let bang = |i: usize| matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '!');
    let mut i = 0;
    while i < trees.len() {
        if let (TokenTree::Punct(hash), Some(TokenTree::Group(group))) =
            (&trees[i], trees.get(i + 1))
            && !in_macro
            && hash.as_char() == '#'
            && group.delimiter() == Delimiter::Bracket
            && is_rbac(&group.stream())
        {
            i += 2;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("«", "»"),
                };
                out.push_str(open);
                out.push('\n');
                // `name! (...)`, and `macro_rules! name {...}`.
                let macro_input = i >= 1 && bang(i - 1)
                    || i >= 2 && bang(i - 2) && matches!(trees[i - 1], TokenTree::Ident(_));
                write_stripped(group.stream(), in_macro || macro_input, out);
                out.push_str(close);
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                // `::` and `: :` are different programs.
                if p.spacing() == Spacing::Joint {
                    out.push('~');
                }
            }
            other => out.push_str(&other.to_string()),
        }
        out.push('\n');
        i += 1;
    }
}

/// Whether an attribute's bracket contents name `#[rbac]`: a path (`rbac`, `kube_markers::rbac`,
/// `::kube_markers::rbac`) followed by nothing or its arguments' group.
fn is_rbac(attr: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = attr.clone().into_iter().collect();
    let mut leading = false;
    let mut segs = Vec::new();
    let mut i = 0;
    let colons = |i: usize| {
        matches!((trees.get(i), trees.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
    };
    if colons(0) {
        leading = true;
        i = 2;
    }
    loop {
        let Some(TokenTree::Ident(ident)) = trees.get(i) else {
            return false;
        };
        segs.push(ident.to_string());
        i += 1;
        if colons(i) {
            i += 2;
        } else {
            break;
        }
    }
    let rest_is_args = match &trees[i..] {
        [] => true,
        [TokenTree::Group(g)] => g.delimiter() == Delimiter::Parenthesis,
        _ => false,
    };
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    rest_is_args && attr_kind_of(leading, &segs) == Some(AttrKind::Rbac)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> bool {
        stripped(a) == stripped(b)
    }

    const BASE: &str = "#[rbac(groups = \"\", resources = \"pods\", verbs = \"get\")]\n\
                        async fn reconcile() -> u32 { 1 }\n";

    #[test]
    fn an_rbac_edit_is_the_same_program() {
        // Arguments changed, spread over lines, a comment added, another attribute added.
        let edited = "// why\n#[rbac(groups = \"\", resources = \"pods\",\n  verbs = \"get;list\")]\n\
                      #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"get\")]\n\
                      #[::kube_markers::rbac(urls = \"/metrics\", verbs = \"get\")]\n\
                      async fn reconcile() -> u32 { 1 }\n";
        assert!(same(BASE, edited));
        // All of them removed.
        assert!(same(BASE, "async fn reconcile() -> u32 { 1 }"));
    }

    #[test]
    fn anything_else_is_another_program() {
        for other in [
            // The body.
            "#[rbac(verbs = \"get\")] async fn reconcile() -> u32 { 2 }",
            // Another attribute.
            "#[rbac(verbs = \"get\")] #[inline] async fn reconcile() -> u32 { 1 }",
            // A cfg, and an rbac inside a cfg_attr.
            "#[cfg(test)] async fn reconcile() -> u32 { 1 }",
            "#[cfg_attr(feature = \"x\", rbac(verbs = \"get\"))] async fn reconcile() -> u32 { 1 }",
            // Another crate's attribute of the same last name, and an alias.
            "#[other::rbac(verbs = \"get\")] async fn reconcile() -> u32 { 1 }",
            "#[perms(verbs = \"get\")] async fn reconcile() -> u32 { 1 }",
            // The other attributes of kube-markers.
            "#[webhook(verbs = \"get\")] async fn reconcile() -> u32 { 1 }",
            "#[kube_markers::crd(verbs = \"get\")] async fn reconcile() -> u32 { 1 }",
            // `rbac = ...` is not the attribute.
            "#[rbac = \"x\"] async fn reconcile() -> u32 { 1 }",
            // `::` against `: :`.
            "async fn reconcile() -> u32 { a: :b }",
        ] {
            assert!(!same("async fn reconcile() -> u32 { 1 }", other), "{other}");
        }
        assert!(!same(
            "async fn reconcile() -> u32 { a::b }",
            "async fn reconcile() -> u32 { a: :b }"
        ));
        // A doc comment is an attribute: the schemas read it.
        assert!(!same("/// a\nstruct S;", "/// b\nstruct S;"));
        // A comment is not a token.
        assert!(same("struct S; // a", "struct S; // b"));
        assert_eq!(stripped("\"unterminated"), Stripped::NotRust);
        // In a macro's input (which the scan refuses), an rbac edit is a change.
        for (a, b) in [
            (
                "m! { #[rbac(verbs = \"get\")] fn f() {} }",
                "m! { fn f() {} }",
            ),
            (
                "macro_rules! m { () => { #[rbac(verbs = \"get\")] fn f() {} } }",
                "macro_rules! m { () => { fn f() {} } }",
            ),
        ] {
            assert!(!same(a, b), "{a}");
        }
    }
}
