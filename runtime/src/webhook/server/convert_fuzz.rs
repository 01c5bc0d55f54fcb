//! The `/convert` route under bad input (issue #20): random bytes and mutated
//! `ConversionReview`s (truncated, fields removed or retyped, huge numbers, deep nesting, wrong
//! `apiVersion`/`kind`, odd `desiredAPIVersion`s, objects that are not objects, duplicate keys,
//! invalid UTF-8 and lone surrogates) through what the server calls for a request
//! ([`RouteTable::respond`]: media type, body and decode limits, envelope, then
//! [`Conversions::review`]). Every answer must come in bounded time and be either a 4xx refusal
//! with a text reason or a well-formed `ConversionReview` echoing the request's `uid`, with one
//! converted object per object, each at the desired version with its kind and its metadata
//! (labels and annotations aside), or a failure with a message and no objects.
//!
//! Deterministic (a seeded xorshift): a failing case names its number and its body. A handful
//! of the cases also go through the real server over TLS and must be answered byte for byte
//! as in process.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::{Map, Value, json};

use super::routes::{Route, RouteTable};
use crate::conversion::Conversions;

const GROUP: &str = "test.kube-markers.dev";
/// The server's default limits, so that the cases meet the checks a deployed server makes.
const BODY_LIMIT: usize = 8 << 20;
const DECODE_LIMIT: usize = 64 << 20;
/// What one input may take, in a debug build on a loaded machine: a hang or a quadratic
/// path takes far longer.
const PER_INPUT: Duration = Duration::from_secs(3);
const CASES: usize = 5000;

/// xorshift64*: the same cases on every run and platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

fn widget(version: &str, name: &str, spec: Value) -> Value {
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
fn valid_review(rng: &mut Rng) -> Value {
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
struct Raw(Vec<Vec<u8>>);

impl Raw {
    fn marker(&mut self, text: impl Into<Vec<u8>>) -> Value {
        self.0.push(text.into());
        Value::String(format!("\u{1}raw{}\u{1}", self.0.len() - 1))
    }

    /// `body` with each marker replaced by its text, in one pass (a marker's text may hold
    /// older markers: those are expanded first).
    fn splice(&self, body: Vec<u8>) -> Vec<u8> {
        let mut expanded: Vec<Vec<u8>> = Vec::with_capacity(self.0.len());
        for text in &self.0 {
            let text = Self::replace(text, &expanded);
            expanded.push(text);
        }
        Self::replace(&body, &expanded)
    }

    fn replace(text: &[u8], expanded: &[Vec<u8>]) -> Vec<u8> {
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

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn nested(depth: usize, open: &str, close: &str) -> Vec<u8> {
    format!("{}1{}", open.repeat(depth), close.repeat(depth)).into_bytes()
}

/// Every node of `value`, as paths of keys and indices.
fn paths(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
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
enum Step {
    Key(String),
    Index(usize),
}

fn node<'a>(value: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(value, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

/// The field at `keys`, when each step is an object that has it.
fn get<'a>(value: &'a mut Value, keys: &[&str]) -> Option<&'a mut Value> {
    keys.iter()
        .try_fold(value, |v, key| v.as_object_mut()?.get_mut(*key))
}

/// Sets the field at `keys` when its parent is an object (a mutation may have retyped it).
fn set(value: &mut Value, keys: &[&str], new: Value) {
    let (last, parent) = keys.split_last().expect("a key");
    if let Some(map) = get(value, parent).and_then(Value::as_object_mut) {
        map.insert(last.to_string(), new);
    }
}

/// A replacement of another type, or a value of the right type the parser or the
/// conversion must refuse.
fn odd_value(rng: &mut Rng, raw: &mut Raw) -> Value {
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
fn mutate(review: &mut Value, rng: &mut Rng, raw: &mut Raw) {
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
fn mutate_bytes(body: &mut Vec<u8>, rng: &mut Rng) {
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
fn case(n: usize, rng: &mut Rng) -> Vec<u8> {
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

/// How `/convert` answered one input.
#[derive(Debug, PartialEq, Eq, Clone, Copy, PartialOrd, Ord)]
enum Outcome {
    Converted,
    Failed,
    Refused(u16),
}

/// Checks the answer to `input` against what the request said; the outcome, or why the
/// answer is wrong.
fn check(
    input: &[u8],
    status: StatusCode,
    content_type: &str,
    answer: &[u8],
) -> Result<Outcome, String> {
    if status.is_client_error() {
        if content_type != "text/plain; charset=utf-8" {
            return Err(format!("{status} with Content-Type {content_type:?}"));
        }
        match std::str::from_utf8(answer) {
            Ok(reason) if !reason.trim().is_empty() => {}
            _ => return Err(format!("{status} without a reason: {answer:?}")),
        }
        return Ok(Outcome::Refused(status.as_u16()));
    }
    if status != StatusCode::OK {
        return Err(format!("{status}: {}", String::from_utf8_lossy(answer)));
    }
    if content_type != "application/json" {
        return Err(format!("200 with Content-Type {content_type:?}"));
    }
    // Answered: the request was a review, so it is JSON with a string uid.
    let request: Value = serde_json::from_slice(input)
        .map_err(|e| format!("answered a body that is not JSON ({e})"))?;
    let request = &request["request"];
    let answer: Value =
        serde_json::from_slice(answer).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let wrong = |why: &str| Err(format!("{why}: {answer}"));
    if answer["apiVersion"] != "apiextensions.k8s.io/v1" || answer["kind"] != "ConversionReview" {
        return wrong("not a ConversionReview");
    }
    let response = &answer["response"];
    if !request["uid"].is_string() || response["uid"] != request["uid"] {
        return wrong(&format!("the uid is not the request's {}", request["uid"]));
    }
    let converted = response["convertedObjects"]
        .as_array()
        .ok_or("no convertedObjects")?;
    match response["result"]["status"].as_str() {
        Some("Success") => {
            let objects = request["objects"].as_array().map_or(&[][..], Vec::as_slice);
            if converted.len() != objects.len() {
                return wrong(&format!(
                    "{} objects for {}",
                    converted.len(),
                    objects.len()
                ));
            }
            let desired = &request["desiredAPIVersion"];
            for (out, object) in converted.iter().zip(objects) {
                if out["apiVersion"] != *desired || out["kind"] != object["kind"] {
                    return wrong("an object at another apiVersion or kind");
                }
                if object["apiVersion"] == *desired && out != object {
                    return wrong("an object at the desired version changed");
                }
                if let (Some(before), Some(after)) =
                    (object["metadata"].as_object(), out["metadata"].as_object())
                {
                    let strip = |m: &Map<String, Value>| {
                        let mut m = m.clone();
                        m.remove("labels");
                        m.remove("annotations");
                        m
                    };
                    if strip(before) != strip(after) {
                        return wrong("metadata other than labels and annotations changed");
                    }
                }
            }
            Ok(Outcome::Converted)
        }
        Some("Failure") => {
            let message = response["result"]["message"].as_str().unwrap_or("");
            if !converted.is_empty() || message.is_empty() {
                return wrong("a failure with objects or without a message");
            }
            Ok(Outcome::Failed)
        }
        _ => wrong("no result status"),
    }
}

async fn respond(table: &RouteTable, body: Vec<u8>) -> (StatusCode, String, Vec<u8>) {
    let request = Request::post("/convert")
        .header("content-type", "application/json")
        .header("content-length", body.len())
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let response = table.respond(request, deadline).await;
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    (status, content_type, body)
}

fn shown(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(600)]).into_owned();
    if body.len() > 600 {
        format!("{text}… ({} bytes)", body.len())
    } else {
        text
    }
}

fn table(conversions: Conversions) -> RouteTable {
    RouteTable::new(
        vec![Route::conversions(conversions)],
        BODY_LIMIT,
        DECODE_LIMIT,
        Duration::from_secs(30),
    )
    .unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn the_convert_route_answers_random_and_mutated_reviews_in_bounded_time() {
    let conversions = Conversions::registered().expect("the test kinds' conversions");
    let table = table(conversions.clone());
    let mut rng = Rng(0x5eed_c0de_2020_0020);
    let mut outcomes = std::collections::BTreeMap::new();
    let mut slowest = (Duration::ZERO, 0);
    for n in 0..CASES {
        let input = case(n, &mut rng);
        let began = std::time::Instant::now();
        let (status, content_type, answer) = respond(&table, input.clone()).await;
        let took = began.elapsed();
        slowest = slowest.max((took, n));
        let outcome = check(&input, status, &content_type, &answer)
            .unwrap_or_else(|why| panic!("case {n}: {why}\ninput: {}", shown(&input)));
        assert!(
            took < PER_INPUT,
            "case {n} took {took:?}\ninput: {}",
            shown(&input)
        );
        // The table a server of one's own calls answers the same.
        if outcome != Outcome::Refused(413) {
            match conversions.review(&input) {
                Ok(direct) if status == StatusCode::OK => assert_eq!(direct, answer, "case {n}"),
                Ok(_) => {} // the envelope is stricter (a `dryRun` that is not a bool)
                Err(e) if status == StatusCode::OK => {
                    panic!("case {n}: answered in the server, refused by the table: {e}")
                }
                Err(_) => {}
            }
        }
        *outcomes.entry(outcome).or_insert(0usize) += 1;
    }
    eprintln!(
        "{CASES} cases: {outcomes:?}; slowest case {} in {:?}",
        slowest.1, slowest.0
    );
    // Every kind of answer was reached, so each check above ran.
    let count = |o| outcomes.get(&o).copied().unwrap_or(0);
    assert!(count(Outcome::Converted) > 200, "{outcomes:?}");
    assert!(count(Outcome::Failed) > 200, "{outcomes:?}");
    assert!(count(Outcome::Refused(400)) > 1000, "{outcomes:?}");
}

/// Large inputs, one each: thousands of objects (about the API server's 3 MiB limit),
/// converted or failing at the last; past the body and decode limits; past the parser's depth.
#[tokio::test(flavor = "current_thread")]
async fn the_convert_route_answers_large_and_deep_reviews_in_bounded_time() {
    let table = table(Conversions::registered().unwrap());
    let review = |objects: &str| {
        format!(
            r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{{"uid":"u","desiredAPIVersion":"{GROUP}/v2","objects":{objects}}}}}"#
        )
        .into_bytes()
    };
    let object = widget("v1", "a", json!({"replicas": 3, "image": "nginx:1.27"}));
    let mut objects = vec![object; 5000];
    let thousands = review(&Value::from(objects.clone()).to_string());
    objects[4999] = widget("v1", "neg", json!({"replicas": -1, "image": "x"}));
    let last_fails = review(&Value::from(objects).to_string());
    let deep = String::from_utf8(nested(1_000_000, "[", "]")).unwrap();
    let many = format!("[{}]", vec!["[]"; 3 << 20].join(","));
    let long = format!("[\"{}\"]", "x".repeat(BODY_LIMIT));
    for (what, body, expected) in [
        ("5,000 objects", thousands, Outcome::Converted),
        (
            "5,000 objects, the last failing",
            last_fails,
            Outcome::Failed,
        ),
        (
            "a million nested arrays",
            review(&deep),
            Outcome::Refused(400),
        ),
        (
            "3 Mi empty arrays (decode estimate)",
            review(&many),
            Outcome::Refused(413),
        ),
        (
            "a body over the limit",
            review(&long),
            Outcome::Refused(413),
        ),
    ] {
        let began = std::time::Instant::now();
        let (status, content_type, answer) = respond(&table, body.clone()).await;
        let took = began.elapsed();
        let outcome = check(&body, status, &content_type, &answer)
            .unwrap_or_else(|why| panic!("{what}: {why}"));
        assert_eq!(outcome, expected, "{what}: {}", shown(&answer));
        assert!(took < PER_INPUT, "{what}: {took:?}");
    }
}

/// A handful of the mutated cases through the real server over TLS, on one kept-alive
/// connection (a new one when the server closes it): answered as in process, byte for byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_answers_mutated_reviews_over_tls_as_in_process() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
    use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

    let conversions = Conversions::registered().unwrap();
    let table = table(conversions.clone());
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(["localhost".to_string()]).unwrap();
    std::fs::write(dir.path().join("tls.crt"), cert.cert.pem()).unwrap();
    std::fs::write(dir.path().join("tls.key"), cert.signing_key.serialize_pem()).unwrap();
    let server = super::WebhookServer::builder()
        .route(Route::conversions(conversions))
        .cert_dir(dir.path())
        .bind(([127, 0, 0, 1], 0).into())
        .build()
        .unwrap()
        .start()
        .await
        .unwrap();
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(cert.cert.pem().as_bytes()).unwrap())
        .unwrap();
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let addr = server.local_addr();
    let connect = || async {
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        connector.connect(name, tcp).await.unwrap()
    };

    let mut rng = Rng(0x5eed_c0de_2020_0020);
    let mut tls = connect().await;
    let mut statuses = std::collections::BTreeSet::new();
    let mut buffer = Vec::new();
    // Cases 0..40 cover every kind of input `case` makes (random bytes, valid, mutated,
    // byte-mutated).
    for n in 0..40 {
        let input = case(n, &mut rng);
        let (status, _, expected) = respond(&table, input.clone()).await;
        let head = format!(
            "POST /convert HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            input.len()
        );
        tls.write_all(head.as_bytes()).await.unwrap();
        tls.write_all(&input).await.unwrap();
        let (got_status, got, close) = loop {
            if let Some(end) = find(&buffer, b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map(|v| v.trim().parse().unwrap())
                    .expect("a Content-Length");
                if buffer.len() >= end + 4 + length {
                    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
                    let body = buffer[end + 4..end + 4 + length].to_vec();
                    buffer.drain(..end + 4 + length);
                    break (status, body, head.contains("connection: close"));
                }
            }
            let mut chunk = [0u8; 16 << 10];
            let read = tls.read(&mut chunk).await.unwrap();
            assert_ne!(
                read, 0,
                "case {n}: the server closed the connection without an answer"
            );
            buffer.extend_from_slice(&chunk[..read]);
        };
        assert_eq!(
            (got_status, shown(&got)),
            (status.as_u16(), shown(&expected)),
            "case {n}: {}",
            shown(&input)
        );
        statuses.insert(got_status);
        if close {
            tls = connect().await;
            buffer.clear();
        }
    }
    assert!(
        statuses.contains(&200) && statuses.contains(&400),
        "{statuses:?}"
    );
    server.shutdown().await;
}

static SLOW_STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A conversion that holds its thread for 1.5 s on the object named `slow`, as thousands of
/// objects do; the others are returned as they came.
fn slow(object: Value) -> Result<Value, String> {
    if object["metadata"]["name"] == "slow" {
        SLOW_STARTED.store(true, std::sync::atomic::Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(1500));
    }
    Ok(object)
}

/// With one async worker, a small review is answered while a large one's conversions run:
/// they run off the workers.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_large_review_leaves_the_workers_to_other_requests() {
    use crate::conversion::test_kinds::{v1, v2};
    use kube::CustomResourceExt;
    let entry = kube_markers_registry::ConversionEntry::__new(
        v1::Widget::crd,
        v2::Widget::crd,
        slow,
        slow,
        "v1::Widget",
        "v2::Widget",
        kube_markers_registry::Source::__new("src/lib.rs", 1, 1, "op", "slow"),
    );
    let table = Arc::new(table(Conversions::new([entry]).unwrap()));
    let review = |object: Value| {
        serde_json::to_vec(&json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": "u", "desiredAPIVersion": format!("{GROUP}/v2"), "objects": [object]},
        }))
        .unwrap()
    };
    let mut large = widget("v1", "slow", json!({"replicas": 1, "image": "x"}));
    large["metadata"]["annotations"]["note"] = json!("x".repeat(super::routes::BLOCKING_REVIEW));
    let small = review(widget("v1", "fast", json!({"replicas": 1, "image": "x"})));
    let shared = table.clone();
    let large = tokio::spawn(async move { respond(&shared, review(large)).await });
    let waited = std::time::Instant::now();
    while !SLOW_STARTED.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(
            waited.elapsed() < Duration::from_secs(10),
            "the large review's conversion never started"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Its handler runs on the one worker, as the large review's would if it held it.
    let (status, _, _) = respond(&table, small).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        !large.is_finished(),
        "the small review was answered only after the large one's conversions"
    );
    assert_eq!(large.await.unwrap().0, StatusCode::OK);
}
