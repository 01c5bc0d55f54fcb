//! The walk's items: what kind of item starts at a token, told by its keywords, and where it
//! ends (its body or its `;`), without parsing it.

use super::{Ctx, Item, ItemKind, Walker, is_edition_keyword, is_keyword};
use crate::lex::{Delim, Kind};

impl Walker<'_> {
    /// The first top-level `{ }` of an item from `i` outside `<...>` (not a const generic
    /// argument), or its `;`: (end, body).
    pub(super) fn body_or_semi(&self, mut i: usize, hi: usize) -> (usize, Option<usize>) {
        let mut angles = 0usize;
        while i < hi {
            match self.toks[i].kind {
                Kind::Punct(b';') if angles == 0 => return (i + 1, None),
                Kind::Punct(b'<') => angles += 1,
                // Not the `>` of `->` or `=>`.
                Kind::Punct(b'>')
                    if !(self.is_punct(i - 1, b'-') || self.is_punct(i - 1, b'=')) =>
                {
                    angles = angles.saturating_sub(1)
                }
                // Not a macro's braces in the signature (`-> t! { .. } { body }`), where a
                // name stands before the `!`: before the body of `-> ! { .. }` stands a `>`,
                // and before that of `impl Trait for ! { .. }` the keyword `for`.
                Kind::Open {
                    delim: Delim::Brace,
                    close,
                } if angles == 0
                    && !(i >= 2
                        && self.is_punct(i - 1, b'!')
                        && self.toks[i - 2].kind == Kind::Ident
                        && self
                            .ident(i - 2)
                            .is_some_and(|name| !is_keyword(name) || is_edition_keyword(name))) =>
                {
                    return (close as usize + 1, Some(i));
                }
                _ => {}
            }
            i = self.next(i);
        }
        (hi, None)
    }

    /// One past the first top-level `;` from `i`.
    pub(super) fn to_semi(&self, mut i: usize, hi: usize) -> usize {
        while i < hi {
            if self.is_punct(i, b';') {
                return i + 1;
            }
            i = self.next(i);
        }
        hi
    }

    /// The item starting at `i` (after its outer attributes), if the tokens start one.
    pub(super) fn classify(&self, i: usize, hi: usize, ctx: Ctx, has_attrs: bool) -> Option<Item> {
        let word = |j: usize| if j < hi { self.ident(j) } else { None };
        let mut j = i;
        let mut qualified = false;
        if word(j) == Some("pub") {
            j += 1;
            qualified = true;
            if j < hi && self.is_group(j, Delim::Paren) {
                j = self.next(j);
            }
        }
        loop {
            match word(j) {
                Some("default")
                    if matches!(
                        word(j + 1),
                        Some("fn" | "impl" | "type" | "const" | "unsafe" | "async" | "extern")
                    ) => {}
                Some("unsafe") if !(j + 1 < hi && self.is_group(j + 1, Delim::Brace)) => {}
                Some("async") if matches!(word(j + 1), Some("fn" | "unsafe" | "extern")) => {}
                Some("const")
                    if matches!(word(j + 1), Some("fn" | "unsafe" | "async" | "extern")) => {}
                Some("safe") if matches!(word(j + 1), Some("fn" | "static")) => {}
                Some("auto") if word(j + 1) == Some("trait") => {}
                Some("extern") => {
                    let mut k = j + 1;
                    if k < hi && self.toks[k].kind == Kind::Literal {
                        k += 1;
                    }
                    if word(k) == Some("crate") {
                        return Some(self.plain(i, k, hi));
                    }
                    if word(k) == Some("fn") {
                        j = k;
                        continue;
                    }
                    if k < hi && self.is_group(k, Delim::Brace) {
                        let close = self.group(k)?.1;
                        return Some(Item {
                            kind: ItemKind::Foreign,
                            end: close + 1,
                            body: Some(k),
                        });
                    }
                    return None;
                }
                _ => break,
            }
            j += 1;
            qualified = true;
        }
        let next_is_ident = word(j + 1).is_some();
        match word(j) {
            Some("fn") if next_is_ident => {
                let (end, body) = self.body_or_semi(j + 2, hi);
                Some(Item {
                    kind: ItemKind::WithBody,
                    end,
                    body,
                })
            }
            Some("impl" | "trait") => {
                let (end, body) = self.body_or_semi(j + 1, hi);
                Some(Item {
                    kind: ItemKind::WithBody,
                    end,
                    body,
                })
            }
            // `union` is a keyword only before a name and its fields (`union U<T> where ..
            // { .. }`); elsewhere it is a plain name (`union as u8 - 1 < limit`).
            Some("union")
                if !(next_is_ident
                    && word(j + 1).is_some_and(|n| !is_keyword(n))
                    && (self.is_punct(j + 2, b'<')
                        || word(j + 2) == Some("where")
                        || j + 2 < hi && self.is_group(j + 2, Delim::Brace))) =>
            {
                self.macro_item(i, hi, ctx, has_attrs)
            }
            Some("struct" | "enum" | "union") if next_is_ident => {
                let (end, body) = self.body_or_semi(j + 2, hi);
                Some(Item {
                    kind: ItemKind::Plain,
                    end,
                    body,
                })
            }
            Some("mod") if next_is_ident => {
                if self.is_punct(j + 2, b';') && j + 2 < hi {
                    Some(Item {
                        kind: ItemKind::ModDecl(j + 1),
                        end: j + 3,
                        body: None,
                    })
                } else if j + 2 < hi && self.is_group(j + 2, Delim::Brace) {
                    Some(Item {
                        kind: ItemKind::ModInline(j + 1),
                        end: self.next(j + 2),
                        body: Some(j + 2),
                    })
                } else {
                    None
                }
            }
            Some("type" | "use") => Some(self.plain(i, j, hi)),
            Some("static") if next_is_ident => Some(self.plain(i, j, hi)),
            Some("const") if next_is_ident || self.is_ident(j + 1, "_") => {
                Some(self.plain(i, j, hi))
            }
            Some("macro") if next_is_ident && !qualified => {
                let (end, _) = self.body_or_semi(j + 2, hi);
                Some(Item {
                    kind: ItemKind::Verbatim,
                    end,
                    body: None,
                })
            }
            _ if qualified => None,
            _ => self.macro_item(i, hi, ctx, has_attrs),
        }
    }

    pub(super) fn plain(&self, _i: usize, j: usize, hi: usize) -> Item {
        Item {
            kind: ItemKind::Plain,
            end: self.to_semi(j, hi),
            body: None,
        }
    }

    /// `path! (...)` / `path! name {...}` at `i`, as an item or statement (in a block, a
    /// macro followed by anything but `;` is an expression, whose attributes syn does not
    /// count as the item's).
    pub(super) fn macro_item(
        &self,
        i: usize,
        hi: usize,
        ctx: Ctx,
        has_attrs: bool,
    ) -> Option<Item> {
        let (bang, named) = self.macro_at(i, hi)?;
        let group = if named { bang + 2 } else { bang + 1 };
        let (delim, close) = self.group(group)?;
        let mut end = close + 1;
        let semi = end < hi && self.is_punct(end, b';');
        if self.is_ident(i, "macro_rules") && bang == i + 1 && named {
            if semi {
                end += 1;
            }
            return Some(Item {
                kind: ItemKind::MacroRules,
                end,
                body: None,
            });
        }
        let statement = named
            || ctx == Ctx::Items
            || !has_attrs
            || semi
            || (delim == Delim::Brace
                && !(end < hi && (self.is_punct(end, b'?') || self.is_dot_not_range(end))));
        if !statement {
            return None;
        }
        if semi {
            end += 1;
        }
        Some(Item {
            kind: ItemKind::MacroCall(i, bang, group),
            end,
            body: None,
        })
    }

    pub(super) fn is_dot_not_range(&self, i: usize) -> bool {
        self.is_punct(i, b'.') && !self.is_punct(i + 1, b'.')
    }

    /// A macro invocation's path at `i`: the index of its `!`, and whether a name follows
    /// (`macro_rules! name`).
    pub(super) fn macro_at(&self, i: usize, hi: usize) -> Option<(usize, bool)> {
        let first = if self.is_punct(i, b':') { i + 2 } else { i };
        let head = self.ident(first)?;
        if is_keyword(head)
            && !is_edition_keyword(head)
            && !matches!(head, "self" | "super" | "crate" | "Self")
        {
            return None;
        }
        let after = self.path_end(i, hi)?;
        if !(after < hi && self.is_punct(after, b'!')) {
            return None;
        }
        // `a != b` is no macro.
        if after + 1 < hi && self.group(after + 1).is_some() {
            return Some((after, false));
        }
        if after + 2 < hi && self.ident(after + 1).is_some() && self.group(after + 2).is_some() {
            return Some((after, true));
        }
        None
    }
}
