//! The walk of one parsed file: `use` renames, the `Api<K>` bindings in scope (parameters,
//! `let`s, closure parameters), and each call checked against kube-rs's surface.

use super::methods::{APPLY_CREATES, api_method};
use super::names::{CrateNames, Named};
use super::names_hash::Map;
use super::syntax::*;
use super::{FileCalls, Function, GenericFn, KindRef, KubeCall, Need, Scope};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;

mod call_sites;
mod in_crate;
mod macro_rules;

pub(super) use in_crate::InCrate;

/// The kube calls of a parsed file, the names its module has from the crate's other modules
/// resolved through them (`use crate::prelude::*;` then `Rec::new(..)`).
pub(super) fn calls_in(file: &syn::File, in_crate: &InCrate<'_>) -> FileCalls {
    let mut v = Visitor {
        names: Some(in_crate.names),
        root: std::cell::Cell::new(in_crate.root),
        module: std::cell::RefCell::new(in_crate.module.clone()),
        ..Visitor::default()
    };
    // The `use`s the module reader read from the file's tokens (the mask leaves them out of
    // what syn parses), else syn's.
    match in_crate.names.uses_of(in_crate.file) {
        Some(uses) => v.uses = uses,
        None => file
            .items
            .iter()
            .for_each(|item| collect_uses(item, &mut v.uses)),
    }
    for item in &file.items {
        v.visit_item(item);
    }
    // Outer calls are met before the calls in their receivers and arguments.
    v.out.calls.sort_by_key(|c| (c.line, c.column));
    v.out
}

/// What the scan knows of a binding.
#[derive(Clone, Default)]
struct Binding {
    name: String,
    /// It is an `Api<K>`.
    api: Option<ApiInfo>,
    /// Its type otherwise (`Arc<T>`, `&T` stripped): for `finalizer`'s object.
    ty: Option<String>,
    /// Its value is a `Patch::Apply(...)`.
    apply: bool,
}

#[derive(Clone)]
pub(super) struct ApiInfo {
    pub(super) kind: KindRef,
    pub(super) scope: Scope,
}

#[derive(Default)]
struct Visitor<'n> {
    uses: Map<String, String>,
    /// The crate's names: paths resolve through its modules.
    names: Option<&'n CrateNames<'n>>,
    /// The crate of the path being read (the file's; an alias's while it is read).
    root: std::cell::Cell<u32>,
    /// The module being walked (the file's, then its inline modules'; an alias's while it is
    /// read).
    module: std::cell::RefCell<Vec<String>>,
    /// Type aliases being read through.
    aliases: std::cell::Cell<usize>,
    /// What a path of the module being walked may start with to name something of the crate's.
    firsts: std::cell::RefCell<Option<std::rc::Rc<super::names::Firsts>>>,
    env: Vec<Binding>,
    /// Generic type parameters in scope (the enclosing impl's and fn's).
    generics: Vec<String>,
    /// The enclosing fn's own type parameters: a kind named by one is fixed where it is called.
    fn_generics: Vec<String>,
    function: Option<Function>,
    /// The `#[cfg]`s of the items and statements being walked, outermost first.
    cfgs: Vec<kube_markers_core::cfg::Cfg>,
    out: FileCalls,
}

impl Visitor<'_> {
    /// Whether `path`, [`Self::named`] `named`, is kube's `Api`.
    fn is_api_path(&self, path: &syn::Path, named: &Option<Named>) -> bool {
        !matches!(named, Some(Named::Local(_))) && last_segment(&self.text_of(path, named)) == "Api"
    }

    /// The kind `K` of `Api<K>` named by `ty`, or why it cannot be told.
    fn kind_of_type_arg(&self, ty: &syn::Type) -> KindRef {
        let syn::Type::Path(p) = strip_refs(ty) else {
            return KindRef::Unknown(format!(
                "its kind `{}` is no type path",
                ty.to_token_stream()
            ));
        };
        let named = self.named(&p.path);
        if let Some(kind) = self.through_alias(&p.path, &named, |v, ty| v.kind_of_type_arg(ty)) {
            return kind;
        }
        let text = self.text_of(&p.path, &named);
        let last = last_segment(&text);
        if p.path.segments.len() == 1
            && p.qself.is_none()
            && self.fn_generics.iter().any(|g| g == last)
            && let Some(function) = &self.function
        {
            return KindRef::Generic {
                function: function.name.clone(),
                param: last.to_string(),
            };
        }
        if p.path.segments.len() == 1 && self.generics.iter().any(|g| g == last) {
            return KindRef::Unknown(format!(
                "its kind is the generic `{last}`, known only where the function is called"
            ));
        }
        match last {
            "DynamicObject" | "Object" => KindRef::Unknown(format!(
                "`Api<{last}>` takes its kind from an `ApiResource` at run time"
            )),
            // Both are `K`'s resource (kube-core delegates their `Resource` impls to `K`).
            "PartialObjectMeta" | "DeserializeGuard" => match type_args(&p.path).first() {
                Some(inner) => self.kind_of_type_arg(inner),
                None => KindRef::Unknown(format!("`{last}` without its kind")),
            },
            _ => KindRef::Type(text),
        }
    }

    /// `Api<K>` (through references, `kube::Api`, renames) → its kind.
    fn api_type(&self, ty: &syn::Type) -> Option<KindRef> {
        let syn::Type::Path(p) = strip_refs(ty) else {
            return None;
        };
        let named = self.named(&p.path);
        if let Some(kind) = self.through_alias(&p.path, &named, |v, ty| v.api_type(ty)) {
            return kind;
        }
        let text = self.text_of(&p.path, &named);
        if matches!(named, Some(Named::Local(_))) || last_segment(&text) != "Api" {
            // `Arc<Api<K>>` (a shared context's field): its methods are the `Api`'s.
            return match last_segment(&text) {
                "Arc" | "Box" | "Rc" => type_args(&p.path).first().and_then(|t| self.api_type(t)),
                _ => None,
            };
        }
        Some(match type_args(&p.path).first() {
            Some(k) => self.kind_of_type_arg(k),
            None => KindRef::Unknown("`Api` is written without its kind".into()),
        })
    }

    /// The type a non-`Api` binding holds, `Arc`/`Box`/`&` stripped: `finalizer`'s object.
    fn object_type(&self, ty: &syn::Type) -> Option<String> {
        let syn::Type::Path(p) = strip_refs(ty) else {
            return None;
        };
        let text = self.path_of(&p.path);
        match last_segment(&text) {
            "Arc" | "Box" | "Rc" => type_args(&p.path).first().and_then(|t| self.object_type(t)),
            _ if p.path.segments.len() == 1 && self.generics.contains(&text) => None,
            _ => Some(text),
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.env.iter().rev().find(|b| b.name == name)
    }

    /// What `Api` an expression is, if the scan can tell.
    fn api_of(&self, e: &syn::Expr) -> Option<ApiInfo> {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                self.lookup(&ident.to_string())?.api.clone()
            }
            syn::Expr::Reference(r) => self.api_of(&r.expr),
            syn::Expr::Paren(p) => self.api_of(&p.expr),
            syn::Expr::Group(g) => self.api_of(&g.expr),
            syn::Expr::MethodCall(mc)
                if mc.args.is_empty()
                    && matches!(
                        mc.method.to_string().as_str(),
                        "clone" | "to_owned" | "as_ref" | "borrow"
                    ) =>
            {
                self.api_of(&mc.receiver)
            }
            syn::Expr::MethodCall(mc)
                if matches!(
                    mc.method.to_string().as_str(),
                    "constrain" | "constrain_default" | "unconstrain"
                ) =>
            {
                let inner = self.api_of(&mc.receiver)?;
                let scope = match mc.method.to_string().as_str() {
                    "unconstrain" => Scope::Cluster,
                    _ => namespace_scope(mc.args.first()),
                };
                Some(ApiInfo {
                    kind: inner.kind,
                    scope,
                })
            }
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Named(name) => Some(ApiInfo {
                    kind: KindRef::Field(name.to_string()),
                    scope: Scope::Unknown,
                }),
                syn::Member::Unnamed(_) => None,
            },
            // `ctx.api()`, `self.docs()`: a method of the crate returning `Api<K>`.
            syn::Expr::MethodCall(mc) => Some(ApiInfo {
                kind: KindRef::Field(mc.method.to_string()),
                scope: Scope::Unknown,
            }),
            syn::Expr::Call(c) => self.api_constructor(c).or_else(|| {
                // `docs_api(&client)`: a function of the crate returning `Api<K>`.
                let syn::Expr::Path(p) = &*c.func else {
                    return None;
                };
                Some(ApiInfo {
                    kind: KindRef::Field(p.path.segments.last()?.ident.to_string()),
                    scope: Scope::Unknown,
                })
            }),
            _ => None,
        }
    }

    /// `Api::<K>::all(client)`, `Api::namespaced(client, ns)`, ...
    fn api_constructor(&self, c: &syn::ExprCall) -> Option<ApiInfo> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let segs = &p.path.segments;
        if segs.len() < 2 {
            return None;
        }
        let ctor = segs.last()?.ident.to_string();
        let api_seg = &segs[segs.len() - 2];
        let mut api_path = p.path.clone();
        api_path.segments.pop();
        let _ = api_path.segments.pop_punct();
        // `DocApi::all(c)`, `type DocApi = Api<Document>;`: the alias's kind.
        let named = self.named(&api_path);
        let aliased = self
            .through_alias(&api_path, &named, |v, ty| v.api_type(ty))
            .flatten();
        if aliased.is_none() && !self.is_api_path(&api_path, &named) {
            return None;
        }
        let scope = match ctor.as_str() {
            "all" | "all_with" => Scope::Cluster,
            "namespaced" | "namespaced_with" => namespace_scope(c.args.iter().nth(1)),
            "default_namespaced" | "default_namespaced_with" => Scope::Namespaced,
            "dynamic" => {
                return Some(ApiInfo {
                    kind: KindRef::Unknown(
                        "`Api::dynamic` takes its kind from an `ApiResource` at run time".into(),
                    ),
                    scope: Scope::Unknown,
                });
            }
            _ => return None,
        };
        let kind = match (&api_seg.arguments, aliased) {
            (_, Some(kind)) => kind,
            (syn::PathArguments::AngleBracketed(a), None) => match a.args.first() {
                Some(syn::GenericArgument::Type(t)) => self.kind_of_type_arg(t),
                _ => KindRef::Unknown("`Api` is written without its kind".into()),
            },
            (_, None) => KindRef::Unknown(format!(
                "`Api::{ctor}` is called without naming its kind: write `Api::<K>::{ctor}` or \
                 give the binding its type (`let x: Api<K> = ...`)"
            )),
        };
        Some(ApiInfo { kind, scope })
    }

    /// A call whose resource is fixed whatever `K` is (a helper of kube-runtime's or ours), in
    /// a namespace known at run time.
    fn record_fixed(
        &mut self,
        span: proc_macro2::Span,
        call: &str,
        kind: &str,
        resource: (&'static str, &'static str),
        verbs: &[&'static str],
        why: &'static str,
    ) {
        let api = ApiInfo {
            kind: KindRef::Type(kind.into()),
            scope: Scope::Namespaced,
        };
        let need = Need {
            resource: Some(resource),
            subresource: None,
            verbs: verbs.to_vec(),
            why: Some(why),
        };
        self.record(span, call.into(), api, vec![need]);
    }

    fn record(&mut self, span: proc_macro2::Span, call: String, api: ApiInfo, needs: Vec<Need>) {
        let (line, column) = line_col(span);
        self.out.calls.push(KubeCall {
            line,
            column,
            call,
            kind: api.kind,
            scope: api.scope,
            needs,
            function: self.function.clone(),
            params_shaped: false,
            cfgs: self.cfgs.clone(),
        });
    }

    /// Binds a pattern's names (a typed ident: its type; else what `init` is).
    fn bind(&mut self, pat: &syn::Pat, ty: Option<&syn::Type>, init: Option<&syn::Expr>) {
        match pat {
            syn::Pat::Type(t) => self.bind(&t.pat, Some(&t.ty), init),
            syn::Pat::Ident(i) => {
                let mut b = Binding {
                    name: i.ident.to_string(),
                    ..Binding::default()
                };
                // A value some call returns is an `Api` only if the call is one of the crate's
                // that returns one: not worth a binding (`let m = HashMap::new()`).
                let from_init = init.and_then(|e| self.api_of(e)).filter(|a| {
                    !(matches!(a.kind, KindRef::Field(_)) && init.is_some_and(returned))
                });
                if let Some(kind) = ty.and_then(|t| self.api_type(t)) {
                    b.api = Some(ApiInfo {
                        kind,
                        scope: from_init.map_or(Scope::Unknown, |a| a.scope),
                    });
                } else if ty.is_none() {
                    b.api = from_init;
                }
                b.ty = ty.and_then(|t| self.object_type(t));
                b.apply = init.is_some_and(is_apply);
                self.env.push(b);
            }
            _ => {
                // Destructuring: its names shadow outer bindings, unknown.
                let mut names = Vec::new();
                pat_idents(pat, &mut names);
                self.env.extend(names.into_iter().map(|name| Binding {
                    name,
                    ..Binding::default()
                }));
            }
        }
    }

    fn in_function(&mut self, attrs: &[syn::Attribute], sig: &syn::Signature, body: &syn::Block) {
        if is_test_only(attrs) {
            return;
        }
        let saved_cfgs = self.cfgs.len();
        self.cfgs.extend(crate::syn_scan::cfgs_of(attrs));
        let saved_env = self.env.len();
        let saved_generics = self.generics.len();
        let saved_function = self.function.take();
        let own_generics = type_params(&sig.generics);
        let saved_fn_generics = std::mem::replace(&mut self.fn_generics, own_generics.clone());
        self.generics.extend(own_generics.iter().cloned());
        let line = sig
            .constness
            .map(|t| t.span)
            .or(sig.asyncness.map(|t| t.span))
            .unwrap_or(sig.fn_token.span);
        self.function = Some(Function {
            name: sig.ident.to_string(),
            line: line_col(line).0,
        });
        if let syn::ReturnType::Type(_, ty) = &sig.output
            && let Some(kind) = self.api_type(ty)
        {
            self.out.api_fields.push((sig.ident.to_string(), kind));
        }
        if !own_generics.is_empty() {
            let params = sig
                .inputs
                .iter()
                .filter_map(|input| match input {
                    syn::FnArg::Typed(t) => Some(generic_of(&t.ty, &own_generics)),
                    syn::FnArg::Receiver(_) => None,
                })
                .collect();
            self.out.generic_fns.push(GenericFn {
                name: sig.ident.to_string(),
                type_params: own_generics,
                params,
            });
        }
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                self.bind(&t.pat, Some(&t.ty), None);
            }
        }
        self.visit_block(body);
        self.fn_generics = saved_fn_generics;
        self.function = saved_function;
        self.generics.truncate(saved_generics);
        self.env.truncate(saved_env);
        self.cfgs.truncate(saved_cfgs);
    }

    /// An `Api` method call whose receiver the scan cannot type, but whose arguments are
    /// kube's request parameters: recorded with the kind unknown.
    fn looks_like_api_call(mc: &syn::ExprMethodCall) -> bool {
        let text = mc.args.to_token_stream().to_string();
        [
            "PostParams",
            "PatchParams",
            "DeleteParams",
            "ListParams",
            "WatchParams",
            "LogParams",
            "EvictParams",
            "AttachParams",
            "GetParams",
            "Patch ::",
        ]
        .iter()
        .any(|w| text.contains(w))
    }

    fn api_method_call(&mut self, mc: &syn::ExprMethodCall) {
        if self.client_call(mc) {
            return;
        }
        let name = mc.method.to_string();
        if let Some(method) = api_method(&name) {
            let api = match self.api_of(&mc.receiver) {
                Some(api) => api,
                None if Self::looks_like_api_call(mc) => ApiInfo {
                    kind: KindRef::Unknown(format!(
                        "its receiver `{}` is no binding, parameter or field the scan can type \
                         as `Api<K>`",
                        mc.receiver.to_token_stream()
                    )),
                    scope: Scope::Unknown,
                },
                None => return,
            };
            let receiver = receiver_name(&mc.receiver);
            let mut verbs = method.verbs.to_vec();
            let mut why = method.why;
            let mut kind = api.kind.clone();
            let subresource = if method.named_subresource {
                match mc.args.first() {
                    Some(syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    })) => Some(s.value()),
                    _ => {
                        kind =
                            KindRef::Unknown("its subresource is not a string literal".to_string());
                        None
                    }
                }
            } else {
                method.subresource.map(str::to_string)
            };
            // A server-side apply on the object itself may create it; on a subresource
            // (status, scale) it never does (their stores refuse create-on-update).
            if let Some(i) = method.patch_arg
                && subresource.is_none()
                && mc.args.iter().nth(i).is_some_and(|a| self.is_apply_arg(a))
            {
                verbs.push("create");
                why = Some(APPLY_CREATES);
            }
            let need = Need {
                resource: method.resource,
                subresource,
                verbs,
                why,
            };
            self.record(
                mc.method.span(),
                format!("{receiver}.{name}"),
                ApiInfo {
                    kind,
                    scope: api.scope,
                },
                vec![need],
            );
            if Self::looks_like_api_call(mc)
                && let Some(last) = self.out.calls.last_mut()
            {
                last.params_shaped = true;
            }
            return;
        }
        // kube-runtime's Controller: `.owns(api, cfg)`, `.watches(api, cfg, mapper)`.
        if matches!(
            name.as_str(),
            "owns" | "owns_with" | "watches" | "watches_with"
        ) && let Some(api) = mc.args.first().and_then(|a| self.api_of(a))
        {
            self.record(
                mc.method.span(),
                format!(".{name}"),
                api,
                vec![list_watch()],
            );
        }
    }

    /// Whether an argument is a `Patch::Apply(...)`, directly or through a binding.
    fn is_apply_arg(&self, e: &syn::Expr) -> bool {
        if is_apply(e) {
            return true;
        }
        let inner = match e {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        match inner {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&i.to_string()))
                .is_some_and(|b| b.apply),
            _ => false,
        }
    }

    fn function_call(&mut self, c: &syn::ExprCall) {
        let syn::Expr::Path(p) = &*c.func else {
            return;
        };
        let named = self.named(&p.path);
        if matches!(named, Some(Named::Local(_))) {
            // The crate's own type (`Recorder::new` of a `struct Recorder`).
            return;
        }
        let text = self.text_of(&p.path, &named);
        let (last, before) = match text.rsplit_once(':') {
            Some((rest, last)) => (last, Some(last_segment(rest.trim_end_matches(':')))),
            None => (text.as_str(), None),
        };
        let span = p
            .path
            .segments
            .last()
            .map_or_else(|| c.span(), |s| s.ident.span());
        let arg_api = |i: usize| c.args.iter().nth(i).and_then(|a| self.api_of(a));
        match (before, last) {
            (Some("Controller"), "new" | "new_with") => {
                let controller = &p.path.segments[p.path.segments.len() - 2];
                let api = arg_api(0).or_else(|| match &controller.arguments {
                    syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => Some(ApiInfo {
                            kind: self.kind_of_type_arg(t),
                            scope: Scope::Unknown,
                        }),
                        _ => None,
                    },
                    _ => None,
                });
                let api = api.unwrap_or_else(|| unknown_arg(&c.args, 0));
                self.record(span, format!("Controller::{last}"), api, vec![list_watch()]);
            }
            (_, "watcher" | "metadata_watcher" | "watch_object" | "await_condition")
                if !c.args.is_empty() && before != Some("Config") =>
            {
                let api = arg_api(0).unwrap_or_else(|| unknown_arg(&c.args, 0));
                self.record(span, last.to_string(), api, vec![list_watch()]);
            }
            (_, "finalizer") if c.args.len() == 4 => {
                // The object's type is `K` itself (`obj: Arc<K>`); the `Api`'s when not known.
                let api = arg_api(0)
                    .filter(|a| matches!(a.kind, KindRef::Type(_)))
                    .or_else(|| {
                        let obj = c.args.iter().nth(2)?;
                        let syn::Expr::Path(o) = obj else {
                            return None;
                        };
                        let ty = self.lookup(&o.path.get_ident()?.to_string())?.ty.clone()?;
                        Some(ApiInfo {
                            kind: KindRef::Type(ty),
                            scope: arg_api(0).map_or(Scope::Unknown, |a| a.scope),
                        })
                    })
                    .or_else(|| arg_api(0))
                    .unwrap_or_else(|| unknown_arg(&c.args, 0));
                let need = Need {
                    resource: None,
                    subresource: None,
                    verbs: vec!["patch"],
                    why: Some("`finalizer` adds and removes its finalizer with JSON patches"),
                };
                self.record(span, "finalizer".into(), api, vec![need]);
            }
            (Some("Recorder"), "new") => self.record_fixed(
                span,
                "Recorder::new",
                "k8s_openapi::api::events::v1::Event",
                ("events.k8s.io", "events"),
                &["create", "patch"],
                "`Recorder::publish` creates an event, and patches its series when it repeats",
            ),
            // kube-markers' own leader election (`kube_markers::leader_election`), named as
            // imported or by its module's path: no other crate's `LeaderElection`.
            (Some("LeaderElection"), "builder")
                if text.matches("::").count() == 1
                    || text.split("::").any(|s| s == "leader_election") =>
            {
                self.record_fixed(
                    span,
                    "LeaderElection::builder",
                    "k8s_openapi::api::coordination::v1::Lease",
                    ("coordination.k8s.io", "leases"),
                    &["get", "create", "update"],
                    "kube-markers' leader election reads its Lease, creates it when missing, and renews or takes it with updates",
                )
            }
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for Visitor<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Macro(m) => &m.attrs,
            _ => &[],
        };
        if is_test_only(attrs) {
            return;
        }
        let saved = self.cfgs.len();
        // A function's are added where its body is walked (`in_function`, as a method's).
        if !matches!(item, syn::Item::Fn(_)) {
            self.cfgs.extend(crate::syn_scan::cfgs_of(attrs));
        }
        syn::visit::visit_item(self, item);
        self.cfgs.truncate(saved);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.borrow_mut().push(m.ident.to_string());
        let saved = self.firsts.take();
        syn::visit::visit_item_mod(self, m);
        *self.firsts.borrow_mut() = saved;
        self.module.borrow_mut().pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.in_function(&f.attrs, &f.sig, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.in_function(&f.attrs, &f.sig, &f.block);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.in_function(&f.attrs, &f.sig, block);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let saved = self.generics.len();
        self.generics.extend(type_params(&i.generics));
        syn::visit::visit_item_impl(self, i);
        self.generics.truncate(saved);
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let saved = self.generics.len();
        self.generics.extend(type_params(&s.generics));
        for field in &s.fields {
            if let (Some(name), Some(kind)) = (&field.ident, self.api_type(&field.ty)) {
                self.out.api_fields.push((name.to_string(), kind));
            }
        }
        self.generics.truncate(saved);
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        let saved = self.env.len();
        syn::visit::visit_block(self, b);
        self.env.truncate(saved);
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        let attrs: &[syn::Attribute] = match s {
            syn::Stmt::Local(l) => &l.attrs,
            syn::Stmt::Macro(m) => &m.attrs,
            syn::Stmt::Expr(e, _) => crate::syn_scan::expr_attrs(e),
            _ => &[],
        };
        if is_test_only(attrs) {
            return;
        }
        let saved = self.cfgs.len();
        self.cfgs.extend(crate::syn_scan::cfgs_of(attrs));
        syn::visit::visit_stmt(self, s);
        self.cfgs.truncate(saved);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        // The initializer is evaluated before the names exist.
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        self.bind(&l.pat, None, l.init.as_ref().map(|i| &*i.expr));
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let saved = self.env.len();
        for input in &c.inputs {
            self.bind(input, None, None);
        }
        self.visit_expr(&c.body);
        self.env.truncate(saved);
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        self.api_method_call(mc);
        let turbofish: Vec<&syn::Type> = mc
            .turbofish
            .iter()
            .flat_map(|t| &t.args)
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        self.instantiation(
            mc.method.to_string(),
            &turbofish,
            &mc.args,
            mc.method.span(),
        );
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.function_call(c);
        // `Type::f(..)` is an associated function (`PatchParams::apply`), no free function's
        // call (`Self::f` may be a generic method's).
        let segments = match &*c.func {
            syn::Expr::Path(p) => p.path.segments.iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        let of_type = segments.len() >= 2 && {
            let owner = segments[segments.len() - 2].ident.to_string();
            owner != "Self" && owner.starts_with(|c: char| c.is_ascii_uppercase())
        };
        if let syn::Expr::Path(p) = &*c.func
            && !of_type
            && let Some(last) = p.path.segments.last()
        {
            // `use crate::helper::apply as apply_one;`: a call site of `apply`.
            let name = match p.path.segments.len() {
                1 => last_segment(&self.path_of(&p.path)).to_string(),
                _ => last.ident.to_string(),
            };
            self.instantiation(name, &type_args(&p.path), &c.args, last.ident.span());
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        match &m.ident {
            Some(name) if m.mac.path.is_ident("macro_rules") => {
                self.macro_rules_body(&name.to_string(), &m.mac.tokens);
            }
            _ => syn::visit::visit_item_macro(self, m),
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.macro_input(mac);
    }
}
