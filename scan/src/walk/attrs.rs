//! The walk's attributes: read from tokens, their `cfg`s and `path`s, and ours recorded
//! (only these small slices are handed to proc-macro2/syn).

use super::{Attr, Walker, is_keyword};
use crate::lex::{Delim, Kind};
use crate::{Cfg, FoundAttr, cfg_attr_tokens};
use proc_macro2::LineColumn;

impl Walker<'_> {
    /// The outer attributes (and doc comments) starting at `i`, and the index after them.
    /// Inner attributes met here (`#![...]` not at the start of a body) are skipped too.
    pub(super) fn attrs_at(&self, mut i: usize, hi: usize) -> (Vec<Attr>, usize) {
        let mut attrs = Vec::new();
        while i < hi {
            match self.toks[i].kind {
                Kind::Doc { .. } => {
                    attrs.push(Attr {
                        pound: i,
                        bracket: None,
                    });
                    i += 1;
                }
                Kind::Punct(b'#') if i + 1 < hi && self.is_group(i + 1, Delim::Bracket) => {
                    attrs.push(Attr {
                        pound: i,
                        bracket: Some(i + 1),
                    });
                    i = self.next(i + 1);
                }
                Kind::Punct(b'#')
                    if i + 2 < hi
                        && self.is_punct(i + 1, b'!')
                        && self.is_group(i + 2, Delim::Bracket) =>
                {
                    i = self.next(i + 2);
                }
                _ => break,
            }
        }
        (attrs, i)
    }

    /// The inner attributes at the start of the body group opening at `open`, and the index
    /// of the body's first other token.
    pub(super) fn inner_attrs(&self, open: usize) -> (Vec<Attr>, usize) {
        let close = self.group(open).map_or(open, |(_, c)| c);
        let mut i = open + 1;
        let mut attrs = Vec::new();
        while i < close {
            match self.toks[i].kind {
                Kind::Doc { inner: true } => i += 1,
                Kind::Punct(b'#')
                    if self.is_punct(i + 1, b'!') && self.is_group(i + 2, Delim::Bracket) =>
                {
                    attrs.push(Attr {
                        pound: i,
                        bracket: Some(i + 2),
                    });
                    i = self.next(i + 2);
                }
                _ => break,
            }
        }
        (attrs, i)
    }

    /// `#[cfg(...)]`'s predicate. One that does not parse is kept as a name no build sets.
    pub(super) fn cfg_of(&self, attr: Attr) -> Option<Cfg> {
        let open = attr.bracket?;
        let (_, close) = self.group(open)?;
        // A `cfg_attr` yielding a `cfg` removes its item too.
        if self.is_ident(open + 1, "cfg_attr") && close > open + 2 {
            let (_, group_close) = self.group(open + 2)?;
            if group_close + 1 != close {
                return None;
            }
            let tokens = self.reparse(self.inner_text(open + 2))?;
            let (pred, metas) = cfg_attr_tokens(tokens).ok()?;
            return kube_markers_core::cfg::cfg_attr_yields(&pred, &metas);
        }
        // Exactly `cfg` followed by one group.
        if !(self.is_ident(open + 1, "cfg") && close > open + 2) {
            return None;
        }
        let (_, group_close) = self.group(open + 2)?;
        if group_close + 1 != close {
            return None;
        }
        let text = self.inner_text(open + 2);
        Some(match self.reparse(text) {
            Some(tokens) => {
                Cfg::parse(tokens.clone()).unwrap_or_else(|_| Cfg::Name(tokens.to_string()))
            }
            None => Cfg::Name(text.to_string()),
        })
    }

    /// Records the attribute if it is one of ours, or the ones a `cfg_attr` holds.
    pub(super) fn record(&mut self, attr: Attr) {
        let Some(open) = attr.bracket else {
            return;
        };
        let (_, close) = self.group(open).expect("a bracket");
        let at = self.position_of(attr.pound);
        self.record_meta(open + 1, close, at);
    }

    /// The meta in tokens `lo..hi` (inside `#[...]`), placed at `at` if it is one of ours.
    pub(super) fn record_meta(&mut self, lo: usize, hi: usize, at: (usize, usize)) {
        let Some((leading, segs, after)) = self.path(lo, hi) else {
            return;
        };
        let names: Vec<&str> = segs.iter().map(|&s| self.src(s)).collect();
        if let Some(kind) = crate::attr_kind_of(leading, &names) {
            let args = match self.group(after) {
                Some((_, close)) if close + 1 == hi => self.inner_text(after),
                _ => "",
            };
            self.out.attrs.push(FoundAttr {
                kind,
                line: at.0,
                column: at.1,
                outer: None,
                cfgs: self.cfgs.clone(),
                args: args.to_string(),
            });
        } else if !leading && names == ["cfg_attr"] {
            let Some((_, close)) = self.group(after) else {
                return;
            };
            // Only a `cfg_attr` naming one of our attributes can record one.
            let ours = (after + 1..close).any(|i| {
                matches!(
                    self.ident(i),
                    Some("rbac" | "crd" | "webhook" | "webhook_configuration" | "conversion")
                )
            });
            if !ours {
                return;
            }
            let base = self.toks[after].end;
            let base = self.position(base);
            let text = self.inner_text(after);
            let Some(tokens) = self.reparse(text) else {
                return;
            };
            let Ok((pred, metas)) = cfg_attr_tokens(tokens) else {
                return;
            };
            // Spans of the re-parsed slice count from its start: line 1 continues the
            // attribute's line after the `(`.
            let place = |p: LineColumn| -> (usize, usize) {
                if p.line == 1 {
                    (base.0, base.1 + p.column)
                } else {
                    (base.0 + p.line - 1, p.column + 1)
                }
            };
            let cfgs = self.cfgs.clone();
            let mut found = Vec::new();
            crate::record_cfg_attr(&pred, &metas, at, None, &[], &place, &mut |f| found.push(f));
            for (kind, (line, column), outer, extra, args) in found {
                let mut all = cfgs.clone();
                all.extend(extra);
                self.out.attrs.push(FoundAttr {
                    kind,
                    line,
                    column,
                    outer,
                    cfgs: all,
                    args,
                });
            }
        }
    }

    /// `#[path = "..."]`'s file.
    pub(super) fn path_attr_of(&self, attr: Attr) -> Option<String> {
        let open = attr.bracket?;
        let (_, close) = self.group(open)?;
        if !(self.is_ident(open + 1, "path") && self.is_punct(open + 2, b'=') && open + 4 == close)
            || self.toks[open + 3].kind != Kind::Literal
        {
            return None;
        }
        syn::parse_str::<syn::LitStr>(self.src(open + 3))
            .ok()
            .map(|l| l.value())
    }

    /// `#[cfg_attr(pred, ..., path = "...")]`: the predicate and the (last) file.
    pub(super) fn cfg_path_of(&self, attr: Attr) -> Option<(Cfg, String)> {
        let open = attr.bracket?;
        let (_, close) = self.group(open)?;
        if !(self.is_ident(open + 1, "cfg_attr") && self.group(open + 2)?.1 + 1 == close) {
            return None;
        }
        let tokens = self.reparse(self.inner_text(open + 2))?;
        let (pred, metas) = cfg_attr_tokens(tokens).ok()?;
        let path = metas.iter().rev().find_map(crate::path_attr_of)?;
        Some((pred, path))
    }

    /// Whether `[...]` at `open` holds what syn parses as a `Meta`: a path, alone, followed
    /// by one group, or by `= <expression>`. Only the unusual shapes are handed to syn.
    pub(super) fn meta_parses(&self, open: usize) -> bool {
        let Some((_, close)) = self.group(open) else {
            return false;
        };
        let lo = open + 1;
        let plain = self.path(lo, close).and_then(|(leading, segs, after)| {
            let head = self.src(segs[0]);
            if !leading && is_keyword(head) || segs.iter().any(|&s| self.src(s) == "_") {
                return None;
            }
            if after == close {
                return Some(true);
            }
            if let Some((_, group_close)) = self.group(after) {
                return (group_close + 1 == close).then_some(true);
            }
            // `= "literal"`; any longer expression goes to syn.
            if self.is_punct(after, b'=')
                && after + 2 == close
                && self.toks[after + 1].kind == Kind::Literal
            {
                return Some(true);
            }
            None
        });
        if let Some(answer) = plain {
            return answer;
        }
        self.reparse(self.inner_text(open))
            .is_some_and(|tokens| syn::parse2::<syn::Meta>(tokens).is_ok())
    }
}
