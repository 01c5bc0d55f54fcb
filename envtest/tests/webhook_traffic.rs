//! `kube_markers::webhook::server` under the traffic of a real API server and of an attacker,
//! on loopback: keep-alive connections reused after idling past the header deadline (as the
//! API server's pool does), the idle, header and request deadlines, the connection cap, and
//! what one request costs the server process in memory (its RSS, read from /proc, in a process
//! of its own: this binary started again as the server).
//!
//! The long runs (400 connections idle 89 s, a 1 MB body one byte per record, 64 concurrent
//! 8 MiB reviews) are the benchmark's: `scripts/bench-webhook.sh` (BENCHMARKS.md).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kube::core::DynamicObject;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use kube_markers::webhook::server::{Route, RunningServer, WebhookServer, WebhookServerBuilder};
use kube_markers_envtest::TestCa;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

// The MyDatabase example's handlers, which `registered()` serves.
use mydatabase_operator as _;

// ---- a client that behaves like Go's net/http Transport -------------------------------------

/// The API server's HTTP client, as far as these tests need it: one request at a time on a
/// kept-alive connection taken from its pool; a POST that fails because the connection was
/// closed is not retried (Go retries only requests it can replay safely), so it fails the
/// admission. Unlike Go, it does not notice a close in the background either: every close by
/// the server before the client's own idle timeout counts as a failure.
#[derive(Clone)]
struct Client {
    addr: SocketAddr,
    connector: TlsConnector,
}

struct Conn {
    stream: TlsStream<TcpStream>,
    buffer: Vec<u8>,
}

#[derive(Debug)]
struct Reply {
    status: u16,
    body: Vec<u8>,
}

impl Reply {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Client {
    fn new(addr: SocketAddr, ca: &TestCa) -> Client {
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(ca.pem().as_bytes()).unwrap())
            .unwrap();
        let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        Client {
            addr,
            connector: TlsConnector::from(Arc::new(config)),
        }
    }

    async fn connect(&self) -> std::io::Result<Conn> {
        let tcp = TcpStream::connect(self.addr).await?;
        tcp.set_nodelay(true)?;
        let name = ServerName::try_from("localhost").unwrap();
        Ok(Conn {
            stream: self.connector.connect(name, tcp).await?,
            buffer: Vec::new(),
        })
    }
}

fn head(path: &str, length: usize) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )
}

impl Conn {
    async fn post(&mut self, path: &str, body: &[u8]) -> std::io::Result<Reply> {
        let mut request = head(path, body.len()).into_bytes();
        request.extend_from_slice(body);
        self.stream.write_all(&request).await?;
        self.stream.flush().await?;
        self.reply().await
    }

    /// The next response; an error when the connection ends first.
    async fn reply(&mut self) -> std::io::Result<Reply> {
        read_reply(&mut self.stream, &mut self.buffer).await
    }

    /// How long until the server closes the connection (EOF or reset), at most `within`.
    async fn closed_after(&mut self, within: Duration) -> Option<Duration> {
        let began = Instant::now();
        let mut chunk = [0u8; 1024];
        match tokio::time::timeout(within, self.stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) => Some(began.elapsed()),
            Ok(Ok(n)) => panic!(
                "the server sent data: {}",
                String::from_utf8_lossy(&chunk[..n])
            ),
            Err(_) => None,
        }
    }
}

/// The next response on `stream` (what is left of `buffer` first); an error when the
/// connection ends before it.
async fn read_reply<R: tokio::io::AsyncRead + Unpin>(
    stream: &mut R,
    buffer: &mut Vec<u8>,
) -> std::io::Result<Reply> {
    let closed = || std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "EOF");
    let mut chunk = vec![0u8; 16 << 10];
    let end = loop {
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(closed());
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("the server sends Content-Length");
    while buffer.len() < end + length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(closed());
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = buffer[end..end + length].to_vec();
    buffer.drain(..end + length);
    Ok(Reply { status, body })
}

// ---- reviews and servers --------------------------------------------------------------------

fn review(uid: &str, object: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "db.example.com", "version": "v1", "kind": "MyDatabase"},
            "resource": {"group": "db.example.com", "version": "v1", "resource": "mydatabases"},
            "name": "orders", "namespace": "shop", "operation": "CREATE",
            "userInfo": {"username": "alice"},
            "object": object,
            "dryRun": false,
        }
    }))
    .unwrap()
}

fn database(annotation: usize) -> Value {
    json!({
        "apiVersion": "db.example.com/v1", "kind": "MyDatabase",
        "metadata": {"name": "orders", "namespace": "shop", "annotations": {"note": "x".repeat(annotation)}},
        "spec": {"replicas": 1, "image": "postgres:16"},
    })
}

/// The MyDatabase example's validating webhook, as the operator registers it.
const VALIDATE: &str = "/validate-db-example-com-v1-mydatabase";

async fn allow_any(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    AdmissionResponse::from(&request)
}

fn builder(dir: &std::path::Path) -> WebhookServerBuilder {
    WebhookServer::builder()
        .registered()
        .route(Route::typed("/dynamic", allow_any))
        .cert_dir(dir)
        .bind(([127, 0, 0, 1], 0).into())
        .shutdown_timeout(Duration::from_secs(2))
}

struct Pki {
    ca: TestCa,
    dir: tempfile::TempDir,
}

fn pki() -> Pki {
    let ca = TestCa::new("webhook traffic CA").unwrap();
    let dir = tempfile::tempdir().unwrap();
    ca.issue("webhook").unwrap().write_to(dir.path()).unwrap();
    Pki { ca, dir }
}

async fn serve(
    pki: &Pki,
    configure: impl FnOnce(WebhookServerBuilder) -> WebhookServerBuilder,
) -> (RunningServer, Client) {
    let server = configure(builder(pki.dir.path()))
        .build()
        .unwrap()
        .start()
        .await
        .unwrap();
    let client = Client::new(server.local_addr(), &pki.ca);
    (server, client)
}

// ---- keep-alive and deadlines ---------------------------------------------------------------

/// 400 connections of the API server's pool, each idle for 10.00 to 10.05 s (just past the
/// 10 s header deadline, which hyper also applied to idle connections: 50-60 of 400 failed)
/// between two reviews, with the server's defaults: none is closed under its client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_connections_idle_past_the_header_deadline_are_reused() {
    let pki = pki();
    let (server, client) = serve(&pki, |b| b).await;
    let body = Arc::new(review("u", database(10)));
    let opened = Arc::new(tokio::sync::Semaphore::new(32));
    let mut clients = Vec::new();
    for i in 0..400u64 {
        let (client, body, opened) = (client.clone(), body.clone(), opened.clone());
        clients.push(tokio::spawn(async move {
            let permit = opened.acquire().await.unwrap();
            let mut conn = client
                .connect()
                .await
                .map_err(|e| format!("connect: {e}"))?;
            let first = conn
                .post(VALIDATE, &body)
                .await
                .map_err(|e| format!("first: {e}"))?;
            drop(permit);
            assert_eq!(first.status, 200, "{}", first.text());
            tokio::time::sleep(Duration::from_millis(10_000 + i * 50 / 400)).await;
            let second = conn
                .post(VALIDATE, &body)
                .await
                .map_err(|e| format!("after idling: {e}"))?;
            assert_eq!(second.status, 200, "{}", second.text());
            Ok::<_, String>(())
        }));
    }
    let mut failures = Vec::new();
    for client in clients {
        if let Err(e) = client.await.unwrap() {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 400 failed: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    server.shutdown().await;
}

/// The idle, header and request deadlines, scaled down (header 1 s, request 2 s, idle 3 s):
/// an idle connection is kept until the idle timeout, not closed at the header deadline; the
/// header deadline starts with a request's first byte; a body that trickles in is answered 408
/// at the request deadline and the connection closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_phase_of_a_connection_has_its_own_deadline() {
    let pki = pki();
    let (server, client) = serve(&pki, |b| {
        b.header_timeout(Duration::from_secs(1))
            .request_timeout(Duration::from_secs(2))
            .idle_timeout(Duration::from_secs(3))
    })
    .await;
    let body = review("u", database(10));

    // Idle for 2.5 s, past the header deadline, under the idle timeout: reused.
    let mut reused = Vec::new();
    for _ in 0..20 {
        let mut conn = client.connect().await.unwrap();
        assert_eq!(conn.post(VALIDATE, &body).await.unwrap().status, 200);
        reused.push(conn);
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    for conn in &mut reused {
        let reply = conn
            .post(VALIDATE, &body)
            .await
            .expect("kept open while idle");
        assert_eq!(reply.status, 200);
    }
    // Left idle, it is closed at the idle timeout.
    let closed = reused[0]
        .closed_after(Duration::from_secs(5))
        .await
        .expect("closed");
    assert!(
        closed > Duration::from_millis(2800) && closed < Duration::from_millis(4200),
        "{closed:?}"
    );

    // The header deadline starts with the first byte, after any idle wait.
    let mut conn = client.connect().await.unwrap();
    assert_eq!(conn.post(VALIDATE, &body).await.unwrap().status, 200);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    conn.stream
        .write_all(b"POST /dynamic HTTP/1.1\r\nHost: loc")
        .await
        .unwrap();
    conn.stream.flush().await.unwrap();
    let closed = conn
        .closed_after(Duration::from_secs(4))
        .await
        .expect("closed");
    assert!(
        closed > Duration::from_millis(800) && closed < Duration::from_millis(1800),
        "{closed:?}"
    );

    // A body that trickles in (a byte every 300 ms): 408 at the request deadline, then
    // closed.
    let mut slow = Vec::new();
    for _ in 0..10 {
        let conn = client.connect().await.unwrap();
        slow.push(tokio::spawn(async move {
            let (mut reader, mut writer) = tokio::io::split(conn.stream);
            let began = Instant::now();
            writer
                .write_all(head("/dynamic", 1000).as_bytes())
                .await
                .unwrap();
            writer.flush().await.unwrap();
            let trickle = tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    if writer.write_all(b" ").await.is_err() || writer.flush().await.is_err() {
                        return;
                    }
                }
            });
            let mut buffer = Vec::new();
            let reply = read_reply(&mut reader, &mut buffer).await;
            let at = began.elapsed();
            let mut rest = [0u8; 64];
            let closed = tokio::time::timeout(Duration::from_secs(2), reader.read(&mut rest)).await;
            trickle.abort();
            (reply, at, matches!(closed, Ok(Ok(0)) | Ok(Err(_))))
        }));
    }
    for task in slow {
        let (reply, at, closed) = task.await.unwrap();
        let reply = reply.expect("answered before the close");
        assert_eq!(reply.status, 408, "{}", reply.text());
        assert_eq!(
            reply.text(),
            "the request body did not arrive within 2 s of the request"
        );
        assert!(
            at > Duration::from_millis(1800) && at < Duration::from_millis(3000),
            "{at:?}"
        );
        assert!(closed, "closed after the 408");
    }
    server.shutdown().await;
}
