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
    let at = |i: usize, word: &[u8]| text[i..].starts_with(word);
    let mut i = from;
    while i < text.len() {
        let found = match text[i] {
            b'A' => at(i, KUBE_WORDS[0]),
            b'C' => at(i, KUBE_WORDS[1]),
            b'f' => at(i, KUBE_WORDS[2]),
            b'w' => at(i, KUBE_WORDS[3]) || at(i, KUBE_WORDS[8]),
            b'R' => at(i, KUBE_WORDS[4]),
            b'a' => at(i, KUBE_WORDS[5]),
            b'P' => at(i, KUBE_WORDS[6]),
            b'L' => at(i, KUBE_WORDS[7]),
            _ => false,
        };
        if found {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `text` with blanks for: each top-level item that is no `use` and names none of
/// [`KUBE_WORDS`], none of the names the file's `use`s give them, none of `names` (the crate's
/// generic functions whose call sites fix a `K`) and no `.get::<`/`.list::<` (a `Client`'s
/// request); each item under `#[cfg(test)]` or `#[test]`; and, in the items kept, their doc
/// comments and the outer attributes the call scan does not read (all but `cfg` and `*test`,
/// which say what is test-only). Newlines are kept, and one space stands for each character,
/// so that every line and column of the rest stays where it was. `None` when nothing is
/// blanked, or the text does not lex (syn then parses it whole, and says what is wrong).
pub(super) fn masked(text: &str, names: &[String]) -> Option<String> {
    mask(text, true, names)
}

/// [`masked`] blanking only whole items, its docs and attributes kept: the tests' oracle.
#[cfg(test)]
pub(super) fn items_masked(text: &str, names: &[String]) -> Option<String> {
    mask(text, false, names)
}

/// Whether [`masked`] with `names` keeps an item [`masked`] with `before` blanks: whether the
/// file must be read again.
pub(super) fn keeps_more(text: &str, before: &[String], names: &[String]) -> bool {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !names
        .iter()
        .any(|n| !before.contains(n) && body.contains(n.as_str()))
    {
        return false;
    }
    let Ok(tokens) = crate::lex::lex(body, crate::shebang_end(body)) else {
        // Not masked at all: parsed whole.
        return false;
    };
    let kept = |names: &[String]| {
        let blank = blanks(body, &tokens, false, names);
        blank.iter().map(|(s, e)| e - s).sum::<usize>()
    };
    kept(names) != kept(before)
}

fn mask(text: &str, unread_too: bool, names: &[String]) -> Option<String> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let tokens = crate::lex::lex(body, crate::shebang_end(body)).ok()?;
    let blank = blanks(body, &tokens, unread_too, names);
    if blank.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(text.len());
    out.extend_from_slice(&text.as_bytes()[..bom]);
    let mut at = 0;
    for (start, end) in blank {
        out.extend_from_slice(&body.as_bytes()[at..start]);
        // One space per character (columns count characters): a space for each byte that
        // starts one, none for a UTF-8 continuation byte.
        for &b in &body.as_bytes()[start..end] {
            match b {
                b'\n' => out.push(b'\n'),
                0x80..=0xBF => {}
                _ => out.push(b' '),
            }
        }
        at = end;
    }
    out.extend_from_slice(&body.as_bytes()[at..]);
    String::from_utf8(out).ok()
}

/// The byte ranges of `body` to blank, in order, none overlapping.
fn blanks(body: &str, tokens: &[Token], unread_too: bool, names: &[String]) -> Vec<(usize, usize)> {
    let punct = |i: usize, c: u8| matches!(tokens.get(i), Some(t) if t.kind == Kind::Punct(c));
    let source = |i: usize| &body[tokens[i].start as usize..tokens[i].end as usize];
    let mut kept_names: Vec<&str> = names.iter().map(String::as_str).collect();
    kube_aliases(body, tokens, &mut kept_names);
    // Where each kube word starts: an item names one if one starts inside it (a word holds
    // no `;` or `}`, so none runs over an item's end).
    let mut words = Vec::new();
    let mut from = 0;
    while let Some(at) = next_kube_word(body.as_bytes(), from) {
        words.push(at);
        from = at + 1;
    }
    let mut words = words.into_iter().peekable();
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut previous_end = 0;
    for (lo, hi) in top_level_items(tokens) {
        let start = previous_end;
        let end = tokens[hi].end as usize;
        previous_end = end;
        while words.next_if(|&w| w < start).is_some() {}
        let names_a_kube_word = words.peek().is_some_and(|&w| w < end);
        // Past its attributes and visibility: a `use` is kept (the `Api` renames).
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
                    if punct(k, b'!') {
                        k += 1;
                    }
                    if let Some(Kind::Open { close, .. }) = tokens.get(k).map(|t| t.kind) {
                        let inner =
                            &body[tokens[k].end as usize..tokens[close as usize].start as usize];
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
                Kind::Ident if source(k) == "pub" => {
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
        let is_use = k <= hi && tokens[k].kind == Kind::Ident && source(k) == "use";
        // `self.docs.list(..)`: a field typed `Api<K>` in another item, maybe another file.
        // `ctx.api().get(..)`: a function returning one.
        let field_call = || {
            (lo..hi.saturating_sub(3)).any(|j| {
                (tokens[j + 1].kind == Kind::Close
                    || (tokens[j + 1].kind == Kind::Ident && punct(j, b'.')))
                    && punct(j + 2, b'.')
                    && tokens[j + 3].kind == Kind::Ident
                    && methods::api_method(source(j + 3)).is_some()
            })
        };
        let names_a_kept_name = || {
            (lo..=hi).any(|j| {
                tokens[j].kind == Kind::Ident && kept_names.contains(&source(j))
                    || (punct(j, b'.')
                        && matches!(tokens.get(j + 1), Some(t) if t.kind == Kind::Ident)
                        && matches!(source(j + 1), "get" | "list")
                        && punct(j + 2, b':')
                        && punct(j + 3, b':')
                        && punct(j + 4, b'<'))
            })
        };
        if test_only || !(is_use || names_a_kube_word || field_call() || names_a_kept_name()) {
            blank.push((start, end));
        } else if unread_too {
            blank.extend(unread);
        }
    }
    blank
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

/// Token ranges of the top-level items: each ends at a `;`, or at a `{ }` not followed by `;`
/// (a `use a::{b};` or a `const X: T = T {};` goes on to its `;`).
fn top_level_items(tokens: &[Token]) -> Vec<(usize, usize)> {
    let punct = |i: usize, c: u8| matches!(tokens.get(i), Some(t) if t.kind == Kind::Punct(c));
    let mut items = Vec::new();
    let mut first = 0;
    let mut i = 0;
    while i < tokens.len() {
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
