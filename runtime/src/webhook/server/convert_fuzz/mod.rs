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

mod inputs;
use inputs::*;

const GROUP: &str = "test.kube-markers.dev";
/// The server's default limits, so that the cases meet the checks a deployed server makes.
const BODY_LIMIT: usize = 8 << 20;
const DECODE_LIMIT: usize = 64 << 20;
/// What one input may take, in a debug build on a loaded machine: a hang or a quadratic
/// path takes far longer. The largest (5,000 objects) took 4.8 s at load 8 on 2 cores, a
/// quadratic path over them would take tens of seconds; the time it takes is a benchmark's
/// (BENCHMARKS.md, `/convert` under load), not this test's.
const PER_INPUT: Duration = Duration::from_secs(15);
const CASES: usize = 5000;

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
