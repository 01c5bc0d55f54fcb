//! The literal validators kube-apiserver enables from 1.29 (cel-go's `ValidateDurationLiterals`,
//! `ValidateTimestampLiterals`, `ValidateRegexLiterals`): a constant argument of `duration()`,
//! `timestamp()` or `matches()` must parse. They run on an expression that type-checked.

use crate::ast::{Expr, ExprKind, Literal};
use crate::check::CheckError;

pub fn invalid_literals(root: &Expr, overloads: &[Vec<&'static str>]) -> Vec<CheckError> {
    let mut errors = Vec::new();
    root.walk(&mut |e| {
        let ExprKind::Call {
            function,
            target,
            args,
        } = &e.kind
        else {
            return;
        };
        let (arg, kind) = match (function.as_str(), target.is_some(), args.len()) {
            ("duration", false, 1) => (&args[0], "duration"),
            ("timestamp", false, 1) => (&args[0], "timestamp"),
            // cel-go checks argument 0 of either form: the pattern of `s.matches(p)`, but the
            // string of `matches(s, p)`.
            ("matches", true, 1) | ("matches", false, 2) => (&args[0], "matches"),
            _ => return,
        };
        // Only the string overloads (`duration(string)`, not `duration(duration)`).
        if overloads[e.id as usize].is_empty() {
            return;
        }
        // `timestamp(int)`: cel-go evaluates it, seconds from the epoch within years 1 to 9999.
        if let (ExprKind::Literal(Literal::Int(seconds)), "timestamp") = (&arg.kind, kind) {
            if !(-62_135_596_800..=253_402_300_799).contains(seconds) {
                errors.push(CheckError {
                    id: arg.id,
                    message: "invalid timestamp argument".into(),
                });
            }
            return;
        }
        let ExprKind::Literal(Literal::String(text)) = &arg.kind else {
            return;
        };
        let valid = match kind {
            "duration" => parse_duration(text),
            "timestamp" => parse_rfc3339(text),
            _ => crate::go_regex::valid(text),
        };
        if !valid {
            errors.push(CheckError {
                id: arg.id,
                message: format!("invalid {kind} argument"),
            });
        }
    });
    errors
}

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or `0`, within ±2^63 ns.
fn parse_duration(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut rest = s;
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..number_len];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return false;
        }
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let nanos = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return false,
        };
        rest = &rest[unit_len..];
        total += number.parse::<f64>().unwrap_or(f64::INFINITY) * nanos;
    }
    total <= i64::MAX as f64
}

/// Go's `time.Parse(time.RFC3339, s)`: `2006-01-02T15:04:05[.frac](Z|±07:00)`, fields in range.
fn parse_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| -> Option<u32> {
        let part = s.get(from..from + n)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (Some(year), Some(month), Some(day), Some(hour), Some(min), Some(sec)) = (
        digits(0, 4),
        digits(5, 2),
        digits(8, 2),
        digits(11, 2),
        digits(14, 2),
        digits(17, 2),
    ) else {
        return false;
    };
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || b.get(10) != Some(&b'T')
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return false;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month)
        || day < 1
        || day > days[month as usize - 1]
        || hour > 23
        || min > 59
        || sec > 59
    {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let (Some(h), Some(m)) = (digits(i + 1, 2), digits(i + 4, 2)) else {
                return false;
            };
            b.get(i + 3) == Some(&b':') && i + 6 == b.len() && h < 24 && m < 60
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_timestamps_parse_as_go_parses_them() {
        for (d, ok) in [
            ("1s", true),
            ("1.5h", true),
            ("-2m3s", true),
            ("0", true),
            ("1x", false),
            ("", false),
            ("s", false),
            ("1", false),
        ] {
            assert_eq!(parse_duration(d), ok, "{d}");
        }
        for (t, ok) in [
            ("2020-01-01T00:00:00Z", true),
            ("2020-02-29T23:59:59.123+01:00", true),
            ("2021-02-29T00:00:00Z", false),
            ("bad", false),
            ("2020-01-01 00:00:00Z", false),
            ("2020-01-01T00:00:00", false),
        ] {
            assert_eq!(parse_rfc3339(t), ok, "{t}");
        }
    }
}
