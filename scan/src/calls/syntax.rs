//! Syntax helpers of the call scan: `use` renames, paths, types, patterns and arguments read
//! from syn's tree.

use super::names_hash::Map;
use super::visit::ApiInfo;
use super::{KindRef, Need, Scope};
use quote::ToTokens;

/// `use` trees of the file (inline modules' too): each name → the path it stands for.
pub(super) fn collect_uses(item: &syn::Item, uses: &mut Map<String, String>) {
    match item {
        syn::Item::Use(u) => use_tree(&u.tree, String::new(), uses),
        syn::Item::Mod(m) => {
            for item in m.content.iter().flat_map(|(_, items)| items) {
                collect_uses(item, uses);
            }
        }
        _ => {}
    }
}

pub(super) fn use_tree(tree: &syn::UseTree, prefix: String, uses: &mut Map<String, String>) {
    let join = |name: &str| {
        if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}::{name}")
        }
    };
    match tree {
        syn::UseTree::Path(p) => use_tree(&p.tree, join(&p.ident.to_string()), uses),
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name != "self" {
                uses.insert(name.clone(), join(&name));
            } else if let Some(last) = prefix.rsplit("::").next() {
                uses.insert(last.to_string(), prefix.clone());
            }
        }
        syn::UseTree::Rename(r) => {
            let path = if r.ident == "self" {
                prefix.clone()
            } else {
                join(&r.ident.to_string())
            };
            uses.insert(r.rename.to_string(), path);
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix.clone(), uses);
            }
        }
        _ => {}
    }
}

/// Whether `#[cfg(test)]` (or `cfg(all(test, ...))`) or `#[test]` stands among `attrs`.
pub(super) fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        if path.is_ident("test") || path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        if !path.is_ident("cfg") {
            return false;
        }
        let syn::Meta::List(list) = &a.meta else {
            return false;
        };
        let text = list.tokens.to_string();
        text.split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "test")
            && !text.contains("not")
    })
}

pub(super) fn line_col(span: proc_macro2::Span) -> (usize, usize) {
    let s = span.start();
    (s.line, s.column + 1)
}

/// The path a type or expression path stands for: its first segment through the `use`
/// renames, its generic arguments dropped.
pub(super) fn path_text(path: &syn::Path, uses: &Map<String, String>) -> String {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let Some(first) = segs.first() else {
        return String::new();
    };
    let mut out = match uses.get(first) {
        Some(full) if path.leading_colon.is_none() => resolve_use(full, uses),
        _ => first.clone(),
    };
    for s in &segs[1..] {
        out.push_str("::");
        out.push_str(s);
    }
    out
}

/// A `use`'s path through the file's other renames: `use k8s_openapi::...::v1 as apiexts;`
/// then `use apiexts::CustomResourceDefinition;` names k8s-openapi's type (a few steps at most,
/// and never a name through itself: `use foo::foo;`).
fn resolve_use(full: &str, uses: &Map<String, String>) -> String {
    let mut out = full.to_string();
    for _ in 0..4 {
        let (first, rest) = out.split_once("::").unwrap_or((out.as_str(), ""));
        let Some(next) = uses.get(first) else {
            break;
        };
        if next.split("::").next() == Some(first) {
            break;
        }
        out = if rest.is_empty() {
            next.clone()
        } else {
            format!("{next}::{rest}")
        };
    }
    out
}

pub(super) fn last_segment(path: &str) -> &str {
    // A path's only colons are its `::`s.
    path.rfind(':').map_or(path, |i| &path[i + 1..])
}

/// The type arguments of a path's last segment.
pub(super) fn type_args(path: &syn::Path) -> Vec<&syn::Type> {
    match path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `&T`, `&mut T`, `(T)` → `T`.
pub(super) fn strip_refs(mut ty: &syn::Type) -> &syn::Type {
    loop {
        match ty {
            syn::Type::Reference(r) => ty = &r.elem,
            syn::Type::Paren(p) => ty = &p.elem,
            syn::Type::Group(g) => ty = &g.elem,
            _ => return ty,
        }
    }
}

pub(super) fn list_watch() -> Need {
    Need {
        resource: None,
        subresource: None,
        verbs: vec!["list", "watch"],
        why: Some("kube-runtime's watcher lists, then watches"),
    }
}

pub(super) fn unknown_arg(
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    i: usize,
) -> ApiInfo {
    let shown = args
        .iter()
        .nth(i)
        .map(|a| a.to_token_stream().to_string())
        .unwrap_or_default();
    ApiInfo {
        kind: KindRef::Unknown(format!(
            "its `Api` argument `{shown}` is no binding, parameter or field the scan can type as \
             `Api<K>`"
        )),
        scope: Scope::Unknown,
    }
}

/// The namespace argument of `Api::namespaced(client, ns)`: a literal is that namespace.
pub(super) fn namespace_scope(arg: Option<&syn::Expr>) -> Scope {
    let mut e = arg;
    while let Some(syn::Expr::Reference(r)) = e {
        e = Some(&r.expr);
    }
    match e {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        })) => Scope::Namespace(s.value()),
        _ => Scope::Namespaced,
    }
}

/// `Patch::Apply(...)` (behind `&`), by its last two path segments.
pub(super) fn is_apply(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Reference(r) => is_apply(&r.expr),
        syn::Expr::Paren(p) => is_apply(&p.expr),
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                segs.last().is_some_and(|s| s == "Apply")
                    && (segs.len() == 1 || segs[segs.len() - 2] == "Patch")
            }
            _ => false,
        },
        _ => false,
    }
}

pub(super) fn receiver_name(e: &syn::Expr) -> String {
    match e {
        syn::Expr::Path(p) => p.to_token_stream().to_string().replace(' ', ""),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => format!("{}.{n}", receiver_name(&f.base)),
            syn::Member::Unnamed(i) => format!("{}.{}", receiver_name(&f.base), i.index),
        },
        syn::Expr::Reference(r) => receiver_name(&r.expr),
        syn::Expr::Paren(p) => receiver_name(&p.expr),
        syn::Expr::MethodCall(mc) if !returned(e) => receiver_name(&mc.receiver),
        syn::Expr::MethodCall(mc) => format!("{}.{}()", receiver_name(&mc.receiver), mc.method),
        syn::Expr::Call(c) => c.func.to_token_stream().to_string().replace(' ', ""),
        _ => "(expression)".to_string(),
    }
}

/// The type parameter among `generics` that a parameter's type carries as a kind: `&Api<K>`,
/// `Arc<K>`, `&K`, `PartialObjectMeta<K>`.
pub(super) fn generic_of(ty: &syn::Type, generics: &[String]) -> Option<String> {
    let syn::Type::Path(p) = strip_refs(ty) else {
        return None;
    };
    let last = p.path.segments.last()?;
    if p.path.segments.len() == 1
        && last.arguments.is_none()
        && generics.iter().any(|g| last.ident == g)
    {
        return Some(last.ident.to_string());
    }
    match last.ident.to_string().as_str() {
        "Api" | "Arc" | "Box" | "Rc" | "PartialObjectMeta" | "DeserializeGuard" => {
            type_args(&p.path)
                .first()
                .and_then(|t| generic_of(t, generics))
        }
        _ => None,
    }
}

pub(super) fn type_params(g: &syn::Generics) -> Vec<String> {
    g.params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect()
}

pub(super) fn pat_idents(pat: &syn::Pat, out: &mut Vec<String>) {
    match pat {
        syn::Pat::Ident(i) => out.push(i.ident.to_string()),
        syn::Pat::Type(t) => pat_idents(&t.pat, out),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| pat_idents(p, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| pat_idents(p, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| pat_idents(&f.pat, out)),
        syn::Pat::Reference(r) => pat_idents(&r.pat, out),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| pat_idents(p, out)),
        _ => {}
    }
}

/// The methods that hand their receiver on (`docs.clone()`, `api.constrain(..)`): what they
/// return is what the receiver is.
pub(super) const PASSING_ON: [&str; 7] = [
    "clone",
    "to_owned",
    "as_ref",
    "borrow",
    "constrain",
    "constrain_default",
    "unconstrain",
];

/// Whether an expression is the value a call returns (`f(..)`, `x.m(..)`), not a field or a
/// binding passed through `clone()`, `&` or `constrain(..)`.
pub(super) fn returned(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Reference(r) => returned(&r.expr),
        syn::Expr::Paren(p) => returned(&p.expr),
        syn::Expr::Call(_) => true,
        syn::Expr::MethodCall(mc) => {
            !PASSING_ON.contains(&mc.method.to_string().as_str()) || returned(&mc.receiver)
        }
        _ => false,
    }
}
