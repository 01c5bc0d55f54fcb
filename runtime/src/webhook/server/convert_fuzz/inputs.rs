//! The inputs of the `/convert` fuzz test: valid reviews, their mutations, and raw bytes.

use serde_json::{Value, json};

use super::GROUP;

/// xorshift64*: the same cases on every run and platform.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    pub(super) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

pub(super) fn widget(version: &str, name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": format!("{GROUP}/{version}"),
        "kind": "Widget",
        "metadata": {
            "name": name, "namespace": "ns", "uid": format!("uid-{name}"),
            "resourceVersion": "7", "generation": 2, "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"app": "w"}, "annotations": {"note": "n"},
            "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
                               "fieldsV1": {"f:spec": {"f:replicas": {}}}}],
        },
        "spec": spec,
    })
}

/// A valid review: objects of each version (and the two that fail: a negative `replicas`,
/// a panicking conversion), to one of the versions.
pub(super) fn valid_review(rng: &mut Rng) -> Value {
    let pool = [
        widget("v1", "a", json!({"replicas": 3, "image": "nginx:1.27"})),
        widget(
            "v2",
            "b",
            json!({"size": 1, "image": {"name": "redis", "tag": "7"}}),
        ),
        widget("v1alpha1", "c", json!({"count": 5})),
        widget("v1", "d", json!({"replicas": 0, "image": "busybox"})),
        widget("v1", "neg", json!({"replicas": -1, "image": "x"})),
        widget("v1", "boom", json!({"replicas": 1, "image": "panic"})),
    ];
    let objects: Vec<Value> = (0..rng.below(4))
        .map(|_| {
            // The failing ones rarely, so that most valid reviews succeed.
            let failing = rng.chance(10);
            let i = rng.below(if failing { 6 } else { 4 });
            pool[i].clone()
        })
        .collect();
    let version = rng.pick(&["v1", "v2", "v1alpha1"]);
    let uid = rng.pick(&[
        "705ab4f5-6393-11e8-b7cc-42010a800002",
        "",
        "ü-ñ \"quoted\" \\ / \u{7}",
    ]);
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": format!("{GROUP}/{version}"), "objects": objects},
    })
}

/// Text spliced into the serialized review in place of a marker string: what a `Value`
/// cannot hold (numbers out of range, invalid UTF-8, lone surrogates, duplicate keys,
/// nesting past the parser's limit).
pub(super) struct Raw(pub(super) Vec<Vec<u8>>);

impl Raw {
    pub(super) fn marker(&mut self, text: impl Into<Vec<u8>>) -> Value {
        self.0.push(text.into());
        Value::String(format!("\u{1}raw{}\u{1}", self.0.len() - 1))
    }

    /// `body` with each marker replaced by its text, in one pass (a marker's text may hold
    /// older markers: those are expanded first).
    pub(super) fn splice(&self, body: Vec<u8>) -> Vec<u8> {
        let mut expanded: Vec<Vec<u8>> = Vec::with_capacity(self.0.len());
        for text in &self.0 {
            let text = Self::replace(text, &expanded);
            expanded.push(text);
        }
        Self::replace(&body, &expanded)
    }

    pub(super) fn replace(text: &[u8], expanded: &[Vec<u8>]) -> Vec<u8> {
        const OPEN: &[u8] = b"\"\\u0001raw";
        const CLOSE: &[u8] = b"\\u0001\"";
        let mut out = Vec::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = find(rest, OPEN) {
            out.extend_from_slice(&rest[..at]);
            let digits = rest[at + OPEN.len()..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let number = &rest[at + OPEN.len()..at + OPEN.len() + digits];
            let after = at + OPEN.len() + digits;
            let index = std::str::from_utf8(number)
                .ok()
                .and_then(|n| n.parse::<usize>().ok());
            match index.and_then(|i| expanded.get(i)) {
                Some(raw) if rest[after..].starts_with(CLOSE) => {
                    out.extend_from_slice(raw);
                    rest = &rest[after + CLOSE.len()..];
                }
                _ => {
                    out.extend_from_slice(&rest[at..after]);
                    rest = &rest[after..];
                }
            }
        }
        out.extend_from_slice(rest);
        out
    }
}

pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

pub(super) fn nested(depth: usize, open: &str, close: &str) -> Vec<u8> {
    format!("{}1{}", open.repeat(depth), close.repeat(depth)).into_bytes()
}

/// Every node of `value`, as paths of keys and indices.
pub(super) fn paths(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(path.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                path.push(Step::Key(key.clone()));
                paths(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(Step::Index(i));
                paths(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
pub(super) enum Step {
    Key(String),
    Index(usize),
}

pub(super) fn node<'a>(value: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(value, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

/// The field at `keys`, when each step is an object that has it.
pub(super) fn get<'a>(value: &'a mut Value, keys: &[&str]) -> Option<&'a mut Value> {
    keys.iter()
        .try_fold(value, |v, key| v.as_object_mut()?.get_mut(*key))
}

/// Sets the field at `keys` when its parent is an object (a mutation may have retyped it).
pub(super) fn set(value: &mut Value, keys: &[&str], new: Value) {
    let (last, parent) = keys.split_last().expect("a key");
    if let Some(map) = get(value, parent).and_then(Value::as_object_mut) {
        map.insert(last.to_string(), new);
    }
}

/// A replacement of another type, or a value of the right type the parser or the
/// conversion must refuse.
pub(super) fn odd_value(rng: &mut Rng, raw: &mut Raw) -> Value {
    match rng.below(22) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(0),
        3 => json!(-1),
        4 => json!(1.5),
        5 => json!(u64::MAX),
        6 => json!(i64::MIN),
        7 => json!(""),
        8 => json!("x"),
        9 => json!([]),
        10 => json!({}),
        11 => json!([{"apiVersion": format!("{GROUP}/v1")}]),
        12 => raw.marker(
            rng.pick(&[
                "1e400",
                "-1e400",
                "123456789012345678901234567890",
                "-0",
                "1E+2",
                "2147483648",
                "-2147483649",
                "3.0",
            ])
            .as_bytes(),
        ),
        13 => raw.marker(&b"\"\xff\xfe\""[..]),
        14 => raw.marker(&b"\"\xc0\x80\""[..]),
        15 => raw.marker(&b"\"\xe2\x82\""[..]),
        16 => raw.marker(*rng.pick(&["\"\\ud800\"", "\"\\udc00x\"", "\"\\u00\"", "\"\\x\""])),
        17 => raw.marker(nested(
            rng.pick(&[100, 126, 127, 128, 129, 200, 5000]).to_owned(),
            "[",
            "]",
        )),
        18 => {
            let depth = *rng.pick(&[60, 127, 128, 129, 3000]);
            raw.marker(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)))
        }
        19 => json!("x".repeat(rng.below(100_000))),
        20 => json!("\u{0}\u{fffd}Ω≈ç√ 🦀"),
        _ => raw.marker(*rng.pick(&[
            "NaN",
            "Infinity",
            "undefined",
            "'x'",
            "01",
            ".5",
            "+1",
            "tru",
            "nul",
        ])),
    }
}

/// One structured mutation of `review`.
pub(super) fn mutate(review: &mut Value, rng: &mut Rng, raw: &mut Raw) {
    let mut all = Vec::new();
    paths(review, &mut Vec::new(), &mut all);
    let path = rng.pick(&all).clone();
    match rng.below(10) {
        // Remove the node.
        0 | 1 => {
            let Some((last, parent)) = path.split_last() else {
                *review = Value::Null;
                return;
            };
            match (node(review, parent), last) {
                (Value::Object(map), Step::Key(k)) => {
                    map.remove(k);
                }
                (Value::Array(items), Step::Index(i)) if *i < items.len() => {
                    items.remove(*i);
                }
                _ => {}
            }
        }
        // Retype it.
        2 | 3 => *node(review, &path) = odd_value(rng, raw),
        // The review's own apiVersion or kind.
        4 => {
            let field = *rng.pick(&["apiVersion", "kind"]);
            let value = match rng.below(5) {
                0 => json!("apiextensions.k8s.io/v1beta1"),
                1 => json!("admission.k8s.io/v1"),
                2 => json!("AdmissionReview"),
                3 => json!("conversionreview"),
                _ => odd_value(rng, raw),
            };
            set(review, &[field], value);
        }
        // desiredAPIVersion.
        5 => {
            let odd = [
                "",
                "/",
                "v2",
                "//",
                "test.kube-markers.dev/",
                "test.kube-markers.dev/v3",
                "test.kube-markers.dev/V2",
                "test.kube-markers.dev/v2/",
                "/v2",
                "other.io/v2",
                "test.kube-markers.dev/v2/extra",
                "test.kube-markers.dev /v2",
                "Ω/v2",
            ];
            let value = if rng.chance(80) {
                json!(rng.pick(&odd))
            } else {
                odd_value(rng, raw)
            };
            set(review, &["request", "desiredAPIVersion"], value);
        }
        // An object's apiVersion or kind, or the object itself.
        6 => {
            let objects = get(review, &["request", "objects"]);
            let Some(items) = objects
                .and_then(Value::as_array_mut)
                .filter(|o| !o.is_empty())
            else {
                let value = odd_value(rng, raw);
                set(review, &["request", "objects"], value);
                return;
            };
            let i = rng.below(items.len());
            match rng.below(4) {
                0 => items[i] = odd_value(rng, raw),
                1 => set(
                    &mut items[i],
                    &["kind"],
                    json!(rng.pick(&["Gadget", "widget", "", "Widgets"])),
                ),
                2 => {
                    let version = rng.pick(&[
                        "v1",
                        "test.kube-markers.dev/v9",
                        "other.io/v1",
                        "test.kube-markers.dev/",
                        "/",
                        "",
                        "test.kube-markers.dev/v1/v2",
                    ]);
                    set(&mut items[i], &["apiVersion"], json!(version))
                }
                _ => items[i] = odd_value(rng, raw),
            }
        }
        // A duplicate key in an object (the last one counts in a `Value`; a struct refuses).
        7 => {
            if let Value::Object(map) = node(review, &path)
                && let Some(key) = map.keys().nth(rng.below(map.len())).cloned()
            {
                let value = if rng.chance(50) {
                    map[&key].clone()
                } else {
                    odd_value(rng, raw)
                };
                // Markers inside stay markers: spliced later, the newest (outermost) first.
                let rest = serde_json::to_vec(&Value::Object(std::mem::take(map))).unwrap();
                let mut text = format!("{{{}:", serde_json::to_string(&key).unwrap()).into_bytes();
                text.extend(serde_json::to_vec(&value).unwrap());
                text.push(b',');
                text.extend_from_slice(&rest[1..]);
                *node(review, &path) = raw.marker(text);
            }
        }
        // More objects (thousands: `the_convert_route_answers_large_reviews_in_bounded_time`).
        8 => {
            if let Some(items) = get(review, &["request", "objects"]).and_then(Value::as_array_mut)
                && let Some(first) = items.first().cloned()
            {
                items.resize(*rng.pick(&[2, 10, 50]), first);
            }
        }
        // A string leaf made odd.
        _ => {
            if node(review, &path).is_string() {
                *node(review, &path) = odd_value(rng, raw);
            }
        }
    }
}

/// A byte-level mutation: flipped, cut, repeated, or JSON tokens and invalid UTF-8 spliced.
pub(super) fn mutate_bytes(body: &mut Vec<u8>, rng: &mut Rng) {
    const PIECES: [&[u8]; 14] = [
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b"null",
        b"-1e999",
        b"\"\\ud800\"",
        b":",
        b",",
        b"\xff",
        b"\xc3",
        b"\\",
        b"\x00",
    ];
    let at = rng.below(body.len() + 1);
    match rng.below(4) {
        0 if at < body.len() => body[at] = rng.next() as u8,
        1 => body.truncate(at),
        2 => {
            let piece = *rng.pick(&PIECES);
            body.splice(at..at, piece.iter().copied());
        }
        _ => {
            let end = (at + rng.below(40)).min(body.len());
            let copy = body[at..end].to_vec();
            body.splice(at..at, copy);
        }
    }
}

/// The `n`th input.
pub(super) fn case(n: usize, rng: &mut Rng) -> Vec<u8> {
    match n % 20 {
        // Random bytes, or random printable JSON-ish characters.
        0 => (0..rng.below(400)).map(|_| rng.next() as u8).collect(),
        1 => (0..rng.below(400))
            .map(|_| *rng.pick(b"{}[]\":,0123456789-+.eE truefalsnl\\u"))
            .collect(),
        _ => {
            let mut review = valid_review(rng);
            let mut raw = Raw(Vec::new());
            // A few valid ones as they are: the answers' checks must see successes.
            let mutations = if n % 20 == 2 { 0 } else { 1 + rng.below(3) };
            for _ in 0..mutations {
                mutate(&mut review, rng, &mut raw);
            }
            let mut body = raw.splice(serde_json::to_vec(&review).unwrap());
            if n % 20 >= 17 {
                mutate_bytes(&mut body, rng);
            }
            body
        }
    }
}
