//! The workspace scan: every `#[rbac]` written in the workspace's sources, found by parsing
//! them with syn, so the registry can be checked for entries the linker never saw.
//!
//! It follows each library and binary target's module tree from its root file (`mod x;`,
//! `#[path]`, inline modules), records whether an attribute sits behind a `cfg` (on the item,
//! an enclosing item, or a `cfg_attr`), and parses the attribute's arguments with the same
//! parser as the macro.

use super::Error;
use proc_macro2::Span;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use syn::visit::Visit;

/// A workspace member whose sources are scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Package name as in `Cargo.toml`.
    pub name: String,
    /// Targets that can hold attributes: `(kind, root file)`, kind being `lib` or `bin`.
    pub targets: Vec<(String, PathBuf)>,
}

/// The workspace as `cargo metadata` describes it.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Workspace root directory.
    pub root: PathBuf,
    /// Members that depend on `kube-markers` and are not left out by
    /// `[package.metadata.kube-markers] scan = false` or by the workspace's
    /// `[workspace.metadata.kube-markers] scan-exclude = [...]`.
    pub packages: Vec<Package>,
}

/// Which kube-markers attribute was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrKind {
    /// `#[rbac]`
    Rbac,
    /// `#[crd]`
    Crd,
}

/// One attribute found in the source.
#[derive(Debug, Clone)]
pub struct FoundAttr {
    /// `#[rbac]` or `#[crd]`.
    pub kind: AttrKind,
    /// Package it was found in.
    pub package: String,
    /// `lib` or `bin:<name>`.
    pub target: String,
    /// Absolute path of the file.
    pub file: PathBuf,
    /// Line of the `#` and line of the `rbac` path (the registry records one of them).
    pub lines: (usize, usize),
    /// The `cfg` predicates the attribute depends on, outermost first; empty if none.
    pub cfgs: Vec<String>,
    /// An `#[rbac]`'s arguments as the macro parses them; `None` if they do not parse (the
    /// crate would not compile then, so only a stale build could have an entry) or for `#[crd]`.
    pub marker: Option<kube_markers_core::rbac::RbacMarker>,
}

/// Everything the scan found.
#[derive(Debug, Clone, Default)]
pub struct ScanReport {
    /// Attributes, in file and line order.
    pub attrs: Vec<FoundAttr>,
    /// Problems that make the scan unreliable (unparsable files, renamed imports).
    pub errors: Vec<String>,
    /// Things a user should know (module files not found, e.g. generated ones).
    pub warnings: Vec<String>,
}

impl Workspace {
    /// Runs `cargo metadata --no-deps` (with `$CARGO` when cargo runs us).
    pub fn discover(manifest_path: Option<&Path>) -> Result<Workspace, Error> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--no-deps", "--format-version", "1"]);
        if let Some(path) = manifest_path {
            cmd.arg("--manifest-path").arg(path);
        }
        let output = cmd.output().map_err(|e| {
            Error::Scan(format!(
                "could not run `{} metadata` to find the workspace to scan: {e} \
                 (run the generator with `cargo run`, or pass --no-scan)",
                cargo.to_string_lossy()
            ))
        })?;
        if !output.status.success() {
            return Err(Error::Scan(format!(
                "`cargo metadata` failed{}:\n{}",
                manifest_path
                    .map(|p| format!(" for {}", p.display()))
                    .unwrap_or_default(),
                String::from_utf8_lossy(&output.stderr).trim_end()
            )));
        }
        let json: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| Error::Scan(format!("`cargo metadata` printed invalid JSON: {e}")))?;
        Self::from_metadata(&json)
    }

    /// Reads the parts of `cargo metadata` output the scan needs.
    pub fn from_metadata(json: &Value) -> Result<Workspace, Error> {
        let root = json["workspace_root"]
            .as_str()
            .ok_or_else(|| Error::Scan("`cargo metadata` output has no workspace_root".into()))?;
        // `[workspace.metadata.kube-markers] scan-exclude = ["pkg", ...]`: members that are
        // never linked into the generator on purpose (test fixtures, say).
        let excluded: Vec<&str> = json["metadata"]["kube-markers"]["scan-exclude"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let names: Vec<&str> = json["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["name"].as_str())
            .collect();
        if let Some(unknown) = excluded.iter().find(|e| !names.contains(e)) {
            return Err(Error::Scan(format!(
                "[workspace.metadata.kube-markers] scan-exclude names `{unknown}`, which is not a \
                 member of the workspace at {root} (members: {})",
                names.join(", ")
            )));
        }
        let mut packages = Vec::new();
        for pkg in json["packages"].as_array().into_iter().flatten() {
            let name = pkg["name"].as_str().unwrap_or_default().to_string();
            if excluded.contains(&name.as_str()) {
                continue;
            }
            let uses_markers = pkg["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|d| d["name"] == "kube-markers" && d["kind"].is_null());
            let opted_out = pkg["metadata"]["kube-markers"]["scan"] == Value::Bool(false);
            if !uses_markers || opted_out {
                continue;
            }
            let targets = pkg["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| {
                    let kinds: Vec<&str> = t["kind"]
                        .as_array()?
                        .iter()
                        .filter_map(Value::as_str)
                        .collect();
                    let src = PathBuf::from(t["src_path"].as_str()?);
                    if kinds.iter().any(|k| matches!(*k, "lib" | "rlib" | "dylib")) {
                        Some(("lib".to_string(), src))
                    } else if kinds.contains(&"bin") {
                        Some((format!("bin:{}", t["name"].as_str()?), src))
                    } else {
                        None
                    }
                })
                .collect();
            packages.push(Package { name, targets });
        }
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Workspace {
            root: PathBuf::from(root),
            packages,
        })
    }

    /// Scans every target of every package.
    pub fn scan(&self) -> ScanReport {
        let mut report = ScanReport::default();
        for pkg in &self.packages {
            for (target, root) in &pkg.targets {
                let mut walker = Walker {
                    root: &self.root,
                    package: &pkg.name,
                    target,
                    report: &mut report,
                    visited: Vec::new(),
                };
                walker.walk_file(root, &module_dir_of_root(root), &[]);
            }
        }
        report
            .attrs
            .sort_by(|a, b| (&a.file, a.lines).cmp(&(&b.file, b.lines)));
        report
            .attrs
            .dedup_by(|a, b| a.file == b.file && a.lines == b.lines);
        report
    }
}

fn module_dir_of_root(root: &Path) -> PathBuf {
    root.parent().map(Path::to_path_buf).unwrap_or_default()
}

struct Walker<'a> {
    root: &'a Path,
    package: &'a str,
    target: &'a str,
    report: &'a mut ScanReport,
    visited: Vec<PathBuf>,
}

impl Walker<'_> {
    /// `path` relative to the workspace root, for messages.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Parses one module file. `mod_dir` is where its `mod x;` children live.
    fn walk_file(&mut self, file: &Path, mod_dir: &Path, cfgs: &[String]) {
        if self.visited.iter().any(|f| f == file) {
            return;
        }
        self.visited.push(file.to_path_buf());
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                let shown = self.shown(file);
                self.report
                    .errors
                    .push(format!("{shown}: cannot read: {e}"));
                return;
            }
        };
        let ast = match syn::parse_file(&text) {
            Ok(ast) => ast,
            Err(e) => {
                let at = e.span().start();
                self.report.errors.push(format!(
                    "{}:{}:{}: cannot parse: {e} (package `{}`)",
                    self.shown(file),
                    at.line,
                    at.column + 1,
                    self.package
                ));
                return;
            }
        };
        let mut visitor = FileVisitor {
            walker: self,
            file,
            mod_dir: mod_dir.to_path_buf(),
            cfgs: cfgs.to_vec(),
        };
        // Inner attributes (`#![cfg(...)]`) make the whole file conditional.
        let inner = cfg_predicates(&ast.attrs);
        visitor.cfgs.extend(inner);
        for item in &ast.items {
            visitor.visit_item(item);
        }
    }
}

struct FileVisitor<'w, 'a> {
    walker: &'w mut Walker<'a>,
    file: &'w Path,
    mod_dir: PathBuf,
    cfgs: Vec<String>,
}

impl FileVisitor<'_, '_> {
    fn record(&mut self, attrs: &[syn::Attribute]) {
        for attr in attrs {
            self.record_meta(&attr.meta, attr.pound_token.span, &[]);
        }
    }

    fn record_meta(&mut self, meta: &syn::Meta, pound: Span, extra_cfgs: &[String]) {
        let path = meta.path();
        if let Some(kind) = attr_kind(path) {
            let tokens = match meta {
                syn::Meta::List(list) => list.tokens.clone(),
                _ => proc_macro2::TokenStream::new(),
            };
            let mut cfgs = self.cfgs.clone();
            cfgs.extend_from_slice(extra_cfgs);
            let path_line = path
                .segments
                .last()
                .map_or(pound.start().line, |s| s.ident.span().start().line);
            self.walker.report.attrs.push(FoundAttr {
                package: self.walker.package.to_string(),
                target: self.walker.target.to_string(),
                file: self.file.to_path_buf(),
                lines: (pound.start().line, path_line),
                cfgs,
                kind,
                marker: match kind {
                    AttrKind::Rbac => kube_markers_core::rbac::parse_marker(tokens).ok(),
                    AttrKind::Crd => None,
                },
            });
        } else if path.is_ident("cfg_attr") {
            let Ok(parts) = attr_cfg_attr_parts(meta) else {
                return;
            };
            let (pred, metas) = parts;
            let mut cfgs = extra_cfgs.to_vec();
            cfgs.push(format!("cfg({pred})"));
            for inner in &metas {
                self.record_meta(inner, pound, &cfgs);
            }
        }
    }

    fn with_item_cfgs(&mut self, attrs: &[syn::Attribute], f: impl FnOnce(&mut Self)) {
        let before = self.cfgs.len();
        self.cfgs.extend(cfg_predicates(attrs));
        f(self);
        self.cfgs.truncate(before);
    }

    fn check_renamed_import(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.check_renamed_import(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.check_renamed_import(t, prefix);
                }
            }
            syn::UseTree::Rename(r)
                if r.ident == "rbac" && prefix.iter().any(|s| s == "kube_markers") =>
            {
                let line = r.ident.span().start().line;
                let shown = self.walker.shown(self.file);
                self.walker.report.errors.push(format!(
                    "{shown}:{line}: `{}` is imported as `{}`; the workspace scan only recognizes \
                     the attributes under their own names (`#[{0}]`, `#[kube_markers::{0}]`), so \
                     attributes under another name could go missing unnoticed. Import it as `{0}` \
                     (package `{}`)",
                    r.ident, r.rename, self.walker.package
                ));
            }
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for FileVisitor<'_, '_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = item_attrs(item);
        self.with_item_cfgs(attrs, |v| {
            v.record(attrs);
            match item {
                syn::Item::Mod(m) => v.visit_module(m),
                syn::Item::Use(u) => v.check_renamed_import(&u.tree, &mut Vec::new()),
                _ => syn::visit::visit_item(v, item),
            }
        });
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs: &[syn::Attribute] = match item {
            syn::ImplItem::Fn(f) => &f.attrs,
            syn::ImplItem::Const(c) => &c.attrs,
            syn::ImplItem::Type(t) => &t.attrs,
            syn::ImplItem::Macro(m) => &m.attrs,
            _ => &[],
        };
        self.with_item_cfgs(attrs, |v| {
            v.record(attrs);
            syn::visit::visit_impl_item(v, item);
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
        self.with_item_cfgs(attrs, |v| {
            v.record(attrs);
            syn::visit::visit_trait_item(v, item);
        });
    }
}

impl FileVisitor<'_, '_> {
    fn visit_module(&mut self, m: &syn::ItemMod) {
        let name = m.ident.unraw_string();
        let path_attr = m.attrs.iter().find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        match &m.content {
            Some((_, items)) => {
                let inner = self.mod_dir.join(&name);
                let saved = std::mem::replace(&mut self.mod_dir, inner);
                for item in items {
                    self.visit_item(item);
                }
                self.mod_dir = saved;
            }
            None => {
                let here = self.file.parent().unwrap_or(Path::new("."));
                let candidates: Vec<PathBuf> = match &path_attr {
                    Some(p) => vec![here.join(p)],
                    None => vec![
                        self.mod_dir.join(format!("{name}.rs")),
                        self.mod_dir.join(&name).join("mod.rs"),
                    ],
                };
                let Some(file) = candidates.iter().find(|c| c.is_file()) else {
                    let shown = self.walker.shown(self.file);
                    let looked: Vec<String> =
                        candidates.iter().map(|c| self.walker.shown(c)).collect();
                    self.walker.report.warnings.push(format!(
                        "{shown}:{}: module file for `mod {name};` not found (looked for {}); its \
                         attributes, if any, were not scanned",
                        m.ident.span().start().line,
                        looked.join(" and ")
                    ));
                    return;
                };
                // A `mod.rs` (or a `#[path]` file) holds its children beside it; `foo.rs`
                // holds them in `foo/`.
                let child_dir = if path_attr.is_some() || file.ends_with("mod.rs") {
                    file.parent().map(Path::to_path_buf).unwrap_or_default()
                } else {
                    self.mod_dir.join(&name)
                };
                let cfgs = self.cfgs.clone();
                let file = file.clone();
                self.walker.walk_file(&file, &child_dir, &cfgs);
            }
        }
    }
}

trait UnrawString {
    fn unraw_string(&self) -> String;
}

impl UnrawString for syn::Ident {
    fn unraw_string(&self) -> String {
        let s = self.to_string();
        s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
    }
}

/// `rbac`/`crd`, or the same under `kube_markers::`.
fn attr_kind(path: &syn::Path) -> Option<AttrKind> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = match segs.as_slice() {
        [one] => one.as_str(),
        [krate, last] if krate == "kube_markers" => last.as_str(),
        _ => return None,
    };
    match last {
        "rbac" => Some(AttrKind::Rbac),
        "crd" => Some(AttrKind::Crd),
        _ => None,
    }
}

fn attr_cfg_attr_parts(meta: &syn::Meta) -> syn::Result<(String, Vec<syn::Meta>)> {
    let syn::Meta::List(list) = meta else {
        return Err(syn::Error::new(Span::call_site(), "not a list"));
    };
    let parser = |input: syn::parse::ParseStream| {
        let pred: syn::Meta = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let rest =
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated(input)?;
        Ok((pred, rest.into_iter().collect::<Vec<_>>()))
    };
    let (pred, metas) = syn::parse::Parser::parse2(parser, list.tokens.clone())?;
    Ok((compact_tokens(&pred), metas))
}

fn cfg_predicates(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| match &a.meta {
            syn::Meta::List(list) => Some(format!("cfg({})", compact_stream(&list.tokens))),
            _ => None,
        })
        .collect()
}

fn compact_tokens(meta: &syn::Meta) -> String {
    compact_stream(&quote::ToTokens::to_token_stream(meta))
}

fn compact_stream(tokens: &proc_macro2::TokenStream) -> String {
    tokens
        .to_string()
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" ,", ",")
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
