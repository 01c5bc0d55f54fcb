//! apiextensions' `ValidFieldPath`: whether a rule's `fieldPath` names a field under the rule's
//! node: `.a`, `.a.b`, `['a.b']`, `.m['key']` steps through `properties` and
//! `additionalProperties`, never into list items.

use serde_json::Value;

pub fn valid(path: &str, schema: &Value) -> bool {
    let tokens = tokens(path);
    let mut tokens = tokens.iter().map(String::as_str);
    let mut node = schema;
    while let Some(token) = tokens.next() {
        let name = match token {
            "[" => {
                let Some(quoted) = tokens.next() else {
                    return false;
                };
                let inner = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|_| quoted.len() >= 2);
                let Some(name) = inner.and_then(unescape) else {
                    return false;
                };
                if tokens.next() != Some("]") {
                    return false;
                }
                name
            }
            "." => match tokens.next() {
                Some(name) => name.to_string(),
                None => return false,
            },
            _ => return false,
        };
        node = match step(node, &name) {
            Some(next) => next,
            None => return false,
        };
    }
    true
}

/// One step: a property where the node has `properties`, else a key of
/// `additionalProperties`.
fn step<'s>(node: &'s Value, name: &str) -> Option<&'s Value> {
    if let Some(props) = node.get("properties") {
        return props.get(name);
    }
    match node.get("additionalProperties") {
        Some(extra @ Value::Object(_)) => Some(extra),
        // `additionalProperties: true`: no schema to go on with.
        Some(Value::Bool(_)) => Some(&Value::Null),
        _ => None,
    }
}

/// The Go scanner's tokens: `.`, `[`, `]` alone, a single-quoted string whole (to its closing
/// quote not after a backslash, or to the end), the text between delimiters.
fn tokens(path: &str) -> Vec<String> {
    let chars: Vec<char> = path.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\'' {
            let end = (i + 1..chars.len())
                .find(|&k| chars[k] == '\'' && chars[k - 1] != '\\')
                .map_or(chars.len(), |k| k + 1);
            out.push(chars[i..end].iter().collect());
            i = end;
            continue;
        }
        if matches!(chars[i], '.' | '[' | ']') {
            out.push(chars[i].to_string());
            i += 1;
            continue;
        }
        let end = (i..chars.len())
            .find(|&k| matches!(chars[k], '.' | '[' | ']'))
            .unwrap_or(chars.len());
        out.push(chars[i..end].iter().collect());
        i = end;
    }
    out
}

/// `unescapeSingleQuote`: `\a \b \f \n \r \t \v \' \\`; another escape is an error.
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            // A lone trailing backslash matches no escape: kept as it is.
            out.push('\\');
            break;
        };
        out.push(match e {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\'' => '\'',
            '\\' => '\\',
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::valid;
    use serde_json::json;

    #[test]
    fn paths_as_apiextensions_resolves_them() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "string"}}},
            "m": {"type": "object", "additionalProperties": {"type": "object",
                "properties": {"c": {"type": "integer"}}}},
            "x.y": {"type": "string"},
            "xs": {"type": "array", "items": {"type": "object", "properties": {"d": {"type": "string"}}}},
        }});
        for ok in [
            ".a",
            ".a.b",
            "['a'].b",
            ".m['any key'].c",
            ".m.k",
            "['x.y']",
            ".xs",
        ] {
            assert!(valid(ok, &schema), "{ok}");
        }
        for bad in [
            ".nope", "a", ".a.", ".a..b", ".xs[0]", ".xs.d", "[a]", "['a'", ".a.b.c", "['\\q']",
        ] {
            assert!(!valid(bad, &schema), "{bad}");
        }
    }
}
