//! The syn-based scan of one parsed file: what [`super::scan_source`] falls back to when its
//! token walk cannot take a file, and the oracle that walk is tested against.

use super::{
    FileScan, FoundAttr, Include, ModDecl, cfg_paths, include_path, is_include, item_attrs,
    path_attr, path_attr_of, record_meta, unraw,
};
use kube_markers_core::cfg::{Cfg, cfg_attr_tokens};
use proc_macro2::{Span, TokenStream, TokenTree};
use syn::visit::Visit;

/// Finds the attributes, module declarations and includes of one parsed file: the syn-based
/// scan, which [`super::scan_source`] falls back to, and the oracle its token walk is tested
/// against.
///
/// Attributes inside macro invocations and `macro_rules!` bodies are not found (they are token
/// trees until expanded): `kube_markers_core::call_site::check_call_site` makes such attributes compile errors.
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
pub(crate) fn cfgs_of(attrs: &[syn::Attribute]) -> Vec<Cfg> {
    attrs
        .iter()
        .filter_map(|a| match &a.meta {
            syn::Meta::List(list) if list.path.is_ident("cfg") => Some(
                Cfg::parse(list.tokens.clone())
                    .unwrap_or_else(|_| Cfg::Name(list.tokens.to_string())),
            ),
            // A `cfg_attr` yielding a `cfg` removes its item too.
            syn::Meta::List(list) if list.path.is_ident("cfg_attr") => {
                let (pred, metas) = cfg_attr_tokens(list.tokens.clone()).ok()?;
                kube_markers_core::cfg::cfg_attr_yields(&pred, &metas)
            }
            _ => None,
        })
        .collect()
}

/// An expression's outer attributes.
pub(crate) fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    macro_rules! attrs {
        ($($v:ident),*) => {
            match e {
                $(syn::Expr::$v(x) => &x.attrs,)*
                _ => &[],
            }
        };
    }
    attrs!(
        Array, Assign, Async, Await, Binary, Block, Break, Call, Cast, Closure, Const, Continue,
        Field, ForLoop, Group, If, Index, Infer, Let, Lit, Loop, Macro, Match, MethodCall, Paren,
        Path, Range, RawAddr, Reference, Repeat, Return, Struct, Try, TryBlock, Unary, Unsafe,
        While, Yield
    )
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

    fn scoped(&mut self, attrs: &[syn::Attribute], f: impl FnOnce(&mut Self)) {
        let before = self.cfgs.len();
        self.cfgs.extend(cfgs_of(attrs));
        f(self);
        self.cfgs.truncate(before);
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

    /// A `cfg` on a statement, an arm or a field removes it with any item inside.
    fn visit_local(&mut self, l: &'ast syn::Local) {
        self.scoped(&l.attrs, |v| syn::visit::visit_local(v, l));
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.scoped(&a.attrs, |v| syn::visit::visit_arm(v, a));
    }

    fn visit_field_value(&mut self, f: &'ast syn::FieldValue) {
        self.scoped(&f.attrs, |v| syn::visit::visit_field_value(v, f));
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        self.scoped(expr_attrs(e), |v| syn::visit::visit_expr(v, e));
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
