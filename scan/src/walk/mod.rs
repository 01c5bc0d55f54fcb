//! The token-level scan: what [`super::scan_file`] finds in syn's syntax tree, found in the
//! flat token list of [`super::lex`] instead, without parsing items, expressions or types.
//!
//! It walks items by their keywords (`fn`, `mod`, `impl`, ...) far enough to know which
//! tokens an item's attributes apply to (its `#[cfg]` scope, inner attributes of its body
//! included), follows `mod x;`, inline modules and `include!`, and walks every macro's input
//! as the syn scan does. Only the attributes that matter (`cfg`, `cfg_attr`, `path`, ours)
//! are handed to proc-macro2/syn, as small slices.
//!
//! Where the item a `#[cfg]` applies to cannot be told from tokens, the walk gives the
//! attribute FEWER cfgs, never more: an attribute wrongly thought compiled is a loud error
//! of the cross-check, one wrongly thought cfg'd off would be a warning, silently lost.
//! The differential test (`tests/tests/scan_lexer.rs`) holds it to the syn scan's answers.

use super::lex::{Delim, Kind, Token};
use super::{Cfg, FileScan, Include, IncludePath, ModDecl, include_path};
use proc_macro2::TokenStream;
use std::str::FromStr;

mod attrs;
mod items;
mod stmts;

/// Which body a token list is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// A file, an inline module, an `impl` or `trait` body: items only.
    Items,
    /// Anything else (blocks, expressions, fields): statements and expressions.
    Stmts,
    /// An `extern { }` block: the syn scan records no attribute of a foreign item.
    Foreign,
}

/// What an item is, as far as the scan cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ItemKind {
    /// `fn`, `mod {}`, `impl`, `trait`, `extern {}`: items whose body's inner attributes are
    /// the item's.
    WithBody,
    /// `struct`, `enum`, `union`, `use`, `const`, `static`, `type`, `extern crate`.
    Plain,
    /// `mod name;` (`name` is the token index).
    ModDecl(usize),
    /// `mod name { ... }`.
    ModInline(usize),
    /// `macro_rules! name { ... }`: its body is left alone.
    MacroRules,
    /// `path! (...)`: path from `.0`, `!` at `.1`, delimiter at `.2`.
    MacroCall(usize, usize, usize),
    /// `extern "C" { ... }`: its items' attributes are not recorded.
    Foreign,
    /// `macro name ...` (syn keeps such an item as tokens and visits nothing in it).
    Verbatim,
}

#[derive(Clone, Copy)]
struct Item {
    kind: ItemKind,
    /// One past the item's last token.
    end: usize,
    /// The item's `{ }` body (an `Open` token index), if any.
    body: Option<usize>,
}

/// One attribute: the `#` and the `[` of `#[...]` (or a doc comment, `bracket` = `None`).
#[derive(Clone, Copy)]
struct Attr {
    pound: usize,
    bracket: Option<usize>,
}

pub(super) struct Walker<'a> {
    text: &'a str,
    toks: &'a [Token],
    /// Byte offsets where lines start, computed on first use.
    lines: Vec<u32>,
    /// The last position computed: (byte offset, line, column). Columns of later places on
    /// the same line count characters from there, not from the line's start (a line of
    /// many attributes stays linear).
    last_position: (u32, usize, usize),
    cfgs: Vec<Cfg>,
    inline_path: Vec<String>,
    pub(super) out: FileScan,
    /// A slice this lexer took and proc-macro2 did not: the caller then trusts syn's scan of
    /// the whole file, not this one.
    doubt: std::cell::Cell<bool>,
}

/// Rust's strict keywords that cannot start a path.
fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "break"
            | "const"
            | "continue"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "static"
            | "struct"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}

/// Keywords of some editions only (`async`, `await`, `dyn` since 2018, `try` reserved since
/// 2018, `gen` since 2024): in an older edition they are plain names, macros included
/// (`gen! { ... }`). None of them is followed by `!` in an edition where it is a keyword, so
/// reading them as a macro's name is right in every edition.
fn is_edition_keyword(s: &str) -> bool {
    matches!(s, "async" | "await" | "dyn" | "try" | "gen")
}

impl<'a> Walker<'a> {
    pub(super) fn new(text: &'a str, toks: &'a [Token]) -> Self {
        Walker {
            text,
            toks,
            lines: Vec::new(),
            last_position: (0, 0, 0),
            cfgs: Vec::new(),
            inline_path: Vec::new(),
            out: FileScan::default(),
            doubt: std::cell::Cell::new(false),
        }
    }

    /// Whether a slice could not be handed to proc-macro2 (see [`Self::reparse`]).
    pub(super) fn doubted(&self) -> bool {
        self.doubt.get()
    }

    /// A slice of the text as proc-macro2 tokens; `None`, and the whole walk in doubt, if
    /// proc-macro2 rejects what this lexer took.
    fn reparse(&self, text: &str) -> Option<TokenStream> {
        let tokens = TokenStream::from_str(text).ok();
        if tokens.is_none() {
            self.doubt.set(true);
        }
        tokens
    }

    // --- Token helpers -------------------------------------------------------------------

    fn src(&self, i: usize) -> &'a str {
        let t = self.toks[i];
        &self.text[t.start as usize..t.end as usize]
    }

    fn ident(&self, i: usize) -> Option<&'a str> {
        match self.toks.get(i) {
            Some(t) if t.kind == Kind::Ident => Some(self.src(i)),
            _ => None,
        }
    }

    fn is_ident(&self, i: usize, name: &str) -> bool {
        self.ident(i) == Some(name)
    }

    fn is_punct(&self, i: usize, c: u8) -> bool {
        matches!(self.toks.get(i), Some(t) if t.kind == Kind::Punct(c))
    }

    /// The delimiter and closing index of the group opening at `i`.
    fn group(&self, i: usize) -> Option<(Delim, usize)> {
        match self.toks.get(i)?.kind {
            Kind::Open { delim, close } => Some((delim, close as usize)),
            _ => None,
        }
    }

    fn is_group(&self, i: usize, want: Delim) -> bool {
        matches!(self.group(i), Some((d, _)) if d == want)
    }

    /// One past the token tree starting at `i`.
    fn next(&self, i: usize) -> usize {
        self.group(i).map_or(i + 1, |(_, close)| close + 1)
    }

    /// The source text strictly inside the group opening at `open`.
    fn inner_text(&self, open: usize) -> &'a str {
        let close = self.group(open).map_or(open, |(_, c)| c);
        &self.text[self.toks[open].end as usize..self.toks[close].start as usize]
    }

    /// 1-based line and column (in characters) of a byte offset.
    fn position(&mut self, offset: u32) -> (usize, usize) {
        if self.lines.is_empty() {
            self.lines.push(0);
            self.lines.extend(
                self.text
                    .bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            );
        }
        let line = self.lines.partition_point(|&start| start <= offset);
        let (last_offset, last_line, last_column) = self.last_position;
        let column = if last_line == line && last_offset <= offset {
            last_column
                + self.text[last_offset as usize..offset as usize]
                    .chars()
                    .count()
        } else {
            let start = self.lines[line - 1] as usize;
            self.text[start..offset as usize].chars().count() + 1
        };
        self.last_position = (offset, line, column);
        (line, column)
    }

    fn position_of(&mut self, i: usize) -> (usize, usize) {
        self.position(self.toks[i].start)
    }

    /// A path `::a::b` starting at `i`: (leading `::`, segment indices, index after it).
    fn path(&self, mut i: usize, hi: usize) -> Option<(bool, Vec<usize>, usize)> {
        let leading = self.is_punct(i, b':') && self.is_punct(i + 1, b':') && i + 1 < hi;
        if leading {
            i += 2;
        }
        let mut segs = Vec::new();
        loop {
            if i >= hi || self.ident(i).is_none() {
                return None;
            }
            segs.push(i);
            i += 1;
            if i + 1 < hi && self.is_punct(i, b':') && self.is_punct(i + 1, b':') {
                i += 2;
            } else {
                return Some((leading, segs, i));
            }
        }
    }

    /// One past the path starting at `i` ([`Self::path`] without its segments).
    fn path_end(&self, mut i: usize, hi: usize) -> Option<usize> {
        if i + 1 < hi && self.is_punct(i, b':') && self.is_punct(i + 1, b':') {
            i += 2;
        }
        loop {
            if i >= hi || self.toks[i].kind != Kind::Ident {
                return None;
            }
            i += 1;
            if i + 1 < hi && self.is_punct(i, b':') && self.is_punct(i + 1, b':') {
                i += 2;
            } else {
                return Some(i);
            }
        }
    }

    // --- The walk ------------------------------------------------------------------------

    /// Walks the file: its inner attributes' cfgs apply to everything.
    pub(super) fn file(&mut self) {
        let hi = self.toks.len();
        let mut i = 0;
        while i < hi {
            match self.toks[i].kind {
                Kind::Doc { inner: true } => i += 1,
                Kind::Punct(b'#')
                    if self.is_punct(i + 1, b'!') && self.is_group(i + 2, Delim::Bracket) =>
                {
                    if let Some(cfg) = self.cfg_of(Attr {
                        pound: i,
                        bracket: Some(i + 2),
                    }) {
                        self.cfgs.push(cfg);
                    }
                    i = self.next(i + 2);
                }
                _ => break,
            }
        }
        self.walk(i, hi, Ctx::Items);
    }

    fn walk(&mut self, lo: usize, hi: usize, ctx: Ctx) {
        let mut i = lo;
        while i < hi {
            let (attrs, j) = self.attrs_at(i, hi);
            if ctx != Ctx::Foreign
                && j < hi
                && let Some(item) = self.classify(j, hi, ctx, !attrs.is_empty())
            {
                self.item(&attrs, j, item);
                i = item.end;
                continue;
            }
            // Attributes of anything else (a field, a statement, an expression, a foreign
            // item) are not recorded; but a `cfg` there removes the statement (a block, a
            // `let`, a closure called), arm or field it stands on, with any item inside: a
            // scope up to the end of the statement or arm.
            if j >= hi {
                break;
            }
            let cfgs: Vec<Cfg> = if ctx == Ctx::Stmts {
                attrs.iter().filter_map(|a| self.cfg_of(*a)).collect()
            } else {
                Vec::new()
            };
            if cfgs.is_empty() {
                i = self.thing(j, hi);
                continue;
            }
            let before = self.cfgs.len();
            self.cfgs.extend(cfgs);
            let end = self.stmt_end(j, hi);
            let mut k = j;
            while k < end {
                k = self.thing(k, end);
            }
            self.cfgs.truncate(before);
            i = end;
        }
    }

    /// One token tree (or a whole macro invocation) outside any item's own tokens.
    fn thing(&mut self, i: usize, hi: usize) -> usize {
        if let Some((bang, named)) = self.macro_at(i, hi) {
            let group = if named { bang + 2 } else { bang + 1 };
            self.invocation(i, bang, group);
            return self.next(group);
        }
        if self.group(i).is_some() {
            let close = self.next(i) - 1;
            self.walk(i + 1, close, Ctx::Stmts);
        }
        self.next(i)
    }

    fn item(&mut self, outer: &[Attr], start: usize, item: Item) {
        let mut attrs = outer.to_vec();
        let mut body_from = None;
        if let (ItemKind::WithBody | ItemKind::Foreign | ItemKind::ModInline(_), Some(body)) =
            (item.kind, item.body)
        {
            let (inner, first) = self.inner_attrs(body);
            attrs.extend(inner);
            body_from = Some(first);
        }
        if item.kind == ItemKind::Verbatim {
            return;
        }
        let before = self.cfgs.len();
        for attr in &attrs {
            if let Some(cfg) = self.cfg_of(*attr) {
                self.cfgs.push(cfg);
            }
        }
        for attr in &attrs {
            self.record(*attr);
        }
        match item.kind {
            ItemKind::ModDecl(name) => {
                let path_attr = attrs.iter().find_map(|a| self.path_attr_of(*a));
                let cfg_paths = attrs.iter().filter_map(|a| self.cfg_path_of(*a)).collect();
                let line = self.position_of(name).0;
                self.out.mods.push(ModDecl {
                    name: unraw(self.src(name)),
                    path_attr,
                    cfg_paths,
                    inline_path: self.inline_path.clone(),
                    cfgs: self.cfgs.clone(),
                    line,
                });
            }
            ItemKind::ModInline(name) => {
                let body = item.body.expect("an inline module's body");
                let close = self.next(body) - 1;
                self.inline_path.push(unraw(self.src(name)));
                self.walk(body_from.unwrap_or(body + 1), close, Ctx::Items);
                self.inline_path.pop();
            }
            ItemKind::MacroRules | ItemKind::Verbatim => {}
            ItemKind::MacroCall(path, bang, group) => self.invocation(path, bang, group),
            ItemKind::WithBody | ItemKind::Plain | ItemKind::Foreign => {
                let mut i = start;
                while i < item.end {
                    if Some(i) == item.body {
                        let close = self.next(i) - 1;
                        let ctx = if item.kind == ItemKind::Foreign {
                            Ctx::Foreign
                        } else {
                            Ctx::Stmts
                        };
                        let from = body_from.unwrap_or(i + 1);
                        self.walk(from, close, ctx);
                        i = close + 1;
                    } else {
                        i = self.thing(i, item.end);
                    }
                }
            }
        }
        self.cfgs.truncate(before);
    }

    /// A macro invocation: `include!` is followed; any other's input is walked for
    /// attributes, `mod x;` and `include!` as the syn scan does; `macro_rules!` bodies are
    /// left alone.
    fn invocation(&mut self, path: usize, bang: usize, group: usize) {
        let Some((leading, segs, _)) = self.path(path, bang) else {
            return;
        };
        let names: Vec<&str> = segs.iter().map(|&s| self.src(s)).collect();
        let is_include = match names.as_slice() {
            ["include"] => !leading,
            ["core" | "std", "include"] => true,
            _ => false,
        };
        if is_include {
            let line = self.position_of(*segs.last().expect("a segment")).0;
            self.include(group, line);
        } else if names != ["macro_rules"] || leading {
            let close = self.next(group) - 1;
            self.tokens(group + 1, close);
        }
    }

    fn include(&mut self, group: usize, line: usize) {
        let text = self.inner_text(group);
        let path = match self.reparse(text) {
            Some(tokens) => include_path(&tokens),
            None => IncludePath::Unknown(text.to_string()),
        };
        self.out.includes.push(Include {
            path,
            inline_path: self.inline_path.clone(),
            cfgs: self.cfgs.clone(),
            line,
        });
    }

    /// Another macro's input (the syn scan's `attrs_in_tokens`, on tokens): attributes keep
    /// their place; `mod x;` and `include!(...)` lead to more files; the cfgs around them
    /// inside the input are not evaluated (they count as compiled).
    fn tokens(&mut self, lo: usize, hi: usize) {
        let mut path_attr: Option<String> = None;
        let mut i = lo;
        while i < hi {
            match self.toks[i].kind {
                // `#[doc = "..."]` to the syn scan: a meta, transparent.
                Kind::Doc { inner: false } => {
                    i += 1;
                    continue;
                }
                Kind::Punct(b'#') if i + 1 < hi && self.is_group(i + 1, Delim::Bracket) => {
                    let attr = Attr {
                        pound: i,
                        bracket: Some(i + 1),
                    };
                    if self.meta_parses(i + 1) {
                        self.record(attr);
                        if let Some(path) = self.path_attr_of(attr) {
                            path_attr = Some(path);
                        }
                        i = self.next(i + 1);
                        continue;
                    }
                }
                Kind::Ident
                    if self.src(i) == "mod"
                        && i + 2 < hi
                        && self.ident(i + 1).is_some()
                        && self.is_punct(i + 2, b';') =>
                {
                    let line = self.position_of(i).0;
                    self.out.mods.push(ModDecl {
                        name: unraw(self.src(i + 1)),
                        path_attr: path_attr.take(),
                        cfg_paths: Vec::new(),
                        inline_path: self.inline_path.clone(),
                        cfgs: self.cfgs.clone(),
                        line,
                    });
                    i += 3;
                    continue;
                }
                // `include!`, `std::include!`, `core::include!` (not `other::include!`).
                Kind::Ident
                    if self.src(i) == "include"
                        && i + 1 < hi
                        && self.is_punct(i + 1, b'!')
                        && (i < lo + 2
                            || !self.is_punct(i - 1, b':')
                            || (i >= lo + 3
                                && matches!(self.ident(i - 3), Some("std" | "core"))))
                        && i + 2 < hi
                        && self.group(i + 2).is_some() =>
                {
                    let line = self.position_of(i).0;
                    self.include(i + 2, line);
                    i = self.next(i + 2);
                    continue;
                }
                Kind::Open { close, .. } => {
                    self.tokens(i + 1, close as usize);
                }
                Kind::Ident if self.src(i) == "pub" => {
                    i += 1;
                    if i < hi && self.is_group(i, Delim::Paren) {
                        i = self.next(i);
                    }
                    continue;
                }
                _ => {}
            }
            path_attr = None;
            i = self.next(i);
        }
    }
}

fn unraw(s: &str) -> String {
    s.strip_prefix("r#").unwrap_or(s).to_string()
}
