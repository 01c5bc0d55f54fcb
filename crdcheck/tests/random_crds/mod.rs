//! Random CRDs for the structural differential: schemas of every type with the keywords,
//! extensions, junctors, defaults and root fields whose rules the API server enforces when a
//! CRD is created, some right and some wrong. Deterministic, so the verdicts kube-apiserver
//! gave (`tests/check_crds/random_crds.verdicts`, recorded by `envtest/tests/
//! cel_differential.rs`) keep naming the same CRDs.

use serde_json::{Map, Value, json};

/// How many CRDs the differential holds.
pub const COUNT: usize = 1000;

/// xorshift64*: the same numbers on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }
}

const TYPES: [&str; 6] = ["object", "array", "string", "integer", "number", "boolean"];

fn scalar(r: &mut Rng, ty: &str) -> Value {
    match ty {
        "string" => r.pick(&[
            json!("a"),
            json!(""),
            json!("abc"),
            json!("2020-01-01"),
            json!("xxxxxxxxxx"),
        ]),
        "integer" => r.pick(&[
            json!(0),
            json!(1),
            json!(-5),
            json!(100),
            json!(2147483648_i64),
        ]),
        "number" => r.pick(&[json!(0), json!(1.5), json!(-2), json!(1e10)]),
        "boolean" => r.pick(&[json!(true), json!(false)]),
        _ => r.pick(&[json!({}), json!([]), json!("s"), json!(1), Value::Null]),
    }
}

fn node(r: &mut Rng, depth: usize, in_junctor: bool) -> Value {
    let mut n = Map::new();
    let mut ty = if r.chance(90) {
        Some(r.pick(&TYPES))
    } else {
        None
    };
    if in_junctor && r.chance(70) {
        ty = None;
    }
    if let Some(t) = ty {
        n.insert("type".into(), json!(t));
    }
    match ty {
        Some("object") if depth < 3 => {
            if r.chance(80) {
                let mut props = Map::new();
                for _ in 0..1 + r.below(3) {
                    let name = r.pick(&["a", "b", "metadata", "spec", "c_d", "x-y", "self", "int"]);
                    props.insert(name.into(), node(r, depth + 1, in_junctor));
                }
                n.insert("properties".into(), Value::Object(props));
            } else if r.chance(50) {
                let extra = if r.chance(80) {
                    node(r, depth + 1, in_junctor)
                } else {
                    json!(r.chance(50))
                };
                n.insert("additionalProperties".into(), extra);
            }
            if r.chance(10) {
                n.insert(
                    "x-kubernetes-preserve-unknown-fields".into(),
                    json!(r.chance(50)),
                );
            }
            if r.chance(10) {
                n.insert("x-kubernetes-embedded-resource".into(), json!(true));
            }
            if r.chance(10) {
                n.insert(
                    "x-kubernetes-map-type".into(),
                    json!(r.pick(&["atomic", "granular", "bogus"])),
                );
            }
            if r.chance(10) {
                n.insert(
                    "required".into(),
                    r.pick(&[json!(["a"]), json!(["zz"]), json!([])]),
                );
            }
            if r.chance(10) {
                n.insert(
                    "minProperties".into(),
                    r.pick(&[json!(0), json!(1), json!(-1)]),
                );
            }
            if r.chance(10) {
                n.insert("maxProperties".into(), r.pick(&[json!(0), json!(2)]));
            }
        }
        Some("array") if depth < 3 => {
            if r.chance(90) {
                n.insert("items".into(), node(r, depth + 1, in_junctor));
            }
            if r.chance(30) {
                n.insert(
                    "x-kubernetes-list-type".into(),
                    json!(r.pick(&["atomic", "set", "map", "bogus"])),
                );
            }
            if r.chance(20) {
                let keys = r.pick(&[json!(["a"]), json!(["b", "a"]), json!([]), json!(["zz"])]);
                n.insert("x-kubernetes-list-map-keys".into(), keys);
            }
            if r.chance(10) {
                n.insert("maxItems".into(), r.pick(&[json!(0), json!(3), json!(-1)]));
            }
            if r.chance(10) {
                n.insert("minItems".into(), r.pick(&[json!(0), json!(3)]));
            }
            if r.chance(5) {
                n.insert("uniqueItems".into(), json!(r.chance(50)));
            }
        }
        Some("string") => {
            if r.chance(20) {
                let formats = [
                    "date-time",
                    "byte",
                    "email",
                    "uuid",
                    "ipv4",
                    "hostname",
                    "int-or-string",
                    "bogus",
                    "date",
                    "duration",
                    "uri",
                    "cidr",
                    "mac",
                ];
                n.insert("format".into(), json!(r.pick(&formats)));
            }
            if r.chance(20) {
                n.insert("maxLength".into(), r.pick(&[json!(0), json!(3), json!(10)]));
            }
            if r.chance(10) {
                n.insert("minLength".into(), r.pick(&[json!(0), json!(2)]));
            }
            if r.chance(10) {
                n.insert(
                    "pattern".into(),
                    json!(r.pick(&["^a+$", "(", "[a-z]", "\\d+", "(?i)a"])),
                );
            }
            if r.chance(10) {
                n.insert(
                    "enum".into(),
                    r.pick(&[json!(["a", "b"]), json!([]), json!(["a", 1])]),
                );
            }
        }
        Some("integer" | "number") => {
            if r.chance(20) {
                n.insert(
                    "format".into(),
                    json!(r.pick(&["int32", "int64", "float", "double", "uint64"])),
                );
            }
            if r.chance(20) {
                n.insert(
                    "maximum".into(),
                    r.pick(&[json!(0), json!(10), json!(2.5), json!(1e20)]),
                );
            }
            if r.chance(20) {
                n.insert(
                    "minimum".into(),
                    r.pick(&[json!(0), json!(-10), json!(0.5)]),
                );
            }
            if r.chance(10) {
                n.insert("exclusiveMaximum".into(), json!(true));
            }
            if r.chance(10) {
                n.insert("exclusiveMinimum".into(), json!(true));
            }
            if r.chance(10) {
                n.insert(
                    "multipleOf".into(),
                    r.pick(&[json!(0), json!(2), json!(0.5), json!(-1)]),
                );
            }
        }
        _ => {}
    }
    if ty.is_none() && r.chance(30) {
        n.insert("x-kubernetes-int-or-string".into(), json!(true));
    }
    if r.chance(10) {
        n.insert("nullable".into(), json!(r.chance(50)));
    }
    if r.chance(10) {
        n.insert("description".into(), json!("d"));
    }
    if r.chance(5) {
        n.insert("title".into(), json!("t"));
    }
    match ty {
        Some(t @ ("string" | "integer" | "number" | "boolean")) if r.chance(25) => {
            let default = scalar(r, t);
            n.insert("default".into(), default);
        }
        Some("object") if r.chance(5) => {
            let default = r.pick(&[json!({}), json!({"a": "x"}), json!({"zz": 1})]);
            n.insert("default".into(), default);
        }
        Some("array") if r.chance(5) => {
            n.insert(
                "default".into(),
                r.pick(&[json!([]), json!(["a"]), json!([1])]),
            );
        }
        _ => {}
    }
    if depth < 3 && r.chance(10) {
        let key = r.pick(&["anyOf", "allOf", "oneOf", "not"]);
        let branches: Vec<Value> = (0..1 + r.below(2))
            .map(|_| node(r, depth + 1, true))
            .collect();
        let value = if key == "not" {
            branches[0].clone()
        } else {
            Value::Array(branches)
        };
        n.insert(key.into(), value);
    }
    if r.chance(5) {
        let key = r.pick(&[
            "$ref",
            "id",
            "$schema",
            "patternProperties",
            "definitions",
            "dependencies",
            "additionalItems",
            "example",
            "externalDocs",
        ]);
        n.insert(
            key.into(),
            r.pick(&[json!("x"), json!({}), json!({"a": {}})]),
        );
    }
    if r.chance(8) {
        let rule = r.pick(&["true", "self == oldSelf", "size(self) > 0", "self.a == 'x'"]);
        n.insert("x-kubernetes-validations".into(), json!([{"rule": rule}]));
    }
    Value::Object(n)
}

/// CRD number `i`: `w<i>s.example.com`, one version, perhaps with the status subresource.
pub fn crd(i: usize) -> Value {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9));
    for _ in 0..4 {
        r.next();
    }
    let mut root = json!({"type": "object"});
    if r.chance(90) {
        let mut props = json!({"spec": node(&mut r, 1, false), "status": node(&mut r, 1, false)});
        if r.chance(20) {
            props["metadata"] = r.pick(&[
                json!({"type": "object"}),
                json!({"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}}}),
                json!({"type": "object", "properties": {"labels": {"type": "object"}}}),
            ]);
        }
        root["properties"] = props;
    }
    let root_keys: [(&str, Value); 10] = [
        ("anyOf", json!([{"required": ["spec"]}])),
        ("default", json!({})),
        ("enum", json!([{}])),
        ("minProperties", json!(1)),
        ("x-kubernetes-preserve-unknown-fields", json!(true)),
        ("description", json!("r")),
        ("nullable", json!(false)),
        ("required", json!(["spec"])),
        ("x-kubernetes-validations", json!([{"rule": "true"}])),
        ("additionalProperties", json!(true)),
    ];
    for (key, value) in root_keys {
        if r.chance(4) {
            root[key] = value;
        }
    }
    let mut version = json!({"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": root}});
    if r.chance(50) {
        version["subresources"] = json!({"status": {}});
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("w{i}s.example.com")},
        "spec": {
            "group": "example.com",
            "names": {"kind": format!("W{i}"), "plural": format!("w{i}s")},
            "scope": "Namespaced",
            "versions": [version],
        },
    })
}

/// The recorded verdicts, by CRD number: `true` when the API server accepted it.
pub fn recorded(text: &str) -> Vec<bool> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.ends_with("accepted"))
        .collect()
}
