//! Where kube-markers attributes stand in one source file, as the generator's workspace scan
//! sees them: every `#[rbac]`/`#[crd]`/`#[webhook]`/`#[conversion]` of a file, the `cfg`s it
//! depends on, and the `mod x;`/`include!` the scan must follow. The macros' call-site check
//! (`kube_markers_core::call_site`) refuses every spelling this scan could not find, so an
//! attribute that compiles is one the scan sees.

use kube_markers_core::call_site::{attr_kind, attr_kind_of};
use kube_markers_core::cfg::{Cfg, cfg_attr_parts, cfg_attr_tokens};
use kube_markers_core::model::AttrKind;
use proc_macro2::{LineColumn, TokenStream};
use quote::ToTokens;

pub mod calls;
mod lex;
mod syn_scan;
mod walk;

pub use syn_scan::scan_file;

/// One attribute found in a file.
#[derive(Debug, Clone)]
pub struct FoundAttr {
    /// `#[rbac]` or `#[crd]`.
    pub kind: AttrKind,
    /// Line (1-based) where the compiler places the attribute: its `#`, or for an attribute
    /// inside `cfg_attr(...)` its path. The registry's `line!()` is this line.
    pub line: usize,
    /// Column (1-based, in characters) of that place: the registry's `column!()`.
    pub column: usize,
    /// For an attribute inside `cfg_attr(...)`, the place of that `cfg_attr`'s `#`: the
    /// compiler places the attribute there instead when the item's tokens went through another
    /// attribute macro first (the attribute is then re-read from tokens whose brackets
    /// `cfg_attr` made up, spanning the whole `#[cfg_attr(...)]`).
    pub outer: Option<(usize, usize)>,
    /// Every `cfg` the attribute depends on, outermost first: enclosing items' `#[cfg]`s, the
    /// file's `#![cfg]`, `cfg_attr` predicates.
    pub cfgs: Vec<Cfg>,
    /// The attribute's arguments: the source text inside its delimiters (empty for none).
    pub args: String,
}

/// `mod name;` (a module in another file).
#[derive(Debug, Clone)]
pub struct ModDecl {
    /// The module's name.
    pub name: String,
    /// `#[path = "..."]`, if any.
    pub path_attr: Option<String>,
    /// `#[cfg_attr(pred, path = "...")]`: the file the module is in when `pred` holds (the
    /// first that holds wins, as the compiler applies them in order; else `path_attr`'s or
    /// the default file).
    pub cfg_paths: Vec<(Cfg, String)>,
    /// Inline modules around the declaration, outermost first (they are directories).
    pub inline_path: Vec<String>,
    /// `cfg`s the module depends on.
    pub cfgs: Vec<Cfg>,
    /// Line of the declaration.
    pub line: usize,
}

/// What an `include!(...)` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IncludePath {
    /// `include!("x.rs")`: relative to the including file's directory.
    Relative(String),
    /// `include!(concat!(env!("CARGO_MANIFEST_DIR"), "/x.rs"))`.
    ManifestDir(String),
    /// `include!(concat!(env!("OUT_DIR"), ...))`: a build script's output. The macros refuse
    /// attributes in such files, so there is nothing to scan there.
    OutDir,
    /// Anything else, as written.
    Unknown(String),
}

/// `include!(...)` in item or statement position.
#[derive(Debug, Clone)]
pub struct Include {
    /// The file it includes.
    pub path: IncludePath,
    /// Inline modules around it, outermost first.
    pub inline_path: Vec<String>,
    /// `cfg`s it depends on.
    pub cfgs: Vec<Cfg>,
    /// Line of the invocation.
    pub line: usize,
}

/// Everything [`scan_file`] found in one file.
#[derive(Debug, Clone, Default)]
pub struct FileScan {
    /// Attributes, in source order.
    pub attrs: Vec<FoundAttr>,
    /// Module declarations to follow.
    pub mods: Vec<ModDecl>,
    /// `include!`s to follow.
    pub includes: Vec<Include>,
}

/// Finds the attributes, module declarations and includes of one file's text.
///
/// The text is lexed and walked at token level, which finds what [`scan_file`]
/// finds in syn's syntax tree without building it. A text the lexer cannot take (an
/// unterminated literal, unbalanced delimiters, a character it does not know), or one whose
/// attribute slices proc-macro2 rejects, goes to syn, whose error says what is wrong with it.
pub fn scan_source(text: &str) -> syn::Result<FileScan> {
    scan_source_lexed(text).0
}

/// A file's tokens from the scan's lexer, kept from [`scan_source_lexed`] so that the call
/// scan ([`calls::CrateFile::lexed`]) reads the file without lexing it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lexed(Vec<lex::Token>);

/// [`scan_source`], and the file's tokens (`None` when the lexer cannot take the text).
pub fn scan_source_lexed(text: &str) -> (syn::Result<FileScan>, Option<Lexed>) {
    // As `syn::parse_file`: no BOM; a shebang line is no attribute (`#![` is).
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok(tokens) = lex_body(body) else {
        return (syn::parse_file(text).map(|file| scan_file(&file)), None);
    };
    let mut walker = walk::Walker::new(body, &tokens);
    walker.file();
    let found = match walker.doubted() {
        true => syn::parse_file(text).map(|file| scan_file(&file)),
        false => Ok(walker.out),
    };
    (found, Some(Lexed(tokens)))
}

/// The tokens of a file's text without its BOM, past a shebang line.
fn lex_body(body: &str) -> Result<Vec<lex::Token>, lex::LexError> {
    lex::lex(body, shebang_end(body))
}

/// `kube_markers_core::call_site::normalized_tokens` of source text, from the scan's own lexer; `None` if it does not lex
/// or holds a doc comment (which proc_macro2 turns into `#[doc = ...]`).
pub fn normalized_text(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    normalized_pieces(text, |piece| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(piece);
        true
    })?;
    Some(out)
}

/// Whether [`normalized_text`] of `text` is `expected`, without building it (the
/// cross-check's test of every scanned `#[rbac]`).
pub fn normalized_text_is(text: &str, expected: &str) -> bool {
    let mut rest = expected;
    let mut first = true;
    let same = normalized_pieces(text, |piece| {
        if !first {
            match rest.strip_prefix(' ') {
                Some(r) => rest = r,
                None => return false,
            }
        }
        first = false;
        match rest.strip_prefix(piece) {
            Some(r) => {
                rest = r;
                true
            }
            None => false,
        }
    });
    same == Some(true) && rest.is_empty()
}

/// Feeds the normalized pieces of `text` to `each` while it returns `true`: `Some(false)` if
/// it stopped, `None` if the text has no normalized form.
fn normalized_pieces(text: &str, mut each: impl FnMut(&str) -> bool) -> Option<bool> {
    let tokens = lex::lex(text, 0).ok()?;
    for t in &tokens {
        let piece = &text[t.start as usize..t.end as usize];
        let go_on = match t.kind {
            // proc_macro2 splits `'a` into `'` and `a`.
            lex::Kind::Lifetime => each("'") && each(&piece[1..]),
            lex::Kind::Doc { .. } => return None,
            _ => each(piece),
        };
        if !go_on {
            return Some(false);
        }
    }
    Some(true)
}

/// Where a first line `#!...` that is not an inner attribute ends (0 without one).
pub(crate) fn shebang_end(text: &str) -> usize {
    let Some(rest) = text.strip_prefix("#!") else {
        return 0;
    };
    // Whitespace and plain comments may stand between `#!` and an inner attribute's `[`.
    let mut rest = rest;
    loop {
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed
            .strip_prefix("//")
            .filter(|a| (!a.starts_with('/') || a.starts_with("//")) && !a.starts_with('!'))
        {
            rest = after.find('\n').map_or("", |n| &after[n..]);
        } else if trimmed.starts_with("/*")
            && !trimmed.starts_with("/*!")
            && (!trimmed.starts_with("/**")
                || trimmed.starts_with("/***")
                || trimmed.starts_with("/**/"))
        {
            let Some(end) = trimmed.find("*/") else {
                return text.find('\n').unwrap_or(text.len());
            };
            rest = &trimmed[end + 2..];
        } else {
            if trimmed.starts_with('[') {
                return 0;
            }
            return text.find('\n').unwrap_or(text.len());
        }
    }
}

/// `include`, `core::include`, `std::include` (with or without a leading `::`).
fn is_include(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [one] => one == "include" && path.leading_colon.is_none(),
        [krate, last] => last == "include" && (krate == "core" || krate == "std"),
        _ => false,
    }
}

fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| path_attr_of(&a.meta))
}

/// `path = "..."`.
fn path_attr_of(meta: &syn::Meta) -> Option<String> {
    match meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

fn cfg_paths(attrs: &[syn::Attribute]) -> Vec<(Cfg, String)> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg_attr"))
        .filter_map(|a| cfg_attr_parts(&a.meta).ok())
        .filter_map(|(pred, metas)| {
            let path = metas.iter().rev().find_map(path_attr_of)?;
            Some((pred, path))
        })
        .collect()
}

fn include_path(tokens: &TokenStream) -> IncludePath {
    if let Ok(lit) = syn::parse2::<syn::LitStr>(tokens.clone()) {
        return IncludePath::Relative(lit.value());
    }
    // concat!(env!("VAR"), "rest")
    let unknown = || IncludePath::Unknown(tokens.to_string());
    let Ok(syn::Expr::Macro(concat)) = syn::parse2::<syn::Expr>(tokens.clone()) else {
        return unknown();
    };
    if !concat.mac.path.is_ident("concat") {
        return unknown();
    }
    let Ok(parts) = concat.mac.parse_body_with(
        syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
    ) else {
        return unknown();
    };
    let mut parts = parts.into_iter();
    let var = match parts.next() {
        Some(syn::Expr::Macro(env)) if env.mac.path.is_ident("env") => {
            env.mac.parse_body::<syn::LitStr>().ok().map(|l| l.value())
        }
        _ => None,
    };
    let mut rest = String::new();
    for part in parts {
        match part {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => rest.push_str(&s.value()),
            _ => return unknown(),
        }
    }
    match var.as_deref() {
        Some("CARGO_MANIFEST_DIR") => IncludePath::ManifestDir(rest),
        Some("OUT_DIR") => IncludePath::OutDir,
        _ => unknown(),
    }
}

/// An attribute found: kind, place, the `cfg_attr` it is in, the `cfg_attr` predicates around
/// it, its arguments' text.
type Recorded = (
    AttrKind,
    (usize, usize),
    Option<(usize, usize)>,
    Vec<Cfg>,
    String,
);

/// Records `meta` if it is one of ours, placed at `at`, or the ones inside it if it is a
/// `cfg_attr` (each placed at its path, `place` turning a span's start into a place).
fn record_meta(
    meta: &syn::Meta,
    at: (usize, usize),
    outer: Option<(usize, usize)>,
    extra_cfgs: &[Cfg],
    place: &dyn Fn(LineColumn) -> (usize, usize),
    emit: &mut dyn FnMut(Recorded),
) {
    if let Some(kind) = attr_kind(meta.path()) {
        let args = match meta {
            syn::Meta::List(list) => list.tokens.to_string(),
            _ => String::new(),
        };
        emit((kind, at, outer, extra_cfgs.to_vec(), args));
    } else if meta.path().is_ident("cfg_attr") {
        let Ok((pred, metas)) = cfg_attr_parts(meta) else {
            return;
        };
        record_cfg_attr(&pred, &metas, at, outer, extra_cfgs, place, emit);
    }
}

/// The attributes inside a `cfg_attr(pred, metas...)` placed at `at`.
fn record_cfg_attr(
    pred: &Cfg,
    metas: &[syn::Meta],
    at: (usize, usize),
    outer: Option<(usize, usize)>,
    extra_cfgs: &[Cfg],
    place: &dyn Fn(LineColumn) -> (usize, usize),
    emit: &mut dyn FnMut(Recorded),
) {
    let mut cfgs = extra_cfgs.to_vec();
    cfgs.push(pred.clone());
    for inner in metas {
        // Inside `cfg_attr`, the compiler places the attribute at its path.
        let first = inner
            .path()
            .to_token_stream()
            .into_iter()
            .next()
            .map_or(at, |t| place(t.span().start()));
        record_meta(inner, first, Some(outer.unwrap_or(at)), &cfgs, place, emit);
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

#[cfg(test)]
mod tests;
