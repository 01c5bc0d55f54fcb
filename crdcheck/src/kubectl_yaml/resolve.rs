//! go-yaml v2's resolution of a scalar (its `resolve.go`: the table of booleans and nulls, Go's
//! `strconv` integers and floats after removing every `_`, the YAML 1.1 float pattern, the
//! checks of `!!int`-like tags) and the text sigs.k8s.io/yaml makes of a key.

use super::{Go, utf8_lossy_per_byte};

const TAG: &str = "tag:yaml.org,2002:";

/// A scalar as go-yaml v2 decodes it into `interface{}`.
pub(super) fn scalar(value: &str, plain: bool, tag: Option<&str>) -> Result<Go, String> {
    let Some(tag) = tag else {
        return Ok(if plain {
            resolve_plain(value, true).0
        } else {
            Go::Str(value.to_string())
        });
    };
    let short = tag.strip_prefix(TAG);
    match short {
        Some("str") => return Ok(Go::Str(value.to_string())),
        Some("binary") => {
            return base64(value)
                .map(|bytes| Go::Str(utf8_lossy_per_byte(&bytes)))
                .ok_or_else(|| "!!binary value contains invalid base64 data".to_string());
        }
        Some("bool" | "int" | "float" | "null" | "timestamp") => {}
        // Any other tag (`!local`, `!`, `!!map` on a scalar): the text.
        _ => return Ok(Go::Str(value.to_string())),
    }
    let wanted = short.unwrap_or_default();
    let timestamp = wanted == "timestamp";
    let (go, kind) = resolve_plain(value, timestamp);
    match (wanted, kind) {
        (w, k) if w == k => Ok(go),
        ("float", "int") => Ok(match go {
            Go::Int(i) => Go::Float(i as f64),
            Go::Uint(u) => Go::Float(u as f64),
            other => other,
        }),
        (w, k) => Err(format!("cannot decode !!{k} `{value}` as a !!{w}")),
    }
}

/// go-yaml v2's `resolve` of an untagged plain scalar: the value and its tag's short name.
/// A timestamp keeps its text (go-yaml's `interface{}` rule).
fn resolve_plain(s: &str, timestamps: bool) -> (Go, &'static str) {
    let first = s.as_bytes().first().copied();
    let hint = match first {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => 0,
    };
    let string = || (Go::Str(s.to_string()), "str");
    if hint == 0 {
        return string();
    }
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return (Go::Bool(true), "bool");
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return (Go::Bool(false), "bool");
        }
        "" | "~" | "null" | "Null" | "NULL" => return (Go::Null, "null"),
        ".nan" | ".NaN" | ".NAN" => return (Go::Float(f64::NAN), "float"),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return (Go::Float(f64::INFINITY), "float");
        }
        "-.inf" | "-.Inf" | "-.INF" => return (Go::Float(f64::NEG_INFINITY), "float"),
        _ => {}
    }
    match hint {
        b'.' => match go_parse_float(s) {
            Some(f) => (Go::Float(f), "float"),
            None => string(),
        },
        b'D' | b'S' => {
            if timestamps && is_timestamp(s) {
                return (Go::Str(s.to_string()), "timestamp");
            }
            let plain = s.replace('_', "");
            if let Some(i) = parse_int(&plain, 0) {
                return (Go::Int(i), "int");
            }
            if let Some(u) = parse_uint(&plain, 0) {
                return (Go::Uint(u), "int");
            }
            if is_yaml_float(&plain)
                && let Ok(f) = plain.parse::<f64>()
                && f.is_finite()
            {
                return (Go::Float(f), "float");
            }
            if let Some(digits) = plain.strip_prefix("0b") {
                if let Some(i) = parse_int(digits, 2) {
                    return (Go::Int(i), "int");
                }
                if let Some(u) = parse_uint(digits, 2) {
                    return (Go::Uint(u), "int");
                }
            } else if let Some(digits) = plain.strip_prefix("-0b")
                && let Some(i) = parse_int(&format!("-{digits}"), 2)
            {
                return (Go::Int(i), "int");
            }
            string()
        }
        _ => string(),
    }
}

/// Go's `strconv.ParseUint(s, base, 64)` without underscores (go-yaml removed them); base 0
/// reads a `0x`, `0o`, `0b` (any case) or `0` prefix.
fn parse_uint(s: &str, base: u32) -> Option<u64> {
    let mut digits = s.as_bytes();
    if digits.is_empty() {
        return None;
    }
    let mut base = base;
    if base == 0 {
        base = 10;
        if digits[0] == b'0' {
            let prefix = digits.get(1).map(u8::to_ascii_lowercase);
            match prefix {
                Some(b'b') if digits.len() >= 3 => (base, digits) = (2, &digits[2..]),
                Some(b'o') if digits.len() >= 3 => (base, digits) = (8, &digits[2..]),
                Some(b'x') if digits.len() >= 3 => (base, digits) = (16, &digits[2..]),
                _ => (base, digits) = (8, &digits[1..]),
            }
        }
    }
    let mut n: u64 = 0;
    for &c in digits {
        let d = (c as char).to_digit(36)?;
        if d >= base {
            return None;
        }
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// Go's `strconv.ParseInt(s, base, 64)`, as [`parse_uint`] after an optional sign.
fn parse_int(s: &str, base: u32) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest.is_empty() {
        return None;
    }
    let n = parse_uint(rest, base)?;
    if negative {
        (n <= 1 << 63).then(|| (n as i64).wrapping_neg())
    } else {
        i64::try_from(n).ok()
    }
}

/// Go's `strconv.ParseFloat(s, 64)` of a text starting with `.`: digits and underscores
/// between digits, an optional exponent; `None` when out of range or not that.
fn go_parse_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 1;
    let mut digits = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => digits += 1,
            b'_' => {}
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    if i != b.len() {
        return None;
    }
    // An underscore only between digits.
    for (j, &c) in b.iter().enumerate() {
        if c == b'_' && !(b[j - 1].is_ascii_digit() && b.get(j + 1).is_some_and(u8::is_ascii_digit))
        {
            return None;
        }
    }
    let f: f64 = s.replace('_', "").parse().ok()?;
    f.is_finite().then_some(f)
}

/// The timestamps go-yaml v2 resolves (for `!!timestamp`): `2006-1-2`, with a time
/// `15:4:5[.frac]` after a space, or after `T`/`t` with a zone (`Z` or `±07:00`).
fn is_timestamp(s: &str) -> bool {
    fn number(s: &mut &str, min: usize, max: usize) -> Option<u32> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        if n < min || n > max {
            return None;
        }
        let value = s[..n].parse().ok();
        *s = &s[n..];
        value
    }
    fn expect(s: &mut &str, c: char) -> Option<()> {
        *s = s.strip_prefix(c)?;
        Some(())
    }
    let parse = || -> Option<()> {
        let mut s = s;
        let year = number(&mut s, 4, 4)?;
        expect(&mut s, '-')?;
        let month = number(&mut s, 1, 2)?;
        expect(&mut s, '-')?;
        let day = number(&mut s, 1, 2)?;
        let days = super::super::formats::days_in_month(year, month)?;
        if day == 0 || day > days {
            return None;
        }
        if s.is_empty() {
            return Some(());
        }
        let zoned = match s.as_bytes()[0] {
            b'T' | b't' => true,
            b' ' => false,
            _ => return None,
        };
        s = &s[1..];
        let (h, m) = (number(&mut s, 1, 2)?, {
            expect(&mut s, ':')?;
            number(&mut s, 1, 2)?
        });
        expect(&mut s, ':')?;
        let sec = number(&mut s, 1, 2)?;
        if h > 23 || m > 59 || sec > 59 {
            return None;
        }
        if let Some(rest) = s.strip_prefix('.') {
            s = rest;
            number(&mut s, 1, 9)?;
        }
        if !zoned {
            return s.is_empty().then_some(());
        }
        if s == "Z" {
            return Some(());
        }
        let rest = s.strip_prefix(['+', '-'])?;
        let b = rest.as_bytes();
        (b.len() == 5
            && b[2] == b':'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 2 || c.is_ascii_digit()))
        .then_some(())
    };
    parse().is_some()
}

/// Go's `base64.StdEncoding.DecodeString`, which skips line breaks.
fn base64(text: &str) -> Option<Vec<u8>> {
    let symbols: Vec<u8> = text
        .bytes()
        .filter(|b| *b != b'\n' && *b != b'\r')
        .collect();
    if !symbols.len().is_multiple_of(4) {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    let quanta = symbols.len() / 4;
    for (q, quad) in symbols.chunks(4).enumerate() {
        let pad = quad.iter().rev().take_while(|c| **c == b'=').count();
        if pad > 2 || (pad > 0 && q + 1 != quanta) {
            return None;
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            n = (n << 6) | value(c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// The text sigs.k8s.io/yaml makes of a key: a string as it is, a boolean or number as Go
/// prints it (a float as a float32 with `%g`); `None` for the keys it refuses (null, an
/// unsigned integer above i64).
pub(super) fn key_text(key: &Go) -> Option<String> {
    match key {
        Go::Str(s) => Some(s.clone()),
        Go::Bool(b) => Some(b.to_string()),
        Go::Int(i) => Some(i.to_string()),
        Go::Float(f) => Some(go_float32_g(*f)),
        Go::Null | Go::Uint(_) | Go::Seq(_) | Go::Map(_) => None,
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`, with go-yaml's names for the infinities and
/// NaN.
fn go_float32_g(f: f64) -> String {
    let f = f as f32;
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    // The shortest digits that read back as this float32, and the decimal exponent.
    let shortest = format!("{:e}", f.abs());
    let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let digits = mantissa.replace('.', "");
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let rest = if digits.len() > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        let esign = if exponent < 0 { '-' } else { '+' };
        return format!(
            "{sign}{}{rest}e{esign}{:02}",
            &digits[..1],
            exponent.unsigned_abs()
        );
    }
    let point = exponent + 1;
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!(
            "{sign}{digits}{}",
            "0".repeat(point as usize - digits.len())
        )
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{sign}{whole}.{fraction}")
    }
}

/// yaml.v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`; the
/// generator's YAML writer quotes by it, and this crate's reader resolves by it.
pub fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(s: &str) -> String {
        format!("{:?}", resolve_plain(s, true).0)
    }

    /// Go's `ParseInt`/`ParseUint` with base 0 after `_` is removed, then the YAML 1.1 float.
    #[test]
    fn numbers_as_go_yaml_v2_resolves_them() {
        assert_eq!(value("0755"), "Int(493)");
        assert_eq!(value("0X1F"), "Int(31)");
        assert_eq!(value("0O17"), "Int(15)");
        assert_eq!(value("0B101"), "Int(5)");
        assert_eq!(value("0b-101"), "Int(-5)");
        assert_eq!(value("100_"), "Int(100)");
        assert_eq!(value("08"), "Float(8.0)");
        assert_eq!(value("1_000.5"), "Float(1000.5)");
        assert_eq!(value(".5_5"), "Float(0.55)");
        assert_eq!(value("._5"), "Str(\"._5\")");
        assert_eq!(value("1e400"), "Str(\"1e400\")");
        assert_eq!(value("18446744073709551615"), "Uint(18446744073709551615)");
        assert_eq!(value("tRue"), "Str(\"tRue\")");
        assert_eq!(value("0x"), "Str(\"0x\")");
    }

    /// `strconv.FormatFloat(f, 'g', -1, 32)`, as sigs.k8s.io/yaml writes a float key.
    #[test]
    fn float_keys_print_as_float32() {
        for (f, text) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (123456789.0, "1.2345679e+08"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e20, "1e+20"),
            (1e39, ".inf"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(go_float32_g(f), text, "{f}");
        }
    }

    #[test]
    fn tags_are_checked_as_go_yaml_checks_them() {
        assert!(matches!(
            scalar("0x10", true, Some("tag:yaml.org,2002:int")),
            Ok(Go::Int(16))
        ));
        assert!(matches!(
            scalar("1", true, Some("tag:yaml.org,2002:float")),
            Ok(Go::Float(_))
        ));
        assert!(scalar("x", true, Some("tag:yaml.org,2002:int")).is_err());
        assert!(matches!(
            scalar("aGVsbG8=", true, Some("tag:yaml.org,2002:binary")),
            Ok(Go::Str(s)) if s == "hello"
        ));
        assert!(matches!(scalar("y", true, Some("!")), Ok(Go::Str(_))));
        assert!(matches!(scalar("y", false, None), Ok(Go::Str(_))));
        assert!(is_timestamp("2001-12-14t21:59:43.10-05:00"));
        assert!(!is_timestamp("2001-02-30"));
    }
}
