//! YAML 1.1 resolution as go-yaml v2 does it (`resolve.go`): what a plain scalar would be read
//! back as, which decides whether a string must be quoted.

use kube_markers_crdcheck::is_yaml_float;

/// What go-yaml v2 reads a plain scalar as, as far as this writer needs to know.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Resolved {
    /// A string: written plain, it reads back as itself.
    Str,
    /// An integer `strconv.ParseInt` accepts (go-yaml decodes it as a Go `int`).
    Int(i64),
    /// An integer only `strconv.ParseUint` accepts (a `uint64`).
    Uint(u64),
    /// A float: `yamlStyleFloat` text that `strconv.ParseFloat` accepts, or `.5`-style text.
    Float(f64),
    /// Anything else that is not a string: null, a boolean, `.inf`/`.nan`, a timestamp, the
    /// merge key `<<`.
    Other,
}

/// Whether a plain scalar with this text would read back as a string.
pub(super) fn resolves_to_string(s: &str) -> bool {
    resolve(s) == Resolved::Str
}

/// go-yaml v2's `resolve` for an untagged plain scalar.
pub(super) fn resolve(s: &str) -> Resolved {
    let Some(first) = s.bytes().next() else {
        return Resolved::Other; // "" is null
    };
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "~", "null", "Null", "NULL",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    let hinted =
        matches!(first, b'+' | b'-' | b'0'..=b'9' | b'.') || b"yYnNtTfFoO~".contains(&first);
    if !hinted {
        return Resolved::Str;
    }
    if SPECIAL.contains(&s) {
        return Resolved::Other;
    }
    match first {
        b'.' => go_parse_float(s).map_or(Resolved::Str, Resolved::Float),
        b'+' | b'-' | b'0'..=b'9' => {
            if is_timestamp(s) {
                return Resolved::Other;
            }
            let plain = s.replace('_', "");
            if let Some(int) = go_parse_int(&plain) {
                return int;
            }
            // go-yaml's own `0b`/`-0b` fallback after this accepts nothing that `ParseInt`
            // with base 0 (which reads `0b` too) did not.
            match go_parse_float(&plain) {
                Some(f) => Resolved::Float(f),
                None => Resolved::Str,
            }
        }
        _ => Resolved::Str,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `strconv.ParseUint(s, 0, 64)`, on text whose
/// underscores are already removed: `None` when both fail (syntax or range), and go-yaml then
/// tries the text as a float.
fn go_parse_int(s: &str) -> Option<Resolved> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() {
        return None;
    }
    let (digits, radix) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (h, 16)
        } else if let Some(o) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (o, 8)
        } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (b, 2)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if s.starts_with('-') {
        // ParseInt down to i64::MIN; ParseUint takes no sign.
        let value = i64::try_from(-i128::try_from(magnitude).ok()?).ok()?;
        Some(Resolved::Int(value))
    } else if let Ok(value) = i64::try_from(magnitude) {
        Some(Resolved::Int(value))
    } else if s.starts_with('+') {
        None // ParseUint takes no sign.
    } else {
        u64::try_from(magnitude).ok().map(Resolved::Uint)
    }
}

/// Go's `strconv.ParseFloat(s, 64)` on the texts that reach it: decimal floats (with optional
/// exponent). Its other forms (`inf`, `nan`, hexadecimal floats) never get here: `.inf`-style
/// names are looked up before, and a digit-led text must match `yamlStyleFloat` first.
/// Out-of-range values are an error in Go (with ±Inf), and go-yaml then keeps the string, so
/// the range is checked too; underflow to zero is no error.
fn go_parse_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.contains('_') || !is_yaml_float(body) {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// yaml.v2's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub(super) fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        // [0-5]?[0-9]: one or two digits, a leading one being at most 5.
        let d = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if d == 0 {
            return false;
        }
        let take = if d >= 2 && b[i] <= b'5' { 2 } else { 1 };
        i += take;
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// yaml.v2's `parseTimestamp`: a `YYYY-` prefix, then one of Go's layouts
/// `2006-1-2T15:4:5.999999999Z07:00` (also with `t` or a space and no zone) or `2006-1-2`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let year_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if year_digits != 4 || b.get(4) != Some(&b'-') {
        return false;
    }
    let year: i32 = s[..4].parse().unwrap_or(0);
    let mut p = Parser { b, i: 5 };
    let Some(month) = p.num(1, 2) else {
        return false;
    };
    if !p.lit(b'-') {
        return false;
    }
    let Some(day) = p.num(1, 2) else { return false };
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return false;
    }
    if p.done() {
        return true;
    }
    // `T`/`t` layouts end in a zone (`Z` or ±hh:mm); the space layout has none.
    let zone_required = match p.next() {
        Some(b'T' | b't') => true,
        Some(b' ') => false,
        _ => return false,
    };
    let Some(hour) = p.num(1, 2) else {
        return false;
    };
    if !p.lit(b':') {
        return false;
    }
    let Some(minute) = p.num(1, 2) else {
        return false;
    };
    if !p.lit(b':') {
        return false;
    }
    let Some(second) = p.num(1, 2) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    // Optional fractional seconds, after `.` or `,` as Go's parser allows.
    if matches!(p.peek(), Some(b'.' | b',')) && p.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
        p.i += 1;
        while p.peek().is_some_and(|c| c.is_ascii_digit()) {
            p.i += 1;
        }
    }
    if !zone_required {
        return p.done();
    }
    match p.next() {
        Some(b'Z') => p.done(),
        Some(b'+' | b'-') => {
            let hours = p.fixed(2).is_some_and(|h| h <= 24);
            let ok = hours && p.lit(b':') && p.fixed(2).is_some_and(|m| m <= 60);
            ok && p.done()
        }
        _ => false,
    }
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn done(&self) -> bool {
        self.i == self.b.len()
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.i += 1;
        c
    }
    fn lit(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn num(&mut self, min: usize, max: usize) -> Option<u32> {
        let n = self.b[self.i.min(self.b.len())..]
            .iter()
            .take(max)
            .take_while(|c| c.is_ascii_digit())
            .count();
        if n < min {
            return None;
        }
        let v = std::str::from_utf8(&self.b[self.i..self.i + n])
            .ok()?
            .parse()
            .ok()?;
        self.i += n;
        Some(v)
    }
    fn fixed(&mut self, n: usize) -> Option<u32> {
        let start = self.i;
        let v = self.num(n, n)?;
        (self.i - start == n).then_some(v)
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
