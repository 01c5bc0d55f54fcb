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

/// Calls `f(key, string value if any)` for every top-level key of every `#[serde(...)]`,
/// skipping over values and nested lists it does not understand.
fn for_each_serde_key(attrs: &[syn::Attribute], mut f: impl FnMut(&syn::Path, Option<String>)) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.input.peek(syn::Token![=]) {
                let value = meta.value()?.parse::<syn::Expr>()?;
                let text = match value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                };
                f(&meta.path, text);
            } else if meta.input.peek(syn::token::Paren) {
                f(&meta.path, None);
                let _ = meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let _ = inner.value()?.parse::<syn::Expr>();
                    }
                    Ok(())
                });
            } else {
                f(&meta.path, None);
            }
            Ok(())
        });
    }
}

/// `#[serde(<key> = "...")]` on these attributes, if present.
pub fn serde_str(attrs: &[syn::Attribute], key: &str) -> Option<String> {
    let mut found = None;
    for_each_serde_key(attrs, |path, value| {
        if path.is_ident(key) && value.is_some() {
            found = value;
        }
    });
    found
}

/// Whether `#[serde(<flag>)]` (or `#[serde(<flag> = ...)]`) is present.
pub fn serde_has(attrs: &[syn::Attribute], flag: &str) -> bool {
    let mut found = false;
    for_each_serde_key(attrs, |path, _| found |= path.is_ident(flag));
    found
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
}
