//! What kube-apiserver's `env.Program` refuses at CRD creation: the API server plans each rule
//! with cel-go's `OptOptimize`, which evaluates a type conversion of a constant (`int('x')`,
//! `uint(-1)`, `string(b'\xff')`) while planning; a conversion that fails fails the program
//! ("program instantiation failed: …"), even in a branch that never runs. A constant pattern
//! of `matches`, `find` or `findAll` is compiled while planning too, with Go's `regexp`.
//!
//! Constants are literals, list and map literals of constants, and conversions of constants, as
//! in cel-go's planner; the first failure in planning order (arguments before calls,
//! comprehensions from their initial accumulator) is the one reported.

use crate::ast::{Expr, ExprKind, Literal};

/// A constant's value, as far as a conversion of it can fail.
#[derive(Clone, Debug)]
enum Const {
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    /// A timestamp (its conversions do not fail).
    Timestamp,
    /// Any other constant (bool, null, duration, list, map, type): its conversions are not
    /// followed further.
    Other,
}

/// Go's `minUnixTime` and `maxUnixTime` of cel-go's timestamps (years 1 to 9999).
const MIN_UNIX_TIME: i64 = -62_135_596_800;
const MAX_UNIX_TIME: i64 = 253_402_300_799;

/// The error of the first constant conversion that fails, as cel-go words it.
pub fn instantiation_error(root: &Expr) -> Option<String> {
    fold(root).err()
}

fn fold(e: &Expr) -> Result<Option<Const>, String> {
    match &e.kind {
        ExprKind::Literal(l) => Ok(Some(match l {
            Literal::Int(i) => Const::Int(*i),
            Literal::Uint(u) => Const::Uint(*u),
            Literal::Double(d) => Const::Double(*d),
            Literal::String(s) => Const::String(s.clone()),
            Literal::Bytes(b) => Const::Bytes(b.clone()),
            Literal::Bool(_) | Literal::Null => Const::Other,
        })),
        ExprKind::Ident(_) => Ok(None),
        ExprKind::Select { operand, .. } => fold(operand).map(|_| None),
        ExprKind::List { elements, optional } => {
            let mut all = optional.is_empty();
            for element in elements {
                all &= fold(element)?.is_some();
            }
            Ok(all.then_some(Const::Other))
        }
        ExprKind::Map { entries } => {
            let mut all = true;
            for entry in entries {
                all &= fold(&entry.key)?.is_some() & fold(&entry.value)?.is_some();
                all &= !entry.optional;
            }
            Ok(all.then_some(Const::Other))
        }
        ExprKind::Struct { fields, .. } => {
            for field in fields {
                fold(&field.value)?;
            }
            Ok(None)
        }
        ExprKind::Comprehension(c) => {
            for part in [
                &c.accu_init,
                &c.iter_range,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ] {
                fold(part)?;
            }
            Ok(None)
        }
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            if let Some(t) = target {
                fold(t)?;
            }
            let mut folded = Vec::with_capacity(args.len());
            for a in args {
                folded.push(fold(a)?);
            }
            // The pattern of `matches` (cel-go), `find` and `findAll` (the API server's regex
            // library) is compiled while planning when it is a constant.
            let pattern = match (function.as_str(), target.is_some(), folded.as_slice()) {
                ("matches", false, [_, Some(Const::String(p))])
                | ("matches" | "find" | "findAll", true, [Some(Const::String(p)), ..]) => Some(p),
                _ => None,
            };
            if let Some(error) = pattern.and_then(|p| crate::go_regex::error(p)) {
                return Err(error);
            }
            match (target, folded.as_slice()) {
                (None, [Some(value)]) => convert(function, value),
                _ => Ok(None),
            }
        }
    }
}

/// cel-go's `ConvertToType` of a constant, for the conversion functions.
fn convert(function: &str, value: &Const) -> Result<Option<Const>, String> {
    let failed =
        |from: &str, to: &str| Err(format!("type conversion error from '{from}' to '{to}'"));
    let out = match (function, value) {
        ("int", Const::Int(i)) => Const::Int(*i),
        ("int", Const::Uint(u)) => Const::Int(i64::try_from(*u).map_err(|_| "integer overflow")?),
        ("int", Const::Double(d)) => {
            // doubleToInt64Checked: both bounds excluded.
            if !d.is_finite() || *d <= i64::MIN as f64 || *d >= i64::MAX as f64 {
                return Err("integer overflow".into());
            }
            Const::Int(*d as i64)
        }
        ("int", Const::String(s)) => match go_parse_int(s) {
            Some(i) => Const::Int(i),
            None => return failed("string", "int"),
        },
        ("uint", Const::Int(i)) => {
            Const::Uint(u64::try_from(*i).map_err(|_| "unsigned integer overflow")?)
        }
        ("uint", Const::Uint(u)) => Const::Uint(*u),
        ("uint", Const::Double(d)) => {
            if !d.is_finite() || *d < 0.0 || *d >= u64::MAX as f64 {
                return Err("unsigned integer overflow".into());
            }
            Const::Uint(*d as u64)
        }
        ("uint", Const::String(s)) => match go_parse_uint(s) {
            Some(u) => Const::Uint(u),
            None => return failed("string", "uint"),
        },
        ("double", Const::String(s)) => {
            if !go_parses_float(s) {
                return failed("string", "double");
            }
            Const::Other
        }
        ("bool", Const::String(s)) => {
            const GO_BOOLS: [&str; 12] = [
                "1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False",
            ];
            if !GO_BOOLS.contains(&s.as_str()) {
                return failed("string", "bool");
            }
            Const::Other
        }
        ("string", Const::Bytes(b)) => match String::from_utf8(b.clone()) {
            Ok(s) => Const::String(s),
            Err(_) => return Err("invalid UTF-8 in bytes, cannot convert to string".into()),
        },
        ("string", Const::Int(i)) => Const::String(i.to_string()),
        ("string", Const::Uint(u)) => Const::String(u.to_string()),
        ("string", Const::String(s)) => Const::String(s.clone()),
        ("bytes", Const::String(s)) => Const::Bytes(s.clone().into_bytes()),
        ("timestamp", Const::Int(i)) => {
            if !(MIN_UNIX_TIME..=MAX_UNIX_TIME).contains(i) {
                return Err("timestamp overflow".into());
            }
            Const::Timestamp
        }
        // Timestamps and durations from strings are `ValidateTimestampLiterals`' and
        // `ValidateDurationLiterals`' (compile errors, before planning); what else converts
        // is a constant whose further conversions are not followed.
        (
            "int" | "uint" | "double" | "bool" | "string" | "bytes" | "timestamp" | "duration"
            | "dyn" | "type",
            _,
        ) => Const::Other,
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// Go's `strconv.ParseInt(s, 10, 64)`: an optional sign, then ASCII digits.
fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Go's `strconv.ParseUint(s, 10, 64)`: ASCII digits only, no sign.
fn go_parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Whether Go's `strconv.ParseFloat(s, 64)` succeeds: decimal and hexadecimal floats, `inf`,
/// `infinity`, `nan` in any case, `_` between digits of a prefixed number; not out of range
/// (`1e400` is an error, not infinity).
fn go_parses_float(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = unsigned.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return true;
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        // Hexadecimal floats need a `p` exponent; leave their range to Go.
        return hex.contains('p')
            && hex
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || matches!(b, b'.' | b'p' | b'+' | b'-' | b'_'));
    }
    if !unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return false;
    }
    unsigned.parse::<f64>().is_ok_and(f64::is_finite)
}

#[cfg(test)]
mod tests {
    use super::instantiation_error;
    use crate::parse::parse;

    fn error(source: &str) -> Option<String> {
        instantiation_error(&parse(source).unwrap().expr)
    }

    #[test]
    fn constant_conversions_fail_as_cel_go_plans_them() {
        for (source, message) in [
            (
                "int('x') == 1",
                "type conversion error from 'string' to 'int'",
            ),
            (
                "false && int('1.5') == 1",
                "type conversion error from 'string' to 'int'",
            ),
            ("uint(-1) == 1u", "unsigned integer overflow"),
            ("int(1e19) == 1", "integer overflow"),
            ("int(18446744073709551615u) == 1", "integer overflow"),
            (
                "uint('-1') == 1u",
                "type conversion error from 'string' to 'uint'",
            ),
            (
                "double('1e400') == 1.0",
                "type conversion error from 'string' to 'double'",
            ),
            (
                "bool('yes')",
                "type conversion error from 'string' to 'bool'",
            ),
            (
                "string(b'\\xff') == ''",
                "invalid UTF-8 in bytes, cannot convert to string",
            ),
            (
                "int(string(bytes('x'))) == 1",
                "type conversion error from 'string' to 'int'",
            ),
            (
                "[1].all(x, int('y') == x)",
                "type conversion error from 'string' to 'int'",
            ),
            (
                "timestamp(253402300800) != timestamp(0)",
                "timestamp overflow",
            ),
        ] {
            assert_eq!(error(source).as_deref(), Some(message), "{source}");
        }
        for fine in [
            "int('-12') == -12",
            "int(1.5) == 1",
            "uint(1) == 1u",
            "double('inf') > 1.0 && double('0x1p-2') < 1.0 && double('1e3') > 1.0",
            "bool('True')",
            "string(b'ok') == 'ok'",
            "int(self.x) == 1",
            "int([1][0]) == 1",
            "timestamp(253402300799) != timestamp(0)",
        ] {
            assert_eq!(error(fine), None, "{fine}");
        }
    }
}
