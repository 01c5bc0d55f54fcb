//! Call forms beside `Api`'s methods and kube-runtime's functions: the `unstable-client`
//! requests of a `Client`, calls inside macros, and the calls that may fix a generic
//! function's `K` (its call sites).

use super::super::methods::{APPLY_CREATES, api_method};
use super::super::syntax::*;
use super::super::{Instantiation, KindRef, Need, Scope};
use super::{ApiInfo, Visitor};
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;

impl Visitor<'_> {
    /// kube's `unstable-client` requests on a `Client`: `client.get::<K>(name, &scope)` and
    /// `client.list::<K>(&lp, &scope)`, the kind in the turbofish, the scope an argument
    /// (`&Cluster`, `&scope::Namespace::from(..)`).
    pub(super) fn client_call(&mut self, mc: &syn::ExprMethodCall) -> bool {
        let name = mc.method.to_string();
        let verb = match name.as_str() {
            "get" => "get",
            "list" => "list",
            _ => return false,
        };
        let Some(turbofish) = &mc.turbofish else {
            return false;
        };
        let (Some(syn::GenericArgument::Type(k)), 1, Some(scope_arg)) = (
            turbofish.args.first(),
            turbofish.args.len(),
            mc.args.iter().nth(1),
        ) else {
            return false;
        };
        if mc.args.len() != 2 || self.api_of(&mc.receiver).is_some() {
            return false;
        }
        let scope_text = scope_arg.to_token_stream().to_string();
        let scope = if scope_text.contains("Cluster") {
            Scope::Cluster
        } else if scope_text.contains("Namespace") {
            Scope::Namespaced
        } else {
            return false;
        };
        let api = ApiInfo {
            kind: self.kind_of_type_arg(k),
            scope,
        };
        let need = Need {
            resource: None,
            subresource: None,
            verbs: vec![verb],
            why: None,
        };
        let receiver = receiver_name(&mc.receiver);
        self.record(
            mc.method.span(),
            format!("{receiver}.{name}"),
            api,
            vec![need],
        );
        true
    }

    /// A call that may fix a generic function's `K`: one with a turbofish or arguments.
    pub(super) fn instantiation(
        &mut self,
        name: String,
        turbofish: &[&syn::Type],
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        span: proc_macro2::Span,
    ) {
        if turbofish.is_empty() && args.is_empty() {
            return;
        }
        let turbofish = turbofish.iter().map(|t| self.kind_of_type_arg(t)).collect();
        let args = args.iter().map(|a| self.kind_of_arg(a)).collect();
        self.out.instantiations.push(Instantiation {
            name,
            turbofish,
            args,
            line: line_col(span).0,
        });
    }

    /// The kind an argument carries: an `Api<K>`'s `K`, or the type of an object binding
    /// (`obj`, `&obj`, `obj.clone()`, `Arc::clone(&obj)` aside).
    pub(super) fn kind_of_arg(&self, e: &syn::Expr) -> Option<KindRef> {
        if let Some(api) = self.api_of(e)
            && !(matches!(api.kind, KindRef::Field(_)) && returned(e))
        {
            return Some(api.kind);
        }
        let mut e = e;
        loop {
            match e {
                syn::Expr::Reference(r) => e = &r.expr,
                syn::Expr::Paren(p) => e = &p.expr,
                syn::Expr::MethodCall(mc) if mc.args.is_empty() && mc.method == "clone" => {
                    e = &mc.receiver
                }
                _ => break,
            }
        }
        let syn::Expr::Path(p) = e else {
            return None;
        };
        let ty = self.lookup(&p.path.get_ident()?.to_string())?.ty.clone()?;
        Some(KindRef::Type(ty))
    }

    /// A macro's input: comma-separated expressions (`tokio::join!`, `try_join!`, `vec!`,
    /// `format!`) are walked as expressions; any other input (`select!`) is searched for
    /// `binding.method(` on a known `Api` binding.
    pub(super) fn macro_input(&mut self, mac: &syn::Macro) {
        if mac.path.is_ident("macro_rules") {
            return;
        }
        let parsed = mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        );
        match parsed {
            Ok(exprs) => {
                for e in &exprs {
                    self.visit_expr(e);
                }
            }
            Err(_) => self.tokens(mac.tokens.clone()),
        }
    }

    pub(super) fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, t) in trees.iter().enumerate() {
            match t {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(recv) => {
                    let (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(method))) =
                        (trees.get(i + 1), trees.get(i + 2))
                    else {
                        continue;
                    };
                    if dot.as_char() != '.'
                        || !matches!(trees.get(i + 3), Some(TokenTree::Group(_)))
                    {
                        continue;
                    }
                    let Some(api) = self.lookup(&recv.to_string()).and_then(|b| b.api.clone())
                    else {
                        continue;
                    };
                    let Some(m) = api_method(&method.to_string()) else {
                        continue;
                    };
                    let args = match trees.get(i + 3) {
                        Some(TokenTree::Group(g)) => g.stream().to_string(),
                        _ => String::new(),
                    };
                    let mut verbs = m.verbs.to_vec();
                    let mut why = m.why;
                    if m.patch_arg.is_some() && m.subresource.is_none() && args.contains("Apply") {
                        verbs.push("create");
                        why = Some(APPLY_CREATES);
                    }
                    let need = Need {
                        resource: m.resource,
                        subresource: m.subresource.map(str::to_string),
                        verbs,
                        why,
                    };
                    self.record(method.span(), format!("{recv}.{method}"), api, vec![need]);
                }
                _ => {}
            }
        }
    }
}
