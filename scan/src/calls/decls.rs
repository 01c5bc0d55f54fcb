//! What each module of a file declares that other modules' names resolve through (its `use`s,
//! type aliases and types), read from the file's tokens without a parse: the module reader
//! of [`super::names`].

use crate::lex::{Delim, Kind, Token};

/// `use` leaves of one module: `name` → `path`, or a glob of `path` (`name` `None`).
#[derive(Debug, Clone)]
pub(super) struct UseDecl {
    pub(super) name: Option<String>,
    pub(super) path: Vec<String>,
}

/// `type Name<P, ..> = Ty;`.
#[derive(Debug, Clone)]
pub(super) struct Alias {
    pub(super) name: String,
    /// Its type parameters (`K` of `type Handle<K> = Api<K>;`).
    pub(super) params: Vec<String>,
    /// The aliased type's text.
    pub(super) ty: String,
}

/// What one module declares that other modules' names resolve through.
#[derive(Debug, Clone, Default)]
pub(super) struct ModuleDecls {
    pub(super) uses: Vec<UseDecl>,
    pub(super) aliases: Vec<Alias>,
    /// The types it defines (`struct`, `enum`, `union`, `trait`).
    pub(super) types: Vec<String>,
}

/// The declarations of a file's modules, read from its tokens.
pub(super) struct Reader<'t> {
    pub(super) body: &'t str,
    pub(super) tokens: &'t [Token],
}

impl Reader<'_> {
    fn ident(&self, i: usize) -> Option<&str> {
        let t = self.tokens.get(i)?;
        (t.kind == Kind::Ident).then(|| {
            let s = &self.body[t.start as usize..t.end as usize];
            s.strip_prefix("r#").unwrap_or(s)
        })
    }

    fn punct(&self, i: usize, c: u8) -> bool {
        matches!(self.tokens.get(i), Some(t) if t.kind == Kind::Punct(c))
    }

    fn close_of(&self, i: usize) -> Option<(Delim, usize)> {
        match self.tokens.get(i)?.kind {
            Kind::Open { delim, close } => Some((delim, close as usize)),
            _ => None,
        }
    }

    /// Past the item starting at `i`: its `;`, or a `{ }` not followed by `;`.
    fn item_end(&self, mut i: usize, hi: usize) -> usize {
        while i < hi {
            if self.punct(i, b';') {
                return i + 1;
            }
            match self.close_of(i) {
                Some((Delim::Brace, close)) if !self.punct(close + 1, b';') => return close + 1,
                Some((_, close)) => i = close + 1,
                None => i += 1,
            }
        }
        hi
    }

    /// The items of tokens `lo..hi`, module `path`: each module's declarations to `out`.
    pub(super) fn items(
        &self,
        lo: usize,
        hi: usize,
        path: &[String],
        out: &mut dyn FnMut(&[String], ModuleDecls),
    ) {
        let mut decls = ModuleDecls::default();
        let mut i = lo;
        // The item is under `#[cfg(test)]`: the operator does not run it.
        let mut test_only = false;
        while i < hi {
            match self.tokens[i].kind {
                Kind::Doc { .. } => {
                    i += 1;
                    continue;
                }
                Kind::Punct(b'#') => {
                    i += 1;
                    if self.punct(i, b'!') {
                        i += 1;
                    }
                    if let Some((_, close)) = self.close_of(i) {
                        let inner = &self.body
                            [self.tokens[i].end as usize..self.tokens[close].start as usize];
                        let inner: String = inner.split_whitespace().collect();
                        test_only |= inner == "cfg(test)";
                        i = close + 1;
                    }
                    continue;
                }
                _ => {}
            }
            if std::mem::take(&mut test_only) {
                i = self.item_end(i, hi).max(i + 1);
                continue;
            }
            if self.ident(i) == Some("pub") {
                i += 1;
                if let Some((Delim::Paren, close)) = self.close_of(i) {
                    i = close + 1;
                }
            }
            match self.ident(i) {
                Some("use") => {
                    let end = self.item_end(i, hi);
                    let mut j = i + 1;
                    while j < end.saturating_sub(1) {
                        j = self.use_tree(j, end - 1, Vec::new(), &mut decls.uses);
                    }
                    i = end;
                }
                Some("type") => {
                    let end = self.item_end(i, hi);
                    if let Some(name) = self.ident(i + 1) {
                        let name = name.to_string();
                        let (params, eq) = self.type_params(i + 2, end);
                        if self.punct(eq, b'=') && eq + 1 < end - 1 {
                            let from = self.tokens[eq + 1].start as usize;
                            let to = self.tokens[end - 1].start as usize;
                            decls.aliases.push(Alias {
                                name,
                                params,
                                ty: self.body[from..to].to_string(),
                            });
                        } else {
                            decls.types.push(name);
                        }
                    }
                    i = end;
                }
                Some(kw @ ("struct" | "enum" | "union" | "trait")) => {
                    if let Some(name) = self.ident(i + 1)
                        && !(kw == "union" && name == "fn")
                    {
                        decls.types.push(name.to_string());
                    }
                    i = self.item_end(i, hi);
                }
                Some("mod") => match (self.ident(i + 1), self.close_of(i + 2)) {
                    (Some(name), Some((Delim::Brace, close))) => {
                        let inner = [path, &[name.to_string()]].concat();
                        self.items(i + 3, close, &inner, out);
                        i = close + 1;
                    }
                    _ => i = self.item_end(i, hi),
                },
                _ => i = self.item_end(i, hi).max(i + 1),
            }
        }
        out(path, decls);
    }

    /// One use tree from `i` (before `end`, the `;` or the group's `}`), its leaves to `out`;
    /// returns where the next tree of a group starts.
    fn use_tree(
        &self,
        mut i: usize,
        end: usize,
        mut prefix: Vec<String>,
        out: &mut Vec<UseDecl>,
    ) -> usize {
        if self.punct(i, b':') && self.punct(i + 1, b':') {
            i += 2;
        }
        while i < end {
            if self.punct(i, b'*') {
                out.push(UseDecl {
                    name: None,
                    path: prefix,
                });
                return self.past_comma(i + 1, end);
            }
            if let Some((Delim::Brace, close)) = self.close_of(i) {
                let mut j = i + 1;
                while j < close {
                    j = self.use_tree(j, close, prefix.clone(), out);
                }
                return self.past_comma(close + 1, end);
            }
            let Some(seg) = self.ident(i) else {
                return self.past_comma(i + 1, end);
            };
            let seg = seg.to_string();
            if self.punct(i + 1, b':') && self.punct(i + 2, b':') {
                prefix.push(seg);
                i += 3;
                continue;
            }
            let path = if seg == "self" {
                prefix.clone()
            } else {
                [prefix.as_slice(), std::slice::from_ref(&seg)].concat()
            };
            let (name, next) = match (self.ident(i + 1), self.ident(i + 2)) {
                (Some("as"), Some(rename)) => (rename.to_string(), i + 3),
                _ if seg == "self" => (prefix.last().cloned().unwrap_or_default(), i + 1),
                _ => (seg, i + 1),
            };
            if name != "_" && !name.is_empty() {
                out.push(UseDecl {
                    name: Some(name),
                    path,
                });
            }
            return self.past_comma(next, end);
        }
        end
    }

    /// A `type`'s generic parameters from `i` (its `<`, if any): their type parameters' names,
    /// and the index past them.
    fn type_params(&self, i: usize, end: usize) -> (Vec<String>, usize) {
        if !self.punct(i, b'<') {
            return (Vec::new(), i);
        }
        let mut params = Vec::new();
        let mut depth = 0;
        for j in i..end {
            if self.punct(j, b'<') {
                depth += 1;
            } else if self.punct(j, b'>') && !self.punct(j.wrapping_sub(1), b'-') {
                depth -= 1;
                if depth == 0 {
                    return (params, j + 1);
                }
            } else if depth == 1
                && (self.punct(j - 1, b'<') || self.punct(j - 1, b','))
                && let Some(param) = self.ident(j)
                && param != "const"
            {
                params.push(param.to_string());
            }
        }
        (params, end)
    }

    fn past_comma(&self, i: usize, end: usize) -> usize {
        if i < end && self.punct(i, b',') {
            i + 1
        } else {
            i
        }
    }
}
