//! The calls written in the body of a crate's own `macro_rules!`. Macros are not expanded:
//! each call there named as one of `Api`'s request methods (`$api.get($name)`) is said to be
//! of unknown kind where it is written, once, never guessed and never lost (a map's `.get` in
//! a macro is said too: a note the user can read past).

use super::{ApiInfo, Visitor};
use crate::calls::methods::api_method;
use crate::calls::{KindRef, Need, Scope};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

impl Visitor<'_> {
    /// The calls of `macro_rules! name`'s rules (`tokens`), each at its method's name.
    pub(super) fn macro_rules_body(&mut self, name: &str, tokens: &TokenStream) {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            if let TokenTree::Group(g) = tree {
                self.macro_rules_body(name, &g.stream());
            }
            let (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(method))) =
                (trees.get(i), trees.get(i + 1))
            else {
                continue;
            };
            // `.get(..)` or `.get::<K>(..)`.
            let called = match trees.get(i + 2) {
                Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::Parenthesis,
                Some(TokenTree::Punct(p)) => p.as_char() == ':',
                _ => false,
            };
            let Some(api) = api_method(&method.to_string()).filter(|_| dot.as_char() == '.') else {
                continue;
            };
            if !called {
                continue;
            }
            let info = ApiInfo {
                kind: KindRef::Unknown(format!(
                    "it is in the body of `macro_rules! {name}`, which the scan does not expand"
                )),
                scope: Scope::Unknown,
            };
            let need = Need {
                resource: api.resource,
                subresource: api.subresource.map(str::to_string),
                verbs: api.verbs.to_vec(),
                why: api.why,
            };
            self.record(
                method.span(),
                format!("{name}!: .{method}"),
                info,
                vec![need],
            );
        }
    }
}
