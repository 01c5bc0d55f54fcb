//! Where a statement (or a match arm) under a `#[cfg]` ends: the scope of that cfg.
//!
//! An expression with a block (a block, `unsafe { }`, `const { }`, `if`, `match`, `loop`,
//! `while`, `for`, any of them labeled) ends a statement without a `;` unless a method call
//! or `?` goes on from it, as syn's and rustc's statement parsers read it; anything else ends
//! at its `;` or `,` (an arm with a block body at that block).

use super::{Walker, is_edition_keyword, is_keyword};
use crate::lex::{Delim, Kind};

impl Walker<'_> {
    /// One past the statement or arm that starts at `j`.
    pub(super) fn stmt_end(&self, j: usize, hi: usize) -> usize {
        if let Some(end) = self.block_like_end(j, hi) {
            return end;
        }
        let mut k = j;
        while k < hi && !self.is_punct(k, b';') && !self.is_punct(k, b',') {
            // An arm's block body needs no `,`: `=> { ... }` ends it.
            if self.is_punct(k, b'=')
                && self.is_punct(k + 1, b'>')
                && self.is_group(k + 2, Delim::Brace)
            {
                return self.next(k + 2);
            }
            k = self.next(k);
        }
        k
    }

    /// One past the expression with a block starting at `j` when it is a whole statement:
    /// `None` when `j` starts no such expression, or when a method call, `?`, an arm's `=>`
    /// or a pattern's `|` goes on after it.
    fn block_like_end(&self, j: usize, hi: usize) -> Option<usize> {
        let mut k = j;
        if k < hi && self.toks[k].kind == Kind::Lifetime && self.is_punct(k + 1, b':') {
            k += 2;
        }
        let brace_at = |at: usize| at < hi && self.is_group(at, Delim::Brace);
        let end = if brace_at(k) {
            self.next(k)
        } else {
            match self.ident(k)? {
                "unsafe" | "const" | "loop" if brace_at(k + 1) => self.next(k + 1),
                "while" | "match" => self.next(self.body_after(k + 1, hi, false)?),
                "for" => self.next(self.body_after(k + 1, hi, true)?),
                "if" => self.if_end(k, hi)?,
                _ => return None,
            }
        };
        let goes_on = (self.is_punct(end, b'.') && !self.is_punct(end + 1, b'.'))
            || self.is_punct(end, b'?')
            || (self.is_punct(end, b'=') && self.is_punct(end + 1, b'>'))
            || self.is_punct(end, b'|');
        (end <= hi && !goes_on).then_some(end)
    }

    /// One past an `if` at `k` and its `else if` / `else` chain.
    fn if_end(&self, mut k: usize, hi: usize) -> Option<usize> {
        loop {
            let end = self.next(self.body_after(k + 1, hi, false)?);
            if !self.is_ident(end, "else") {
                return Some(end);
            }
            if self.is_ident(end + 1, "if") {
                k = end + 1;
            } else if end + 1 < hi && self.is_group(end + 1, Delim::Brace) {
                return Some(self.next(end + 1));
            } else {
                return None;
            }
        }
    }

    /// The body's `{` of an `if`, `while`, `match` or `for` whose condition, scrutinee or
    /// pattern starts at `k`: the first top-level brace that is neither an operand (a block
    /// right after the keyword or an operator: `if !{ x } { .. }`) nor a pattern's (between
    /// `let` and its `=`, `for` and its `in`), since a struct literal cannot stand there.
    fn body_after(&self, mut k: usize, hi: usize, mut in_pattern: bool) -> Option<usize> {
        let for_pattern = in_pattern;
        let mut operand = true;
        while k < hi {
            match self.toks[k].kind {
                Kind::Open {
                    delim: Delim::Brace,
                    ..
                } => {
                    if !operand && !in_pattern {
                        return Some(k);
                    }
                    operand = false;
                }
                Kind::Open { .. } | Kind::Literal | Kind::Lifetime => operand = false,
                Kind::Ident => {
                    let word = self.src(k);
                    match word {
                        "let" => {
                            in_pattern = true;
                            operand = true;
                        }
                        "in" if for_pattern && in_pattern => {
                            in_pattern = false;
                            operand = true;
                        }
                        "true" | "false" | "self" | "Self" | "super" | "crate" => operand = false,
                        // `x.await { .. }`, `if gen { .. }` (a name before 2024).
                        _ => operand = is_keyword(word) && !is_edition_keyword(word),
                    }
                }
                Kind::Punct(b'=') if in_pattern && self.lone_eq(k) => {
                    in_pattern = false;
                    operand = true;
                }
                Kind::Punct(b'?') => operand = false,
                // A `>` closes a type (`x as Box<T> { .. }`) far more often than it compares
                // with a block (`x > { 5 }`); taken wrongly, the scope ends early, which costs
                // the attribute cfgs, never an item. `->` opens a closure's block.
                Kind::Punct(b'>') => operand = self.is_punct(k - 1, b'-'),
                _ => operand = true,
            }
            k = self.next(k);
        }
        None
    }

    /// Whether the `=` at `k` is the `=` of `let PAT = value`, not part of `==`, `=>` or
    /// `..=` (a pattern holds no other operator).
    fn lone_eq(&self, k: usize) -> bool {
        let joined = self.is_punct(k + 1, b'=')
            || self.is_punct(k + 1, b'>')
            || self.is_punct(k - 1, b'.')
            || self.is_punct(k - 1, b'=');
        !joined
    }
}
