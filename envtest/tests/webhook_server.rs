//! `kube_markers::webhook::server` through a real TLS client (rustls) on loopback: allow, deny
//! with the handler's message, a mutating handler's JSON patch, refused requests (bad body,
//! unknown path, method, media type, size, head size, a review of another kind), dry-run kept
//! from handlers with side effects, start-up errors, certificate rotation without a new
//! listener, graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::core::DynamicObject;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use kube_markers::webhook::SideEffects;
use kube_markers::webhook::server::Route;
use kube_markers::webhook::server::{RunningServer, ServerError, WebhookServer};
use kube_markers_envtest::{ServingCert, TestCa};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

// ---- handlers -------------------------------------------------------------------------------

/// Refuses ConfigMaps without a `team` entry, naming the object.
async fn require_team(request: AdmissionRequest<ConfigMap>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&request);
    let Some(object) = &request.object else {
        return response;
    };
    let has_team = object.data.as_ref().is_some_and(|d| d.contains_key("team"));
    if has_team {
        response
    } else {
        response.deny(format!("ConfigMap {} has no data.team", request.name))
    }
}

/// Defaults `data.tier` to `standard`, through the diff helper.
async fn default_tier(request: AdmissionRequest<ConfigMap>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&request);
    let Some(original) = request.object else {
        return response;
    };
    let mut mutated = original.clone();
    mutated
        .data
        .get_or_insert_default()
        .entry("tier".into())
        .or_insert_with(|| "standard".into());
    kube_markers::webhook::patch_response(response, &original, &mutated)
        .unwrap_or_else(AdmissionResponse::invalid)
}

async fn allow_any(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    AdmissionResponse::from(&request)
}

// ---- a TLS client ---------------------------------------------------------------------------

struct Pki {
    ca: TestCa,
    dir: tempfile::TempDir,
    first: ServingCert,
}

fn pki() -> Pki {
    let ca = TestCa::new("webhook test CA").unwrap();
    let first = ca.issue("first").unwrap();
    let dir = tempfile::tempdir().unwrap();
    first.write_to(dir.path()).unwrap();
    Pki { ca, dir, first }
}

fn der(pem: &str) -> Vec<u8> {
    CertificateDer::from_pem_slice(pem.as_bytes())
        .unwrap()
        .to_vec()
}

fn connector(ca_pem: &str) -> TlsConnector {
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca_pem.as_bytes()).unwrap())
        .unwrap();
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// One keep-alive HTTP/1.1 connection over TLS.
struct Conn {
    stream: TlsStream<TcpStream>,
    buffer: Vec<u8>,
}

/// A response: status, headers (lowercase names), body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Conn {
    async fn open(addr: SocketAddr, ca_pem: &str) -> std::io::Result<Conn> {
        let tcp = TcpStream::connect(addr).await?;
        let name = ServerName::IpAddress(addr.ip().into());
        let stream = connector(ca_pem).connect(name, tcp).await?;
        Ok(Conn {
            stream,
            buffer: Vec::new(),
        })
    }

    /// The certificate the server presented.
    fn server_cert(&self) -> Vec<u8> {
        self.stream.get_ref().1.peer_certificates().unwrap()[0].to_vec()
    }

    async fn send(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) -> Reply {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        self.stream.write_all(head.as_bytes()).await.unwrap();
        self.stream.write_all(body).await.unwrap();
        self.stream.flush().await.unwrap();
        let end = loop {
            if let Some(i) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            self.fill().await;
        };
        let head = String::from_utf8(self.buffer[..end].to_vec()).unwrap();
        let mut lines = head.split("\r\n");
        let status: u16 = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .map(|(_, v)| v.parse().unwrap())
            .expect("the server sends Content-Length");
        while self.buffer.len() < end + length {
            self.fill().await;
        }
        let body = self.buffer[end..end + length].to_vec();
        self.buffer.drain(..end + length);
        Reply {
            status,
            headers,
            body,
        }
    }

    async fn review(&mut self, path: &str, review: &Value) -> Reply {
        self.send(
            "POST",
            path,
            "application/json",
            review.to_string().as_bytes(),
        )
        .await
    }

    async fn fill(&mut self) {
        let mut chunk = [0u8; 8192];
        let n = self.stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the server closed the connection");
        self.buffer.extend_from_slice(&chunk[..n]);
    }
}

// ---- reviews --------------------------------------------------------------------------------

fn config_map(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}, "data": data})
}

fn review(uid: &str, object: Value, dry_run: bool) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "name": object["metadata"]["name"],
            "namespace": "ns",
            "operation": "CREATE",
            "userInfo": {"username": "admin"},
            "object": object,
            "oldObject": null,
            "dryRun": dry_run,
        }
    })
}

async fn serve(pki: &Pki, routes: Vec<Route>) -> RunningServer {
    WebhookServer::builder()
        .routes(routes)
        .cert_dir(pki.dir.path())
        .bind(([127, 0, 0, 1], 0).into())
        .reload_interval(Duration::from_millis(50))
        .shutdown_timeout(Duration::from_secs(5))
        .build()
        .unwrap()
        .start()
        .await
        .unwrap()
}

// ---- tests ----------------------------------------------------------------------------------

#[tokio::test]
async fn a_validating_handler_allows_and_denies_with_its_message() {
    let pki = pki();
    let server = serve(&pki, vec![Route::typed("/validate", require_team)]).await;
    let mut conn = Conn::open(server.local_addr(), pki.ca.pem()).await.unwrap();

    let ok = conn
        .review(
            "/validate",
            &review("uid-1", config_map("a", json!({"team": "db"})), false),
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(ok.header("content-type"), Some("application/json"));
    let ok = ok.json();
    assert_eq!(ok["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(ok["kind"], "AdmissionReview");
    assert_eq!(ok["response"]["uid"], "uid-1");
    assert_eq!(ok["response"]["allowed"], true);

    // Same connection: keep-alive.
    let denied = conn
        .review(
            "/validate",
            &review("uid-2", config_map("b", json!({})), false),
        )
        .await
        .json();
    assert_eq!(denied["response"]["uid"], "uid-2");
    assert_eq!(denied["response"]["allowed"], false);
    assert_eq!(
        denied["response"]["status"]["message"],
        "ConfigMap b has no data.team"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_mutating_handler_answers_with_the_json_patch_of_its_change() {
    let pki = pki();
    let server = serve(&pki, vec![Route::typed("/mutate", default_tier)]).await;
    let mut conn = Conn::open(server.local_addr(), pki.ca.pem()).await.unwrap();

    let object = config_map("a", json!({"team": "db"}));
    let reply = conn
        .review("/mutate", &review("uid-1", object.clone(), false))
        .await
        .json();
    let response = &reply["response"];
    assert_eq!(response["allowed"], true);
    assert_eq!(response["patchType"], "JSONPatch");
    // kube-core writes the patch's bytes as a JSON array, which Go's []byte decodes as well as
    // base64.
    let patch: Vec<u8> = serde_json::from_value(response["patch"].clone()).expect("a patch");
    let patch: json_patch::Patch = serde_json::from_slice(&patch).unwrap();
    let mut patched = object.clone();
    json_patch::patch(&mut patched, &patch).unwrap();
    assert_eq!(patched["data"], json!({"team": "db", "tier": "standard"}));
    assert_eq!(
        patched["metadata"], object["metadata"],
        "only the default changes"
    );

    // Nothing to default: no patch at all.
    let set = config_map("b", json!({"tier": "gold"}));
    let reply = conn
        .review("/mutate", &review("uid-2", set, false))
        .await
        .json();
    assert_eq!(reply["response"]["allowed"], true);
    assert!(reply["response"].get("patch").is_none(), "{reply}");
    assert!(reply["response"].get("patchType").is_none(), "{reply}");
    server.shutdown().await;
}

#[tokio::test]
async fn requests_that_are_not_reviews_are_refused_with_the_reason() {
    let pki = pki();
    let server = WebhookServer::builder()
        .route(Route::typed("/validate", require_team))
        .route(Route::typed("/any", allow_any))
        .cert_dir(pki.dir.path())
        .bind(([127, 0, 0, 1], 0).into())
        .body_limit(4096)
        .build()
        .unwrap()
        .start()
        .await
        .unwrap();
    // A refusal before the body is read closes the connection, so each request has its own.
    let addr = server.local_addr();
    let conn = || Conn::open(addr, pki.ca.pem());
    let reply = conn()
        .await
        .unwrap()
        .send("POST", "/validate", "application/json", b"{not json")
        .await;
    assert_eq!(reply.status, 400);
    assert!(
        reply
            .text()
            .starts_with("the request body is not an admission.k8s.io/v1 AdmissionReview: "),
        "{}",
        reply.text()
    );
    // A review of another kind or version: the server answers only admission.k8s.io/v1.
    for (api_version, kind) in [
        ("v1", "Pod"),
        ("admission.k8s.io/v1beta1", "AdmissionReview"),
    ] {
        let mut wrong = review("uid", config_map("a", json!({"team": "x"})), false);
        wrong["apiVersion"] = api_version.into();
        wrong["kind"] = kind.into();
        let reply = conn().await.unwrap().review("/validate", &wrong).await;
        assert_eq!(reply.status, 400, "{}", reply.text());
        assert_eq!(
            reply.text(),
            format!(
                "the request body is not an admission.k8s.io/v1 AdmissionReview: \
                 its apiVersion is {api_version:?} and its kind {kind:?}"
            )
        );
    }
    let reply = conn()
        .await
        .unwrap()
        .review(
            "/validate",
            &json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}),
        )
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.text(), "the AdmissionReview has no request");

    let reply = conn().await.unwrap().review("/nowhere", &json!({})).await;
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.text(),
        "no webhook is served at /nowhere; the paths served are /any, /validate"
    );

    let reply = conn()
        .await
        .unwrap()
        .send("GET", "/validate", "application/json", b"")
        .await;
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("POST"));

    let reply = conn()
        .await
        .unwrap()
        .send("POST", "/validate", "text/plain", b"{}")
        .await;
    assert_eq!(reply.status, 415);
    assert_eq!(
        reply.text(),
        "/validate takes Content-Type application/json, not \"text/plain\""
    );
    // Parameters of the media type are fine.
    let body = review("uid", config_map("a", json!({"team": "x"})), false).to_string();
    let reply = conn()
        .await
        .unwrap()
        .send(
            "POST",
            "/validate",
            "application/json; charset=utf-8",
            body.as_bytes(),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());

    // A request head over the 64 KiB read buffer: 431, before any body is read.
    let mut huge = conn().await.unwrap();
    let head = format!(
        "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: {}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}",
        "a".repeat(70 << 10)
    );
    huge.stream.write_all(head.as_bytes()).await.unwrap();
    huge.stream.flush().await.unwrap();
    let mut answer = Vec::new();
    let read = huge.stream.read_to_end(&mut answer);
    let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 431 "),
        "{}",
        &answer[..answer.len().min(200)]
    );

    let big = vec![b' '; 5000];
    let reply = conn()
        .await
        .unwrap()
        .send("POST", "/validate", "application/json", &big)
        .await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.text(), "the request body exceeds 4096 bytes");
    server.shutdown().await;
}

#[tokio::test]
async fn dry_run_requests_do_not_reach_handlers_with_side_effects() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    async fn counted(request: AdmissionRequest<ConfigMap>) -> AdmissionResponse {
        CALLS.fetch_add(1, Ordering::SeqCst);
        AdmissionResponse::from(&request)
    }
    let pki = pki();
    let server = serve(
        &pki,
        vec![
            Route::typed("/some", counted).side_effects(SideEffects::Some),
            Route::typed("/unknown", counted).side_effects(SideEffects::Unknown),
            Route::typed("/none", counted).side_effects(SideEffects::None),
            Route::typed("/none-on-dry-run", counted).side_effects(SideEffects::NoneOnDryRun),
        ],
    )
    .await;
    let mut conn = Conn::open(server.local_addr(), pki.ca.pem()).await.unwrap();
    let object = config_map("a", json!({}));

    for (path, effects) in [("/some", "Some"), ("/unknown", "Unknown")] {
        let reply = conn
            .review(path, &review("dry", object.clone(), true))
            .await;
        assert_eq!(reply.status, 200);
        let reply = reply.json();
        assert_eq!(reply["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(reply["response"]["uid"], "dry");
        assert_eq!(reply["response"]["allowed"], false);
        assert_eq!(reply["response"]["status"]["code"], 403);
        assert_eq!(
            reply["response"]["status"]["message"],
            format!(
                "the webhook at {path} has sideEffects {effects} and is not called for a dry-run request"
            )
        );
    }
    assert_eq!(CALLS.load(Ordering::SeqCst), 0, "no handler ran");

    // The same webhooks run for requests that are no dry run.
    let reply = conn
        .review("/some", &review("real", object.clone(), false))
        .await
        .json();
    assert_eq!(reply["response"]["allowed"], true);
    assert_eq!(CALLS.load(Ordering::SeqCst), 1);
    // Webhooks without side effects run for dry runs too.
    for path in ["/none", "/none-on-dry-run"] {
        let reply = conn
            .review(path, &review("dry", object.clone(), true))
            .await
            .json();
        assert_eq!(reply["response"]["allowed"], true, "{path}");
    }
    assert_eq!(CALLS.load(Ordering::SeqCst), 3);
    server.shutdown().await;
}

#[tokio::test]
async fn a_handler_that_panics_is_a_server_error_and_the_server_goes_on() {
    async fn panics(request: AdmissionRequest<ConfigMap>) -> AdmissionResponse {
        if request.name == "boom" {
            panic!("handler bug");
        }
        AdmissionResponse::from(&request)
    }
    let pki = pki();
    let server = serve(&pki, vec![Route::typed("/fragile", panics)]).await;
    let mut conn = Conn::open(server.local_addr(), pki.ca.pem()).await.unwrap();
    let reply = conn
        .review(
            "/fragile",
            &review("u", config_map("boom", json!({})), false),
        )
        .await;
    assert_eq!(reply.status, 500);
    assert_eq!(reply.text(), "the webhook handler at /fragile panicked");
    // The same connection serves the next request.
    let reply = conn
        .review(
            "/fragile",
            &review("u", config_map("fine", json!({})), false),
        )
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["response"]["allowed"], true);
    server.shutdown().await;
}

#[test]
fn bad_configurations_are_refused_at_start_with_every_reason() {
    let pki = pki();
    let first = Route::typed("/validate", require_team).origin("src/lib.rs:10 (require_team)");
    let second = Route::typed("/validate", allow_any).origin("src/lib.rs:20 (allow_any)");
    let line = line!() + 1;
    let relative = Route::typed("validate", allow_any);
    let error = WebhookServer::builder()
        .routes([first, second, relative])
        .cert_dir(pki.dir.path())
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "two webhooks serve the path /validate: src/lib.rs:10 (require_team) and src/lib.rs:20 (allow_any)\n\
             the webhook path \"validate\" of {}:{line} is not a URL path starting with '/'",
            file!()
        )
    );

    // No routes, and no certificate: both reported.
    let missing = pki.dir.path().join("nothing");
    let error = WebhookServer::builder()
        .cert_dir(&missing)
        .build()
        .unwrap_err();
    assert!(
        matches!(error.errors()[0], ServerError::NoRoutes),
        "{error}"
    );
    assert!(
        matches!(&error.errors()[1], ServerError::Certificate { path, .. } if *path == missing.join("tls.crt")),
        "{error}"
    );
    assert!(
        error.to_string().contains("tls.crt: cannot be read: "),
        "{error}"
    );

    // A key of another certificate.
    let other = pki.ca.issue("other").unwrap();
    std::fs::write(pki.dir.path().join("tls.key"), &other.key_pem).unwrap();
    let error = WebhookServer::builder()
        .route(Route::typed("/validate", allow_any))
        .cert_dir(pki.dir.path())
        .build()
        .unwrap_err();
    assert!(
        error.to_string().starts_with(&format!(
            "{}: is not a usable key for the certificate {}",
            pki.dir.path().join("tls.key").display(),
            pki.dir.path().join("tls.crt").display()
        )),
        "{error}"
    );
    // Not PEM at all.
    std::fs::write(pki.dir.path().join("tls.crt"), "garbage").unwrap();
    let error = WebhookServer::builder()
        .route(Route::typed("/validate", allow_any))
        .cert_dir(pki.dir.path())
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("tls.crt: holds no PEM certificate"),
        "{error}"
    );
}

#[tokio::test]
async fn a_rotated_certificate_is_served_without_a_new_listener() {
    let pki = pki();
    let server = serve(&pki, vec![Route::typed("/validate", require_team)]).await;
    let addr = server.local_addr();
    let mut before = Conn::open(addr, pki.ca.pem()).await.unwrap();
    assert_eq!(before.server_cert(), der(&pki.first.cert_pem));

    // cert-manager renews: a new key and certificate in the mounted files.
    let second = pki.ca.issue("second").unwrap();
    second.write_to(pki.dir.path()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let conn = Conn::open(addr, pki.ca.pem()).await.unwrap();
        if conn.server_cert() == der(&second.cert_pem) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the rotated certificate is never served"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The connection from before the rotation still works.
    let reply = before
        .review(
            "/validate",
            &review("u", config_map("a", json!({"team": "x"})), false),
        )
        .await;
    assert_eq!(reply.status, 200);

    // A half-written rotation (a key that does not match yet) keeps the last good pair.
    let third = pki.ca.issue("third").unwrap();
    std::fs::write(pki.dir.path().join("tls.crt"), &third.cert_pem).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let conn = Conn::open(addr, pki.ca.pem()).await.unwrap();
    assert_eq!(conn.server_cert(), der(&second.cert_pem));
    // ... until the key arrives.
    std::fs::write(pki.dir.path().join("tls.key"), &third.key_pem).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut conn = Conn::open(addr, pki.ca.pem()).await.unwrap();
        if conn.server_cert() == der(&third.cert_pem) {
            let reply = conn
                .review("/validate", &review("u", config_map("a", json!({})), false))
                .await
                .json();
            assert_eq!(reply["response"]["allowed"], false);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the third certificate is never served"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.shutdown().await;
}

#[tokio::test]
async fn shutdown_finishes_the_requests_under_way_and_stops_listening() {
    async fn slow(request: AdmissionRequest<ConfigMap>) -> AdmissionResponse {
        tokio::time::sleep(Duration::from_millis(300)).await;
        AdmissionResponse::from(&request)
    }
    let pki = pki();
    let server = serve(&pki, vec![Route::typed("/slow", slow)]).await;
    let addr = server.local_addr();
    let mut busy = Conn::open(addr, pki.ca.pem()).await.unwrap();
    let ca = pki.ca.pem().to_string();
    let in_flight = tokio::spawn(async move {
        busy.review("/slow", &review("u", config_map("a", json!({})), false))
            .await
            .json()
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let began = Instant::now();
    server.shutdown().await;
    let reply = in_flight.await.unwrap();
    assert_eq!(
        reply["response"]["allowed"], true,
        "the request under way completed"
    );
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "shutdown waited only for it"
    );
    assert!(
        Conn::open(addr, &ca).await.is_err(),
        "nothing listens after shutdown"
    );
}
