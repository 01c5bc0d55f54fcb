//! Schema nodes no value can satisfy: empty ranges, bounds an integer cannot have, `enum` values
//! of the wrong type. Checked on the markers of one field at compile time (where the spans are)
//! and on every node of the finished schema when generating (where schemars' own keywords,
//! such as an unsigned integer's `minimum: 0`, have joined the markers').

use serde_json::{Map, Value};

/// One reason a node cannot be satisfied, blamed on one of its keywords.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The JSON keyword at fault (`maximum`, `maxLength`, `enum`, ...).
    pub keyword: &'static str,
    /// For `enum`: the position of the offending value, if one value is at fault.
    pub enum_index: Option<usize>,
    /// A sentence saying why.
    pub message: String,
}

impl Problem {
    fn new(keyword: &'static str, message: String) -> Self {
        Problem {
            keyword,
            enum_index: None,
            message,
        }
    }
}

fn number(node: &Map<String, Value>, key: &str) -> Option<f64> {
    node.get(key).and_then(Value::as_f64)
}

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

/// The numeric keywords of a node.
struct Range {
    minimum: Option<f64>,
    exclusive_minimum: bool,
    maximum: Option<f64>,
    exclusive_maximum: bool,
    multiple_of: Option<f64>,
}

impl Range {
    fn of(node: &Map<String, Value>) -> Self {
        Range {
            minimum: number(node, "minimum"),
            exclusive_minimum: flag(node, "exclusiveMinimum"),
            maximum: number(node, "maximum"),
            exclusive_maximum: flag(node, "exclusiveMaximum"),
            multiple_of: number(node, "multipleOf").filter(|m| *m > 0.0),
        }
    }

    fn admits(&self, v: f64) -> bool {
        let above = self
            .minimum
            .is_none_or(|min| v > min || (v == min && !self.exclusive_minimum));
        let below = self
            .maximum
            .is_none_or(|max| v < max || (v == max && !self.exclusive_maximum));
        let multiple = self
            .multiple_of
            .is_none_or(|m| m.fract() != 0.0 || v.fract() != 0.0 || v % m == 0.0);
        above && below && multiple
    }

    /// Why no number (or, with `integer`, no integer) lies in the range.
    fn emptiness(&self, integer: bool) -> Option<String> {
        let (min, max) = (self.minimum?, self.maximum?);
        let shown = |v: f64, exclusive: bool| {
            if exclusive {
                format!("{v}, exclusive")
            } else {
                v.to_string()
            }
        };
        let bounds = format!(
            "`minimum` ({}) and `maximum` ({})",
            shown(min, self.exclusive_minimum),
            shown(max, self.exclusive_maximum)
        );
        if min > max || (min == max && (self.exclusive_minimum || self.exclusive_maximum)) {
            return Some(format!("{bounds} leave no value between them"));
        }
        // The smallest and largest whole numbers in range.
        let low = if self.exclusive_minimum {
            min.floor() + 1.0
        } else {
            min.ceil()
        };
        let high = if self.exclusive_maximum {
            max.ceil() - 1.0
        } else {
            max.floor()
        };
        if integer && low > high {
            return Some(format!("{bounds} leave no integer between them"));
        }
        // With a whole `multipleOf`, every allowed value is a whole multiple: is there one?
        // (Fractional steps are left alone: their arithmetic is not exact in floating point.)
        if let Some(step) = self.multiple_of.filter(|m| m.fract() == 0.0) {
            let first = (low / step).ceil() * step;
            if first > high {
                return Some(format!(
                    "{bounds} leave no multiple of {step} (`multipleOf`) between them"
                ));
            }
        }
        None
    }
}

/// Whether `value` has the JSON type `ty` (absent: anything), as the API server reads types.
fn has_type(value: &Value, ty: Option<&str>, int_or_string: bool) -> bool {
    if int_or_string {
        return value.is_string() || value.as_f64().is_some_and(|f| f.fract() == 0.0);
    }
    match ty {
        Some("string") => value.is_string(),
        Some("integer") => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some("array") => value.is_array(),
        Some("object") => value.is_object(),
        _ => true,
    }
}

fn describe(ty: &str) -> &str {
    match ty {
        "integer" => "an integer",
        "array" => "an array",
        "object" => "an object",
        "boolean" => "a boolean",
        "number" => "a number",
        "string" => "a string",
        other => other,
    }
}

/// Why no value can validate against `node` (one problem per cause), or what the API server or
/// controller-gen refuse in it: fractional bounds on an integer, `multipleOf` ≤ 0.
pub fn problems(node: &Map<String, Value>) -> Vec<Problem> {
    let mut out = Vec::new();
    let int_or_string = flag(node, "x-kubernetes-int-or-string");
    let ty = node
        .get("type")
        .and_then(Value::as_str)
        .filter(|_| !int_or_string);
    let integer = ty == Some("integer");

    for keyword in ["minimum", "maximum", "multipleOf"] {
        if let Some(v) = number(node, keyword)
            && integer
            && v.fract() != 0.0
        {
            out.push(Problem::new(
                keyword,
                format!("`{keyword}` {v} is not a whole number, but the value is an integer"),
            ));
        }
    }
    if let Some(m) = number(node, "multipleOf")
        && m <= 0.0
    {
        out.push(Problem::new(
            "multipleOf",
            format!("`multipleOf` must be greater than 0, not {m}"),
        ));
    }
    let range = Range::of(node);
    if let Some(why) = range.emptiness(integer) {
        out.push(Problem::new("maximum", why));
    }

    for (low, high) in [
        ("minLength", "maxLength"),
        ("minItems", "maxItems"),
        ("minProperties", "maxProperties"),
    ] {
        if let (Some(l), Some(h)) = (number(node, low), number(node, high))
            && l > h
        {
            out.push(Problem::new(
                high,
                format!("`{high}` ({h}) is smaller than `{low}` ({l})"),
            ));
        }
    }
    if let (Some(max), Some(required)) = (
        number(node, "maxProperties"),
        node.get("required").and_then(Value::as_array),
    ) && required.len() as f64 > max
    {
        out.push(Problem::new(
            "maxProperties",
            format!(
                "`maxProperties` ({max}) is smaller than the number of required properties ({})",
                required.len()
            ),
        ));
    }

    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        // A nullable node's `null` is of its type: schemars writes `enum: [..., null]` with
        // `nullable: true` for every `Option` of an enum, and the API server takes that
        // schema without a word.
        let nullable = flag(node, "nullable");
        let typed = |v: &Value| (nullable && v.is_null()) || has_type(v, ty, int_or_string);
        let mut fitting = 0;
        for (i, value) in values.iter().enumerate() {
            if !typed(value) {
                let expected = if int_or_string {
                    "an integer or a string"
                } else {
                    describe(ty.unwrap_or_default())
                };
                out.push(Problem {
                    keyword: "enum",
                    enum_index: Some(i),
                    message: format!("enum value {value} is not {expected}, so it can never match"),
                });
            } else if within_bounds(value, node, &range) {
                fitting += 1;
            }
        }
        if fitting == 0 && values.iter().all(typed) {
            out.push(Problem::new(
                "enum",
                "no enum value meets the other bounds, so no value is ever valid".into(),
            ));
        }
    }
    out
}

/// Whether an enum value meets the node's numeric range and length bounds.
fn within_bounds(value: &Value, node: &Map<String, Value>, range: &Range) -> bool {
    let count_ok = |len: usize, min: &str, max: &str| {
        number(node, min).is_none_or(|m| len as f64 >= m)
            && number(node, max).is_none_or(|m| len as f64 <= m)
    };
    match value {
        Value::Number(n) => n.as_f64().is_none_or(|v| range.admits(v)),
        Value::String(s) => count_ok(s.chars().count(), "minLength", "maxLength"),
        Value::Array(items) => count_ok(items.len(), "minItems", "maxItems"),
        Value::Object(fields) => count_ok(fields.len(), "minProperties", "maxProperties"),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(node: Value) -> Vec<String> {
        problems(node.as_object().unwrap())
            .into_iter()
            .map(|p| format!("{}: {}", p.keyword, p.message))
            .collect()
    }

    #[test]
    fn empty_ranges() {
        let cases = [
            json!({"type": "number", "minimum": 5, "maximum": 4}),
            json!({"type": "number", "minimum": 5, "exclusiveMinimum": true, "maximum": 5}),
            json!({"type": "number", "minimum": 5, "maximum": 5, "exclusiveMaximum": true}),
            json!({"type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 2, "exclusiveMaximum": true}),
            json!({"type": "integer", "minimum": 1, "maximum": 4, "multipleOf": 5}),
            json!({"minimum": 1, "maximum": 4, "multipleOf": 5}),
        ];
        for case in cases {
            let found = of(case.clone());
            assert_eq!(found.len(), 1, "{case}: {found:?}");
            assert!(found[0].starts_with("maximum: `minimum`"), "{found:?}");
        }
        for fine in [
            json!({"type": "number", "minimum": 5, "maximum": 5}),
            json!({"type": "number", "minimum": 1, "exclusiveMinimum": true, "maximum": 2, "exclusiveMaximum": true}),
            json!({"type": "integer", "minimum": 0, "maximum": 10, "multipleOf": 5}),
            json!({"type": "integer", "minimum": -7, "maximum": -3, "multipleOf": 5}),
            json!({"type": "number", "minimum": 0.1, "maximum": 0.2, "multipleOf": 0.15}),
            json!({"type": "integer", "exclusiveMinimum": true}),
        ] {
            assert_eq!(of(fine.clone()), Vec::<String>::new(), "{fine}");
        }
    }

    #[test]
    fn count_pairs_and_required_properties() {
        let found = of(json!({"type": "string", "minLength": 3, "maxLength": 2}));
        assert_eq!(
            found,
            ["maxLength: `maxLength` (2) is smaller than `minLength` (3)"]
        );
        assert_eq!(
            of(json!({"type": "array", "minItems": 3, "maxItems": 2})).len(),
            1
        );
        assert_eq!(
            of(json!({"type": "object", "minProperties": 3, "maxProperties": 2})).len(),
            1
        );
        let found = of(json!({"type": "object", "required": ["a", "b"], "maxProperties": 1}));
        assert!(
            found[0].contains("number of required properties (2)"),
            "{found:?}"
        );
    }

    #[test]
    fn integers_take_whole_bounds() {
        let found = of(json!({"type": "integer", "minimum": 0.5, "multipleOf": 1.5}));
        assert_eq!(
            found,
            [
                "minimum: `minimum` 0.5 is not a whole number, but the value is an integer",
                "multipleOf: `multipleOf` 1.5 is not a whole number, but the value is an integer",
            ]
        );
        assert!(of(json!({"type": "number", "minimum": 0.5})).is_empty());
        assert!(of(json!({"x-kubernetes-int-or-string": true, "minimum": 0.5})).is_empty());
        assert_eq!(
            of(json!({"type": "number", "multipleOf": 0})),
            ["multipleOf: `multipleOf` must be greater than 0, not 0"]
        );
    }

    #[test]
    fn enum_values_of_the_wrong_type_or_out_of_bounds() {
        let found = problems(
            json!({"type": "integer", "enum": [1, "two", 3.5]})
                .as_object()
                .unwrap(),
        );
        assert_eq!(
            found.iter().map(|p| p.enum_index).collect::<Vec<_>>(),
            [Some(1), Some(2)]
        );
        assert!(found[0].message.contains("\"two\" is not an integer"));
        assert!(of(json!({"x-kubernetes-int-or-string": true, "enum": [1, "a"]})).is_empty());
        assert!(of(json!({"enum": [1, "a", true]})).is_empty());
        assert_eq!(
            of(json!({"type": "string", "enum": ["abc", "abcd"], "maxLength": 2})),
            ["enum: no enum value meets the other bounds, so no value is ever valid"]
        );
        assert!(of(json!({"type": "string", "enum": ["ab", "abcd"], "maxLength": 2})).is_empty());
        assert_eq!(
            of(json!({"type": "integer", "enum": [1, 2], "minimum": 5})).len(),
            1
        );
    }
}
