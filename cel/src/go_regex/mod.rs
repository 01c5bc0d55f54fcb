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
//! - `\pL`, `\p{Greek}`, `\P{^Lu}` name Go's classes, looked up as Go looks them up
//!   ([`unicode_classes`], generated from Go's own tables), whatever regex-syntax knows;
//! - `[[:name:]]` takes Go's POSIX names only, and without a `:]` after it `[` is a literal;
//!   a `-` after a class (`[\d-z]`, `[\pL-z]`) is a literal;
//! - `\x{D800}` (a surrogate) is a code point; a group name may start with a digit or repeat.
//!
//! - nested counted repetitions may not multiply past 1,000 (`(a{100}){100}`), as Go checks
//!   them on its parse tree (here on regex-syntax's).
//!
//! Not covered: Go's limits on a pattern's nesting depth and compiled size.

mod unicode_classes;

/// The names of Go's POSIX classes (`[[:alpha:]]`, `[[:^digit:]]`).
const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// Go's `maxRepeat` count.
const MAX_REPEAT: u32 = 1000;

/// Go's `*syntax.Error`: its code's text and the part of the pattern it names.
#[derive(Debug, PartialEq)]
struct GoError {
    code: &'static str,
    expr: String,
}

type Go<T> = Result<T, GoError>;

fn go_error(code: &'static str, expr: impl Into<String>) -> GoError {
    GoError {
        code,
        expr: expr.into(),
    }
}

pub fn valid(pattern: &str) -> bool {
    error(pattern).is_none()
}

/// Go's `regexp.Compile` error for `pattern`, as `err.Error()` words it, if it fails:
/// `error parsing regexp: missing closing ): `(``.
pub fn error(pattern: &str) -> Option<String> {
    check(pattern)
        .err()
        .map(|e| format!("error parsing regexp: {}: `{}`", e.code, e.expr))
}

fn check(pattern: &str) -> Go<()> {
    let rewritten = rewrite(pattern)?;
    match regex_syntax::Parser::new().parse(&rewritten) {
        Ok(_) => nested_repeats(&rewritten),
        Err(e) => Err(from_regex_syntax(pattern, &rewritten, &e)),
    }
}

/// Go's limit on counted repetitions: each `{n,m}` (with `n` or `m` at least 2), checked as it
/// is parsed, must not repeat what it holds more than [`MAX_REPEAT`] times, the counts of the
/// `{…}` inside it multiplied in (`(a{100}){100}` is refused, `(a{10}){100}` taken); `*`, `+`
/// and `?` count for nothing.
fn nested_repeats(rewritten: &str) -> Go<()> {
    use regex_syntax::ast::{Ast, RepetitionKind, RepetitionRange};
    // Go's `m`: the maximum, or the minimum when there is none; `None` for `*`, `+`, `?`.
    let times = |kind: &RepetitionKind| match kind {
        RepetitionKind::Range(RepetitionRange::Exactly(n) | RepetitionRange::AtLeast(n)) => {
            Some(*n)
        }
        RepetitionKind::Range(RepetitionRange::Bounded(_, max)) => Some(*max),
        _ => None,
    };
    fn within(ast: &Ast, budget: u32, times: &dyn Fn(&RepetitionKind) -> Option<u32>) -> bool {
        let mut budget = budget;
        if let Ast::Repetition(rep) = ast
            && let Some(m) = times(&rep.op.kind)
        {
            if m == 0 {
                return true;
            }
            if m > budget {
                return false;
            }
            budget /= m;
        }
        match ast {
            Ast::Repetition(rep) => within(&rep.ast, budget, times),
            Ast::Group(group) => within(&group.ast, budget, times),
            Ast::Alternation(alt) => alt.asts.iter().all(|a| within(a, budget, times)),
            Ast::Concat(concat) => concat.asts.iter().all(|a| within(a, budget, times)),
            _ => true,
        }
    }
    fn repetitions<'a>(ast: &'a Ast, out: &mut Vec<&'a regex_syntax::ast::Repetition>) {
        match ast {
            Ast::Repetition(rep) => {
                out.push(rep);
                repetitions(&rep.ast, out);
            }
            Ast::Group(group) => repetitions(&group.ast, out),
            Ast::Alternation(alt) => alt.asts.iter().for_each(|a| repetitions(a, out)),
            Ast::Concat(concat) => concat.asts.iter().for_each(|a| repetitions(a, out)),
            _ => {}
        }
    }
    let Ok(ast) = regex_syntax::ast::parse::Parser::new().parse(rewritten) else {
        return Ok(());
    };
    let mut found = Vec::new();
    repetitions(&ast, &mut found);
    // In the order Go parses them: by where each operator stands.
    found.sort_by_key(|rep| rep.op.span.start.offset);
    for rep in found {
        let counted = matches!(&rep.op.kind, RepetitionKind::Range(range) if match range {
            RepetitionRange::Exactly(n) | RepetitionRange::AtLeast(n) => *n >= 2,
            RepetitionRange::Bounded(min, max) => *min >= 2 || *max >= 2,
        });
        if counted && !within(&Ast::Repetition(Box::new(rep.clone())), MAX_REPEAT, &times) {
            let op = &rewritten[rep.op.span.start.offset..rep.op.span.end.offset];
            return Err(go_error("invalid repeat count", op));
        }
    }
    Ok(())
}

/// A refusal regex-syntax found, as Go words the same mistake (the part of the pattern it
/// names is taken from the rewritten pattern, which differs only where Go's spelling was
/// rewritten).
fn from_regex_syntax(pattern: &str, rewritten: &str, e: &regex_syntax::Error) -> GoError {
    use regex_syntax::ast::ErrorKind as A;
    use regex_syntax::hir::ErrorKind as H;
    let (span, code) = match e {
        regex_syntax::Error::Parse(e) => (
            *e.span(),
            match e.kind() {
                A::GroupUnclosed => return go_error("missing closing )", pattern),
                A::GroupUnopened => return go_error("unexpected )", pattern),
                A::ClassUnclosed => {
                    let from = e.span().start.offset;
                    return go_error("missing closing ]", &rewritten[from..]);
                }
                A::EscapeUnexpectedEof => {
                    return go_error("trailing backslash at end of expression", "");
                }
                A::RepetitionMissing => "missing argument to repetition operator",
                A::ClassRangeInvalid | A::ClassRangeLiteral => "invalid character class range",
                A::RepetitionCountInvalid
                | A::RepetitionCountDecimalEmpty
                | A::RepetitionCountUnclosed => "invalid repeat count",
                A::EscapeUnrecognized
                | A::EscapeHexEmpty
                | A::EscapeHexInvalid
                | A::EscapeHexInvalidDigit
                | A::ClassEscapeInvalid => "invalid escape sequence",
                _ => "invalid or unsupported Perl syntax",
            },
        ),
        regex_syntax::Error::Translate(e) => (
            *e.span(),
            match e.kind() {
                H::UnicodePropertyNotFound
                | H::UnicodePropertyValueNotFound
                | H::UnicodePerlClassNotFound => "invalid character class range",
                _ => "invalid or unsupported Perl syntax",
            },
        ),
        _ => return go_error("invalid or unsupported Perl syntax", pattern),
    };
    let text = rewritten
        .get(span.start.offset..span.end.offset)
        .unwrap_or(pattern);
    go_error(code, text)
}

/// The pattern in regex-syntax's spelling, or Go's error where only Go refuses it.
fn rewrite(pattern: &str) -> Go<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let text = |from: usize, to: usize| chars[from..to].iter().collect::<String>();
    let mut out = String::with_capacity(pattern.len());
    let mut i = 0;
    // Where the last repetition operator began, when the item before this one was one:
    // another is Go's error ("invalid nested repetition operator"), but for one `?` that
    // makes it non-greedy.
    let mut last_repeat: Option<usize> = None;
    // Whether there is something to repeat (not at the start, after `(` or `|`).
    let mut operand = false;
    while i < chars.len() {
        let c = chars[i];
        let mut repeat_at = None;
        match c {
            '\\' if chars.get(i + 1) == Some(&'Q') => {
                let rest: String = chars[i + 2..].iter().collect();
                let (quoted, used) = match rest.find("\\E") {
                    Some(end) => (&rest[..end], rest[..end].chars().count() + 2),
                    None => (rest.as_str(), rest.chars().count()),
                };
                out.push_str(&regex_syntax::escape(quoted));
                i += 2 + used;
                operand |= !quoted.is_empty();
            }
            '\\' => {
                i = escape(&chars, i, &mut out)?;
                operand = true;
            }
            '[' => {
                i = class(&chars, i, &mut out)?;
                operand = true;
            }
            '(' if chars.get(i + 1) == Some(&'?') => {
                let (end, opens) = group(&chars, i, &mut out)?;
                i = end;
                // A group of flags only, `(?i)`, leaves what came before to repeat.
                operand &= !opens;
            }
            '(' | '|' => {
                out.push(c);
                i += 1;
                operand = false;
            }
            '{' | '*' | '+' | '?' => {
                let start = i;
                let (op_text, end) = if c == '{' {
                    match repetition(&chars, i)? {
                        Some(found) => found,
                        None => {
                            out.push_str("\\{");
                            i += 1;
                            operand = true;
                            last_repeat = None;
                            continue;
                        }
                    }
                } else {
                    (c.to_string(), i + 1)
                };
                // The non-greedy `?` belongs to the operator.
                let end = if chars.get(end) == Some(&'?') {
                    end + 1
                } else {
                    end
                };
                if let Some(previous) = last_repeat {
                    return Err(go_error(
                        "invalid nested repetition operator",
                        text(previous, end),
                    ));
                }
                if !operand {
                    return Err(go_error(
                        "missing argument to repetition operator",
                        text(start, end),
                    ));
                }
                out.push_str(&op_text);
                if end > start + op_text.chars().count() {
                    out.push('?');
                }
                i = end;
                repeat_at = Some(start);
            }
            _ => {
                out.push(c);
                i += 1;
                operand = true;
            }
        }
        last_repeat = repeat_at;
    }
    Ok(out)
}

/// An escape outside or inside a class at `chars[i] == '\\'`: written to `out`; the index
/// after it.
fn escape(chars: &[char], i: usize, out: &mut String) -> Go<usize> {
    let Some(&c) = chars.get(i + 1) else {
        return Err(go_error("trailing backslash at end of expression", ""));
    };
    let octal = |d: Option<&char>| d.is_some_and(|d| ('0'..='7').contains(d));
    let invalid = || go_error("invalid escape sequence", format!("\\{c}"));
    match c {
        '1'..='7' if !octal(chars.get(i + 2)) => Err(invalid()),
        '0'..='7' => {
            let mut value = c as u32 - '0' as u32;
            let mut j = i + 2;
            while j < i + 4 && octal(chars.get(j)) {
                value = value * 8 + (chars[j] as u32 - '0' as u32);
                j += 1;
            }
            out.push_str(&format!("\\x{{{value:x}}}"));
            Ok(j)
        }
        '8' | '9' | 'u' | 'U' => Err(invalid()),
        'p' | 'P' => unicode_class(chars, i, out),
        'x' if chars.get(i + 2) == Some(&'{') => hex_escape(chars, i, out),
        // A `-` after a Perl class is a literal to Go (`[\d-z]`).
        'd' | 'D' | 's' | 'S' | 'w' | 'W' if chars.get(i + 2) == Some(&'-') => {
            out.push('\\');
            out.push(c);
            out.push_str("\\-");
            Ok(i + 3)
        }
        _ => {
            out.push('\\');
            out.push(c);
            Ok(i + 2)
        }
    }
}

/// `\x{...}` at `chars[i] == '\\'`: any code point, surrogates too (which regex-syntax refuses),
/// read digit by digit as Go reads it, its error naming what was read; the index after it.
fn hex_escape(chars: &[char], i: usize, out: &mut String) -> Go<usize> {
    let bad = |to: usize| {
        let text: String = chars[i..to.min(chars.len())].iter().collect();
        Err(go_error("invalid escape sequence", text))
    };
    let (mut value, mut digits) = (0u32, 0);
    for (k, &c) in chars.iter().enumerate().skip(i + 3) {
        if c == '}' {
            if digits == 0 {
                return bad(k + 1);
            }
            let shown = if (0xD800..=0xDFFF).contains(&value) {
                0xFFFD
            } else {
                value
            };
            out.push_str(&format!("\\x{{{shown:x}}}"));
            return Ok(k + 1);
        }
        match c.to_digit(16) {
            Some(d) if value * 16 + d <= 0x10FFFF => {
                value = value * 16 + d;
                digits += 1;
            }
            _ => return bad(k + 1),
        }
    }
    bad(chars.len())
}

/// A Unicode class `\pN` or `\p{Name}` at `chars[i] == '\\'` (`\P` negated, and `^` before a
/// name negates too): Go's names, checked as Go checks them, written as a class regex-syntax
/// takes wherever Go's does; the index after it.
fn unicode_class(chars: &[char], i: usize, out: &mut String) -> Go<usize> {
    let (name, end) = if chars.get(i + 2) == Some(&'{') {
        match chars[i + 3..].iter().position(|&c| c == '}') {
            Some(len) => (chars[i + 3..i + 3 + len].iter().collect(), i + 4 + len),
            None => {
                let rest: String = chars[i..].iter().collect();
                return Err(go_error("invalid character class range", rest));
            }
        }
    } else {
        let name: String = chars.get(i + 2).map(char::to_string).unwrap_or_default();
        let end = (i + 3).min(chars.len());
        (name, end)
    };
    let bare = name.strip_prefix('^').unwrap_or(&name);
    if unicode_classes::CLASSES
        .binary_search(&canonical(bare).as_str())
        .is_err()
    {
        let seq: String = chars[i..end].iter().collect();
        return Err(go_error("invalid character class range", seq));
    }
    // What it matches does not matter here, only that it stands where Go's class may.
    out.push_str(if chars[i + 1] == 'p' {
        "\\p{Any}"
    } else {
        "\\P{Any}"
    });
    // A `-` after a class is a literal to Go (`[\pL-z]`), not a range as regex-syntax reads it.
    if chars.get(end) == Some(&'-') {
        out.push_str("\\-");
        return Ok(end + 1);
    }
    Ok(end)
}

/// The spelling Go's regexp looks a class name up by: the first letter upper case, the others
/// lower case, `_`, `-` and spaces dropped (`old_italic` is `Olditalic`).
fn canonical(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut first = true;
    for c in name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')) {
        if first {
            out.push(c.to_ascii_uppercase());
            first = false;
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// A class at `chars[i] == '['`; the index after its `]`.
fn class(chars: &[char], i: usize, out: &mut String) -> Go<usize> {
    let unclosed = || go_error("missing closing ]", chars[i..].iter().collect::<String>());
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
        let Some(&c) = chars.get(j) else {
            return Err(unclosed());
        };
        match c {
            ']' => {
                out.push(']');
                return Ok(j + 1);
            }
            '\\' => j = escape(chars, j, out)?,
            '[' if chars.get(j + 1) == Some(&':') => {
                // A POSIX class `[:alpha:]` up to the first `:]` after it, by Go's names; without
                // a `:]`, the `[` is a literal.
                let end = (j + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars[k] == ':' && chars[k + 1] == ']');
                match end {
                    None => {
                        out.push_str("\\[");
                        j += 1;
                    }
                    Some(end) => {
                        let name: String = chars[j + 2..end].iter().collect();
                        if !POSIX_CLASSES.contains(&name.strip_prefix('^').unwrap_or(&name)) {
                            let class: String = chars[j..end + 2].iter().collect();
                            return Err(go_error("invalid character class range", class));
                        }
                        out.extend(&chars[j..end + 2]);
                        j = end + 2;
                    }
                }
            }
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
                j += 1;
            }
            // A class cannot end a range: `[a-\pL]`.
            '-' if chars.get(j + 1) == Some(&'\\')
                && matches!(chars.get(j + 2), Some('p' | 'P'))
                && out.chars().last().is_some_and(|c| c != '[' && c != '^') =>
            {
                let escape = format!("\\{}", chars[j + 2]);
                return Err(go_error("invalid escape sequence", escape));
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
/// `(?i-s:`); the index after its `>`, `)` or `:`, and whether it opens a group.
fn group(chars: &[char], i: usize, out: &mut String) -> Go<(usize, bool)> {
    let text = |to: usize| chars[i..to.min(chars.len())].iter().collect::<String>();
    let mut j = i + 2;
    if chars.get(j) == Some(&'P') {
        j += 1;
    }
    if chars.get(j) == Some(&'<') {
        let Some(end) = (j + 1..chars.len()).find(|&k| chars[k] == '>') else {
            return Err(go_error("invalid named capture", text(chars.len())));
        };
        let name = &chars[j + 1..end];
        if name.is_empty() || !name.iter().all(|c| c.is_ascii_alphanumeric() || *c == '_') {
            return Err(go_error("invalid named capture", text(end + 1)));
        }
        // Go takes a name that starts with a digit, and one given twice: a name of our own,
        // unique by its place, stands for it.
        out.push_str(&format!("(?P<g{i}>"));
        return Ok((end + 1, true));
    }
    // Go's flags: `i m s U`, one `-` followed by at least one flag; none at all is `(?:`.
    let (mut negated, mut flag_since_sign, mut any) = (false, false, false);
    let invalid = |to: usize| Err(go_error("invalid or unsupported Perl syntax", text(to)));
    out.push_str("(?");
    loop {
        let Some(&c) = chars.get(j) else {
            return invalid(j);
        };
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
                    return invalid(j + 1);
                }
                if !any && c == ')' {
                    // `(?)` sets no flag: nothing (regex-syntax refuses it empty).
                    out.truncate(out.len() - 2);
                } else {
                    out.push(c);
                }
                return Ok((j + 1, c == ':'));
            }
            _ => return invalid(j + 1),
        }
        out.push(c);
        j += 1;
    }
}

/// Go's `parseRepeat` at `chars[i] == '{'`: `{n}`, `{n,}` or `{n,m}` (`Some` with its text and
/// the index after it); `None` when it is no repetition and `{` is a literal; Go's error for a
/// count over 1000 or `n > m`.
fn repetition(chars: &[char], i: usize) -> Go<Option<(String, usize)>> {
    let digits = |from: usize| {
        let end = (from..chars.len())
            .find(|&k| !chars[k].is_ascii_digit())
            .unwrap_or(chars.len());
        let text: String = chars[from..end].iter().collect();
        (text, end)
    };
    let (min, mut j) = digits(i + 1);
    if min.is_empty() {
        return Ok(None);
    }
    let mut max = Some(min.clone());
    if chars.get(j) == Some(&',') {
        let (m, end) = digits(j + 1);
        max = (!m.is_empty()).then_some(m);
        j = end;
    }
    if chars.get(j) != Some(&'}') {
        return Ok(None);
    }
    let count = |s: &str| s.parse::<u32>().ok().filter(|n| *n <= MAX_REPEAT);
    let text: String = chars[i..=j].iter().collect();
    let ok = match (count(&min), max.as_deref().map(count)) {
        (Some(_), None) => true,
        (Some(lo), Some(Some(hi))) => lo <= hi,
        _ => false,
    };
    if !ok {
        return Err(go_error("invalid repeat count", text));
    }
    Ok(Some((text, j + 1)))
}

#[cfg(test)]
mod tests;
