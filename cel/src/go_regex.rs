//! Whether Go's `regexp.Compile` takes a pattern: cel-go's `ValidateRegexLiterals` refuses a
//! constant `matches()` argument it does not. Go's syntax (`regexp/syntax` with Perl flags) is
//! RE2's, which regex-syntax parses closely but not exactly; the pattern is rewritten into
//! regex-syntax's spelling where the two differ, and refused where only Go refuses it:
//!
//! - `\Q…\E` quotes a literal (regex-syntax has no such form);
//! - `\0`, `\012`, `\12` are octal escapes, `\1` to `\9` alone are errors;
//! - `{` that does not start a repetition (`a{,3}`, `a{x}`) is a literal; a repetition count
//!   is at most 1000; repetitions do not stack (`a**`, `a+{2}`), `a*?` is non-greedy;
//! - `[` inside a class is a literal, as `&&`, `--` and `~~` are (regex-syntax nests classes
//!   and has set operations);
//! - flags are `i`, `m`, `s`, `U` only; group names are word characters; no `\u`/`\U` escapes.
//!
//! Not covered: Go knows fewer `\p{…}` names (categories, scripts, `Any`) than regex-syntax
//! (binary properties such as `Lowercase`, long and loosely spelled names), and Go's limits on
//! a pattern's nesting and size.

/// Go's `maxRepeat` count.
const MAX_REPEAT: u32 = 1000;

pub fn valid(pattern: &str) -> bool {
    rewrite(pattern).is_some_and(|p| regex_syntax::Parser::new().parse(&p).is_ok())
}

/// The pattern in regex-syntax's spelling, or `None` where Go refuses it.
fn rewrite(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len());
    let mut i = 0;
    // After a repetition operator: another one is an error, but for one `?` (non-greedy).
    let (mut after_repeat, mut non_greedy_taken) = (false, false);
    while i < chars.len() {
        let c = chars[i];
        let repeat = match c {
            '\\' if chars.get(i + 1) == Some(&'Q') => {
                let rest: String = chars[i + 2..].iter().collect();
                let (quoted, used) = match rest.find("\\E") {
                    Some(end) => (&rest[..end], rest[..end].chars().count() + 2),
                    None => (rest.as_str(), rest.chars().count()),
                };
                out.push_str(&regex_syntax::escape(quoted));
                i += 2 + used;
                false
            }
            '\\' => {
                i = escape(&chars, i, &mut out)?;
                false
            }
            '[' => {
                i = class(&chars, i, &mut out)?;
                false
            }
            '(' if chars.get(i + 1) == Some(&'?') => {
                i = group(&chars, i, &mut out)?;
                false
            }
            '{' => match repetition(&chars, i)? {
                Some((text, end)) => {
                    if after_repeat {
                        return None;
                    }
                    out.push_str(&text);
                    i = end;
                    true
                }
                None => {
                    out.push_str("\\{");
                    i += 1;
                    false
                }
            },
            '*' | '+' | '?' => {
                if after_repeat {
                    if c != '?' || non_greedy_taken {
                        return None;
                    }
                    non_greedy_taken = true;
                    out.push(c);
                    i += 1;
                    continue;
                }
                out.push(c);
                i += 1;
                true
            }
            _ => {
                out.push(c);
                i += 1;
                false
            }
        };
        after_repeat = repeat;
        non_greedy_taken = false;
    }
    Some(out)
}

/// An escape outside or inside a class at `chars[i] == '\\'`: written to `out`; the index
/// after it.
fn escape(chars: &[char], i: usize, out: &mut String) -> Option<usize> {
    let c = *chars.get(i + 1)?;
    let octal = |d: Option<&char>| d.is_some_and(|d| ('0'..='7').contains(d));
    match c {
        '1'..='7' if !octal(chars.get(i + 2)) => None,
        '0'..='7' => {
            let mut value = c.to_digit(8)?;
            let mut j = i + 2;
            while j < i + 4 && octal(chars.get(j)) {
                value = value * 8 + chars[j].to_digit(8)?;
                j += 1;
            }
            out.push_str(&format!("\\x{{{value:x}}}"));
            Some(j)
        }
        '8' | '9' | 'u' | 'U' => None,
        _ => {
            out.push('\\');
            out.push(c);
            Some(i + 2)
        }
    }
}

/// A class at `chars[i] == '['`; the index after its `]`.
fn class(chars: &[char], i: usize, out: &mut String) -> Option<usize> {
    out.push('[');
    let mut j = i + 1;
    if chars.get(j) == Some(&'^') {
        out.push('^');
        j += 1;
    }
    // A `]` first is a literal.
    if chars.get(j) == Some(&']') {
        out.push_str("\\]");
        j += 1;
    }
    loop {
        let c = *chars.get(j)?;
        match c {
            ']' => {
                out.push(']');
                return Some(j + 1);
            }
            '\\' => j = escape(chars, j, out)?,
            '[' if chars.get(j + 1) == Some(&':') => {
                // A POSIX class `[:alpha:]`, as both spell it.
                let end = (j + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars[k] == ':' && chars[k + 1] == ']')?;
                out.extend(&chars[j..end + 2]);
                j = end + 2;
            }
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
                j += 1;
            }
            // `a--b` is Go's range `a-` to `-`, not regex-syntax's difference.
            '-' if chars.get(j + 1) == Some(&'-') => {
                out.push_str("-\\-");
                j += 2;
            }
            _ => {
                out.push(c);
                j += 1;
            }
        }
    }
}

/// A group opening `(?` at `chars[i]`: named (`(?P<name>`, `(?<name>`) or flags (`(?i)`,
/// `(?i-s:`); the index after its `>`, `)` or `:`.
fn group(chars: &[char], i: usize, out: &mut String) -> Option<usize> {
    let mut j = i + 2;
    if chars.get(j) == Some(&'P') {
        j += 1;
    }
    if chars.get(j) == Some(&'<') {
        let end = (j + 1..chars.len()).find(|&k| chars[k] == '>')?;
        let name = &chars[j + 1..end];
        if name.is_empty() || !name.iter().all(|c| c.is_ascii_alphanumeric() || *c == '_') {
            return None;
        }
        out.push_str("(?P<");
        out.extend(name);
        out.push('>');
        return Some(end + 1);
    }
    // Go's flags: `i m s U`, one `-` followed by at least one flag; none at all is `(?:`.
    let (mut negated, mut flag_since_sign, mut any) = (false, false, false);
    out.push_str("(?");
    loop {
        let c = *chars.get(j)?;
        match c {
            'i' | 'm' | 's' | 'U' => {
                flag_since_sign = true;
                any = true;
            }
            '-' if !negated => {
                negated = true;
                flag_since_sign = false;
            }
            ':' | ')' => {
                if negated && !flag_since_sign {
                    return None;
                }
                if !any && c == ')' {
                    // `(?)` sets no flag: nothing (regex-syntax refuses it empty).
                    out.truncate(out.len() - 2);
                } else {
                    out.push(c);
                }
                return Some(j + 1);
            }
            _ => return None,
        }
        out.push(c);
        j += 1;
    }
}

/// Go's `parseRepeat` at `chars[i] == '{'`: `{n}`, `{n,}` or `{n,m}` (`Some(Some(..))` with
/// its text and the index after it); `Some(None)` when it is no repetition and `{` is a
/// literal; `None`, Go's error, for a count over 1000 or `n > m`.
#[allow(clippy::option_option)]
fn repetition(chars: &[char], i: usize) -> Option<Option<(String, usize)>> {
    let digits = |from: usize| {
        let end = (from..chars.len())
            .find(|&k| !chars[k].is_ascii_digit())
            .unwrap_or(chars.len());
        let text: String = chars[from..end].iter().collect();
        (text, end)
    };
    let (min, mut j) = digits(i + 1);
    if min.is_empty() {
        return Some(None);
    }
    let mut max = Some(min.clone());
    if chars.get(j) == Some(&',') {
        let (m, end) = digits(j + 1);
        max = (!m.is_empty()).then_some(m);
        j = end;
    }
    if chars.get(j) != Some(&'}') {
        return Some(None);
    }
    // Go reads at most 8 digits; more, or a count over 1000, is an invalid repeat count.
    let count = |s: &str| s.parse::<u32>().ok().filter(|n| *n <= MAX_REPEAT);
    let text: String = chars[i..=j].iter().collect();
    let ok = match (count(&min), max.as_deref().map(count)) {
        (Some(_), None) => true,
        (Some(lo), Some(Some(hi))) => lo <= hi,
        _ => false,
    };
    ok.then_some(Some((text, j + 1)))
}

#[cfg(test)]
mod tests {
    use super::valid;

    /// Go's verdicts (`regexp.Compile`, Go 1.26).
    #[test]
    fn as_go_regexp_compiles() {
        for accepted in [
            r"\Qa.b\E",
            r"\Qa.b",
            r"x\Q*\Ey*",
            r"\0",
            r"\012",
            r"\12",
            r"[\0-\177]",
            "a{,3}",
            "a{x}",
            "a{",
            "a{2}",
            "a{2,}",
            "a{1000}",
            "a*?",
            "a{2}?",
            "(?i)a",
            "(?i-s:a)",
            "(?:a)",
            "(?)a",
            "(?U)a+",
            "(?P<name>a)",
            "(?<name>a)",
            "[[:alpha:]]",
            "[a[]",
            "[a&&b]",
            "[]a]",
            r"\pL",
            r"\z",
            "a|b",
            "a{,}",
            "}",
            "x{2}{,3}",
            "[a~~b]",
            r"\b{start}",
            r"\<",
            r"\_",
            r"\ ",
            "(?i)(?)",
        ] {
            assert!(valid(accepted), "Go accepts {accepted}");
        }
        for refused in [
            r"\1",
            r"\8",
            r"\u0041",
            "a{1001}",
            "a{3,2}",
            "a**",
            "a+*",
            "a*??",
            "a{2}*",
            "(?x)a",
            "(?i-)a",
            "(?P<a.b>x)",
            "(?P<>x)",
            r"\C",
            r"\Z",
            "[a",
            "(a",
            "*a",
            "(?=a)",
            "a{2}{3}",
            "[a--b]",
            r"[\Q]",
            r"\e",
        ] {
            assert!(!valid(refused), "Go refuses {refused}");
        }
    }
}
