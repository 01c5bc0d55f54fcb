//! `cfg` predicates as rustc reads them: parsed from `cfg(...)` and `cfg_attr(...)`, printed
//! back. The call-site check reads the attributes inside `cfg_attr`; the generator's scan
//! records the predicates an attribute depends on and evaluates them.

use proc_macro2::{Span, TokenStream};
use std::fmt;

/// A `cfg` predicate, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cfg {
    /// `all(...)`
    All(Vec<Cfg>),
    /// `any(...)`
    Any(Vec<Cfg>),
    /// `not(...)`
    Not(Box<Cfg>),
    /// `unix`, `test`, ...
    Name(String),
    /// `feature = "x"`, `target_os = "linux"`, ...
    KeyValue(String, String),
    /// `true` / `false`
    Literal(bool),
}

impl Cfg {
    /// Parses the inside of `cfg(...)`.
    pub fn parse(tokens: TokenStream) -> syn::Result<Cfg> {
        // rustc accepts one trailing comma: `#[cfg(unix,)]`.
        let parser = |input: syn::parse::ParseStream| {
            let cfg = parse_cfg(input)?;
            if input.peek(syn::Token![,]) {
                input.parse::<syn::Token![,]>()?;
            }
            Ok(cfg)
        };
        syn::parse::Parser::parse2(parser, tokens)
    }
}

fn parse_cfg(input: syn::parse::ParseStream) -> syn::Result<Cfg> {
    if input.peek(syn::LitBool) {
        return Ok(Cfg::Literal(input.parse::<syn::LitBool>()?.value));
    }
    // `r#debug_assertions` is `debug_assertions` to rustc: compare and print names unraw.
    let name: syn::Ident = syn::ext::IdentExt::parse_any(input)?;
    let name = syn::ext::IdentExt::unraw(&name).to_string();
    if input.peek(syn::Token![=]) {
        input.parse::<syn::Token![=]>()?;
        let value: syn::LitStr = input.parse()?;
        return Ok(Cfg::KeyValue(name, value.value()));
    }
    if input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in input);
        let list = syn::punctuated::Punctuated::<Cfg, syn::Token![,]>::parse_terminated_with(
            &content, parse_cfg,
        )?;
        let mut list: Vec<Cfg> = list.into_iter().collect();
        return match name.as_str() {
            "all" => Ok(Cfg::All(list)),
            "any" => Ok(Cfg::Any(list)),
            "not" if list.len() == 1 => Ok(Cfg::Not(Box::new(list.remove(0)))),
            _ => Err(input.error(format!("`{name}(...)` is not a cfg predicate"))),
        };
    }
    Ok(Cfg::Name(name))
}

impl fmt::Display for Cfg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, name: &str, items: &[Cfg]| {
            write!(f, "{name}(")?;
            for (i, c) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str(")")
        };
        match self {
            Cfg::All(items) => list(f, "all", items),
            Cfg::Any(items) => list(f, "any", items),
            Cfg::Not(inner) => write!(f, "not({inner})"),
            Cfg::Name(name) => f.write_str(name),
            Cfg::KeyValue(key, value) => write!(f, "{key} = {value:?}"),
            Cfg::Literal(b) => write!(f, "{b}"),
        }
    }
}

/// The cfgs the build profile sets, each with the `[profile.*]` key that sets it: the
/// generator's (dev) build cannot stand for the operator's deployed (release) build there.
/// `rustc --print cfg` prints `debug_assertions` without optimization or with `-C
/// debug-assertions`, and `panic="unwind"` or `panic="abort"` after `-C panic`; on nightly,
/// `overflow_checks` and `ub_checks` follow `-C overflow-checks` and the debug assertions.
pub const PROFILE_CFGS: &[(&str, &str)] = &[
    ("debug_assertions", "debug-assertions"),
    ("panic", "panic"),
    ("overflow_checks", "overflow-checks"),
    ("ub_checks", "debug-assertions"),
];

/// Why an attribute behind `name` cannot be decided from the generator's build, if `name` is
/// one of [`PROFILE_CFGS`]. The one rule the cross-check and the cfg evaluation share.
pub fn set_by_the_profile(name: &str) -> Option<String> {
    let (_, key) = PROFILE_CFGS.iter().find(|(cfg, _)| *cfg == name)?;
    Some(format!(
        "`{name}` depends on the build profile (`[profile.*] {key}`: the generator's debug \
         build and the operator's release build differ), so the generator's build cannot stand \
         for the deployed one; use a feature instead"
    ))
}

impl Cfg {
    /// The first cfg the build profile sets ([`PROFILE_CFGS`]) anywhere in this predicate,
    /// however nested in `all`, `any` and `not`.
    pub fn profile_cfg(&self) -> Option<&str> {
        match self {
            Cfg::All(items) | Cfg::Any(items) => items.iter().find_map(Cfg::profile_cfg),
            Cfg::Not(inner) => inner.profile_cfg(),
            Cfg::Name(name) | Cfg::KeyValue(name, _) => PROFILE_CFGS
                .iter()
                .any(|(cfg, _)| cfg == name)
                .then_some(name.as_str()),
            Cfg::Literal(_) => None,
        }
    }
}

/// The `cfg` a `cfg_attr(pred, metas...)` puts on its item, if it yields one (however
/// nested in more `cfg_attr`s): the item stays where `not(pred)` or the yielded cfg holds.
pub fn cfg_attr_yields(pred: &Cfg, metas: &[syn::Meta]) -> Option<Cfg> {
    let yielded: Vec<Cfg> = metas
        .iter()
        .filter_map(|meta| {
            let syn::Meta::List(list) = meta else {
                return None;
            };
            if list.path.is_ident("cfg") {
                Some(
                    Cfg::parse(list.tokens.clone())
                        .unwrap_or_else(|_| Cfg::Name(list.tokens.to_string())),
                )
            } else if list.path.is_ident("cfg_attr") {
                let (inner, metas) = cfg_attr_tokens(list.tokens.clone()).ok()?;
                cfg_attr_yields(&inner, &metas)
            } else {
                None
            }
        })
        .collect();
    if yielded.is_empty() {
        return None;
    }
    Some(Cfg::Any(vec![
        Cfg::Not(Box::new(pred.clone())),
        Cfg::All(yielded),
    ]))
}

/// The predicate and attributes of a `cfg_attr(...)` meta.
pub fn cfg_attr_parts(meta: &syn::Meta) -> syn::Result<(Cfg, Vec<syn::Meta>)> {
    let syn::Meta::List(list) = meta else {
        return Err(syn::Error::new(Span::call_site(), "not a list"));
    };
    cfg_attr_tokens(list.tokens.clone())
}

/// The inside of `cfg_attr(...)`: its predicate and attributes.
pub fn cfg_attr_tokens(tokens: TokenStream) -> syn::Result<(Cfg, Vec<syn::Meta>)> {
    let parser = |input: syn::parse::ParseStream| {
        let pred = parse_cfg(input)?;
        input.parse::<syn::Token![,]>()?;
        let rest =
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated(input)?;
        Ok((pred, rest.into_iter().collect::<Vec<_>>()))
    };
    syn::parse::Parser::parse2(parser, tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn cfg_predicates_parse_and_print() {
        let cfg = Cfg::parse(quote!(all(unix, not(feature = "a"), any(test, false)))).unwrap();
        assert_eq!(
            cfg.to_string(),
            "all(unix, not(feature = \"a\"), any(test, false))"
        );
        assert!(Cfg::parse(quote!(nope(a))).is_err());
    }

    #[test]
    fn cfgs_the_build_profile_sets_are_found_however_nested() {
        for (cfg, found) in [
            (quote!(debug_assertions), Some("debug_assertions")),
            (quote!(not(debug_assertions)), Some("debug_assertions")),
            (quote!(all(unix, any(test, panic = "abort"))), Some("panic")),
            (quote!(panic = "unwind"), Some("panic")),
            (quote!(not(any(overflow_checks))), Some("overflow_checks")),
            (quote!(ub_checks), Some("ub_checks")),
            (quote!(r#debug_assertions), Some("debug_assertions")),
            (quote!(all(unix, not(r#panic = "abort"))), Some("panic")),
            (quote!(all(unix, feature = "debug_assertions")), None),
            (quote!(any(debug, target_os = "linux")), None),
        ] {
            let cfg = Cfg::parse(cfg).unwrap();
            assert_eq!(cfg.profile_cfg(), found, "{cfg}");
        }
        let (pred, metas) =
            cfg_attr_tokens(quote!(not(debug_assertions), inline, cfg(any()))).unwrap();
        let yielded = cfg_attr_yields(&pred, &metas).unwrap();
        assert_eq!(yielded.profile_cfg(), Some("debug_assertions"), "{yielded}");
        let (pred, metas) =
            cfg_attr_tokens(quote!(unix, cfg_attr(panic = "abort", cfg(test)))).unwrap();
        let yielded = cfg_attr_yields(&pred, &metas).unwrap();
        assert_eq!(yielded.profile_cfg(), Some("panic"), "{yielded}");
        let (pred, metas) = cfg_attr_tokens(quote!(debug_assertions, inline)).unwrap();
        assert_eq!(cfg_attr_yields(&pred, &metas), None);
        let why = set_by_the_profile("panic").unwrap();
        assert!(why.contains("`[profile.*] panic`"), "{why}");
        assert_eq!(set_by_the_profile("unix"), None);
    }
}
