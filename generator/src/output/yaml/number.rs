//! Numbers as controller-gen's path leaves them.
//!
//! controller-gen never hands a typed number to go-yaml. `genall.WriteYAML` marshals the object
//! to JSON, decodes that into a `map[string]any` (so every number becomes a `float64`, whatever
//! its Go field type) and marshals it again with `encoding/json`; sigs.k8s.io/yaml's
//! `JSONToYAML` then lets go-yaml v2 read that text back, which resolves each number as YAML
//! 1.1 does (an integer when `ParseInt` or `ParseUint` accepts it, else a float) and writes
//! integers in decimal and floats with `strconv.FormatFloat(f, 'g', -1, 64)`.
//!
//! So `1048576.0` is written `1048576`, `-0.0` is `0`, `1e20` (too big for `uint64`) is
//! `1e+20`, and `0.5` stays `0.5`. Large integers keep only a float's shortest digits:
//! `i64::MAX` is `9223372036854776000` (a `uint64` for go-yaml), and `i64::MIN`, whose text
//! `-9223372036854776000` is then below `int64`, the float `-9.223372036854776e+18`.

use super::resolve::{Resolved, resolve};
use serde_json::Number;

/// `n` as controller-gen writes it.
pub(super) fn format_number(n: &Number) -> String {
    // encoding/json decodes every number into the nearest float64; `as_f64` rounds the same
    // way. (It is `None` only for numbers beyond f64 with serde_json's arbitrary_precision,
    // which encoding/json rejects: keep the text.)
    let Some(f) = n.as_f64() else {
        return n.to_string();
    };
    let json = encoding_json_float(f);
    match resolve(&json) {
        Resolved::Int(i) => i.to_string(),
        Resolved::Uint(u) => u.to_string(),
        Resolved::Float(f) => format_go_float(f),
        // encoding/json writes only decimal numbers, which resolve to one of the above.
        Resolved::Str | Resolved::Other => json,
    }
}

/// The shortest decimal digits that read back as `f` (as Go's shortest formatting finds them)
/// and the exponent of the first: `f = 0.d₁d₂… × 10^(exp + 1)`, i.e. `d₁.d₂… × 10^exp`.
/// `f` is finite and not zero.
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest round-tripping digits, like Go's shortest mode.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits = mantissa.chars().filter(|c| *c != '.').collect();
    (digits, exp.parse().unwrap_or(0))
}

/// `strconv.FormatFloat`'s `%e` body: `d.ddde±XX`, the exponent at least two digits.
fn exponent_form(digits: &str, exp: i32) -> String {
    let (head, tail) = digits.split_at(1);
    let point = if tail.is_empty() { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{head}{point}{tail}e{sign}{:02}", exp.abs())
}

/// `strconv.FormatFloat`'s `%f` body with the shortest digits: no exponent, zeros padding the
/// digits up to the decimal point.
fn positional_form(digits: &str, exp: i32) -> String {
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    }
}

/// `encoding/json`'s float64 encoder: positional from 1e-6 up to below 1e21 (and for zero,
/// keeping the sign of `-0`), else the exponent form with `e-07` shortened to `e-7`.
fn encoding_json_float(f: f64) -> String {
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0");
    }
    let (digits, exp) = shortest_digits(f);
    let abs = f.abs();
    let body = if (1e-6..1e21).contains(&abs) {
        positional_form(&digits, exp)
    } else {
        let e = exponent_form(&digits, exp);
        match e.split_once("e-0") {
            Some((mantissa, last)) if last.len() == 1 => format!("{mantissa}e-{last}"),
            _ => e,
        }
    };
    format!("{sign}{body}")
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` with go-yaml's names for the specials (which JSON
/// cannot carry, so they never come from a document).
pub(super) fn format_go_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0");
    }
    // With the shortest digits, %g switches to the exponent form outside 1e-4 ≤ |f| < 1e6.
    let (digits, exp) = shortest_digits(f);
    let body = if (-4..6).contains(&exp) {
        positional_form(&digits, exp)
    } else {
        exponent_form(&digits, exp)
    };
    format!("{sign}{body}")
}
