//! What an attribute macro needs to know about the item it stands on — its kind and name —
//! read from the item's top-level tokens, without parsing the item.
//!
//! An attribute emits its item unchanged, so parsing the whole item (a function's body
//! included) into a syntax tree and printing it back is work thrown away: the header is a
//! handful of tokens. Anything this reader does not recognize for certain returns `None`, and
//! the caller falls back to a full parse, which also reports the errors.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

/// The kinds of item read from the header alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// `fn` with a body.
    Fn,
    /// `struct`.
    Struct,
    /// `enum`.
    Enum,
    /// `const NAME: T = ...;` or `const _: T = ...;`.
    Const,
}

/// An item's header: kind and name, and its tokens.
#[derive(Debug, Clone)]
pub struct ItemHeader {
    /// What the item is.
    pub kind: ItemKind,
    /// The item's name as written (`r#` prefix removed), `_` for an unnamed const.
    pub name: String,
    /// The item's tokens, as given.
    pub tokens: Vec<TokenTree>,
}

impl ItemHeader {
    /// Reads the header of `item`: outer attributes, visibility and qualifiers
    /// (`const`, `async`, `unsafe`, `extern "abi"`, `default`), then the keyword and name.
    pub fn read(item: TokenStream) -> Option<ItemHeader> {
        let tokens: Vec<TokenTree> = item.into_iter().collect();
        let mut i = 0;
        // Outer attributes: `#` then `[...]`.
        while is_punct(tokens.get(i), '#') {
            match tokens.get(i + 1) {
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket => i += 2,
                _ => return None,
            }
        }
        // Visibility: `pub`, `pub(crate)`, `pub(in path)`, ...
        if is_ident(tokens.get(i), "pub") {
            i += 1;
            if let Some(TokenTree::Group(g)) = tokens.get(i)
                && g.delimiter() == Delimiter::Parenthesis
            {
                i += 1;
            }
        }
        let (kind, name_at) = loop {
            let TokenTree::Ident(word) = tokens.get(i)? else {
                return None;
            };
            match word.to_string().as_str() {
                "fn" => break (ItemKind::Fn, i + 1),
                "struct" => break (ItemKind::Struct, i + 1),
                "enum" => break (ItemKind::Enum, i + 1),
                // `const fn` is a qualifier; `const NAME` is a constant.
                "const"
                    if ["fn", "async", "unsafe", "extern"]
                        .iter()
                        .any(|q| is_ident(tokens.get(i + 1), q)) =>
                {
                    i += 1
                }
                "const" => break (ItemKind::Const, i + 1),
                "async" | "unsafe" | "default" | "safe" => i += 1,
                "extern" => {
                    i += 1;
                    if let Some(TokenTree::Literal(_)) = tokens.get(i) {
                        i += 1;
                    }
                }
                _ => return None,
            }
        };
        let name = match tokens.get(name_at)? {
            TokenTree::Ident(name) => {
                let name = name.to_string();
                name.strip_prefix("r#").map(str::to_string).unwrap_or(name)
            }
            TokenTree::Punct(p) if kind == ItemKind::Const && p.as_char() == '_' => "_".into(),
            _ => return None,
        };
        // The item's last token: a function's body, or what a struct, enum or const ends with.
        let last = tokens.last()?;
        let ends_well = match kind {
            ItemKind::Fn | ItemKind::Enum => is_group(last, Delimiter::Brace),
            ItemKind::Struct => is_group(last, Delimiter::Brace) || is_punct(Some(last), ';'),
            ItemKind::Const => is_punct(Some(last), ';'),
        };
        if !ends_well || tokens.len() <= name_at + 1 {
            return None;
        }
        Some(ItemHeader { kind, name, tokens })
    }

    /// The item with `first` as the first statement of its body: for a function, whose body
    /// (an `impl` block's method too) can hold an item where the item's own level may not.
    /// `None` unless the item is a function.
    pub fn with_first_in_body(mut self, first: TokenStream) -> Option<TokenStream> {
        if self.kind != ItemKind::Fn {
            return None;
        }
        let Some(TokenTree::Group(body)) = self.tokens.pop() else {
            return None;
        };
        let mut stream = first;
        stream.extend(body.stream());
        let mut new_body = Group::new(Delimiter::Brace, stream);
        new_body.set_span(body.span());
        self.tokens.push(TokenTree::Group(new_body));
        Some(self.tokens.into_iter().collect())
    }

    /// The item's tokens, unchanged.
    pub fn into_tokens(self) -> TokenStream {
        self.tokens.into_iter().collect()
    }
}

fn is_punct(tree: Option<&TokenTree>, c: char) -> bool {
    matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

fn is_ident(tree: Option<&TokenTree>, word: &str) -> bool {
    matches!(tree, Some(TokenTree::Ident(i)) if i == word)
}

fn is_group(tree: &TokenTree, delimiter: Delimiter) -> bool {
    matches!(tree, TokenTree::Group(g) if g.delimiter() == delimiter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn header(item: TokenStream) -> Option<(ItemKind, String)> {
        ItemHeader::read(item).map(|h| (h.kind, h.name))
    }

    #[test]
    fn reads_kind_and_name_of_the_items_attributes_stand_on() {
        let cases = [
            (
                quote!(
                    fn a() {}
                ),
                Some((ItemKind::Fn, "a")),
            ),
            (
                quote!(
                    #[doc = "x"]
                    #[inline]
                    pub(crate) async unsafe fn r#b<T: X>(t: T) -> u8
                    where
                        T: Y,
                    {
                        1
                    }
                ),
                Some((ItemKind::Fn, "b")),
            ),
            (
                quote!(
                    pub const extern "C" fn c() {}
                ),
                Some((ItemKind::Fn, "c")),
            ),
            (
                quote!(
                    pub(in crate::m) struct S<T>(T);
                ),
                Some((ItemKind::Struct, "S")),
            ),
            (
                quote!(
                    struct S {
                        a: u8,
                    }
                ),
                Some((ItemKind::Struct, "S")),
            ),
            (
                quote!(
                    #[derive(Debug)]
                    enum E {
                        A,
                    }
                ),
                Some((ItemKind::Enum, "E")),
            ),
            (
                quote!(
                    const _: () = ();
                ),
                Some((ItemKind::Const, "_")),
            ),
            (
                quote!(
                    pub const N: u8 = 1;
                ),
                Some((ItemKind::Const, "N")),
            ),
        ];
        for (item, expected) in cases {
            let shown = item.to_string();
            let expected = expected.map(|(k, n)| (k, n.to_string()));
            assert_eq!(header(item), expected, "{shown}");
        }
    }

    #[test]
    fn leaves_everything_else_to_the_full_parse() {
        for item in [
            quote!(impl S {}),
            quote!(
                mod m {}
            ),
            quote!(
                trait T {
                    fn f();
                }
            ),
            quote!(
                fn f();
            ),
            quote!(
                static S: u8 = 1;
            ),
            quote!(
                pub union U {
                    a: u8,
                }
            ),
            quote!(#[attr] ),
            quote!(fn),
            quote!(struct;),
            quote!(const _: () = ()),
            quote!(m! { fn f() {} }),
        ] {
            let shown = item.to_string();
            assert_eq!(header(item), None, "{shown}");
        }
    }

    #[test]
    fn inserts_first_in_a_function_body_keeping_everything_else() {
        let item = quote!(
            #[doc = "d"]
            pub async fn f(x: u8) -> u8 {
                let y = x;
                y
            }
        );
        let out = ItemHeader::read(item)
            .unwrap()
            .with_first_in_body(quote!(
                const _: () = ();
            ))
            .unwrap();
        assert_eq!(
            out.to_string(),
            quote!(
                #[doc = "d"]
                pub async fn f(x: u8) -> u8 {
                    const _: () = ();
                    let y = x;
                    y
                }
            )
            .to_string()
        );
        let s = ItemHeader::read(quote!(
            struct S;
        ))
        .unwrap();
        assert!(s.with_first_in_body(TokenStream::new()).is_none());
    }
}
