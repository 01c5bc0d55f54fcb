//! One admission request through the webhook server, from a rustls client on loopback:
//! `cargo bench -p kube-markers --features webhook-server,k8s-openapi/latest --bench webhook`.
//!
//! - `keep_alive`: a review on an open HTTP/1.1 connection (what the API server does while its
//!   connection to the webhook is kept alive);
//! - `new_connection`: TCP connect, TLS handshake, then the review;
//! - `handler_only`: decoding the review, the handler and encoding the answer, without HTTP.

use std::net::SocketAddr;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use kube_markers::webhook::__handle;
use kube_markers::webhook::server::{Route, RunningServer, WebhookServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::runtime::Runtime;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

fn main() {
    divan::main();
}

async fn require_team(request: AdmissionRequest<ConfigMap>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&request);
    match request.object.as_ref().and_then(|o| o.data.as_ref()) {
        Some(data) if data.contains_key("team") => response,
        _ => response.deny("no data.team"),
    }
}

/// A review of a ConfigMap with a few entries (about 700 bytes).
fn review() -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "name": "settings", "namespace": "prod", "operation": "CREATE",
            "userInfo": {"username": "system:serviceaccount:prod:deployer", "groups": ["system:serviceaccounts", "system:authenticated"]},
            "object": {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "settings", "namespace": "prod", "labels": {"app": "shop", "tier": "backend"}},
                "data": {"team": "payments", "region": "eu-west-1", "log-level": "info", "feature-flags": "a,b,c"}
            },
            "oldObject": null, "dryRun": false,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
        }
    }))
    .unwrap()
}

struct Fixture {
    runtime: Runtime,
    server: Option<RunningServer>,
    connector: TlsConnector,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let cert = rcgen::generate_simple_self_signed(["localhost".to_string()]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tls.crt"), cert.cert.pem()).unwrap();
        std::fs::write(dir.path().join("tls.key"), cert.signing_key.serialize_pem()).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(async {
            WebhookServer::builder()
                .route(Route::typed("/validate", require_team))
                .cert_dir(dir.path())
                .bind(([127, 0, 0, 1], 0).into())
                .build()
                .unwrap()
                .start()
                .await
                .unwrap()
        });
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(cert.cert.pem().as_bytes()).unwrap())
            .unwrap();
        let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        Fixture {
            runtime,
            server: Some(server),
            connector: TlsConnector::from(Arc::new(config)),
            _dir: dir,
        }
    }

    fn addr(&self) -> SocketAddr {
        self.server.as_ref().unwrap().local_addr()
    }

    async fn connect(&self) -> TlsStream<TcpStream> {
        let tcp = TcpStream::connect(self.addr()).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        self.connector.connect(name, tcp).await.unwrap()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            self.runtime.block_on(server.shutdown());
        }
    }
}

/// Sends one review and reads the whole answer (the server sends Content-Length).
async fn round_trip(stream: &mut TlsStream<TcpStream>, request: &[u8], buffer: &mut Vec<u8>) {
    stream.write_all(request).await.unwrap();
    buffer.clear();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "connection closed");
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buffer[..end]).unwrap();
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap();
            if buffer.len() >= end + 4 + length {
                return;
            }
        }
    }
}

fn http_request() -> Vec<u8> {
    let body = review();
    let mut request = format!(
        "POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    request
}

#[divan::bench(sample_count = 200, sample_size = 10)]
fn keep_alive(bencher: divan::Bencher) {
    let fixture = Fixture::new();
    let request = http_request();
    let mut stream = fixture.runtime.block_on(fixture.connect());
    let mut buffer = Vec::new();
    bencher.bench_local(|| {
        fixture
            .runtime
            .block_on(round_trip(&mut stream, &request, &mut buffer))
    });
}

#[divan::bench(sample_count = 100, sample_size = 2)]
fn new_connection(bencher: divan::Bencher) {
    let fixture = Fixture::new();
    let request = http_request();
    let mut buffer = Vec::new();
    bencher.bench_local(|| {
        fixture.runtime.block_on(async {
            let mut stream = fixture.connect().await;
            round_trip(&mut stream, &request, &mut buffer).await
        })
    });
}

#[divan::bench(sample_count = 200, sample_size = 10)]
fn handler_only(bencher: divan::Bencher) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let body = review();
    bencher.bench_local(|| {
        runtime
            .block_on(__handle(body.clone(), require_team))
            .unwrap()
    });
}
