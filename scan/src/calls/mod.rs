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

mod methods;
mod syntax;
mod visit;

pub use methods::{API_METHODS, ApiMethod};

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
    [
        "Api",
        "Controller",
        "finalizer",
        "watcher",
        "Recorder",
        "await_condition",
        "LeaderElection",
        // `LeaderElection::builder` under a `use` rename (`Elector::builder`).
        "::builder",
        // kube's request parameters: a call on a receiver the scan cannot type.
        "Params",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// Finds the kube calls of one file's text. Code under `#[cfg(test)]` and `#[test]` functions
/// is left out (it runs under the test's identity, not the operator's).
pub fn scan_calls(text: &str) -> syn::Result<FileCalls> {
    let masked = masked(text);
    let file = syn::parse_file(masked.as_deref().unwrap_or(text))?;
    Ok(visit::calls_of(&file))
}

/// `text` with each top-level item that names none of the words of [`may_hold_kube_calls`]
/// and is no `use` blanked out, newlines kept, so that every place in the rest stays where it
/// was: parsing is most of the scan's time, and most items of an operator (its types, its
/// object builders) make no call. `None` when nothing is blanked, or the text does not lex
/// (syn then parses it whole, and says what is wrong).
fn masked(text: &str) -> Option<String> {
    use crate::lex::{Delim, Kind};
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let tokens = crate::lex::lex(body, crate::shebang_end(body)).ok()?;
    let punct = |i: usize, c: u8| matches!(tokens.get(i), Some(t) if t.kind == Kind::Punct(c));
    // Token ranges of the top-level items: each ends at a `;`, or at a `{ }` not followed by
    // `;` (a `use a::{b};` or a `const X: T = T {};` goes on to its `;`).
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut first = 0;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].kind {
            Kind::Punct(b';') => {
                items.push((first, i));
                first = i + 1;
                i += 1;
            }
            Kind::Open { delim, close } => {
                let close = close as usize;
                if delim == Delim::Brace && !punct(close + 1, b';') {
                    items.push((first, close));
                    first = close + 1;
                }
                i = close + 1;
            }
            _ => i += 1,
        }
    }
    let source = |i: usize| &body[tokens[i].start as usize..tokens[i].end as usize];
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut previous_end = 0;
    for (lo, hi) in items {
        let start = previous_end;
        let end = tokens[hi].end as usize;
        previous_end = end;
        let item = &body[start..end];
        // Past its attributes and visibility: a `use` is kept (the `Api` renames).
        let mut k = lo;
        let mut test_only = false;
        while k <= hi {
            match tokens[k].kind {
                Kind::Doc { .. } => k += 1,
                Kind::Punct(b'#') => {
                    k += 1;
                    if punct(k, b'!') {
                        k += 1;
                    }
                    if let Some(Kind::Open { close, .. }) = tokens.get(k).map(|t| t.kind) {
                        let inner =
                            &body[tokens[k].end as usize..tokens[close as usize].start as usize];
                        let inner: String = inner.split_whitespace().collect();
                        test_only |= inner == "cfg(test)" || inner == "test";
                        k = close as usize + 1;
                    }
                }
                Kind::Ident if source(k) == "pub" => {
                    k += 1;
                    if let Some(Kind::Open {
                        delim: Delim::Paren,
                        close,
                    }) = tokens.get(k).map(|t| t.kind)
                    {
                        k = close as usize + 1;
                    }
                }
                _ => break,
            }
        }
        let is_use = k <= hi && tokens[k].kind == Kind::Ident && source(k) == "use";
        // `self.docs.list(..)`: a field typed `Api<K>` in another item, maybe another file.
        // `ctx.api().get(..)`: a function returning one.
        let field_call = (lo..hi.saturating_sub(3)).any(|j| {
            (tokens[j + 1].kind == Kind::Close
                || (tokens[j + 1].kind == Kind::Ident && punct(j, b'.')))
                && punct(j + 2, b'.')
                && tokens[j + 3].kind == Kind::Ident
                && methods::api_method(source(j + 3)).is_some()
        });
        if test_only || (!is_use && !field_call && !may_hold_kube_calls(item)) {
            blank.push((start, end));
        }
    }
    if blank.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..bom]);
    let mut at = 0;
    for (start, end) in blank {
        out.push_str(&body[at..start]);
        // One space per character: columns count characters.
        out.extend(
            body[start..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        at = end;
    }
    out.push_str(&body[at..]);
    Some(out)
}

#[cfg(test)]
mod tests;
