//! What a file says that the scan does not: the annotated items' names, the macro inputs, and
//! the modules and includes declared inside macro inputs (which only the compiler expands).

use super::{Reason, as_file_macro};
use crate::input::sources::rust_files;
use crate::input::workspace::{TargetKind, Workspace};
use proc_macro2::LineColumn;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the file's syntax tree tells about the places of its attributes: the macro inputs
/// (token ranges, attributes in them are the macro's to place), and the items attributes
/// stand on with their names as the macro registers them.
pub(super) struct FileFacts {
    macro_inputs: Vec<(LineColumn, LineColumn)>,
    items: Vec<((LineColumn, LineColumn), String)>,
    /// What macro inputs declare that leads the scan to other files, with its line.
    declared: Vec<(Declared, usize)>,
}

/// A declaration in a macro's input that the scan follows to another file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Declared {
    /// `mod x;`
    Mod(String),
    /// `#[path = "..."]` (on a `mod`).
    Path(String),
    /// `include!("...")`
    Include(String),
}

impl FileFacts {
    pub(super) fn read(file: &Path) -> Result<FileFacts, String> {
        let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
        let tree = syn::parse_file(&text).map_err(|e| {
            let at = e.span().start();
            format!("{}:{}: {e}", at.line, at.column + 1)
        })?;
        let mut facts = FileFacts {
            macro_inputs: Vec::new(),
            items: Vec::new(),
            declared: Vec::new(),
        };
        syn::visit::Visit::visit_file(&mut facts, &tree);
        Ok(facts)
    }

    pub(super) fn in_macro_input(&self, at: LineColumn) -> bool {
        self.macro_inputs
            .iter()
            .any(|(from, to)| position(*from) < position(at) && position(at) < position(*to))
    }

    pub(super) fn item_at(&self, at: LineColumn) -> Option<String> {
        self.items
            .iter()
            .find(|((from, to), _)| position(*from) <= position(at) && position(at) < position(*to))
            .map(|(_, name)| name.clone())
    }

    fn item(&mut self, attrs: &[syn::Attribute], name: impl Fn() -> String) {
        for attr in attrs {
            let range = (
                attr.pound_token.span.start(),
                attr.bracket_token.span.close().end(),
            );
            self.items.push((range, name()));
        }
    }
}

/// `mod x;`, `#[path = "..."]` and `include!("...")` anywhere in a macro's input (the scan
/// follows them).
fn declarations(tokens: proc_macro2::TokenStream, out: &mut Vec<(Declared, usize)>) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => declarations(g.stream(), out),
            TokenTree::Ident(id) if id == "mod" => {
                if let (Some(TokenTree::Ident(name)), Some(TokenTree::Punct(semi))) =
                    (trees.get(i + 1), trees.get(i + 2))
                    && semi.as_char() == ';'
                {
                    out.push((Declared::Mod(self::name(name)), id.span().start().line));
                }
            }
            TokenTree::Punct(pound) if pound.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = trees.get(i + 1)
                    && let Ok(syn::Meta::NameValue(meta)) = syn::parse2::<syn::Meta>(g.stream())
                    && meta.path.is_ident("path")
                    && let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(lit),
                        ..
                    }) = &meta.value
                {
                    out.push((Declared::Path(lit.value()), pound.span().start().line));
                }
            }
            TokenTree::Ident(id) if id == "include" => {
                if let (Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g))) =
                    (trees.get(i + 1), trees.get(i + 2))
                    && bang.as_char() == '!'
                {
                    let path = syn::parse2::<syn::LitStr>(g.stream())
                        .map(|lit| lit.value())
                        .unwrap_or_default();
                    out.push((Declared::Include(path), id.span().start().line));
                }
            }
            _ => {}
        }
    }
}

/// The `mod x;`, `#[path]`s and `include!`s in macro inputs of the linked libraries' files,
/// each with the files it may lead the scan to (a directory: any file under it), and the
/// refusal of an attribute in one of them.
pub(super) fn declared_in_macro_inputs(
    workspace: &Workspace,
    linked: &[&str],
    files: &mut BTreeMap<PathBuf, Result<FileFacts, String>>,
) -> Vec<(Vec<PathBuf>, Reason)> {
    let mut found = Vec::new();
    for package in &workspace.packages {
        if !linked.contains(&package.lib_crate.as_str()) {
            continue;
        }
        for target in &package.targets {
            if target.kind != TargetKind::Lib {
                continue;
            }
            let Some(src) = target.root.parent() else {
                continue;
            };
            for file in rust_files(src) {
                let Ok(text) = std::fs::read_to_string(&file) else {
                    continue;
                };
                // Only a file with a macro that names a module or an include can declare one.
                if !(text.contains('!') && (text.contains("mod") || text.contains("include"))) {
                    continue;
                }
                let facts = files
                    .entry(file.clone())
                    .or_insert_with(|| FileFacts::read(&file));
                let Ok(facts) = facts else { continue };
                let here = file.parent().unwrap_or(src);
                // `lib.rs`, `main.rs` and `mod.rs` hold their children beside them; `x.rs`
                // in `x/`.
                let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                let children = if file == target.root || stem == "mod" {
                    here.to_path_buf()
                } else {
                    here.join(stem)
                };
                for (declared, line) in &facts.declared {
                    let at = format!("{}:{line}", as_file_macro(&file, &workspace.root));
                    let (led_to, what) = match declared {
                        Declared::Mod(name) => (
                            vec![
                                children.join(format!("{name}.rs")),
                                children.join(name).join("mod.rs"),
                                children.join(name),
                            ],
                            format!("`mod {name};`"),
                        ),
                        // Relative to the declaring file's directory, or inside inline modules
                        // to theirs: both count.
                        Declared::Path(path) => (
                            vec![here.join(path), children.join(path)],
                            format!("`#[path = {path:?}]`"),
                        ),
                        Declared::Include(path) => {
                            (vec![here.join(path)], "an `include!`".to_string())
                        }
                    };
                    found.push((led_to, Reason::ThroughMacroInput { what, at }));
                }
            }
        }
    }
    found
}

/// An identifier as the macro names the item: without `r#`.
fn name(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").unwrap_or(&text).to_string()
}

fn position(p: LineColumn) -> (usize, usize) {
    (p.line, p.column)
}

impl<'ast> syn::visit::Visit<'ast> for FileFacts {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let span = mac.delimiter.span();
        self.macro_inputs
            .push((span.open().start(), span.close().end()));
        // A `macro_rules!` body is no module's text until expanded, and the scan does not
        // follow it: files only it declares are reported unreached.
        if !mac.path.is_ident("macro_rules") {
            declarations(mac.tokens.clone(), &mut self.declared);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.item(&item.attrs, || name(&item.sig.ident));
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.item(&item.attrs, || name(&item.sig.ident));
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        self.item(&item.attrs, || name(&item.sig.ident));
        syn::visit::visit_trait_item_fn(self, item);
    }

    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        self.item(&item.attrs, || name(&item.ident));
        syn::visit::visit_item_struct(self, item);
    }

    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        self.item(&item.attrs, || name(&item.ident));
        syn::visit::visit_item_enum(self, item);
    }

    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        self.item(&item.attrs, || name(&item.ident));
        syn::visit::visit_item_const(self, item);
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        self.item(&item.attrs, || kube_markers_core::rbac::impl_name(item));
        syn::visit::visit_item_impl(self, item);
    }
}
