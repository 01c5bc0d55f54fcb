//! Key order: go-yaml v2 sorts a mapping's keys with `keyList.Less` (`sorter.go`).
//!
//! For two string keys it looks only at the first character where they differ:
//!
//! - two letters (Go's `unicode.IsLetter`) compare by code point;
//! - a letter comes after anything else (`a-b` before `ab`, `port10` before `port1Name`);
//! - otherwise each side reads the digits (Go's `unicode.IsDigit`) that start there as a
//!   number: the smaller number first (`v9` before `v10`), then the shorter run (`x1` before
//!   `x01`), then the code point (`a-` before `a.`). When either character is `0` and the digits
//!   before it in the key hold a non-zero one, both numbers start from 1, so that the zeros
//!   count (`x100` after `x12`).
//!
//! A key that is a prefix of another comes first. The arithmetic is Go's: `int64` wrapping on
//! overflow, and a digit's value is its code point minus `'0'`, also for non-ASCII digits.
//!
//! This comparison is not transitive when a digit run meets a letter in the middle of the other
//! key's run: `a12` < `a1b` (`2` is not a letter, `b` is), `a1b` < `a2` (1 < 2), `a2` < `a12`
//! (2 < 12). Go sorts with it anyway, starting from its randomised map order, so for such key
//! sets controller-gen's own output can differ from run to run and nothing can match it. For every
//! other key set the order is unique, and [`sort_keys`] finds it; for the others it still gives
//! one deterministic order.

mod go_unicode;

/// Sorts `items` by their keys as go-yaml v2 sorts mapping keys.
///
/// A stable merge sort over the keys in byte order: it needs nothing of the comparison but
/// that it answers, so a cycle cannot make it fail, and its result does not depend on the
/// order `items` came in.
pub(super) fn sort_keys<T>(items: &mut Vec<T>, key: impl Fn(&T) -> &str) {
    let mut keyed: Vec<(Vec<char>, T)> = items
        .drain(..)
        .map(|item| (key(&item).chars().collect(), item))
        .collect();
    keyed.sort_by(|(a, _), (b, _)| a.cmp(b));
    let mut order: Vec<usize> = (0..keyed.len()).collect();
    merge_sort(&mut order, &|&x: &usize, &y: &usize| {
        go_less(&keyed[x].0, &keyed[y].0)
    });
    let mut slots: Vec<Option<T>> = keyed.into_iter().map(|(_, item)| Some(item)).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

fn merge_sort<T: Copy>(items: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    if items.len() < 2 {
        return;
    }
    let mid = items.len() / 2;
    merge_sort(&mut items[..mid], less);
    merge_sort(&mut items[mid..], less);
    let mut merged = Vec::with_capacity(items.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < items.len() {
        // Take from the right only when it is strictly smaller: stable.
        if less(&items[j], &items[i]) {
            merged.push(items[j]);
            j += 1;
        } else {
            merged.push(items[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&items[i..mid]);
    merged.extend_from_slice(&items[j..]);
    items.copy_from_slice(&merged);
}

/// go-yaml v2's `keyList.Less` for two string keys, as their characters (Go compares `[]rune`).
pub(super) fn go_less(a: &[char], b: &[char]) -> bool {
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        if x == y {
            continue;
        }
        let (x_letter, y_letter) = (is_go_letter(x), is_go_letter(y));
        if x_letter && y_letter {
            return x < y;
        }
        if x_letter || y_letter {
            return y_letter;
        }
        // The digit runs from here on, as numbers.
        let mut start = 0i64;
        if x == '0' || y == '0' {
            let before = a[..i].iter().rev().take_while(|&&c| is_go_digit(c));
            if before.into_iter().any(|&c| c != '0') {
                start = 1;
            }
        }
        let (x_value, x_end) = digit_run(a, i, start);
        let (y_value, y_end) = digit_run(b, i, start);
        if x_value != y_value {
            return x_value < y_value;
        }
        if x_end != y_end {
            return x_end < y_end;
        }
        return x < y;
    }
    a.len() < b.len()
}

/// The value of the digits of `key` from `from` on, accumulated onto `start` as Go does it
/// (wrapping `int64`, code point minus `'0'`), and where the run ends.
fn digit_run(key: &[char], from: usize, start: i64) -> (i64, usize) {
    let mut value = start;
    let mut end = from;
    while let Some(&c) = key.get(end).filter(|&&c| is_go_digit(c)) {
        value = value
            .wrapping_mul(10)
            .wrapping_add(i64::from(c as u32) - i64::from(b'0'));
        end += 1;
    }
    (value, end)
}

/// Go's `unicode.IsLetter`: Latin-1 letters, then the tables of category L.
fn is_go_letter(c: char) -> bool {
    if (c as u32) < 0x100 {
        return c.is_ascii_alphabetic()
            || matches!(c, 'ª' | 'µ' | 'º' | 'À'..='Ö' | 'Ø'..='ö' | 'ø'..='ÿ');
    }
    in_ranges(go_unicode::LETTERS, c)
}

/// Go's `unicode.IsDigit`: ASCII digits, then the tables of category Nd.
fn is_go_digit(c: char) -> bool {
    if (c as u32) < 0x100 {
        return c.is_ascii_digit();
    }
    in_ranges(go_unicode::DIGITS, c)
}

fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}
