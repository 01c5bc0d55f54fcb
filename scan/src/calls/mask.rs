//! What syn is given to parse: the file with everything that cannot hold or name a kube call
//! blanked out, every place kept where it was. The parse is most of the call scan's time, and
//! most of an operator's text (its types, its object builders, its docs) makes no call.

use super::methods;
use crate::lex::{Delim, Kind, Token};

/// The words a kube call the scan recognizes names: the `Api`, kube-runtime's wiring, and
/// kube's request parameters (a call on a receiver the scan cannot type).
/// A name the file's `use`s give one of them (`use kube::Api as KApi;`) keeps an item too.
const KUBE_WORDS: [&[u8]; 9] = [
    b"Api",
    b"Controller",
    b"finalizer",
    b"watcher",
    b"Recorder",
    b"await_condition",
    b"Params",
    b"LeaderElection",
    b"watch_object",
];

/// Where the first of [`KUBE_WORDS`] at or after `from` starts, anywhere in the text (in a
/// comment or a string too). One pass over the bytes: `str::contains` for each word, the
/// searcher instantiated at this crate's low optimization level, was a tenth of the scan.
pub(super) fn next_kube_word(text: &[u8], from: usize) -> Option<usize> {
    // Each word by its first two bytes (no two share them): most bytes are ruled out
    // without a call, at the scan's low optimization level.
    let at =
        |i: usize, word: &[u8]| text.len() - i >= word.len() && &text[i..i + word.len()] == word;
    let mut i = from;
    while i + 1 < text.len() {
        let found = match (text[i], text[i + 1]) {
            (b'A', b'p') => at(i, KUBE_WORDS[0]),
            (b'C', b'o') => at(i, KUBE_WORDS[1]),
            (b'f', b'i') => at(i, KUBE_WORDS[2]),
            (b'w', b'a') => at(i, KUBE_WORDS[3]) || at(i, KUBE_WORDS[8]),
            (b'R', b'e') => at(i, KUBE_WORDS[4]),
            (b'a', b'w') => at(i, KUBE_WORDS[5]),
            (b'P', b'a') => at(i, KUBE_WORDS[6]),
            (b'L', b'e') => at(i, KUBE_WORDS[7]),
            _ => false,
        };
        if found {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `text` with blanks for: each `use` (the module reader gives the visitor the file's
/// `use`s, `CrateNames::uses_of`); each top-level item that names (in an identifier or a
/// literal, not in a comment or doc) none of [`KUBE_WORDS`], none of the names the file's
/// `use`s give them, none of `names` (the crate's generic functions whose call sites fix a
/// `K`) and no `.get::<`/`.list::<` (a `Client`'s request); each item under `#[cfg(test)]`
/// or `#[test]`; and, in the items kept, their doc
/// comments and the outer attributes the call scan does not read (all but `cfg` and `*test`,
/// which say what is test-only); inside a kept `impl`, `trait` or `mod`, the same of its items
/// (one calling a method named as an `Api`'s kept too: its receiver may be typed in another
/// item); and inside a kept function, the statements that can hold nothing the scan reads
/// (see `Items::statements`). A blank keeps its newlines, and one space for each character
/// after its last one, so that every line and column of the rest stays where it was (and
/// syn's lexer is not given thousands of spaces to skip). `None` when nothing is
/// blanked, or the text does not lex (syn then parses it whole, and says what is wrong).
#[cfg(test)]
pub(super) fn masked(text: &str, names: &[String]) -> Option<String> {
    let tokens = lex_text(text);
    mask(text, tokens.as_deref(), true, names)
}

/// [`masked`] of a text whose tokens (without its BOM) are `tokens`, `None` when it does
/// not lex.
pub(super) fn masked_lexed(
    text: &str,
    tokens: Option<&[Token]>,
    names: &[String],
) -> Option<String> {
    mask(text, tokens, true, names)
}

#[cfg(test)]
fn lex_text(text: &str) -> Option<Vec<Token>> {
    crate::lex_body(text.strip_prefix('\u{feff}').unwrap_or(text)).ok()
}

/// [`masked`] blanking only whole top-level items (`use`s kept), their docs, attributes,
/// inner items and statements kept: the tests' oracle.
#[cfg(test)]
pub(super) fn items_masked(text: &str, names: &[String]) -> Option<String> {
    let tokens = lex_text(text);
    mask(text, tokens.as_deref(), false, names)
}

/// Whether [`masked`] with `names` keeps an item [`masked`] with `before` blanks: whether the
/// file (its tokens `tokens`, `None` when it does not lex) must be read again.
pub(super) fn keeps_more(
    text: &str,
    tokens: Option<&[Token]>,
    before: &[String],
    names: &[String],
) -> bool {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !names
        .iter()
        .any(|n| !before.contains(n) && body.contains(n.as_str()))
    {
        return false;
    }
    let Some(tokens) = tokens else {
        // Not masked at all: parsed whole.
        return false;
    };
    let kept = |names: &[String]| {
        let blank = blanks(body, tokens, true, names);
        blank.iter().map(|(s, e)| e - s).sum::<usize>()
    };
    kept(names) != kept(before)
}

fn mask(
    text: &str,
    tokens: Option<&[Token]>,
    unread_too: bool,
    names: &[String],
) -> Option<String> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let blank = blanks(body, tokens?, unread_too, names);
    if blank.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(text.len());
    out.extend_from_slice(&text.as_bytes()[..bom]);
    let mut at = 0;
    for (start, end) in blank {
        out.extend_from_slice(&body.as_bytes()[at..start]);
        let mut blanked = &body.as_bytes()[start..end];
        if let Some(last) = blanked.iter().rposition(|&b| b == b'\n') {
            let lines = blanked[..=last].iter().filter(|&&b| b == b'\n').count();
            out.resize(out.len() + lines, b'\n');
            blanked = &blanked[last + 1..];
        }
        // One space per character (columns count characters): none for a UTF-8
        // continuation byte.
        let chars = blanked
            .iter()
            .filter(|&&b| !(0x80..=0xBF).contains(&b))
            .count();
        out.resize(out.len() + chars, b' ');
        at = end;
    }
    out.extend_from_slice(&body.as_bytes()[at..]);
    String::from_utf8(out).ok()
}

/// The byte ranges of `body` to blank, in order, none overlapping. With `finer`, also the
/// kept items' docs and unread attributes, the inner items of a kept `impl`, `trait` or `mod`
/// that keep nothing, and the statements of a kept function that can hold nothing the scan
/// reads ([`Items::statements`]).
fn blanks(body: &str, tokens: &[Token], finer: bool, names: &[String]) -> Vec<(usize, usize)> {
    let mut kept_names: Vec<&str> = names.iter().map(String::as_str).collect();
    kube_aliases(body, tokens, &mut kept_names);
    // Where each kube word starts in an identifier or a literal (kube's request parameters
    // in a string make a call of unknown kind): an item names one if one starts inside it.
    // Comments and docs hold no call.
    let mut words = Vec::new();
    for t in tokens {
        if matches!(t.kind, Kind::Ident | Kind::Literal) && t.end - t.start >= 3 {
            let text = &body.as_bytes()[..t.end as usize];
            let mut from = t.start as usize;
            while let Some(at) = next_kube_word(text, from) {
                words.push(at);
                from = at + 1;
            }
        }
    }
    let items = Items {
        body,
        tokens,
        words,
        kept_names,
        finer,
    };
    let mut blank = Vec::new();
    items.region(0, tokens.len(), 0, &mut blank);
    blank.sort_unstable();
    blank
}

/// What decides what is kept: the file's tokens, where its kube words start, the names that
/// keep what names them.
struct Items<'a> {
    body: &'a str,
    tokens: &'a [Token],
    words: Vec<usize>,
    kept_names: Vec<&'a str>,
    finer: bool,
}

impl Items<'_> {
    fn source(&self, i: usize) -> &str {
        &self.body[self.tokens[i].start as usize..self.tokens[i].end as usize]
    }

    fn punct(&self, i: usize, c: u8) -> bool {
        matches!(self.tokens.get(i), Some(t) if t.kind == Kind::Punct(c))
    }

    fn ident(&self, i: usize, word: &str) -> bool {
        matches!(self.tokens.get(i), Some(t) if t.kind == Kind::Ident) && self.source(i) == word
    }

    /// Whether a kube word starts in the bytes `start..end` (a comment or string too).
    fn names_a_kube_word(&self, start: usize, end: usize) -> bool {
        let first = self.words.partition_point(|&w| w < start);
        self.words.get(first).is_some_and(|&w| w < end)
    }

    /// Whether tokens `lo..hi` name a kept name (a `use` rename of a kube word, a generic
    /// function a call site fixes) or make a `Client`'s request (`.get::<`, `.list::<`).
    fn names_a_kept_name(&self, lo: usize, hi: usize) -> bool {
        (lo..hi).any(|j| {
            self.tokens[j].kind == Kind::Ident && self.kept_names.contains(&self.source(j))
                || (self.punct(j, b'.')
                    && (self.ident(j + 1, "get") || self.ident(j + 1, "list"))
                    && self.punct(j + 2, b':')
                    && self.punct(j + 3, b':')
                    && self.punct(j + 4, b'<'))
        })
    }

    /// Whether tokens `lo..hi` call a method named as one of `Api`'s or `.owns`/`.watches`,
    /// on any receiver (a binding of `self.docs`, `docs.clone()`, is typed in another item).
    fn calls_an_api_method(&self, lo: usize, hi: usize) -> bool {
        (lo..hi).any(|j| {
            self.punct(j, b'.')
                && matches!(self.tokens.get(j + 1), Some(t) if t.kind == Kind::Ident)
                && (methods::api_method(self.source(j + 1)).is_some()
                    || matches!(
                        self.source(j + 1),
                        "owns" | "owns_with" | "watches" | "watches_with"
                    ))
        })
    }

    /// The items of tokens `lo..hi` (a file, or the inside of a kept block), their text from
    /// byte `from`: each blanked whole, or kept with what [`blanks`] says of its insides.
    fn region(&self, lo: usize, hi: usize, from: usize, blank: &mut Vec<(usize, usize)>) {
        let mut previous_end = from;
        for (lo, hi) in items_in(self.tokens, lo, hi) {
            let start = previous_end;
            let end = self.tokens[hi].end as usize;
            previous_end = end;
            self.item(lo, hi, (start, end), from > 0, blank);
        }
    }

    /// One item, tokens `lo..=hi`, bytes `start..end`; `inner` in a kept block.
    fn item(
        &self,
        lo: usize,
        hi: usize,
        (start, end): (usize, usize),
        inner: bool,
        blank: &mut Vec<(usize, usize)>,
    ) {
        let tokens = self.tokens;
        // Past its attributes and visibility, to tell a `use`.
        let mut k = lo;
        let mut test_only = false;
        let mut unread: Vec<(usize, usize)> = Vec::new();
        while k <= hi {
            match tokens[k].kind {
                Kind::Doc { .. } => {
                    unread.push((tokens[k].start as usize, tokens[k].end as usize));
                    k += 1;
                }
                Kind::Punct(b'#') => {
                    let hash = k;
                    k += 1;
                    if self.punct(k, b'!') {
                        k += 1;
                    }
                    if let Some(Kind::Open { close, .. }) = tokens.get(k).map(|t| t.kind) {
                        let inner = &self.body
                            [tokens[k].end as usize..tokens[close as usize].start as usize];
                        let inner: String = inner.split_whitespace().collect();
                        test_only |= inner == "cfg(test)" || inner == "test";
                        // The scan reads `cfg` and `test` attributes (`is_test_only`), no other.
                        let path = inner.split(['(', '=', '[']).next().unwrap_or("");
                        if path != "cfg" && !path.ends_with("test") {
                            unread.push((
                                tokens[hash].start as usize,
                                tokens[close as usize].end as usize,
                            ));
                        }
                        k = close as usize + 1;
                    }
                }
                Kind::Ident if self.source(k) == "pub" => {
                    k += 1;
                    if let Some(Kind::Open {
                        delim: Delim::Paren,
                        close,
                    }) = tokens.get(k).map(|t| t.kind)
                    {
                        k = close as usize + 1;
                    }
                }
                _ => break,
            }
        }
        let is_use = k <= hi && self.ident(k, "use");
        // `self.docs.list(..)`: a field typed `Api<K>` in another item, maybe another file.
        // `ctx.api().get(..)`: a function returning one.
        let field_call = || {
            (lo..hi.saturating_sub(3)).any(|j| {
                (tokens[j + 1].kind == Kind::Close
                    || (tokens[j + 1].kind == Kind::Ident && self.punct(j, b'.')))
                    && self.punct(j + 2, b'.')
                    && tokens[j + 3].kind == Kind::Ident
                    && methods::api_method(self.source(j + 3)).is_some()
            })
        };
        // The finer mask leaves `use`s to the module reader (`CrateNames::uses_of`).
        if test_only
            || (is_use && self.finer)
            || !(is_use
                || self.names_a_kube_word(tokens[k.min(hi)].start as usize, end)
                || field_call()
                || self.names_a_kept_name(lo, hi + 1)
                || ((inner || self.ident(k.min(hi), "macro_rules"))
                    && self.calls_an_api_method(lo, hi + 1)))
        {
            blank.push((start, end));
            return;
        }
        if !self.finer {
            return;
        }
        // The scan reads nothing of an `enum`, a `union` or a `type` (no call compiles in
        // a discriminant), and of a `struct` only its fields typed `Api<K>`.
        let keyword = self.keyword(k);
        let api_field = || {
            let first = self.words.partition_point(|&w| w < start);
            self.words[first..]
                .iter()
                .take_while(|&&w| w < end)
                .any(|&w| self.body.as_bytes()[w..].starts_with(b"Api"))
                || self.names_a_kept_name(lo, hi + 1)
        };
        if matches!(keyword, Some("enum" | "union" | "type"))
            || (keyword == Some("struct") && !api_field())
        {
            blank.push((start, end));
            return;
        }
        blank.extend(unread);
        // The block of a kept function, `impl`, `trait` or `mod`: its insides masked too.
        let Some(open) = self.block_of(k, hi) else {
            return;
        };
        let mut first = open + 1;
        // Inner attributes (`#![cfg(test)]` makes a module test-only) stay.
        while self.punct(first, b'#') && self.punct(first + 1, b'!') {
            match tokens.get(first + 2).map(|t| t.kind) {
                Some(Kind::Open { close, .. }) => first = close as usize + 1,
                _ => return,
            }
        }
        let from = tokens[first - 1].end as usize;
        match keyword {
            Some("fn") => self.statements(k, first, hi, from, blank),
            Some("impl" | "trait" | "mod") => self.region(first, hi, from, blank),
            _ => {}
        }
    }

    /// The first keyword of an item past its qualifiers (`pub` is already passed): `fn`,
    /// `impl`, `trait`, `mod`, `enum`, `union`, `struct`, `type`, or `None` for any other.
    fn keyword(&self, mut k: usize) -> Option<&'static str> {
        loop {
            match self.tokens.get(k).map(|t| t.kind) {
                Some(Kind::Ident) => match self.source(k) {
                    "const" | "async" | "unsafe" | "extern" | "safe" | "default" | "auto" => k += 1,
                    "fn" => return Some("fn"),
                    "impl" => return Some("impl"),
                    "trait" => return Some("trait"),
                    "mod" => return Some("mod"),
                    "enum" => return Some("enum"),
                    // `union!(..)` is a macro's call.
                    "union"
                        if self
                            .tokens
                            .get(k + 1)
                            .is_some_and(|t| t.kind == Kind::Ident) =>
                    {
                        return Some("union");
                    }
                    "struct" => return Some("struct"),
                    "type" => return Some("type"),
                    _ => return None,
                },
                // `extern "C" fn`.
                Some(Kind::Literal) => k += 1,
                _ => return None,
            }
        }
    }

    /// The `{` of the block that ends the item `k..=hi`, if it ends with one.
    fn block_of(&self, k: usize, hi: usize) -> Option<usize> {
        if self.tokens[hi].kind != Kind::Close {
            return None;
        }
        let mut i = k;
        while i < hi {
            match self.tokens[i].kind {
                Kind::Open { delim, close } if close as usize == hi => {
                    return (delim == Delim::Brace).then_some(i);
                }
                Kind::Open { close, .. } => i = close as usize + 1,
                _ => i += 1,
            }
        }
        None
    }

    /// The statements of a kept function's body (tokens `lo..hi`, its text from `from`; its
    /// signature from `sig`): each run of statements up to a `;` at the body's own level is
    /// blanked when it can hold nothing the scan reads: no kube word, kept name or `Api`
    /// method's call (`.get(`, `.owns(`, ...), no item or `use`, and no `let` but one whose
    /// binding the scan knows nothing of (its value a call's, a macro's, a block's: no
    /// `Api`, no type written, no `Patch::Apply`) and which shadows no name seen before.
    fn statements(
        &self,
        sig: usize,
        lo: usize,
        hi: usize,
        from: usize,
        blank: &mut Vec<(usize, usize)>,
    ) {
        let tokens = self.tokens;
        let mut runs = Vec::new();
        let mut first = lo;
        let mut i = lo;
        while i < hi {
            match tokens[i].kind {
                Kind::Punct(b';') => {
                    runs.push((first, i + 1));
                    first = i + 1;
                    i += 1;
                }
                Kind::Open { close, .. } => i = close as usize + 1,
                _ => i += 1,
            }
        }
        if first < hi {
            runs.push((first, hi));
        }
        let mut start = from;
        for &(lo, end_token) in &runs {
            let end = tokens[end_token - 1].end as usize;
            if self.statement_holds_nothing(sig, lo, end_token) {
                blank.push((start, end));
            }
            start = end;
        }
    }

    /// Whether the statements of tokens `lo..hi` hold nothing the scan reads (a kube word
    /// in a comment before them keeps nothing: it is in no token the scan reads).
    fn statement_holds_nothing(&self, sig: usize, lo: usize, hi: usize) -> bool {
        let tokens = self.tokens;
        let (first, end) = (tokens[lo].start as usize, tokens[hi - 1].end as usize);
        if self.names_a_kube_word(first, end) || self.names_a_kept_name(lo, hi) {
            return false;
        }
        if self.calls_an_api_method(lo, hi) {
            return false;
        }
        // The run's own level: items, `use`s and `let`s.
        let mut lets = Vec::new();
        let mut i = lo;
        while i < hi {
            match tokens[i].kind {
                Kind::Ident => {
                    match self.source(i) {
                        "let" => lets.push(i),
                        "fn" | "struct" | "enum" | "union" | "const" | "static" | "type"
                        | "trait" | "impl" | "mod" | "use" | "extern" | "macro_rules" => {
                            return false;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                Kind::Open { close, .. } => i = close as usize + 1,
                _ => i += 1,
            }
        }
        match lets[..] {
            [] => true,
            [at] if at == lo => self.let_binds_nothing_known(sig, lo, hi),
            _ => false,
        }
    }

    /// Whether `let PAT = VALUE;` (tokens `lo..hi`) binds names the scan knows nothing of
    /// (its `Binding` empty), none of them seen before in the function (a shadow changes
    /// what a name is).
    fn let_binds_nothing_known(&self, sig: usize, lo: usize, hi: usize) -> bool {
        let tokens = self.tokens;
        // The `=` at the statement's level; a `:` before it is a type written.
        let mut eq = None;
        let mut i = lo + 1;
        while i < hi {
            match tokens[i].kind {
                Kind::Punct(b'=') => {
                    eq = Some(i);
                    break;
                }
                Kind::Punct(b':') if self.punct(i + 1, b':') => i += 2,
                Kind::Punct(b':') => return false,
                Kind::Open { close, .. } => i = close as usize + 1,
                _ => i += 1,
            }
        }
        let Some(eq) = eq else {
            return false;
        };
        // Its value to the `;` or a `let .. else`'s `else`.
        let mut last = None;
        let mut i = eq + 1;
        while i < hi {
            match tokens[i].kind {
                Kind::Punct(b';') => break,
                Kind::Ident
                    if self.source(i) == "else" && last.is_some() && {
                        // `if c { a } else { b }` goes on; a `let .. else` has no `if` before.
                        !(eq + 1..i).any(|j| self.ident(j, "if") || self.ident(j, "match"))
                    } =>
                {
                    break;
                }
                Kind::Open { close, .. } => {
                    last = Some(i);
                    i = close as usize + 1;
                }
                _ => {
                    last = Some(i);
                    i += 1;
                }
            }
        }
        let Some(last) = last else {
            return false;
        };
        if (eq + 1..hi).any(|j| self.ident(j, "Apply")) {
            return false;
        }
        // What the scan's `api_of` answers `None` for: a call's value (but `x.clone()`,
        // `x.constrain(..)`), a macro's, `?`, `.await`, a literal, a block's or a struct's.
        let value_unknown = match tokens[last].kind {
            Kind::Punct(b'?') | Kind::Literal => true,
            Kind::Ident => self.source(last) == "await" && self.punct(last - 1, b'.'),
            Kind::Open {
                delim: Delim::Brace,
                ..
            } => true,
            Kind::Open {
                delim: Delim::Paren,
                ..
            } if last > eq + 1 => match tokens[last - 1].kind {
                Kind::Punct(b'!') => true,
                Kind::Ident => !super::syntax::PASSING_ON.contains(&self.source(last - 1)),
                _ => false,
            },
            _ => false,
        };
        if !value_unknown {
            return false;
        }
        // The names it binds, none seen before (in the signature, an earlier statement) but
        // as a field.
        (lo + 1..eq).all(|j| {
            tokens[j].kind != Kind::Ident
                || matches!(self.source(j), "mut" | "ref")
                || (sig..lo).all(|s| {
                    // A field (`x.status`) binds no name.
                    tokens[s].kind != Kind::Ident
                        || self.source(s) != self.source(j)
                        || (s > 0 && self.punct(s - 1, b'.'))
                })
        })
    }
}

/// Adds to `names` the names the file's `use`s give what names a kube word or one of `names`:
/// every `as` of such a `use` (`use kube::Api as KApi;`, `use kube::runtime::watcher::{self as
/// w};`, `use crate::helper as h;`), and of one naming such a name (`use KApi as A;`), at any
/// depth (the call scan reads the `use`s of inline modules too).
fn kube_aliases<'a>(body: &'a str, tokens: &[Token], names: &mut Vec<&'a str>) {
    let source = |i: usize| &body[tokens[i].start as usize..tokens[i].end as usize];
    let ident = |i: usize| matches!(tokens.get(i), Some(t) if t.kind == Kind::Ident);
    // Each `use` with an `as`, to its `;` (a use tree holds none).
    let mut uses = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if ident(i) && source(i) == "use" {
            let Some(end) = (i..tokens.len()).find(|&j| tokens[j].kind == Kind::Punct(b';')) else {
                break;
            };
            if (i..end).any(|j| ident(j) && source(j) == "as") {
                uses.push((i, end));
            }
            i = end;
        }
        i += 1;
    }
    loop {
        let before = names.len();
        for &(lo, hi) in &uses {
            let text = &body.as_bytes()[..tokens[hi].end as usize];
            let names_kube = next_kube_word(text, tokens[lo].start as usize).is_some()
                || (lo..hi).any(|j| ident(j) && names.contains(&source(j)));
            if !names_kube {
                continue;
            }
            for j in lo..hi {
                if ident(j)
                    && source(j) == "as"
                    && ident(j + 1)
                    && source(j + 1) != "_"
                    && !names.contains(&source(j + 1))
                {
                    names.push(source(j + 1));
                }
            }
        }
        if names.len() == before {
            return;
        }
    }
}

/// Token ranges of the items of tokens `lo..hi`: each ends at a `;`, or at a `{ }` not
/// followed by `;` (a `use a::{b};` or a `const X: T = T {};` goes on to its `;`).
fn items_in(tokens: &[Token], lo: usize, hi: usize) -> Vec<(usize, usize)> {
    let punct = |i: usize, c: u8| matches!(tokens.get(i), Some(t) if t.kind == Kind::Punct(c));
    let mut items = Vec::new();
    let mut first = lo;
    let mut i = lo;
    while i < hi {
        match tokens[i].kind {
            Kind::Punct(b';') => {
                items.push((first, i));
                first = i + 1;
                i += 1;
            }
            Kind::Open { delim, close } => {
                let close = close as usize;
                if delim == Delim::Brace && !punct(close + 1, b';') {
                    items.push((first, close));
                    first = close + 1;
                }
                i = close + 1;
            }
            _ => i += 1,
        }
    }
    items
}
