//! Paths read through the crate's modules: a name another module gives a kube item (a
//! prelude's `pub use kube::runtime::events::Recorder as Rec;`), a type alias of `Api<K>`, a
//! crate's own type of a kube item's name.

use super::Visitor;
use crate::calls::names::{CrateNames, Named};
use crate::calls::syntax::{path_text, type_args};

/// Aliases through aliases deeper than this are left unknown.
const MAX_ALIASES: usize = 4;

/// Where a file is in its crate: the crate's names, its crate (root) and module.
pub(in crate::calls) struct InCrate<'n> {
    pub(in crate::calls) names: &'n CrateNames<'n>,
    /// Its index among the crate's files.
    pub(in crate::calls) file: usize,
    pub(in crate::calls) root: u32,
    pub(in crate::calls) module: Vec<String>,
}

impl Visitor<'_> {
    /// What a path names in the crate's modules, when the crate's files are read together.
    pub(super) fn named(&self, path: &syn::Path) -> Option<Named> {
        let names = self.names?;
        if path.leading_colon.is_some() {
            return None;
        }
        let first = path.segments.first()?.ident.to_string();
        let may_name = self
            .firsts
            .borrow_mut()
            .get_or_insert_with(|| names.firsts(self.root.get(), &self.module.borrow()))
            .may_name(&first, self.aliases.get() > 0);
        if !may_name {
            return None;
        }
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        names.path(self.root.get(), &self.module.borrow(), &segs)
    }

    /// The path a type or expression path stands for: through the crate's modules (a name
    /// a prelude gives, a re-export), else through the file's `use` renames.
    pub(super) fn path_of(&self, path: &syn::Path) -> String {
        self.text_of(path, &self.named(path))
    }

    /// [`Self::path_of`], `path` having been [`Self::named`] `named` (a path is resolved
    /// once for all that is asked of it).
    pub(super) fn text_of(&self, path: &syn::Path, named: &Option<Named>) -> String {
        match named {
            Some(Named::Outside(p) | Named::Local(p)) => p.clone(),
            _ => path_text(path, &self.uses),
        }
    }

    /// `type DocApi = Api<Document>;` (in any module of the crate), `path` [`Self::named`]
    /// `named`: the aliased type, read in
    /// the alias's module by `f`; a generic alias's parameters replaced by the path's type
    /// arguments (`Handle<Pod>`, `type Handle<K> = Api<K>;`), read where they are written.
    pub(super) fn through_alias<T>(
        &self,
        path: &syn::Path,
        named: &Option<Named>,
        f: impl FnOnce(&Self, &syn::Type) -> T,
    ) -> Option<T> {
        let Some(Named::Alias {
            root,
            module,
            params,
            ty,
        }) = named
        else {
            return None;
        };
        if self.aliases.get() >= MAX_ALIASES {
            return None;
        }
        let mut ty: syn::Type = syn::parse_str(ty).ok()?;
        let args: Vec<syn::Type> = type_args(path)
            .into_iter()
            .map(|t| self.written_here(t))
            .collect();
        substitute(&mut ty, params, &args);
        let saved = (
            self.root.replace(*root),
            self.module.replace(module.clone()),
        );
        let saved_firsts = self.firsts.take();
        self.aliases.set(self.aliases.get() + 1);
        let out = f(self, &ty);
        self.aliases.set(self.aliases.get() - 1);
        self.root.set(saved.0);
        *self.module.borrow_mut() = saved.1;
        *self.firsts.borrow_mut() = saved_firsts;
        Some(out)
    }

    /// A type argument with its path as this module reads it, to be read in another.
    fn written_here(&self, t: &syn::Type) -> syn::Type {
        let syn::Type::Path(p) = t else {
            return t.clone();
        };
        if p.qself.is_some() {
            return t.clone();
        }
        let Ok(mut path) = syn::parse_str::<syn::Path>(&self.path_of(&p.path)) else {
            return t.clone();
        };
        if let (Some(last), Some(written)) = (path.segments.last_mut(), p.path.segments.last()) {
            last.arguments = written.arguments.clone();
        }
        let mut out = p.clone();
        out.path = path;
        syn::Type::Path(out)
    }
}

/// `ty` with each type parameter among `params` replaced by its argument.
fn substitute(ty: &mut syn::Type, params: &[String], args: &[syn::Type]) {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(ident) = p.path.get_ident()
                && let Some(arg) = params
                    .iter()
                    .position(|param| ident == param)
                    .and_then(|i| args.get(i))
            {
                *ty = arg.clone();
                return;
            }
            for seg in &mut p.path.segments {
                if let syn::PathArguments::AngleBracketed(a) = &mut seg.arguments {
                    for arg in &mut a.args {
                        if let syn::GenericArgument::Type(t) = arg {
                            substitute(t, params, args);
                        }
                    }
                }
            }
        }
        syn::Type::Reference(r) => substitute(&mut r.elem, params, args),
        syn::Type::Paren(p) => substitute(&mut p.elem, params, args),
        _ => {}
    }
}
