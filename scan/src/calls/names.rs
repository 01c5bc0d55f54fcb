//! Names across the modules of a crate: what a module's `use`s (renames, re-exports, globs) and
//! type aliases give the others. A prelude's `pub use kube::runtime::events::Recorder as Rec;`
//! makes `Rec::new(..)` a `Recorder` in every module importing it (`use crate::prelude::*;`,
//! `use super::Rec;`, `crate::prelude::Rec::new`), and `type DocApi = Api<Document>;` makes a
//! binding or field typed `DocApi` an `Api<Document>`. A crate's own type of the same name
//! shadows a glob's (it is never taken for kube's).
//!
//! Each module's declarations are read from its file's tokens (`super::decls`, no parse), when a resolution
//! first needs them: most files of a crate are never read here.

use super::decls::{ModuleDecls, Reader, UseDecl};
use super::names_hash::{Map, Set};
use crate::lex::Token;
use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

/// One file of a crate, for [`super::scan_crate_files`]: its text, and the module it is
/// (`["a", "b"]` for `crate::a::b`) in the crate `root` (each target of a package, its library
/// and each binary, is a crate of its own: give each a number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateFile<'a> {
    /// The file's text.
    pub text: &'a str,
    /// Which crate of the package it belongs to.
    pub root: u32,
    /// Its module's path from the crate's root (`[]` for `lib.rs`/`main.rs`).
    pub module: Vec<String>,
    /// Its tokens, when the caller has them ([`crate::scan_source_lexed`]): else the file is
    /// lexed here, once.
    pub lexed: Option<&'a crate::Lexed>,
}

impl<'a> CrateFile<'a> {
    /// The root module (`lib.rs`, `main.rs`) of crate `root`.
    pub fn crate_root(text: &'a str, root: u32) -> CrateFile<'a> {
        CrateFile {
            text,
            root,
            module: Vec::new(),
            lexed: None,
        }
    }

    /// A file of crate 0 at `path` under its crate's source directory, its module told by the
    /// path as rustc finds it without `#[path]`: `lib.rs` and `main.rs` are the root, `a.rs`
    /// and `a/mod.rs` are `a`, `a/b.rs` is `a::b`.
    pub fn at(path: &str, text: &'a str) -> CrateFile<'a> {
        let path = path.trim_end_matches(".rs");
        let mut module: Vec<String> = path.split('/').map(str::to_string).collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        CrateFile {
            module,
            ..CrateFile::crate_root(text, 0)
        }
    }
}

/// What a path names, as far as the crate's modules tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Named {
    /// A path outside the crate (`kube::runtime::events::Recorder`).
    Outside(String),
    /// A type alias of the crate: its type parameters, and the aliased type's text, read in
    /// the alias's module (of crate `root`).
    Alias {
        root: u32,
        module: Vec<String>,
        params: Vec<String>,
        ty: String,
    },
    /// A type the crate defines (`crate::a::Recorder`): none of kube's.
    Local(String),
    /// A module of the crate `root` (another target's: the package's library).
    Module { root: u32, path: Vec<String> },
}

/// Resolutions through more renames than this are left unknown (and `use a::a;` never loops).
const MAX_DEPTH: usize = 8;

/// The first segments a path of one module may start with to name something of the crate's:
/// most paths (`Ok`, `String`, `serde::Deserialize`) name none, and need no resolution.
#[derive(Debug, Default)]
pub(super) struct Firsts {
    /// A glob of a module of the crate's may bring any name.
    any: bool,
    pub(super) names: Set<String>,
    /// The names the module imports from outside the crate (`use kube::Api;`): read as the
    /// file's `use`s read them.
    imports: Set<String>,
}

impl Firsts {
    /// Whether a path starting with `first` may name something of the crate's, or (read in
    /// another file's module, `elsewhere`: through an alias) something that module imports.
    pub(super) fn may_name(&self, first: &str, elsewhere: bool) -> bool {
        self.any || self.names.contains(first) || (elsewhere && self.imports.contains(first))
    }

    /// Whether `first` is a name of the module's: one of [`Firsts::names`] or an import.
    fn is_name(&self, first: &str) -> bool {
        self.names.contains(first) || self.imports.contains(first)
    }
}

/// A module: its crate's number, its path from that crate's root.
type ModuleKey = (u32, Vec<String>);

/// A path, and the module it is written in.
type PathKey = (ModuleKey, Vec<String>);

/// The names of one crate's modules, read from its files as resolutions need them.
pub(super) struct CrateNames<'a> {
    files: &'a [CrateFile<'a>],
    /// The package's library: its crate's number, and its name as the binaries write it.
    library: Option<(u32, String)>,
    /// (root, module) → its declarations (the files read so far, inline modules included).
    modules: RefCell<Map<ModuleKey, Rc<ModuleDecls>>>,
    /// The modules that are files of their own.
    file_modules: Set<ModuleKey>,
    /// Each module's [`Firsts`].
    firsts: RefCell<Map<ModuleKey, Rc<Firsts>>>,
    /// Each path asked for, in its module: what it names (the visitor asks for the same
    /// paths again and again).
    paths: RefCell<Map<PathKey, Option<Named>>>,
    read: RefCell<Vec<bool>>,
    /// Each file's tokens (without its BOM), lexed here when its [`CrateFile::lexed`] is
    /// `None`; `None` when it does not lex.
    lexed: Vec<OnceCell<Option<Vec<Token>>>>,
}

impl<'a> CrateNames<'a> {
    pub(super) fn new(files: &'a [CrateFile<'a>]) -> CrateNames<'a> {
        CrateNames {
            files,
            library: None,
            file_modules: files.iter().map(|f| (f.root, f.module.clone())).collect(),
            paths: RefCell::default(),
            firsts: RefCell::default(),
            modules: RefCell::default(),
            read: RefCell::new(vec![false; files.len()]),
            lexed: files.iter().map(|_| OnceCell::new()).collect(),
        }
    }

    /// The tokens of file `i`'s text without its BOM (`None` when it does not lex): the mask
    /// and the module reader read the same tokens, and the file is lexed at most once.
    pub(super) fn tokens(&self, i: usize) -> Option<&[Token]> {
        if let Some(lexed) = self.files[i].lexed {
            return Some(&lexed.0);
        }
        self.lexed[i]
            .get_or_init(|| {
                let text = self.files[i].text;
                crate::lex_body(text.strip_prefix('\u{feff}').unwrap_or(text)).ok()
            })
            .as_deref()
    }

    /// The names, a binary's paths through the package's library (`use my_operator::prelude::*;`)
    /// read in the library's crate `root`.
    pub(super) fn with_library(mut self, root: u32, name: &str) -> Self {
        self.library = Some((root, name.replace('-', "_")));
        self
    }

    /// Reads the files that are `module` or one of its ancestors (an inline module is in its
    /// parent's file).
    fn read_for(&self, root: u32, module: &[String]) {
        for (i, file) in self.files.iter().enumerate() {
            if file.root != root || !module.starts_with(&file.module) || self.read.borrow()[i] {
                continue;
            }
            self.read.borrow_mut()[i] = true;
            let body = file.text.strip_prefix('\u{feff}').unwrap_or(file.text);
            let Some(tokens) = self.tokens(i) else {
                continue;
            };
            let reader = Reader { body, tokens };
            let mut modules = self.modules.borrow_mut();
            reader.items(0, tokens.len(), &file.module, &mut |path, decls| {
                let at = Rc::make_mut(modules.entry((root, path.to_vec())).or_default());
                at.uses.extend(decls.uses);
                at.aliases.extend(decls.aliases);
                at.types.extend(decls.types);
            });
        }
    }

    fn with_module<T>(
        &self,
        root: u32,
        module: &[String],
        f: impl FnOnce(&Rc<ModuleDecls>) -> T,
    ) -> Option<T> {
        self.read_for(root, module);
        self.modules.borrow().get(&(root, module.to_vec())).map(f)
    }

    fn is_module(&self, root: u32, module: &[String]) -> bool {
        self.file_modules.contains(&(root, module.to_vec()))
            || self.with_module(root, module, |_| ()).is_some()
    }

    /// What `name` stands for in `module`: its `use`, its type alias or type, a child module,
    /// or what a glob of a module of the crate brings (a glob of another crate's module is
    /// not followed: the name is then read as written).
    pub(super) fn name(&self, root: u32, module: &[String], name: &str) -> Option<Named> {
        self.name_at(root, module, name, 0)
    }

    fn name_at(&self, root: u32, module: &[String], name: &str, depth: usize) -> Option<Named> {
        if depth > MAX_DEPTH {
            return None;
        }
        let decls = self.with_module(root, module, Rc::clone)?;
        if let Some(u) = decls.uses.iter().find(|u| u.name.as_deref() == Some(name)) {
            // A path into a module the crate's files do not hold: as written.
            return self
                .path_at(root, module, &u.path, depth + 1)
                .or_else(|| Some(Named::Outside(u.path.join("::"))));
        }
        if let Some(alias) = decls.aliases.iter().find(|a| a.name == name) {
            return Some(Named::Alias {
                root,
                module: module.to_vec(),
                params: alias.params.clone(),
                ty: alias.ty.clone(),
            });
        }
        if decls.types.iter().any(|t| t == name) {
            let mut path = vec!["crate".to_string()];
            path.extend(module.iter().cloned());
            path.push(name.to_string());
            return Some(Named::Local(path.join("::")));
        }
        let child = [module, &[name.to_string()]].concat();
        if self.is_module(root, &child) {
            return Some(Named::Module { root, path: child });
        }
        for glob in decls.uses.iter().filter(|u| u.name.is_none()) {
            if let Some(Named::Module {
                root: r,
                path: from,
            }) = self.path_at(root, module, &glob.path, depth + 1)
                && (r, from.as_slice()) != (root, module)
                && let Some(found) = self.name_at(r, &from, name, depth + 1)
            {
                return Some(found);
            }
        }
        None
    }

    /// The first segments a path written in `module` may start with to name something of the
    /// crate's: `crate`, `super`, `self`, the library's name, the module's `use` names,
    /// aliases, types and child modules; any, with a glob of a module of the crate's.
    pub(super) fn firsts(&self, root: u32, module: &[String]) -> Rc<Firsts> {
        let key = (root, module.to_vec());
        if let Some(known) = self.firsts.borrow().get(&key) {
            return known.clone();
        }
        let mut firsts = Firsts::default();
        firsts
            .names
            .extend(["crate", "super", "self"].map(String::from));
        if let Some((_, name)) = &self.library {
            firsts.names.insert(name.clone());
        }
        let decls = self.with_module(root, module, Rc::clone);
        // Its child modules: files of their own, and inline ones (read with its file).
        let children: Set<String> = {
            let child = |m: &ModuleKey| {
                (m.0 == root && m.1.len() == module.len() + 1 && m.1.starts_with(module))
                    .then(|| m.1[module.len()].clone())
            };
            let modules = self.modules.borrow();
            (self.file_modules.iter().filter_map(child))
                .chain(modules.keys().filter_map(child))
                .collect()
        };
        if let Some(decls) = decls {
            firsts.any = decls.uses.iter().any(|u| {
                u.name.is_none()
                    && matches!(self.path(root, module, &u.path), Some(Named::Module { .. }))
            });
            // A name imported from outside the crate (`use kube::Api;`) needs no resolution in
            // its own file: the visitor reads it through the file's `use`s, to the same path.
            let outside = |u: &UseDecl| {
                u.path.first().is_some_and(|first| {
                    !matches!(first.as_str(), "crate" | "self" | "super")
                        && self.library.as_ref().is_none_or(|(_, name)| name != first)
                        && !decls.uses.iter().any(|o| o.name.as_ref() == Some(first))
                        && !decls.aliases.iter().any(|a| &a.name == first)
                        && !decls.types.contains(first)
                        && !children.contains(first)
                })
            };
            for u in &decls.uses {
                if let Some(name) = &u.name {
                    match outside(u) {
                        true => firsts.imports.insert(name.clone()),
                        false => firsts.names.insert(name.clone()),
                    };
                }
            }
            firsts
                .names
                .extend(decls.aliases.iter().map(|a| a.name.clone()));
            firsts.names.extend(decls.types.iter().cloned());
        }
        firsts.names.extend(children);
        let firsts = Rc::new(firsts);
        self.firsts.borrow_mut().insert(key, firsts.clone());
        firsts
    }

    /// What `path`, written in `module`, stands for. A path starting outside the crate (no
    /// name of `module` nor `crate`, `super`, `self`) is [`Named::Outside`] as written.
    pub(super) fn path(&self, root: u32, module: &[String], path: &[String]) -> Option<Named> {
        let key = ((root, module.to_vec()), path.to_vec());
        if let Some(known) = self.paths.borrow().get(&key) {
            return known.clone();
        }
        let named = self.path_at(root, module, path, 0);
        self.paths.borrow_mut().insert(key, named.clone());
        named
    }

    fn path_at(
        &self,
        root: u32,
        module: &[String],
        path: &[String],
        depth: usize,
    ) -> Option<Named> {
        if depth > MAX_DEPTH || path.is_empty() {
            return None;
        }
        let outside = |rest: &[String], from: String| {
            let mut out = from;
            for s in rest {
                out.push_str("::");
                out.push_str(s);
            }
            Some(Named::Outside(out))
        };
        let local = |rest: &[String], from: String| match outside(rest, from) {
            Some(Named::Outside(p)) => Some(Named::Local(p)),
            other => other,
        };
        let mut at_root = root;
        let mut at: Vec<String> = match path[0].as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            first => match self.name_at(root, module, first, depth + 1) {
                Some(Named::Module { root: r, path: m }) => {
                    at_root = r;
                    m
                }
                Some(Named::Outside(p)) => return outside(&path[1..], p),
                // A type of the crate's, or its associated item (`Rec::new`): none of kube's.
                Some(Named::Local(p)) => return local(&path[1..], p),
                // An alias's associated item (`DocApi::all`) is read from the alias.
                Some(named @ Named::Alias { .. }) => return (path.len() == 1).then_some(named),
                None => match &self.library {
                    // A binary's path into its package's library.
                    Some((lib, name)) if *lib != root && name == first => {
                        at_root = *lib;
                        Vec::new()
                    }
                    _ => return outside(&path[1..], first.to_string()),
                },
            },
        };
        let mut rest = &path[1..];
        // `super::super::x`.
        while path[0] == "super" && rest.first().is_some_and(|s| s == "super") {
            at.pop();
            rest = &rest[1..];
        }
        for (i, seg) in rest.iter().enumerate() {
            let last = i + 1 == rest.len();
            match self.name_at(at_root, &at, seg, depth + 1) {
                Some(Named::Module { root: r, path: m }) => {
                    at_root = r;
                    at = m;
                }
                Some(Named::Outside(p)) => return outside(&rest[i + 1..], p),
                Some(named) if last => return Some(named),
                Some(Named::Local(p)) => return local(&rest[i + 1..], p),
                _ => return None,
            }
        }
        Some(Named::Module {
            root: at_root,
            path: at,
        })
    }

    /// The names `module`'s code (`text`) may write for a kube item or an alias of one that it
    /// does not spell (`Rec` from a prelude): what a `use` of the module imports from the
    /// crate's modules, what a glob of a module of the crate brings (globs of globs too), and
    /// its type aliases. A `use` of another crate's item is the mask's to read (its `as`).
    pub(super) fn kube_names(&self, root: u32, module: &[String], text: &str) -> Vec<String> {
        let kube_word = |text: &str| super::mask::next_kube_word(text.as_bytes(), 0).is_some();
        // Worth resolving: a name the text writes, holding no kube word (an item naming one is
        // kept already).
        let worth = |name: &str| !kube_word(name) && text.contains(name);
        let Some(decls) = self.with_module(root, module, Rc::clone) else {
            return Vec::new();
        };
        let firsts = self.firsts(root, module);
        let mut candidates: Vec<String> = decls
            .uses
            .iter()
            .filter(|u| {
                u.path
                    .first()
                    .is_some_and(|first| first != "std" && first != "kube" && firsts.is_name(first))
            })
            .filter_map(|u| u.name.clone())
            .collect();
        candidates.extend(
            (decls.aliases.iter())
                .filter(|a| kube_word(&a.ty))
                .map(|a| a.name.clone()),
        );
        // The modules the globs reach, globs of globs too.
        let mut seen: Vec<ModuleKey> = vec![(root, module.to_vec())];
        let mut next: Vec<ModuleKey> = Vec::new();
        let globs = |r: u32, m: &[String], decls: &ModuleDecls, next: &mut Vec<ModuleKey>| {
            for glob in decls.uses.iter().filter(|u| u.name.is_none()) {
                if let Some(Named::Module { root, path }) = self.path(r, m, &glob.path) {
                    next.push((root, path));
                }
            }
        };
        globs(root, module, &decls, &mut next);
        while let Some((r, m)) = next.pop() {
            if seen.contains(&(r, m.clone())) || seen.len() > MAX_DEPTH * 4 {
                continue;
            }
            if let Some(decls) = self.with_module(r, &m, Rc::clone) {
                // What it renames from kube, or imports from the crate.
                let firsts = self.firsts(r, &m);
                candidates.extend(
                    (decls.uses.iter())
                        .filter(|u| {
                            let last = u.path.last().map_or("", String::as_str);
                            (kube_word(last) && u.name.as_deref() != Some(last))
                                || u.path.first().is_some_and(|first| {
                                    first != "std" && first != "kube" && firsts.is_name(first)
                                })
                        })
                        .filter_map(|u| u.name.clone()),
                );
                candidates.extend(
                    (decls.aliases.iter())
                        .filter(|a| kube_word(&a.ty))
                        .map(|a| a.name.clone()),
                );
                globs(r, &m, &decls, &mut next);
            }
            seen.push((r, m));
        }
        candidates.retain(|name| worth(name));
        candidates.sort();
        candidates.dedup();
        // A kube item's path names it last (`kube::runtime::watcher::Config` is no `watcher`).
        candidates.retain(|name| match self.name(root, module, name) {
            Some(Named::Outside(p)) => kube_word(p.rsplit("::").next().unwrap_or(&p)),
            Some(Named::Alias { ty, .. }) => kube_word(&ty),
            _ => false,
        });
        // What a path through the crate's modules names, imported or not
        // (`crate::RootRec::new(..)`, `super::prelude::KubeApi::<Pod>::all(..)`): by its
        // segment that resolves to a kube item or an alias of one.
        for path in module_paths(text) {
            for end in 2..=path.len() {
                let named = match self.path(root, module, &path[..end]) {
                    Some(Named::Outside(p)) => kube_word(p.rsplit("::").next().unwrap_or(&p)),
                    Some(Named::Alias { ty, .. }) => kube_word(&ty),
                    _ => false,
                };
                if named && !kube_word(&path[end - 1]) {
                    candidates.push(path[end - 1].clone());
                }
            }
        }
        candidates.sort();
        candidates.dedup();
        candidates
    }

    /// The names the `use`s of file `i` (its inline modules' too) give, each to the path it
    /// imports (`use a::{b as c, d::self};`: `c` → `a::b`, `d` → `a::d`); `None` when the
    /// file does not lex.
    pub(super) fn uses_of(&self, i: usize) -> Option<Map<String, String>> {
        self.tokens(i)?;
        let mut uses = Map::default();
        // Outermost first: an inline module's `use` comes after its parent's.
        for module in self.modules_of(i) {
            let Some(decls) = self.with_module(self.files[i].root, &module, Rc::clone) else {
                continue;
            };
            for u in &decls.uses {
                if let Some(name) = &u.name {
                    uses.insert(name.clone(), u.path.join("::"));
                }
            }
        }
        Some(uses)
    }

    /// The modules a file holds: its own and its inline modules.
    pub(super) fn modules_of(&self, file: usize) -> Vec<Vec<String>> {
        let f = &self.files[file];
        self.read_for(f.root, &f.module);
        let mut out: Vec<Vec<String>> = self
            .modules
            .borrow()
            .keys()
            .filter(|(root, m)| *root == f.root && m.starts_with(&f.module))
            .filter(|(_, m)| {
                // Not a file of its own.
                m == &f.module
                    || !self.files.iter().any(|o| {
                        o.root == f.root
                            && o.module.len() > f.module.len()
                            && m.starts_with(&o.module)
                    })
            })
            .map(|(_, m)| m.clone())
            .collect();
        out.sort();
        out
    }
}

/// The paths `text` writes from the crate's root or a module (`crate::a::B::new` gives
/// `["crate", "a", "B", "new"]`), anywhere (a comment's too: the mask then keeps more).
fn module_paths(text: &str) -> Vec<Vec<String>> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut paths = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in text.match_indices(start) {
            if text[..at].ends_with(is_ident) {
                continue;
            }
            let mut segments = Vec::new();
            let mut rest = &text[at..];
            loop {
                let len = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
                if len == 0 {
                    break;
                }
                segments.push(rest[..len].to_string());
                match rest[len..].strip_prefix("::") {
                    Some(next) => rest = next,
                    None => break,
                }
            }
            paths.push(segments);
        }
    }
    paths
}
