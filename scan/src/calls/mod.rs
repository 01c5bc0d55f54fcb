//! The kube-rs calls of one source file, and the permission each needs: `kube::Api<K>`'s
//! request methods, and kube-runtime's wiring (`Controller::new`, `.owns`, `.watches`,
//! `watcher`, `finalizer`, `events::Recorder`, ...).
//!
//! A syntax-level scan (syn, no type checking): `K` is read from a turbofish on `Api`, the type
//! of a `let`, a parameter or a struct field (`Api<K>`), through the file's `use` renames, and
//! for `finalizer` from the object's parameter type (`Arc<Document>`). A call whose `K` cannot
//! be told (a generic `K`, `DynamicObject`, an `Api` built without naming its kind, a receiver
//! the scan cannot type) is still recorded, with [`KindRef::Unknown`] saying why: never a guess.
//! The map from `K` to group and resource is the generator's (the linked CRDs and k8s-openapi's
//! types).

mod decls;
mod mask;
mod methods;
mod names;
mod names_hash;
mod syntax;
mod visit;

pub use methods::{API_METHODS, ApiMethod};
pub use names::CrateFile;

/// Every kube call found in one file, and the struct fields typed `Api<K>` that calls through
/// `self.field` are resolved against (across the crate's files, by the generator).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileCalls {
    /// The calls, in source order.
    pub calls: Vec<KubeCall>,
    /// Struct fields typed `Api<K>`, and functions and methods returning one: (name, its `K`).
    pub api_fields: Vec<(String, KindRef)>,
    /// Functions and methods generic over a type their calls take as `K`
    /// ([`KindRef::Generic`]): what their call sites must fix.
    pub generic_fns: Vec<GenericFn>,
    /// Calls of functions and methods that may fix a generic `K`: with a turbofish, or with an
    /// argument of known kind.
    pub instantiations: Vec<Instantiation>,
}

/// A function or method generic over `K`, as its call sites see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenericFn {
    /// Its name.
    pub name: String,
    /// Its type parameters, in order (a turbofish fills them so).
    pub type_params: Vec<String>,
    /// For each parameter (`self` not counted), the type parameter it is typed by
    /// (`api: &Api<K>`, `obj: Arc<K>`, `obj: &K`), if any.
    pub params: Vec<Option<String>>,
}

/// One call of a function or method `name`: `name::<T>(..)`, `x.name::<T>(..)`, or
/// `name(api, ..)` with an argument whose kind is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instantiation {
    /// The function or method called.
    pub name: String,
    /// Its turbofish's types, as kinds.
    pub turbofish: Vec<KindRef>,
    /// Each argument's kind, if known (an `Api<K>` binding, or an object of type `K`).
    pub args: Vec<Option<KindRef>>,
    /// 1-based line of the call.
    pub line: usize,
}

/// One call that makes (or makes kube-runtime make) requests to the API server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeCall {
    /// 1-based line of the call's method or function name.
    pub line: usize,
    /// 1-based column (in characters) of that name.
    pub column: usize,
    /// The call as the messages name it: `deployments.patch`, `finalizer`,
    /// `Controller::new`, `.owns`, `watcher`, `Recorder::new`.
    pub call: String,
    /// The kind the requests are about.
    pub kind: KindRef,
    /// Where the requests go: cluster-wide or in a namespace.
    pub scope: Scope,
    /// What the requests need, on the kind (or on a fixed resource).
    pub needs: Vec<Need>,
    /// The function (or method) the call is in: where an attribute granting it goes.
    pub function: Option<Function>,
    /// Its arguments are kube's request parameters (`&PatchParams`, `&Patch::...`): when its
    /// receiver turns out to be no `Api` the crate types, it is still a call of unknown kind.
    pub params_shaped: bool,
    /// The `#[cfg]`s of the items and statements around it, outermost first (not its file's:
    /// the generator's walk knows those): a call the build leaves out needs nothing.
    pub cfgs: Vec<kube_markers_core::cfg::Cfg>,
}

/// A function holding calls: its name and the line of its signature (`pub async fn ...`), above
/// which an attribute is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// Its name (a method's own name, as the registry's `item` spells it).
    pub name: String,
    /// 1-based line of its signature's first token (after its attributes and doc comments).
    pub line: usize,
}

/// How the kind of a call was named.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum KindRef {
    /// A type path, with the file's `use` renames applied (`k8s_openapi::api::apps::v1::Deployment`,
    /// `crate::v1alpha1::MyDatabase`, or `Memcached` for a type of the file itself).
    Type(String),
    /// `self.f`, `x.f`, `x.f()` or `f(..)`: the kind of the struct field `f` typed `Api<K>`, or
    /// of the function or method `f` returning one (resolved across the crate's files; none
    /// such means the receiver is no `Api`).
    Field(String),
    /// The type parameter `param` of the generic function or method `function` (the one the
    /// call is in): known where the crate calls it (resolved across the crate's files through
    /// [`FileCalls::instantiations`], else unknown).
    Generic {
        /// The function.
        function: String,
        /// Its type parameter.
        param: String,
    },
    /// The kind cannot be told from the syntax: why, in a sentence that names the way out.
    Unknown(String),
}

/// Where a call's requests go.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// `Api::all`: every namespace (or a cluster-scoped kind): a ClusterRole is needed.
    Cluster,
    /// `Api::namespaced(client, "literal")`: that namespace.
    Namespace(String),
    /// A namespace known at run time (`Api::namespaced(client, &ns)`, `default_namespaced`,
    /// events in the object's namespace).
    Namespaced,
    /// Not known where the call is (an `Api` handed in as a parameter or field).
    Unknown,
}

/// What one call needs: `verbs` on the kind's resource (or on `resource` when the call
/// fixes it), or on its `subresource`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// A resource the call fixes whatever `K` is: (group, plural), e.g. `("", "pods")` for
    /// `evict`, `("events.k8s.io", "events")` for a `Recorder`.
    pub resource: Option<(&'static str, &'static str)>,
    /// The subresource (`status`, `scale`, `eviction`, a `*_subresource` literal), if any.
    pub subresource: Option<String>,
    /// The RBAC verbs, in kube-apiserver's spelling (`update` for a PUT).
    pub verbs: Vec<&'static str>,
    /// Why the verbs are what they are, when it is not the method's plain verb (a server-side
    /// apply that may create, a websocket upgrade).
    pub why: Option<&'static str>,
}

/// Whether a file's text can hold a kube call the scan recognizes: most files of a workspace
/// name none of these, and need no parse.
pub fn may_hold_kube_calls(text: &str) -> bool {
    mask::next_kube_word(text.as_bytes(), 0).is_some()
}

/// Finds the kube calls of one file's text, as the only file of its crate (see
/// [`scan_crate_calls`]). Code under `#[cfg(test)]` and `#[test]` functions is left out (it
/// runs under the test's identity, not the operator's).
pub fn scan_calls(text: &str) -> syn::Result<FileCalls> {
    let files = [CrateFile::crate_root(text, 0)];
    let crate_names = names::CrateNames::new(&files);
    let in_crate = visit::InCrate {
        names: &crate_names,
        file: 0,
        root: 0,
        module: Vec::new(),
    };
    let kept = kube_names(&crate_names, &files, 0);
    let mut found = scan_keeping(text, &kept, &in_crate)?;
    let mut names: Vec<String> = kept.clone();
    loop {
        let more = with(&kept, generic_names(std::slice::from_ref(&found)));
        if !mask::keeps_more(text, crate_names.tokens(0), &names, &more) {
            return Ok(found);
        }
        found = scan_keeping(text, &more, &in_crate)?;
        names = more;
    }
}

/// The kube calls of the files of one crate (their texts), each `None` when it holds no call,
/// no `Api` field and no call site of a generic function whose `K` a call takes (or when it
/// does not parse: the attribute scan says so). Each file is read as [`scan_calls`] reads
/// it, then again, where an item the first read left out names one of the crate's generic
/// functions whose `K` some call takes (its call sites fix that `K`), until no file keeps more.
///
/// Each file is its own crate's root module here: a name one file gives a kube item (`pub use
/// kube::Api as KubeApi;`) is not seen from another; [`scan_crate_files`] reads them as modules of
/// one crate.
pub fn scan_crate_calls(texts: &[&str]) -> Vec<Option<FileCalls>> {
    let files: Vec<CrateFile<'_>> = (0..)
        .zip(texts)
        .map(|(root, text)| CrateFile::crate_root(text, root))
        .collect();
    scan_crate_files(&files, None)
}

/// [`scan_crate_calls`], each file a module of its crate: a name one module gives a kube item
/// or an `Api<K>` (a prelude's `pub use kube::runtime::events::Recorder as Rec;`, a `type
/// DocApi = Api<Document>;`) is read as that item in the modules importing it (`use
/// crate::prelude::*;`, `use super::Rec;`, `crate::prelude::Rec::new(..)`), and a crate's own
/// type of a kube item's name is not taken for it. `library` is the package's library crate (its
/// files' `root`, and its name as the other targets' paths write it: `my_operator`), which a
/// binary's paths may go through (`use my_operator::prelude::*;`).
pub fn scan_crate_files(
    files: &[CrateFile<'_>],
    library: Option<(u32, &str)>,
) -> Vec<Option<FileCalls>> {
    let mut crate_names = names::CrateNames::new(files);
    if let Some((root, name)) = library {
        crate_names = crate_names.with_library(root, name);
    }
    // A name that is no kube word can stand for a kube item only through a rename or an
    // alias: a crate with neither needs no resolution of its modules' names.
    let renames = files.iter().any(|f| renames_kube_items(f.text));
    let kept: Vec<Vec<String>> = (0..files.len())
        .map(|i| match renames {
            true => kube_names(&crate_names, files, i),
            false => Vec::new(),
        })
        .collect();
    let in_crate = |i: usize| visit::InCrate {
        names: &crate_names,
        file: i,
        root: files[i].root,
        module: files[i].module.clone(),
    };
    let mut found: Vec<Option<FileCalls>> = (0..files.len())
        .map(|i| {
            let text = files[i].text;
            (may_hold_kube_calls(text) || !kept[i].is_empty())
                .then(|| scan_keeping(text, &kept[i], &in_crate(i)).ok())
                .flatten()
        })
        .collect();
    let mut names: Vec<String> = Vec::new();
    loop {
        let more = generic_names(found.iter().flatten());
        if more == names {
            break;
        }
        for (i, found) in found.iter_mut().enumerate() {
            let text = files[i].text;
            // A file never read has nothing kept but its `use`s.
            let read_more = match found {
                Some(_) => mask::keeps_more(
                    text,
                    crate_names.tokens(i),
                    &with(&kept[i], names.clone()),
                    &with(&kept[i], more.clone()),
                ),
                None => more.iter().any(|n| text.contains(n.as_str())),
            };
            if read_more {
                *found = scan_keeping(text, &with(&kept[i], more.clone()), &in_crate(i)).ok();
            }
        }
        names = more;
    }
    for found in &mut found {
        let needed = found.as_ref().is_some_and(|f| {
            !f.calls.is_empty()
                || !f.api_fields.is_empty()
                || f.instantiations.iter().any(|i| names.contains(&i.name))
        });
        if !needed {
            *found = None;
        }
    }
    found
}

/// The functions whose type parameters a call takes as its kind, directly or through a call
/// site of another: their call sites fix it. Sorted.
fn generic_names<'a>(files: impl IntoIterator<Item = &'a FileCalls>) -> Vec<String> {
    let mut names = Vec::new();
    let mut add = |kind: &KindRef| {
        if let KindRef::Generic { function, .. } = kind {
            names.push(function.clone());
        }
    };
    for file in files {
        file.calls.iter().for_each(|c| add(&c.kind));
        for site in &file.instantiations {
            site.turbofish.iter().for_each(&mut add);
            site.args.iter().flatten().for_each(&mut add);
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The names file `i` may write for a kube item or an alias of one without spelling it (from
/// another module, or its own `type` aliases): its items naming one are kept by the mask. A
/// file that names no module of the crate (`crate::`, `super::`, `self::`, a glob), declares
/// no module (whose names it may import by a relative path) and no `type` has none.
fn kube_names(
    crate_names: &names::CrateNames<'_>,
    files: &[CrateFile<'_>],
    i: usize,
) -> Vec<String> {
    let text = files[i].text;
    if !["crate::", "super::", "self::", "::*", "type ", "mod "]
        .iter()
        .any(|w| text.contains(w))
    {
        return Vec::new();
    }
    let mut out: Vec<String> = crate_names
        .modules_of(i)
        .iter()
        .flat_map(|m| crate_names.kube_names(files[i].root, m, text))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether `text` gives a kube item a name that is no kube word: a `use` with an `as` naming a
/// kube word (`use kube::Api as KApi;`), or a `type` naming one (`type DocApi = Api<Doc>;`).
/// Read from the text (a comment's or a string's too: then it says yes, and only costs time).
fn renames_kube_items(text: &str) -> bool {
    // Bytes, not `str::match_indices`: the searcher, instantiated at this crate's low
    // optimization level, cost as much as the names it spares.
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut i = 0;
    while i < bytes.len() {
        let keyword = match bytes[i] {
            b'u' if bytes[i..].starts_with(b"use") => 3,
            b't' if bytes[i..].starts_with(b"type") => 4,
            _ => {
                i += 1;
                continue;
            }
        };
        // A keyword starts a `use` or a `type` when a space, `{` or `::` follows (not a
        // `"type"` in a string).
        let bounded = (i == 0 || !word(bytes[i - 1]))
            && bytes
                .get(i + keyword)
                .is_some_and(|&b| b.is_ascii_whitespace() || b == b'{' || b == b':');
        if !bounded {
            i += keyword;
            continue;
        }
        // To its `;` (a `use` or `type` started in a comment runs on into the next item: more
        // is read, never less).
        let end = bytes[i..]
            .iter()
            .position(|&b| b == b';')
            .map_or(bytes.len(), |p| i + p);
        let statement = &bytes[i..end];
        let renames = keyword == 4 || statement.split(|&b| !word(b)).any(|w| w == b"as");
        if renames && mask::next_kube_word(statement, 0).is_some() {
            return true;
        }
        i = end.max(i + keyword);
    }
    false
}

/// `names` and `more`, sorted, without duplicates.
fn with(names: &[String], mut more: Vec<String>) -> Vec<String> {
    more.extend(names.iter().cloned());
    more.sort();
    more.dedup();
    more
}

fn scan_keeping(
    text: &str,
    names: &[String],
    in_crate: &visit::InCrate<'_>,
) -> syn::Result<FileCalls> {
    let masked = mask::masked_lexed(text, in_crate.names.tokens(in_crate.file), names);
    let file = syn::parse_file(masked.as_deref().unwrap_or(text))?;
    Ok(visit::calls_in(&file, in_crate))
}

#[cfg(test)]
mod tests;
