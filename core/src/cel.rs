//! What kube-markers knows about CEL as Kubernetes uses it in `x-kubernetes-validations`: which
//! expressions parse, which reasons a rule may carry, and how a property name is spelled inside
//! an expression. The macro (compile time) and the generator's structural check both ask here.

/// The reasons Kubernetes accepts in an `x-kubernetes-validations` rule.
pub const REASONS: &[&str] = &[
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
];

/// Why `expr` does not parse as CEL, if it does not.
///
/// Parsed as the API server parses rules: cel-go's grammar with the optional syntax
/// (`self.?x`, `[?0]`, `{?"k": v}`) Kubernetes enables, and cel-go's limits (100,000 code
/// points, 250 levels of nesting). The parse runs on a thread of its own with a large stack:
/// a proc macro cannot choose its stack, and the deepest expression the limits let through
/// needs more of it, unoptimized, than rustc may leave.
pub fn parse_error(expr: &str) -> Option<kube_markers_cel::CompileError> {
    kube_markers_cel::parse_error(expr)
}

/// The identifier under which a CEL expression sees the object property `name`, as the API
/// server escapes it: a reserved word becomes `__word__`; `__`, `.`, `-` and `/` become
/// `__underscores__`, `__dot__`, `__dash__` and `__slash__`.
///
/// A name outside `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` cannot be reached from CEL at all; the error
/// completes "… cannot be used in a CEL rule: ".
pub fn escape_property(name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("it is empty".into());
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err("it starts with a digit".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')))
    {
        return Err(format!(
            "it contains `{c}`; CEL reaches only properties made of ASCII letters, digits, \
             `_`, `.`, `-` and `/`"
        ));
    }
    // The spelling itself is the CEL crate's, which the type checker reads schemas with.
    kube_markers_cel::schema::escape(name).ok_or_else(|| "CEL cannot reach it".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The API server's own cases (apiserver `pkg/cel` escaping tests).
    #[test]
    fn escapes_as_the_api_server_does() {
        for (name, escaped) in [
            ("a.a", "a__dot__a"),
            ("a-a", "a__dash__a"),
            ("a__a", "a__underscores__a"),
            ("a.-/__a", "a__dot____dash____slash____underscores__a"),
            ("a._a", "a__dot___a"),
            ("a__.__a", "a__underscores____dot____underscores__a"),
            ("a___a", "a__underscores___a"),
            ("a____a", "a__underscores____underscores__a"),
            ("a__dot__a", "a__underscores__dot__underscores__a"),
            (
                "a__underscores__a",
                "a__underscores__underscores__underscores__a",
            ),
            ("true", "__true__"),
            ("false", "__false__"),
            ("null", "__null__"),
            ("in", "__in__"),
            ("as", "__as__"),
            ("break", "__break__"),
            ("const", "__const__"),
            ("continue", "__continue__"),
            ("else", "__else__"),
            ("for", "__for__"),
            ("function", "__function__"),
            ("if", "__if__"),
            ("import", "__import__"),
            ("let", "__let__"),
            ("loop", "__loop__"),
            ("package", "__package__"),
            ("namespace", "__namespace__"),
            ("return", "__return__"),
            ("var", "__var__"),
            ("void", "__void__"),
            ("while", "__while__"),
            // Macro and function names live in another namespace: not escaped.
            ("has", "has"),
            ("all", "all"),
            ("exists", "exists"),
            ("exists_one", "exists_one"),
            ("filter", "filter"),
            ("size", "size"),
            ("contains", "contains"),
            ("startsWith", "startsWith"),
            ("matches", "matches"),
            ("duration", "duration"),
            ("timestamp", "timestamp"),
            ("getSeconds", "getSeconds"),
            // A single underscore is no escape.
            ("_if", "_if"),
            ("_has", "_has"),
            ("_int", "_int"),
            ("_anything", "_anything"),
            // Ours: what the CRD uses, and leading escapable characters.
            ("s3-bucket", "s3__dash__bucket"),
            ("x__y", "x__underscores__y"),
            ("-a", "__dash__a"),
            ("/", "__slash__"),
            ("a_b", "a_b"),
        ] {
            assert_eq!(escape_property(name).as_deref(), Ok(escaped), "{name}");
            assert!(
                parse_error(&format!("has(self.{escaped})")).is_none(),
                "{escaped} is not a CEL identifier"
            );
        }
    }

    #[test]
    fn names_cel_cannot_reach_are_errors() {
        for (name, why) in [
            ("@", "contains `@`"),
            ("1up", "starts with a digit"),
            ("👑", "contains `👑`"),
            ("a b", "contains ` `"),
            ("", "empty"),
        ] {
            let error = escape_property(name).unwrap_err();
            assert!(error.contains(why), "{name}: {error}");
        }
    }

    #[test]
    fn parse_errors_except_optional_syntax() {
        assert!(parse_error("self.a <").is_some());
        assert!(parse_error("has(self.in)").is_some());
        assert!(parse_error("self.a < 1").is_none());
        assert!(parse_error("self.?a.orValue(1) > 0").is_none());
        assert!(parse_error("self.a[?0].orValue(1) > 0").is_none());
        // Optional syntax does not hide another mistake in the same expression.
        let error = parse_error("self.?a.orValue(1) > ").expect("a dangling operator");
        assert!(!error.to_string().contains("unsupported"), "{error}");
    }

    /// cel-go's limits, without overflowing the stack (a proc macro's is not ours to choose).
    #[test]
    fn deep_nesting_is_cel_gos_limit_not_a_crash() {
        let nested = |n: usize| format!("{}1{} == 1", "[".repeat(n), "]".repeat(n));
        assert!(parse_error(&nested(249)).is_none());
        assert_eq!(
            parse_error(&nested(250)).map(|e| e.to_string()).as_deref(),
            Some("ERROR: <input>:-1:0: expression recursion limit exceeded: 250")
        );
        let parens = format!("{}true{}", "(".repeat(249), ")".repeat(249));
        assert!(parse_error(&parens).is_none());
    }
}
