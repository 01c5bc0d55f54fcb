use super::*;
use crate::conversion::test_kinds::{v1, v1alpha1, v2};
use serde_json::json;

fn conversions() -> Conversions {
    Conversions::registered().expect("the test kinds' conversions are consistent")
}

fn review(objects: Vec<Value>, desired: &str) -> Value {
    let body = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": "u-1", "desiredAPIVersion": desired, "objects": objects},
    });
    let out = conversions()
        .review(&serde_json::to_vec(&body).unwrap())
        .unwrap();
    serde_json::from_slice(&out).unwrap()
}

fn widget(version: &str, name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": format!("test.kube-markers.dev/{version}"),
        "kind": "Widget",
        "metadata": {
            "name": name, "namespace": "ns", "uid": format!("uid-{name}"),
            "resourceVersion": "7", "generation": 2,
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"app": "w"},
            "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
        },
        "spec": spec,
    })
}

#[test]
fn converts_each_object_in_order_to_the_desired_version_and_echoes_the_uid() {
    let out = review(
        vec![
            widget("v1", "a", json!({"replicas": 3, "image": "nginx:1.27"})),
            widget(
                "v2",
                "b",
                json!({"size": 1, "image": {"name": "redis", "tag": "7"}}),
            ),
            widget("v1alpha1", "c", json!({"count": 5})),
        ],
        "test.kube-markers.dev/v2",
    );
    assert_eq!(out["apiVersion"], "apiextensions.k8s.io/v1");
    assert_eq!(out["kind"], "ConversionReview");
    let response = &out["response"];
    assert_eq!(response["uid"], "u-1");
    assert_eq!(response["result"]["status"], "Success", "{out}");
    let objects = response["convertedObjects"].as_array().unwrap();
    let names: Vec<&str> = objects
        .iter()
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    for object in objects {
        assert_eq!(object["apiVersion"], "test.kube-markers.dev/v2");
        assert_eq!(object["kind"], "Widget");
    }
    assert_eq!(
        objects[0]["spec"],
        json!({"size": 3, "image": {"name": "nginx", "tag": "1.27"}})
    );
    // At the desired version already: as it came.
    assert_eq!(
        objects[1],
        widget(
            "v2",
            "b",
            json!({"size": 1, "image": {"name": "redis", "tag": "7"}})
        )
    );
    assert_eq!(
        objects[2]["spec"],
        json!({"size": 5, "image": {"name": "busybox", "tag": "latest"}})
    );
}

#[test]
fn metadata_is_kept_except_labels_and_annotations() {
    let out = review(
        vec![widget(
            "v2",
            "a",
            json!({"size": 2, "image": {"name": "nginx", "tag": "1"}}),
        )],
        "test.kube-markers.dev/v1",
    );
    let object = &out["response"]["convertedObjects"][0];
    let mut expected = widget("v2", "a", json!({}))["metadata"].clone();
    // The conversion to v1 sets a label and an annotation (the hub's image tag): those
    // reach the API server; every other field is the original's, managedFields included.
    expected["labels"] = json!({"app": "w", "converted": "true"});
    expected["annotations"] = json!({"test.kube-markers.dev/tag": "1"});
    assert_eq!(object["metadata"], expected);
    assert_eq!(object["spec"], json!({"replicas": 2, "image": "nginx:1"}));
}

#[test]
fn spoke_to_spoke_goes_through_the_hub() {
    let out = review(
        vec![widget("v1alpha1", "c", json!({"count": 4}))],
        "test.kube-markers.dev/v1",
    );
    let object = &out["response"]["convertedObjects"][0];
    assert_eq!(object["apiVersion"], "test.kube-markers.dev/v1");
    assert_eq!(
        object["spec"],
        json!({"replicas": 4, "image": "busybox:latest"})
    );
}

fn failure(out: &Value) -> &str {
    let response = &out["response"];
    assert_eq!(response["uid"], "u-1");
    assert_eq!(response["result"]["status"], "Failure", "{out}");
    assert_eq!(response["convertedObjects"], json!([]));
    response["result"]["message"].as_str().unwrap()
}

#[test]
fn a_conversion_error_fails_the_review_naming_the_object_kind_and_versions() {
    let out = review(
        vec![
            widget("v1", "fine", json!({"replicas": 1, "image": "nginx"})),
            widget("v1", "bad", json!({"replicas": -1, "image": "nginx"})),
        ],
        "test.kube-markers.dev/v2",
    );
    assert_eq!(
        failure(&out),
        "cannot convert Widget ns/bad from test.kube-markers.dev/v1 to test.kube-markers.dev/v2: \
         replicas must not be negative, not -1"
    );
}

#[test]
fn a_panicking_conversion_fails_the_review_and_the_next_one_succeeds() {
    let out = review(
        vec![widget(
            "v1",
            "boom",
            json!({"replicas": 1, "image": "panic"}),
        )],
        "test.kube-markers.dev/v2",
    );
    let message = failure(&out);
    assert!(
        message.starts_with(
            "cannot convert Widget ns/boom from test.kube-markers.dev/v1 to \
             test.kube-markers.dev/v2: the conversion v1::Widget -> v2::Widget ("
        ),
        "{message}"
    );
    assert!(
        message.ends_with(") panicked; its message is in the operator's log"),
        "{message}"
    );
    let out = review(
        vec![widget("v1", "a", json!({"replicas": 1, "image": "nginx"}))],
        "test.kube-markers.dev/v2",
    );
    assert_eq!(out["response"]["result"]["status"], "Success");
}

#[test]
fn unknown_versions_kinds_and_groups_fail_the_review_naming_them() {
    let cases = [
        (
            widget("v9", "a", json!({})),
            "test.kube-markers.dev/v2",
            "cannot convert Widget ns/a from test.kube-markers.dev/v9 to test.kube-markers.dev/v2: \
             test.kube-markers.dev Widget has no conversion for version v9 (hub v2, spokes v1, v1alpha1)",
        ),
        (
            widget("v1", "a", json!({})),
            "test.kube-markers.dev/v3",
            "cannot convert Widget ns/a from test.kube-markers.dev/v1 to test.kube-markers.dev/v3: \
             test.kube-markers.dev Widget has no conversion for version v3 (hub v2, spokes v1, v1alpha1)",
        ),
        (
            json!({"apiVersion": "test.kube-markers.dev/v1", "kind": "Gadget", "metadata": {"name": "g"}}),
            "test.kube-markers.dev/v2",
            "cannot convert Gadget g from test.kube-markers.dev/v1 to test.kube-markers.dev/v2: \
             no conversion of kind Gadget in group test.kube-markers.dev is registered (the kinds \
             with conversions: test.kube-markers.dev Widget)",
        ),
        (
            widget("v1", "a", json!({})),
            "other.example.com/v2",
            "cannot convert Widget ns/a from test.kube-markers.dev/v1 to other.example.com/v2: the \
             groups differ (\"test.kube-markers.dev\" and \"other.example.com\"); a conversion stays \
             within its group",
        ),
        (
            json!({"metadata": {"name": "x"}}),
            "test.kube-markers.dev/v2",
            "cannot convert x to test.kube-markers.dev/v2: the object has no apiVersion and no kind (a string each)",
        ),
        (
            json!({"apiVersion": "test.kube-markers.dev/v1", "kind": 3, "metadata": {"name": "x"}}),
            "test.kube-markers.dev/v2",
            "cannot convert x to test.kube-markers.dev/v2: the object has the apiVersion \"test.kube-markers.dev/v1\" and no kind (a string each)",
        ),
        (
            json!({"apiVersion": "test.kube-markers.dev/", "kind": "Widget", "metadata": {"name": "x"}}),
            "test.kube-markers.dev/v2",
            "cannot convert Widget x to test.kube-markers.dev/v2: the object has the apiVersion \"test.kube-markers.dev/\", without a version (a string each)",
        ),
        (
            json!({"kind": "Widget"}),
            "test.kube-markers.dev/v2",
            "cannot convert Widget (object 0 of the review) to test.kube-markers.dev/v2: the object has no apiVersion (a string each)",
        ),
        (
            json!(7),
            "test.kube-markers.dev/v2",
            "object 0 of the ConversionReview is not an object",
        ),
        (
            widget("v1", "a", json!({"replicas": "three"})),
            "test.kube-markers.dev/v2",
            "cannot convert Widget ns/a from test.kube-markers.dev/v1 to test.kube-markers.dev/v2: \
             the object does not fit the type v1::Widget: invalid type: string \"three\", expected i32",
        ),
    ];
    for (object, desired, message) in cases {
        assert_eq!(failure(&review(vec![object], desired)), message);
    }
}

#[test]
fn bodies_that_are_not_reviews_are_errors() {
    let c = conversions();
    assert!(matches!(c.review(b"{"), Err(ReviewError::Decode(_))));
    assert!(matches!(c.review(b"[]"), Err(ReviewError::Decode(_))));
    let admission = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","desiredAPIVersion":"a/b","objects":[]}}"#;
    assert_eq!(
        c.review(admission).unwrap_err().to_string(),
        "the request body is not an apiextensions.k8s.io/v1 ConversionReview: its apiVersion is \
         \"admission.k8s.io/v1\" and its kind \"AdmissionReview\""
    );
    let no_request = br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}"#;
    assert!(matches!(c.review(no_request), Err(ReviewError::NoRequest)));
    // An empty list is answered (the API server never sends one, but it is a review).
    let empty = br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"e","desiredAPIVersion":"a/b","objects":[]}}"#;
    let out: Value = serde_json::from_slice(&c.review(empty).unwrap()).unwrap();
    assert_eq!(out["response"]["result"]["status"], "Success");
}

fn entry(
    spoke: fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    hub: fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    line: u32,
) -> ConversionEntry {
    fn same(v: Value) -> Result<Value, String> {
        Ok(v)
    }
    ConversionEntry::__new(
        spoke,
        hub,
        same,
        same,
        "S",
        "H",
        kube_markers_registry::Source::__new("src/lib.rs", line, 1, "op", "S -> H"),
    )
}

#[test]
fn inconsistent_registrations_are_refused_naming_each_attribute() {
    use kube::CustomResourceExt;
    let errors = Conversions::new([
        entry(v1::Widget::crd, v2::Widget::crd, 1),
        entry(v1::Widget::crd, v2::Widget::crd, 2),
        entry(v1alpha1::Widget::crd, v1::Widget::crd, 3),
        entry(v2::Widget::crd, v2::Widget::crd, 4),
        entry(
            v1::Widget::crd,
            crate::conversion::test_kinds::Gadget::crd,
            5,
        ),
    ])
    .unwrap_err();
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "test.kube-markers.dev Widget v1: converted by both src/lib.rs:1 (S -> H) and src/lib.rs:2 (S -> H)",
            "test.kube-markers.dev Widget: src/lib.rs:1 (S -> H) converts to the hub v2 and src/lib.rs:3 (S -> H) to the hub v1: a kind has one hub, which every other version converts to and from",
            "src/lib.rs:4 (S -> H): S and H are both test.kube-markers.dev/v2 Widget: a conversion is between two versions",
            "src/lib.rs:5 (S -> H): S is test.kube-markers.dev/v1 Widget and H is test.kube-markers.dev/v1 Gadget: a conversion is between two versions of one group and kind",
        ]
    );
}

/// A small deterministic generator (xorshift), so that a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Random bytes and mutations of a valid review (bytes flipped, cut, repeated, JSON tokens
/// spliced in) are answered or refused, never a panic; every answer is a review echoing what
/// it can.
#[test]
fn the_decoder_survives_random_and_mutated_bodies() {
    let conversions = conversions();
    let valid = serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": "u", "desiredAPIVersion": "test.kube-markers.dev/v2", "objects": [
            widget("v1", "a", json!({"replicas": 3, "image": "nginx:1"})),
            widget("v1alpha1", "b", json!({"count": 2})),
        ]},
    }))
    .unwrap();
    let pieces: [&[u8]; 10] = [
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
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut answered, mut refused) = (0, 0);
    for round in 0..4000 {
        let body: Vec<u8> = if round % 10 == 0 {
            (0..rng.below(300)).map(|_| rng.next() as u8).collect()
        } else {
            let mut body = valid.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(body.len() + 1);
                match rng.below(4) {
                    0 if at < body.len() => body[at] = rng.next() as u8,
                    1 => body.truncate(at),
                    2 => {
                        let piece = pieces[rng.below(pieces.len())];
                        body.splice(at..at, piece.iter().copied());
                    }
                    _ => {
                        let end = (at + rng.below(40)).min(body.len());
                        let copy = body[at..end].to_vec();
                        body.splice(at..at, copy);
                    }
                }
            }
            body
        };
        match conversions.review(&body) {
            Ok(out) => {
                answered += 1;
                let out: Value = serde_json::from_slice(&out).unwrap();
                assert_eq!(out["kind"], "ConversionReview");
                let status = &out["response"]["result"]["status"];
                assert!(status == "Success" || status == "Failure", "{out}");
            }
            Err(_) => refused += 1,
        }
    }
    // Both paths were exercised.
    assert!(
        answered > 100 && refused > 100,
        "{answered} answered, {refused} refused"
    );
    // Nesting past serde_json's recursion limit is refused, not a stack overflow.
    let deep = format!(
        "{{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\",\"request\":{{\"uid\":\"u\",\"desiredAPIVersion\":\"a/b\",\"objects\":[{}{}]}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(matches!(
        conversions.review(deep.as_bytes()),
        Err(ReviewError::Decode(_))
    ));
}
