//! The strings extension's `string.format()` validator (cel-go's `cel.validator.string_format`,
//! in the strings library kube-apiserver enables at version 2): a call `'…'.format([…])` whose
//! format string is a literal and whose arguments are a list literal has its clauses parsed and
//! each argument's static type checked against its clause when the rule is compiled, and every
//! argument must be used. It runs, as the other validators, on an expression that type-checked.
//!
//! The clauses: `%s` (scalars, lists, maps, types, null; a list or map literal is looked into),
//! `%d` and `%o` (int, uint), `%f` and `%e` (double, or string for `"NaN"` and the infinities),
//! `%b` (int, uint, bool), `%x` and `%X` (int, uint, string, bytes); `%%` is a percent sign and
//! `%.N` sets a precision (unbounded at this version). `dyn` passes every clause; only the kind
//! of a type is compared (`list(int)` is a list to `%s` whatever its elements).

use crate::ast::{Expr, ExprKind, Literal};
use crate::check::CheckError;
use crate::types::Type;

/// The errors of every checked `format` call under `root`, each at the node cel-go reports:
/// an argument of the wrong type at that argument (or at the element of a list or map literal
/// `%s` looked into), anything else at the call.
pub fn invalid_format_calls(
    root: &Expr,
    types: &[Type],
    overloads: &[Vec<&'static str>],
) -> Vec<CheckError> {
    let mut errors = Vec::new();
    root.walk(&mut |e| {
        let ExprKind::Call {
            function,
            target: Some(target),
            args,
        } = &e.kind
        else {
            return;
        };
        if function != "format" || !overloads[e.id as usize].contains(&"string_format") {
            return;
        }
        let ExprKind::Literal(Literal::String(format)) = &target.kind else {
            return;
        };
        let [list] = args.as_slice() else {
            return;
        };
        let ExprKind::List { elements, .. } = &list.kind else {
            return;
        };
        let check = Clauses {
            args: elements,
            types,
        };
        if let Err((id, message)) = check.parse(format, e.id) {
            errors.push(CheckError { id, message });
        }
    });
    errors
}

/// The clauses of one format string against the elements of its argument list.
struct Clauses<'a> {
    args: &'a [Expr],
    types: &'a [Type],
}

/// A clause's argument check: the kinds it takes and the end of its error text.
#[derive(Clone, Copy)]
enum Clause {
    String,
    Decimal,
    Fixed,
    Scientific,
    Binary,
    Hex,
    Octal,
}

impl Clause {
    fn of(c: u8) -> Option<Clause> {
        Some(match c {
            b's' => Clause::String,
            b'd' => Clause::Decimal,
            b'f' => Clause::Fixed,
            b'e' => Clause::Scientific,
            b'b' => Clause::Binary,
            b'x' | b'X' => Clause::Hex,
            b'o' => Clause::Octal,
            _ => return None,
        })
    }

    fn accepts(self, t: &Type) -> bool {
        use Type as T;
        match self {
            Clause::String => matches!(
                t,
                T::List(_)
                    | T::Map(..)
                    | T::Int
                    | T::Uint
                    | T::Double
                    | T::Bool
                    | T::String
                    | T::Timestamp
                    | T::Bytes
                    | T::Duration
                    | T::TypeOf(_)
                    | T::Null
            ),
            Clause::Decimal | Clause::Octal => matches!(t, T::Int | T::Uint),
            Clause::Fixed | Clause::Scientific => matches!(t, T::Double | T::String),
            Clause::Binary => matches!(t, T::Int | T::Uint | T::Bool),
            Clause::Hex => matches!(t, T::Int | T::Uint | T::String | T::Bytes),
        }
    }

    fn refusal(self, given: &str) -> String {
        let what = match self {
            Clause::String => {
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, \
                 lists, types, durations, and timestamps"
            }
            Clause::Decimal => "decimal clause can only be used on integers",
            Clause::Fixed => "fixed-point clause can only be used on doubles",
            Clause::Scientific => "scientific clause can only be used on doubles",
            Clause::Binary => "only integers and bools can be formatted as binary",
            Clause::Hex => "only integers, byte buffers, and strings can be formatted as hex",
            Clause::Octal => "octal clause can only be used on integers",
        };
        format!("error during formatting: {what}, was given {given}")
    }
}

impl Clauses<'_> {
    fn type_of(&self, e: &Expr) -> &Type {
        &self.types[e.id as usize]
    }

    /// Whether `e`'s type passes `clause`: `dyn` always does.
    fn passes(&self, clause: Clause, e: &Expr) -> bool {
        let t = self.type_of(e);
        t.is_dyn() || clause.accepts(t)
    }

    /// `%s` looks into list and map literals: the first element, key or value (in order) of
    /// the wrong type is the one reported.
    fn string_refusal<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        if !self.passes(Clause::String, e) {
            return Some(e);
        }
        match &e.kind {
            ExprKind::List { elements, .. } => elements.iter().find_map(|x| self.string_refusal(x)),
            ExprKind::Map { entries } => entries.iter().find_map(|entry| {
                self.string_refusal(&entry.key)
                    .or_else(|| self.string_refusal(&entry.value))
            }),
            _ => None,
        }
    }

    /// Checks `arg` against `clause`: the node and text of the error, if it fails.
    fn check_arg(&self, clause: Clause, arg: &Expr) -> Result<(), (u32, String)> {
        let bad = match clause {
            Clause::String => self.string_refusal(arg),
            _ => (!self.passes(clause, arg)).then_some(arg),
        };
        match bad {
            None => Ok(()),
            Some(e) => Err((e.id, clause.refusal(&runtime_name(self.type_of(e))))),
        }
    }

    /// Walks the format string as cel-go's `parseFormatString` does (byte by byte), stopping at
    /// the first error; then refuses arguments no clause used.
    fn parse(&self, format: &str, call: u32) -> Result<(), (u32, String)> {
        let b = format.as_bytes();
        let at_call = |message: String| (call, message);
        let (mut i, mut used) = (0, 0usize);
        while i < b.len() {
            if b[i] != b'%' {
                i += 1;
                continue;
            }
            if b.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            if i + 1 >= b.len() {
                return Err(at_call("unexpected end of string".into()));
            }
            if used >= self.args.len() {
                return Err(at_call(format!("index {used} out of range")));
            }
            let (read, clause) = clause_at(&b[i + 1..])
                .map_err(|e| at_call(format!("could not parse formatting clause: {e}")))?;
            self.check_arg(clause, &self.args[used])?;
            i += 1 + read;
            used += 1;
        }
        if self.args.len() > used {
            return Err(at_call(format!(
                "too many arguments supplied to string.format (expected {used}, got {})",
                self.args.len()
            )));
        }
        Ok(())
    }
}

/// The clause at the start of `b` (after its `%`): the bytes it takes and its kind, or why it
/// does not parse.
fn clause_at(b: &[u8]) -> Result<(usize, Clause), String> {
    let mut i = 0;
    if b[0] == b'.' {
        i = 1;
        loop {
            match b.get(i) {
                None => {
                    return Err("error while parsing precision: could not find end of \
                                precision specifier"
                        .into());
                }
                Some(c) if c.is_ascii_digit() => i += 1,
                Some(_) => break,
            }
        }
        atoi(&b[1..i]).map_err(|e| {
            format!(
                "error while parsing precision: error while converting precision to integer: {e}"
            )
        })?;
    }
    let c = b[i];
    match Clause::of(c) {
        Some(clause) => Ok((i + 1, clause)),
        // Go takes the byte as a rune: the first byte of `é` is `Ã`.
        None => Err(format!(
            "unrecognized formatting clause \"{}\"",
            char::from(c)
        )),
    }
}

/// Go's `strconv.Atoi` on ASCII digits (no sign: the precision has none), with its errors.
fn atoi(digits: &[u8]) -> Result<i64, String> {
    let text = String::from_utf8_lossy(digits);
    if digits.is_empty() {
        return Err(format!("strconv.Atoi: parsing \"{text}\": invalid syntax"));
    }
    text.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing \"{text}\": value out of range"))
}

/// cel-go's runtime type name (`Type.TypeName()`), which the clause errors show.
fn runtime_name(t: &Type) -> String {
    match t {
        Type::Null => "null_type".into(),
        Type::Duration => "google.protobuf.Duration".into(),
        Type::Timestamp => "google.protobuf.Timestamp".into(),
        Type::List(_) => "list".into(),
        Type::Map(..) => "map".into(),
        Type::TypeOf(_) => "type".into(),
        Type::Opaque(name, _) | Type::Struct(name) | Type::TypeParam(name) => name.clone(),
        Type::Error => "*error*".into(),
        other => other.to_string(),
    }
}

/// The nodes under a call named `format` (any `format`, checked or not): the strings extension
/// exempts the list and map literals among them from the homogeneous aggregate literal check.
pub fn under_format_calls(root: &Expr) -> std::collections::HashSet<u32> {
    let mut under = std::collections::HashSet::new();
    root.walk(&mut |e| {
        if let ExprKind::Call { function, .. } = &e.kind
            && function == "format"
        {
            e.walk(&mut |d| {
                if d.id != e.id {
                    under.insert(d.id);
                }
            });
        }
    });
    under
}

#[cfg(test)]
mod tests {
    use crate::schema::decl_type;
    use serde_json::json;

    /// The compile error (without snippets) of `rule` on an object of every kind of field.
    fn error(rule: &str) -> Option<String> {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "string"},
            "n": {"type": "integer"},
            "d": {"type": "number"},
            "b": {"type": "boolean"},
            "by": {"type": "string", "format": "byte"},
            "xs": {"type": "array", "items": {"type": "string"}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
            "obj": {"type": "object", "properties": {"a": {"type": "string"}}},
            "t": {"type": "string", "format": "date-time"},
            "dur": {"type": "string", "format": "duration"},
            "q": {"x-kubernetes-int-or-string": true},
        }});
        let decl = decl_type(&schema, false).unwrap();
        crate::compile(rule, &decl, false).err().map(|e| {
            e.to_string()
                .lines()
                .filter(|l| l.starts_with("ERROR"))
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    fn refused(rule: &str, expected: &str) {
        assert_eq!(error(rule).as_deref(), Some(expected), "{rule}");
    }

    fn accepted(rule: &str) {
        assert_eq!(error(rule), None, "{rule}");
    }

    #[test]
    fn each_clause_takes_its_kinds() {
        for rule in [
            "'%s %s %s %s %s %s %s'.format([1, 2u, 1.5, true, 'a', b'a', null]) != ''",
            "'%s %s %s %s %s'.format([self.t, self.dur, [1], {'a': 1}, type(1)]) != ''",
            "'%d %d %o %o'.format([1, 2u, self.n, 3u]) != ''",
            "'%f %e %.2f %.10e'.format([1.5, self.d, 'NaN', self.s]) != ''",
            "'%b %b %b'.format([1, 2u, self.b]) != ''",
            "'%x %X %x %X'.format([1, 2u, self.s, self.by]) != ''",
            "'%d %f %b %x %s'.format([self.q, dyn(1), dyn('a'), self.q, dyn(null)]) != ''",
            "'100%% %s'.format(['a']) != '' && '%%'.format([]) != ''",
            "'%s'.format([[1, 'a', {'k': [2u]}]]) != ''",
        ] {
            accepted(rule);
        }
    }

    #[test]
    fn a_wrong_type_is_reported_at_the_argument() {
        refused(
            "'%d'.format(['a']) == ''",
            "ERROR: <input>:1:14: error during formatting: decimal clause can only be used on \
             integers, was given string",
        );
        refused(
            "'%d'.format([self.s]) == ''",
            "ERROR: <input>:1:18: error during formatting: decimal clause can only be used on \
             integers, was given string",
        );
        refused(
            "'%o'.format([1.5]) == ''",
            "ERROR: <input>:1:14: error during formatting: octal clause can only be used on \
             integers, was given double",
        );
        refused(
            "'%f'.format([1]) == ''",
            "ERROR: <input>:1:14: error during formatting: fixed-point clause can only be used \
             on doubles, was given int",
        );
        refused(
            "'%e'.format([self.t]) == ''",
            "ERROR: <input>:1:18: error during formatting: scientific clause can only be used on \
             doubles, was given google.protobuf.Timestamp",
        );
        refused(
            "'%b'.format([self.dur]) == ''",
            "ERROR: <input>:1:18: error during formatting: only integers and bools can be \
             formatted as binary, was given google.protobuf.Duration",
        );
        refused(
            "'%x'.format([null]) == ''",
            "ERROR: <input>:1:14: error during formatting: only integers, byte buffers, and \
             strings can be formatted as hex, was given null_type",
        );
        refused(
            "'%s'.format([self.obj]) == ''",
            "ERROR: <input>:1:18: error during formatting: string clause can only be used on \
             strings, bools, bytes, ints, doubles, maps, lists, types, durations, and \
             timestamps, was given selfType.obj",
        );
        refused(
            "'%s'.format([optional.of(1)]) == ''",
            "ERROR: <input>:1:25: error during formatting: string clause can only be used on \
             strings, bools, bytes, ints, doubles, maps, lists, types, durations, and \
             timestamps, was given optional_type",
        );
        refused(
            "'%d'.format([self.xs]) == ''",
            "ERROR: <input>:1:18: error during formatting: decimal clause can only be used on \
             integers, was given list",
        );
        refused(
            "'%d'.format([type(1)]) == ''",
            "ERROR: <input>:1:18: error during formatting: decimal clause can only be used on \
             integers, was given type",
        );
    }

    #[test]
    fn the_string_clause_looks_into_list_and_map_literals() {
        refused(
            "'%s'.format([[1, [optional.none()]]]) == ''",
            "ERROR: <input>:1:32: error during formatting: string clause can only be used on \
             strings, bools, bytes, ints, doubles, maps, lists, types, durations, and \
             timestamps, was given optional_type",
        );
        refused(
            "'%s'.format([{'a': self.obj}]) == ''",
            "ERROR: <input>:1:24: error during formatting: string clause can only be used on \
             strings, bools, bytes, ints, doubles, maps, lists, types, durations, and \
             timestamps, was given selfType.obj",
        );
        // Not into a list that is not a literal.
        accepted("'%s'.format([[self.obj].map(o, o)]) == ''");
    }

    #[test]
    fn counts_and_clauses_are_reported_at_the_call() {
        refused(
            "'%s %s'.format(['a']) == ''",
            "ERROR: <input>:1:15: index 1 out of range",
        );
        refused(
            "'%s'.format(['a', 1]) == ''",
            "ERROR: <input>:1:12: too many arguments supplied to string.format (expected 1, got 2)",
        );
        refused(
            "'x'.format([1]) == ''",
            "ERROR: <input>:1:11: too many arguments supplied to string.format (expected 0, got 1)",
        );
        refused(
            "'a%'.format([1]) == ''",
            "ERROR: <input>:1:12: unexpected end of string",
        );
        refused(
            "'%.3z'.format([1]) == ''",
            "ERROR: <input>:1:14: could not parse formatting clause: unrecognized formatting \
             clause \"z\"",
        );
        refused(
            "'%é'.format([1]) == ''",
            "ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting \
             clause \"Ã\"",
        );
        refused(
            "'%.'.format([1]) == ''",
            "ERROR: <input>:1:12: could not parse formatting clause: error while parsing \
             precision: could not find end of precision specifier",
        );
        refused(
            "'%.f'.format([1.0]) == ''",
            "ERROR: <input>:1:13: could not parse formatting clause: error while parsing \
             precision: error while converting precision to integer: strconv.Atoi: parsing \"\": \
             invalid syntax",
        );
        refused(
            "'%.99999999999999999999f'.format([1.0]) == ''",
            "ERROR: <input>:1:33: could not parse formatting clause: error while parsing \
             precision: error while converting precision to integer: strconv.Atoi: parsing \
             \"99999999999999999999\": value out of range",
        );
        accepted("'%.9223372036854775807f'.format([1.0]) == ''");
    }

    #[test]
    fn only_a_literal_format_with_a_list_literal_is_checked() {
        accepted("self.s.format(['a', 1]) == ''");
        accepted("'%d'.format(self.xs) == ''");
        accepted("('%' + 'd').format(['a']) == ''");
    }

    #[test]
    fn every_call_is_checked_and_errors_sorted_by_position() {
        refused(
            "'%d'.format([1]) == '' && '%d'.format(['x']) == '' && '%s'.format([1, 2]) == ''",
            "ERROR: <input>:1:40: error during formatting: decimal clause can only be used on \
             integers, was given string\nERROR: <input>:1:66: too many arguments supplied to \
             string.format (expected 1, got 2)",
        );
        refused(
            "self.xs.all(x, '%d'.format([x]) != '')",
            "ERROR: <input>:1:29: error during formatting: decimal clause can only be used on \
             integers, was given string",
        );
    }

    #[test]
    fn literals_under_format_are_exempt_from_the_homogeneous_check() {
        accepted("'%s %d'.format(['a', 1]) != ''");
        accepted("'%s'.format([[1, 'a']]) != ''");
        accepted("'%s'.format([{'a': 1, 'b': 'c'}]) != ''");
        refused(
            "[1, 'a'].size() == 2",
            "ERROR: <input>:1:5: expected type 'int' but found 'string'",
        );
    }

    #[test]
    fn type_errors_come_first() {
        refused(
            "'%d'.format(['a']) == 1",
            "ERROR: <input>:1:20: found no matching overload for '_==_' applied to '(string, int)'",
        );
    }
}
