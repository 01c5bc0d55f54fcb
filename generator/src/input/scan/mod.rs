//! Where kube-markers attributes stand in one source file, as the generator's workspace scan
//! sees them: every `#[rbac]`/`#[crd]`/`#[webhook]` of a file, the `cfg`s it depends on, and
//! the `mod x;`/`include!` the scan must follow. The macros' call-site check
//! (`kube_markers_core::call_site`) refuses every spelling this scan could not find, so an
//! attribute that compiles is one the scan sees.

use kube_markers_core::call_site::{attr_kind, attr_kind_of};
use kube_markers_core::cfg::{Cfg, cfg_attr_parts, cfg_attr_tokens};
use kube_markers_core::model::AttrKind;
use proc_macro2::{LineColumn, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;

mod lex;
mod walk;

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
    // As `syn::parse_file`: no BOM; a shebang line is no attribute (`#![` is).
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let start = shebang_end(body);
    match lex::lex(body, start) {
        Ok(tokens) => {
            let mut walker = walk::Walker::new(body, &tokens);
            walker.file();
            if walker.doubted() {
                return syn::parse_file(text).map(|file| scan_file(&file));
            }
            Ok(walker.out)
        }
        Err(lex::LexError) => syn::parse_file(text).map(|file| scan_file(&file)),
    }
}

/// [`normalized_tokens`] of source text, from the scan's own lexer; `None` if it does not lex
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
fn shebang_end(text: &str) -> usize {
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

/// Finds the attributes, module declarations and includes of one parsed file: the syn-based
/// scan, which [`scan_source`] falls back to, and the oracle its token walk is tested
/// against.
///
/// Attributes inside macro invocations and `macro_rules!` bodies are not found (they are token
/// trees until expanded): [`check_call_site`] makes such attributes compile errors.
pub fn scan_file(file: &syn::File) -> FileScan {
    let mut visitor = FileVisitor {
        out: FileScan::default(),
        cfgs: cfgs_of(&file.attrs),
        inline_path: Vec::new(),
    };
    for item in &file.items {
        visitor.visit_item(item);
    }
    visitor.out
}

struct FileVisitor {
    out: FileScan,
    cfgs: Vec<Cfg>,
    inline_path: Vec<String>,
}

/// Parsed `#[cfg(...)]` predicates of a list of attributes. One that does not parse is kept as
/// a name no build sets, so it evaluates as unknown rather than vanishing.
fn cfgs_of(attrs: &[syn::Attribute]) -> Vec<Cfg> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| match &a.meta {
            syn::Meta::List(list) => Some(
                Cfg::parse(list.tokens.clone())
                    .unwrap_or_else(|_| Cfg::Name(list.tokens.to_string())),
            ),
            _ => None,
        })
        .collect()
}

/// Where the compiler places a span (1-based line and column).
fn position(span: Span) -> (usize, usize) {
    let start = span.start();
    (start.line, start.column + 1)
}

impl FileVisitor {
    fn record(&mut self, attrs: &[syn::Attribute]) {
        for attr in attrs {
            let pound = position(attr.pound_token.span);
            self.record_meta(&attr.meta, pound);
        }
    }

    /// `at` is where the compiler places the attribute if `meta` is one of ours; `outer` the
    /// `#` of the `cfg_attr` it is in, if any.
    fn record_meta(&mut self, meta: &syn::Meta, at: (usize, usize)) {
        let mut found = Vec::new();
        record_meta(meta, at, None, &[], &|p| (p.line, p.column + 1), &mut |f| {
            found.push(f)
        });
        for (kind, (line, column), outer, extra, args) in found {
            let mut cfgs = self.cfgs.clone();
            cfgs.extend(extra);
            self.out.attrs.push(FoundAttr {
                kind,
                line,
                column,
                outer,
                cfgs,
                args,
            });
        }
    }

    fn with_item(&mut self, attrs: &[syn::Attribute], f: impl FnOnce(&mut Self)) {
        let before = self.cfgs.len();
        self.cfgs.extend(cfgs_of(attrs));
        self.record(attrs);
        f(self);
        self.cfgs.truncate(before);
    }

    /// A macro invocation: `include!` is followed; in any other macro's input (`cfg_if!`,
    /// `paste!`, a `macro_rules!` passing `$i:item` through), attributes written there keep
    /// their own place, so they are recorded as found. Their `cfg`s inside the input are not
    /// evaluated: such an attribute counts as active. A `macro_rules!` definition's body is
    /// left alone: attributes there are refused at compile time.
    fn invocation(&mut self, mac: &syn::Macro) {
        if is_include(&mac.path) {
            self.include(mac);
        } else if !mac.path.is_ident("macro_rules") {
            self.attrs_in_tokens(mac.tokens.clone());
        }
    }

    /// Another macro's input (`cfg_if!`, `paste!`, a user's wrapper): the attributes in it,
    /// and the `mod x;` and `include!(...)` it may expand to, which lead to more files. What
    /// the macro does with them is unknown, so they count as compiled.
    fn attrs_in_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        // `#[path = "..."]` among the attributes just before a `mod`.
        let mut path_attr: Option<String> = None;
        let mut i = 0;
        while i < trees.len() {
            let ident = |j: usize| match trees.get(j) {
                Some(TokenTree::Ident(id)) => Some(id.to_string()),
                _ => None,
            };
            let punct = |j: usize, c: char| matches!(trees.get(j), Some(TokenTree::Punct(p)) if p.as_char() == c);
            match &trees[i] {
                TokenTree::Punct(p) if p.as_char() == '#' => {
                    if let Some(TokenTree::Group(g)) = trees.get(i + 1)
                        && g.delimiter() == proc_macro2::Delimiter::Bracket
                        && let Ok(meta) = syn::parse2::<syn::Meta>(g.stream())
                    {
                        self.record_meta(&meta, position(p.span()));
                        if let Some(path) = path_attr_of(&meta) {
                            path_attr = Some(path);
                        }
                        i += 2;
                        continue;
                    }
                }
                TokenTree::Ident(id) if id == "mod" => {
                    if let (Some(name), true) = (ident(i + 1), punct(i + 2, ';')) {
                        self.out.mods.push(ModDecl {
                            name: name.strip_prefix("r#").unwrap_or(&name).to_string(),
                            path_attr: path_attr.take(),
                            cfg_paths: Vec::new(),
                            inline_path: self.inline_path.clone(),
                            cfgs: self.cfgs.clone(),
                            line: position(id.span()).0,
                        });
                        i += 3;
                        continue;
                    }
                }
                // `include!`, `std::include!`, `core::include!` (not `other::include!`).
                TokenTree::Ident(id)
                    if id == "include"
                        && punct(i + 1, '!')
                        && (i < 2
                            || !punct(i - 1, ':')
                            || matches!(
                                i.checked_sub(3).and_then(ident).as_deref(),
                                Some("std" | "core")
                            )) =>
                {
                    if let Some(TokenTree::Group(g)) = trees.get(i + 2) {
                        self.out.includes.push(Include {
                            path: include_path(&g.stream()),
                            inline_path: self.inline_path.clone(),
                            cfgs: self.cfgs.clone(),
                            line: position(id.span()).0,
                        });
                        i += 3;
                        continue;
                    }
                }
                TokenTree::Group(g) => self.attrs_in_tokens(g.stream()),
                // Visibility and the like between the attributes and the `mod`.
                TokenTree::Ident(id) if id == "pub" => {
                    i += 1;
                    if matches!(trees.get(i), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                    {
                        i += 1;
                    }
                    continue;
                }
                _ => {}
            }
            path_attr = None;
            i += 1;
        }
    }

    fn include(&mut self, mac: &syn::Macro) {
        let line = position(
            mac.path
                .segments
                .last()
                .map_or_else(Span::call_site, |s| s.ident.span()),
        )
        .0;
        self.out.includes.push(Include {
            path: include_path(&mac.tokens),
            inline_path: self.inline_path.clone(),
            cfgs: self.cfgs.clone(),
            line,
        });
    }
}

impl<'ast> Visit<'ast> for FileVisitor {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = item_attrs(item);
        self.with_item(attrs, |v| match item {
            syn::Item::Mod(m) => match &m.content {
                Some((_, items)) => {
                    v.inline_path.push(unraw(&m.ident));
                    for item in items {
                        v.visit_item(item);
                    }
                    v.inline_path.pop();
                }
                None => v.out.mods.push(ModDecl {
                    name: unraw(&m.ident),
                    path_attr: path_attr(&m.attrs),
                    cfg_paths: cfg_paths(&m.attrs),
                    inline_path: v.inline_path.clone(),
                    cfgs: v.cfgs.clone(),
                    line: position(m.ident.span()).0,
                }),
            },
            syn::Item::Macro(m) => v.invocation(&m.mac),
            _ => syn::visit::visit_item(v, item),
        });
    }

    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        self.with_item(&m.attrs, |v| v.invocation(&m.mac));
    }

    fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
        self.invocation(&m.mac);
    }

    /// Macros in every other position (types, patterns, foreign items): their input can hold
    /// attributes too.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.invocation(mac);
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs: &[syn::Attribute] = match item {
            syn::ImplItem::Fn(f) => &f.attrs,
            syn::ImplItem::Const(c) => &c.attrs,
            syn::ImplItem::Type(t) => &t.attrs,
            syn::ImplItem::Macro(m) => &m.attrs,
            _ => &[],
        };
        self.with_item(attrs, |v| match item {
            syn::ImplItem::Macro(m) => v.invocation(&m.mac),
            _ => syn::visit::visit_impl_item(v, item),
        });
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        let attrs: &[syn::Attribute] = match item {
            syn::TraitItem::Fn(f) => &f.attrs,
            syn::TraitItem::Const(c) => &c.attrs,
            syn::TraitItem::Type(t) => &t.attrs,
            syn::TraitItem::Macro(m) => &m.attrs,
            _ => &[],
        };
        self.with_item(attrs, |v| match item {
            syn::TraitItem::Macro(m) => v.invocation(&m.mac),
            _ => syn::visit::visit_trait_item(v, item),
        });
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
mod tests {
    use super::*;
    use kube_markers_core::call_site::normalized_tokens;

    /// Both scans, which must agree; the token scan's answer.
    fn scan(text: &str) -> FileScan {
        let normalized = |mut scan: FileScan| {
            for a in &mut scan.attrs {
                a.args = normalized_text(&a.args).unwrap();
            }
            format!("{scan:?}")
        };
        let oracle = scan_file(&syn::parse_file(text).unwrap());
        let found = scan_source(text).unwrap();
        assert_eq!(normalized(oracle), normalized(found.clone()));
        found
    }

    #[test]
    fn finds_attributes_where_the_compiler_places_them() {
        let found = scan(
            "use kube_markers::rbac;\n\
             #[rbac(verbs = \"get\")]\n\
             fn a() {}\n\
             /* é */ #[kube_markers::rbac(verbs = \"get\")] fn b() {}\n\
             #[cfg_attr(all(), rbac(verbs = \"get\"))]\n\
             fn c() {}\n\
             #[kube_markers::crd] struct S;\n\
             #[other::rbac] fn d() {}\n\
             #[::kube_markers::rbac(verbs = \"x\")] fn e() {}\n\
             #[::rbac(verbs = \"x\")] fn f() {}\n",
        );
        let at: Vec<(AttrKind, usize, usize)> = found
            .attrs
            .iter()
            .map(|a| (a.kind, a.line, a.column))
            .collect();
        assert_eq!(
            at,
            [
                (AttrKind::Rbac, 2, 1),
                (AttrKind::Rbac, 4, 9),
                (AttrKind::Rbac, 5, 19),
                (AttrKind::Crd, 7, 1),
                (AttrKind::Rbac, 9, 1),
            ]
        );
        assert_eq!(found.attrs[2].cfgs, [Cfg::All(vec![])]);
        assert_eq!(found.attrs[2].outer, Some((5, 1)));
        assert_eq!(found.attrs[1].outer, None);
    }

    #[test]
    fn records_cfgs_of_files_items_and_cfg_attr() {
        let found = scan(
            "#![cfg(unix)]\n\
             #[cfg(feature = \"x\")]\n\
             mod m {\n\
                 #[cfg(not(test))]\n\
                 fn f() {\n\
                     #[cfg_attr(any(a, b = \"c\"), cfg_attr(true, rbac(verbs = \"get\")))]\n\
                     const _: () = ();\n\
                 }\n\
             }\n",
        );
        let cfgs: Vec<String> = found.attrs[0].cfgs.iter().map(|c| c.to_string()).collect();
        assert_eq!(
            cfgs,
            [
                "unix",
                "feature = \"x\"",
                "not(test)",
                "any(a, b = \"c\")",
                "true"
            ]
        );
    }

    #[test]
    fn follows_modules_and_includes_but_not_macro_bodies() {
        let found = scan(
            "mod a;\n\
             #[path = \"x/y.rs\"] mod b;\n\
             mod inline { #[cfg(unix)] mod c; }\n\
             include!(\"part.rs\");\n\
             include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/src/gen.rs\"));\n\
             include!(concat!(env!(\"OUT_DIR\"), \"/proto.rs\"));\n\
             fn f() { include!(some_path!()); }\n\
             macro_rules! m { () => { #[kube_markers::rbac(verbs = \"get\")] fn g() {} } }\n\
             m!();\n",
        );
        assert!(found.attrs.is_empty());
        let mods: Vec<(&str, Option<&str>, &[String], usize)> = found
            .mods
            .iter()
            .map(|m| {
                (
                    m.name.as_str(),
                    m.path_attr.as_deref(),
                    m.inline_path.as_slice(),
                    m.cfgs.len(),
                )
            })
            .collect();
        let inline = ["inline".to_string()];
        assert_eq!(
            mods,
            [
                ("a", None, &[][..], 0),
                ("b", Some("x/y.rs"), &[][..], 0),
                ("c", None, &inline[..], 1)
            ]
        );
        let includes: Vec<&IncludePath> = found.includes.iter().map(|i| &i.path).collect();
        assert_eq!(
            includes,
            [
                &IncludePath::Relative("part.rs".into()),
                &IncludePath::ManifestDir("/src/gen.rs".into()),
                &IncludePath::OutDir,
                &IncludePath::Unknown("some_path ! ()".into()),
            ]
        );
    }

    #[test]
    fn attributes_in_macro_input_are_found_where_they_stand() {
        let found = scan(
            "cfg_if::cfg_if! {\n\
                 if #[cfg(unix)] {\n\
                     #[rbac(verbs = \"get\")] pub fn f() {}\n\
                 }\n\
             }\n\
             pastey::paste! { #[kube_markers::rbac(verbs = \"get\")] pub fn g() {} }\n\
             core::include!(\"x.rs\");\n\
             macro_rules! m { () => { #[rbac(verbs = \"get\")] fn h() {} } }\n\
             impl S { m!{ #[rbac(verbs = \"list\")] fn i() {} } }\n",
        );
        let at: Vec<(usize, usize)> = found.attrs.iter().map(|a| (a.line, a.column)).collect();
        assert_eq!(at, [(3, 1), (6, 18), (9, 14)]);
        assert_eq!(found.includes.len(), 1);
    }

    #[test]
    fn the_token_scan_agrees_on_lexical_corners() {
        for text in [
            "\u{feff}#[rbac(verbs = \"get\")] fn a() {}",
            "#!/usr/bin/env run\n#[rbac(verbs = \"get\")] fn a() {}",
            "#![cfg(unix)]\n#[rbac(verbs = \"get\")] fn a() {}",
            "const S: &str = r#\"#[rbac(verbs = \"get\")] fn x() {}\"#;\n\
             /* #[rbac] /* nested */ */ #[rbac] fn b() {}",
            "fn f<'a>(x: &'a str) -> char { let c = '\"'; 'outer: loop { break 'outer; } c }\n\
             #[rbac] fn g() {}",
            "/// doc\n#[cfg(x)]\n/** more */ #[kube_markers::rbac(verbs = \"get\")] fn h() {}",
            "impl<T> S<T> where T: Tr<{ 1 }>, { #[rbac] fn m(&self) {} }",
            "fn outer() { #![cfg(feature = \"y\")] #[rbac] fn inner() {} }",
            "extern \"C\" { #[rbac] fn ffi(); }",
            "fn f() { #[cfg(x)] m!(#[rbac] fn a() {}).x(); #[cfg(y)] n! { #[rbac] fn b() {} } }",
            "#[cfg(x)] const _: () = { #[rbac] fn c() {} };\n#[rbac] fn d() {}",
            "mod a { #![cfg(unix)] #[cfg_attr(all(), path = \"x.rs\")] mod b; }",
            "/* é */ #[cfg_attr(any(),\n    kube_markers::rbac(verbs = \"get\"))] fn é() {}",
        ] {
            scan(text);
        }
        // A text that does not lex goes to syn, whose error is the answer.
        assert!(scan_source("fn f( {").is_err());
        assert!(scan_source("const S: &str = \"open;").is_err());
    }

    #[test]
    fn both_normalizations_agree() {
        for args in [
            "verbs = \"get\"",
            "groups = [\"\", \"apps\"], resources = \"pods/status\" , verbs=\"get;list\"",
            "allow(cluster-secrets-read, reason = r#\"a \"b\"\"#), namespace = \"x\"",
            "a = -1, b = 1.5e-3, c = 'x', d = b\"y\", e::f<'a>, g = {h}",
            "",
        ] {
            let tokens: TokenStream = args.parse().unwrap();
            assert_eq!(
                normalized_text(args).as_deref(),
                Some(normalized_tokens(&tokens).as_str()),
                "{args}"
            );
        }
        assert_eq!(
            normalized_text("verbs = \"get\"").unwrap(),
            "verbs = \"get\""
        );
        assert_eq!(normalized_text("f<'a>").unwrap(), "f < ' a >");
        assert!(normalized_text("a /** doc */ b").is_none());
        for (text, expected, same) in [
            ("verbs  =\"get\"", "verbs = \"get\"", true),
            ("verbs = \"get\"", "verbs = \"get\" ", false),
            ("verbs = \"get\"", "verbs = \"ge", false),
            ("verbs = \"get\", x", "verbs = \"get\"", false),
            ("f<'a>", "f < ' a >", true),
            ("", "", true),
            ("a", "", false),
        ] {
            assert_eq!(
                normalized_text_is(text, expected),
                same,
                "{text:?} {expected:?}"
            );
            assert_eq!(normalized_text(text).as_deref() == Some(expected), same);
        }
        assert_eq!(
            normalized_text("a  =\n[ \"x\" ,]").unwrap(),
            "a = [ \"x\" , ]"
        );
    }
}
