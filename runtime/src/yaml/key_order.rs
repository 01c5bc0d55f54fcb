//! Key order.

use std::cmp::Ordering;

/// One unit of yaml.v2's key comparison: a letter, a run of ASCII digits, or anything else.
#[derive(Clone, Copy)]
enum KeyToken<'a> {
    Other(char),
    Digits(&'a str),
    Letter(char),
}

fn key_tokens(key: &str) -> Vec<KeyToken<'_>> {
    let mut tokens = Vec::new();
    let mut rest = key;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            tokens.push(KeyToken::Digits(&rest[..end]));
            rest = &rest[end..];
        } else {
            tokens.push(if c.is_alphabetic() {
                KeyToken::Letter(c)
            } else {
                KeyToken::Other(c)
            });
            rest = &rest[c.len_utf8()..];
        }
    }
    tokens
}

/// Digit runs by numeric value (without overflow), then the shorter run (fewer leading zeros).
fn cmp_digits(a: &str, b: &str) -> Ordering {
    let (ta, tb) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    ta.len()
        .cmp(&tb.len())
        .then_with(|| ta.cmp(tb))
        .then_with(|| a.len().cmp(&b.len()))
}

/// yaml.v2's key order (`keyList.Less`) as a total order: other characters before digit runs
/// before letters; letters and other characters by code point; digit runs by value, so `v9`
/// sorts before `v10`; a key before its extensions.
///
/// Go's comparator is not transitive when a digit run in one key meets a letter in the other
/// mid-run (`a12`, `a1b`, `a2` form a cycle); Go's output then depends on its random map
/// order, so no order reproduces it, and we keep a deterministic one. (A Rust sort must have a
/// total order anyway.)
pub(super) fn key_order(a: &str, b: &str) -> Ordering {
    let (ta, tb) = (key_tokens(a), key_tokens(b));
    for (x, y) in ta.iter().zip(&tb) {
        let ord = match (x, y) {
            (KeyToken::Letter(x), KeyToken::Letter(y))
            | (KeyToken::Other(x), KeyToken::Other(y)) => x.cmp(y),
            (KeyToken::Digits(x), KeyToken::Digits(y)) => cmp_digits(x, y),
            (KeyToken::Other(_), _) | (KeyToken::Digits(_), KeyToken::Letter(_)) => Ordering::Less,
            (_, KeyToken::Other(_)) | (KeyToken::Letter(_), KeyToken::Digits(_)) => {
                Ordering::Greater
            }
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    ta.len().cmp(&tb.len())
}


pub(super) fn sort_keys<T>(items: &mut [T], key: impl Fn(&T) -> &str) {
    items.sort_by(|a, b| key_order(key(a), key(b)));
}
