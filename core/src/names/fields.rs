//! JSON names of struct fields, as serde (and so schemars) spells them, read from the field's
//! and its container's `#[serde(...)]` attributes.

/// serde's `rename_all` rules.
pub fn apply_rename_all(rule: &str, field: &str) -> Option<String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let cap = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    Some(match rule {
        "lowercase" => field.to_lowercase(),
        "UPPERCASE" => field.to_uppercase(),
        "PascalCase" => words.iter().map(|w| cap(w)).collect(),
        "camelCase" => {
            let mut out = String::new();
            for (i, w) in words.iter().enumerate() {
                if i == 0 {
                    out.push_str(w);
                } else {
                    out.push_str(&cap(w));
                }
            }
            out
        }
        "snake_case" => field.to_string(),
        "SCREAMING_SNAKE_CASE" => field.to_uppercase(),
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => field.to_uppercase().replace('_', "-"),
        _ => return None,
    })
}

/// Calls `f(key, value)` for every top-level key of every `#[<attr>(...)]` named `attr`,
/// skipping over values and nested lists it does not understand. The value is the string of
/// `key = "..."`, or, for the two-sided `key(serialize = "...", deserialize = "...")`, its
/// `deserialize` side: kube builds CRD schemas with schemars' default contract, which describes
/// what deserializes (the API server validates what clients send to the operator).
fn for_each_key(
    attrs: &[syn::Attribute],
    attr: &str,
    mut f: impl FnMut(&syn::Path, Option<String>),
) {
    let string = |value: syn::Expr| match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    };
    for a in attrs.iter().filter(|a| a.path().is_ident(attr)) {
        let _ = a.parse_nested_meta(|meta| {
            if meta.input.peek(syn::Token![=]) {
                let value = meta.value()?.parse::<syn::Expr>()?;
                f(&meta.path, string(value));
            } else if meta.input.peek(syn::token::Paren) {
                let mut deserialize = None;
                let _ = meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let value = inner.value()?.parse::<syn::Expr>()?;
                        if inner.path.is_ident("deserialize") {
                            deserialize = string(value);
                        }
                    }
                    Ok(())
                });
                f(&meta.path, deserialize);
            } else {
                f(&meta.path, None);
            }
            Ok(())
        });
    }
}

/// `<key> = "..."` (or its `deserialize` side) as schemars reads it: `#[schemars(...)]` wins
/// over `#[serde(...)]`, the last one written wins within each.
pub fn serde_str(attrs: &[syn::Attribute], key: &str) -> Option<String> {
    let mut found = None;
    for attr in ["serde", "schemars"] {
        for_each_key(attrs, attr, |path, value| {
            if path.is_ident(key) && value.is_some() {
                found = value;
            }
        });
    }
    found
}

/// Whether `#[serde(<flag>)]` or `#[schemars(<flag>)]` (with or without a value) is present.
pub fn serde_has(attrs: &[syn::Attribute], flag: &str) -> bool {
    let mut found = false;
    for attr in ["serde", "schemars"] {
        for_each_key(attrs, attr, |path, _| found |= path.is_ident(flag));
    }
    found
}

/// The first `#[cfg_attr(..., serde(...))]` or `cfg_attr(..., schemars(...))`: the markers
/// cannot know whether the build applies it, so the JSON names they compute may be wrong.
pub fn conditional_naming(attrs: &[syn::Attribute]) -> Option<proc_macro2::Span> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg_attr"))
        .find(|a| {
            let mut names = false;
            let _ = a.parse_nested_meta(|meta| {
                names |= meta.path.is_ident("serde") || meta.path.is_ident("schemars");
                if meta.input.peek(syn::token::Paren) {
                    let _ = meta.input.parse::<proc_macro2::Group>();
                } else if meta.input.peek(syn::Token![=]) {
                    let _ = meta.value()?.parse::<syn::Expr>();
                }
                Ok(())
            });
            names
        })
        .map(|a| a.pound_token.span)
}

/// The name serde gives a named field: its `rename`, else the struct's `rename_all` of it.
pub fn json_name(field: &syn::Field, rename_all: Option<&str>) -> Option<String> {
    field.ident.as_ref().map(|ident| {
        let raw = ident.to_string();
        let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_string();
        serde_str(&field.attrs, "rename")
            .or_else(|| rename_all.and_then(|r| apply_rename_all(r, &raw)))
            .unwrap_or(raw)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_all_rules() {
        assert_eq!(
            apply_rename_all("camelCase", "ready_replicas").unwrap(),
            "readyReplicas"
        );
        assert_eq!(
            apply_rename_all("PascalCase", "ready_replicas").unwrap(),
            "ReadyReplicas"
        );
        assert_eq!(
            apply_rename_all("kebab-case", "ready_replicas").unwrap(),
            "ready-replicas"
        );
        assert_eq!(
            apply_rename_all("SCREAMING_SNAKE_CASE", "a_b").unwrap(),
            "A_B"
        );
        assert_eq!(apply_rename_all("camelCase", "image").unwrap(), "image");
        assert!(apply_rename_all("nope", "x").is_none());
    }

    #[test]
    fn serde_attributes() {
        let attrs: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]),
            syn::parse_quote!(#[doc = "x"]),
        ];
        assert_eq!(serde_str(&attrs, "rename").as_deref(), Some("type"));
        assert!(serde_has(&attrs, "default"));
        assert!(!serde_has(&attrs, "flatten"));
    }

    #[test]
    fn two_sided_names_take_the_deserialize_side() {
        let attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(
            #[serde(rename(serialize = "out", deserialize = "in"))]
        )];
        assert_eq!(serde_str(&attrs, "rename").as_deref(), Some("in"));
        let only_serialize: Vec<syn::Attribute> =
            vec![syn::parse_quote!(#[serde(rename(serialize = "out"))])];
        assert_eq!(serde_str(&only_serialize, "rename"), None);
    }

    #[test]
    fn schemars_names_win_over_serde() {
        let attrs: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[schemars(rename_all = "snake_case")]),
            syn::parse_quote!(#[serde(rename_all = "camelCase")]),
        ];
        assert_eq!(
            serde_str(&attrs, "rename_all").as_deref(),
            Some("snake_case")
        );
    }

    #[test]
    fn naming_under_cfg_attr_is_found() {
        let conditional: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[cfg_attr(feature = "x", derive(Debug))]),
            syn::parse_quote!(#[cfg_attr(all(), serde(rename_all = "camelCase"))]),
        ];
        assert!(conditional_naming(&conditional).is_some());
        let plain: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[cfg_attr(feature = "x", derive(Debug))]),
            syn::parse_quote!(#[serde(rename_all = "camelCase")]),
        ];
        assert!(conditional_naming(&plain).is_none());
    }
}
