//! A number in a `default` checked as the API server checks it (kube-openapi's number
//! validator), not as JSON Schema's arithmetic would: the two differ.
//!
//! - The value must fit the node's format: an `integer` an int64 (an int32 with `format:
//!   int32`), a `number` with `format: float` a float32. Other formats (`uint64`, `float32`)
//!   constrain nothing.
//! - So must each bound (`maximum`, `minimum`, `multipleOf`): an `integer` node whose `maximum`
//!   is `2.5` or `1e19` refuses every default.
//! - A value that is a JSON integer (one Go decodes as an int64) is compared with each bound
//!   converted to an int64 as Go converts on amd64: truncated, and `i64::MIN` when out of range.
//!   A `number` node with `minimum: 0.5` therefore takes a default of `0`, and one with
//!   `maximum: 1e40` refuses a default of `1`; kube-apiserver 1.37 does both.
//! - A fractional value is compared as a float, and `multipleOf` with a relative tolerance.
//!
//! The value is what reaches the API server after kubectl: a whole number within the int64
//! range is an int64 (`1e3`, `1.0`), any other number a float64.

use serde_json::{Map, Value, json};

/// The keyword under which [`take_bounds`] keeps a node's numeric constraints for
/// [`GoNumber`].
pub(super) const KEYWORD: &str = "kube-markers:number";

/// Moves a node's numeric constraints (and its type and format) out of JSON Schema's hands
/// into [`KEYWORD`], which [`GoNumber`] applies.
pub(super) fn take_bounds(map: &mut Map<String, Value>) {
    let mut kept = Map::new();
    for key in [
        "maximum",
        "minimum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "multipleOf",
    ] {
        if let Some(value) = map.remove(key) {
            kept.insert(key.into(), value);
        }
    }
    // Only a single type counts: kube-openapi ignores the format of a node without one.
    let ty = map.get("type").and_then(Value::as_str).unwrap_or_default();
    let format = map
        .get("format")
        .and_then(Value::as_str)
        .unwrap_or_default();
    kept.insert("type".into(), json!(ty));
    kept.insert("format".into(), json!(format));
    map.insert(KEYWORD.into(), Value::Object(kept));
}

/// A JSON number as Go holds it once decoded by the API server.
#[derive(Clone, Copy, Debug, PartialEq)]
enum GoValue {
    Int(i64),
    Float(f64),
}

impl GoValue {
    fn of(value: &Value) -> Option<Self> {
        let number = value.as_number()?;
        Some(match number.as_i64() {
            Some(i) => Self::Int(i),
            None => {
                let f = number.as_f64()?;
                // A whole float within int64 arrives as an int64 (kubectl writes `1000`).
                if f.fract() == 0.0
                    && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
                {
                    Self::Int(f as i64)
                } else {
                    Self::Float(f)
                }
            }
        })
    }

    /// The value's text as Go's validator writes it before reading it back as the format's
    /// type (`strconv.FormatFloat(f, 'f', -1, 64)`: the shortest exact digits, no exponent).
    fn text(self) -> String {
        match self {
            Self::Int(i) => i.to_string(),
            Self::Float(f) => format!("{f}"),
        }
    }
}

/// Go's `int64(f)` on amd64: truncation, and the "integer indefinite" `i64::MIN` for a value
/// out of range. (arm64 saturates instead; the API servers this is tested against are amd64.)
fn go_int64(f: f64) -> i64 {
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        f.trunc() as i64
    } else {
        i64::MIN
    }
}

/// Whether `text` fits the type kube-openapi reads it as, for a node's type and format.
fn fits(text: &str, ty: &str, format: &str) -> bool {
    match (ty, format) {
        ("integer", "int32") => text.parse::<i32>().is_ok(),
        ("integer", _) => text.parse::<i64>().is_ok(),
        (_, "float") => text.parse::<f32>().is_ok_and(f32::is_finite),
        _ => true,
    }
}

/// go-openapi's `IsFloat64AJSONInteger`: a safe JSON integer, within a relative 1e-9.
fn json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    // Go's math.Round: half away from zero, as Rust's.
    let rounded = f.round();
    if f == rounded {
        return true;
    }
    if rounded == 0.0 {
        return false;
    }
    (f - rounded).abs() < 1e-9 * rounded.abs()
}

/// Why the API server refuses `value` under a node whose numeric constraints are `kept`.
fn refusal(kept: &Map<String, Value>, value: GoValue) -> Option<String> {
    let ty = kept["type"].as_str().unwrap_or_default();
    let format = kept["format"].as_str().unwrap_or_default();
    let format = match (ty, format) {
        ("integer", "int32" | "int64") | ("number", "float" | "double") => format,
        _ => "",
    };
    let kind = if format.is_empty() {
        format!("{ty} (default format)")
    } else {
        format!("{ty} with format {format}")
    };
    if !fits(&value.text(), ty, format) {
        return Some(format!("{} is out of the range of {kind}", value.text()));
    }
    let bound = |key: &str| kept.get(key).and_then(Value::as_f64);
    let flag = |key: &str| kept.get(key).and_then(Value::as_bool).unwrap_or(false);
    for key in ["multipleOf", "maximum", "minimum"] {
        if let Some(b) = bound(key)
            && !fits(&GoValue::Float(b).text(), ty, format)
        {
            return Some(format!(
                "the schema's {key} {b} is not a value of {kind}, so the API server refuses any default"
            ));
        }
    }
    if let Some(factor) = bound("multipleOf") {
        let multiple = match value {
            GoValue::Int(i) => {
                let factor = go_int64(factor);
                factor > 0 && i % factor == 0
            }
            GoValue::Float(f) => {
                factor > 0.0
                    && json_integer(if factor < 1.0 {
                        1.0 / factor * f
                    } else {
                        f / factor
                    })
            }
        };
        if !multiple {
            return Some(format!("{} is not a multiple of {factor}", value.text()));
        }
    }
    if let Some(max) = bound("maximum") {
        let exclusive = flag("exclusiveMaximum");
        let over = match value {
            GoValue::Int(i) => {
                let max = go_int64(max);
                if exclusive { i >= max } else { i > max }
            }
            GoValue::Float(f) => {
                if exclusive {
                    f >= max
                } else {
                    f > max
                }
            }
        };
        if over {
            let or_equal = if exclusive { " or equal to" } else { "" };
            return Some(format!(
                "{} is greater than{or_equal} the maximum of {max}",
                value.text()
            ));
        }
    }
    if let Some(min) = bound("minimum") {
        let exclusive = flag("exclusiveMinimum");
        let under = match value {
            GoValue::Int(i) => {
                let min = go_int64(min);
                if exclusive { i <= min } else { i < min }
            }
            GoValue::Float(f) => {
                if exclusive {
                    f <= min
                } else {
                    f < min
                }
            }
        };
        if under {
            let or_equal = if exclusive { " or equal to" } else { "" };
            return Some(format!(
                "{} is less than{or_equal} the minimum of {min}",
                value.text()
            ));
        }
    }
    None
}

/// [`KEYWORD`]'s check, for the JSON Schema validator.
pub(super) struct GoNumber(Map<String, Value>);

impl GoNumber {
    pub(super) fn new(kept: &Value) -> Self {
        Self(kept.as_object().cloned().unwrap_or_default())
    }
}

impl<'i> jsonschema::Keyword<'i> for GoNumber {
    fn validate(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        match GoValue::of(instance).and_then(|v| refusal(&self.0, v)) {
            Some(why) => Err(jsonschema::ValidationError::custom(why)),
            None => Ok(()),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        GoValue::of(instance)
            .and_then(|v| refusal(&self.0, v))
            .is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(node: Value, value: Value) -> Option<String> {
        let mut node = node.as_object().unwrap().clone();
        take_bounds(&mut node);
        refusal(
            node[KEYWORD].as_object().unwrap(),
            GoValue::of(&value).unwrap(),
        )
    }

    // Each verdict below is kube-apiserver 1.37.2's, for the node with the value as default.
    #[test]
    fn values_must_fit_the_format() {
        let int32 = json!({"type": "integer", "format": "int32"});
        assert_eq!(check(int32.clone(), json!(2147483647)), None);
        assert!(check(int32.clone(), json!(2147483648_i64)).is_some());
        assert!(check(int32.clone(), json!(-2147483649_i64)).is_some());
        assert_eq!(check(int32, json!(1e3)), None);
        // uint formats are unknown to the API server: int64's range applies.
        let uint32 = json!({"type": "integer", "format": "uint32"});
        assert_eq!(check(uint32, json!(-1)), None);
        let uint64 = json!({"type": "integer", "format": "uint64"});
        assert!(check(uint64.clone(), json!(18446744073709551615_u64)).is_some());
        assert!(check(uint64, json!(9223372036854775808_u64)).is_some());
        let float = json!({"type": "number", "format": "float"});
        assert!(check(float.clone(), json!(1e39)).is_some());
        assert_eq!(check(float, json!(3.4028235e38)), None);
        assert_eq!(
            check(json!({"type": "number", "format": "float32"}), json!(1e39)),
            None
        );
        assert_eq!(
            check(json!({"type": "number", "format": "int32"}), json!(3e9)),
            None
        );
        assert_eq!(
            check(json!({"type": "integer", "format": "float"}), json!(3e9)),
            None
        );
    }

    #[test]
    fn bounds_must_fit_the_format() {
        for node in [
            json!({"type": "integer", "format": "int32", "maximum": 3e9}),
            json!({"type": "integer", "format": "int32", "minimum": -3e9}),
            json!({"type": "integer", "format": "int32", "multipleOf": 3e9}),
            json!({"type": "integer", "maximum": 2.5}),
            json!({"type": "integer", "multipleOf": 2.5}),
            json!({"type": "integer", "maximum": 1e19}),
            json!({"type": "integer", "maximum": 9223372036854775807_i64}),
            json!({"type": "number", "format": "float", "maximum": 3.5e38}),
            json!({"type": "number", "format": "float", "maximum": 1e40}),
            json!({"type": "integer", "format": "int32", "maximum": 3.5}),
        ] {
            assert!(check(node.clone(), json!(1)).is_some(), "{node}");
        }
        let float = json!({"type": "number", "format": "float", "maximum": 3e38});
        assert_eq!(check(float, json!(1e38)), None);
    }

    #[test]
    fn an_integer_value_meets_bounds_converted_as_go_converts() {
        // int64(1e40) is i64::MIN on amd64: 1 is above it.
        assert!(check(json!({"type": "number", "maximum": 1e40}), json!(1)).is_some());
        assert!(
            check(
                json!({"type": "number", "format": "float32", "maximum": 1e40}),
                json!(1)
            )
            .is_some()
        );
        // Truncated bounds.
        assert_eq!(
            check(json!({"type": "number", "minimum": 0.5}), json!(0)),
            None
        );
        assert!(
            check(
                json!({"type": "number", "maximum": 2.5, "exclusiveMaximum": true}),
                json!(2)
            )
            .is_some()
        );
        assert!(
            check(
                json!({"type": "number", "minimum": -2.5, "exclusiveMinimum": true}),
                json!(-2)
            )
            .is_some()
        );
        assert!(check(json!({"type": "number", "multipleOf": 0.5}), json!(3)).is_some());
        assert_eq!(
            check(json!({"type": "number", "multipleOf": 0.1}), json!(0.3)),
            None
        );
        assert!(
            check(
                json!({"type": "integer", "maximum": 3, "exclusiveMaximum": true}),
                json!(3)
            )
            .is_some()
        );
        assert!(
            check(
                json!({"type": "integer", "maximum": 3, "exclusiveMinimum": true}),
                json!(10)
            )
            .is_some()
        );
        assert_eq!(
            check(
                json!({"type": "integer", "format": "int32", "exclusiveMinimum": true}),
                json!(7)
            ),
            None
        );
    }
}
