//! `kube_markers::webhook::server` under the traffic of a real API server and of an attacker,
//! on loopback: keep-alive connections reused after idling past the header deadline (as the
//! API server's pool does), the idle, header and request deadlines, and what one request costs the server process in memory (its RSS, read from /proc, in a process
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

mod webhook_traffic_support;
use webhook_traffic_support::{SERVER_CERTS, ServerProcess};

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

/// The same probe with Go's net/http client, the API server's own HTTP stack
/// (`scripts/webhook-go-client.sh` builds it, standard library only): 400 clients idle 9.98 to
/// 10.02 s between two reviews; 50-60 of them failed when idle connections were closed at
/// 10 s, none with controller-runtime. `KUBE_MARKERS_SKIP_ORACLE=1` skips it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_clients_reusing_connections_idle_past_ten_seconds_do_not_fail() {
    if std::env::var_os("KUBE_MARKERS_SKIP_ORACLE").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED: KUBE_MARKERS_SKIP_ORACLE=1, the Go client is not run");
        return;
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let built = std::process::Command::new("bash")
        .arg(format!("{root}/scripts/webhook-go-client.sh"))
        .output()
        .expect("bash runs");
    assert!(
        built.status.success(),
        "scripts/webhook-go-client.sh failed (Go is needed; KUBE_MARKERS_SKIP_ORACLE=1 skips): {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let go_client = String::from_utf8(built.stdout).unwrap().trim().to_string();
    let pki = pki();
    let (server, _) = serve(&pki, |b| b).await;
    let ca = pki.dir.path().join("ca.crt");
    std::fs::write(&ca, pki.ca.pem()).unwrap();
    let url = format!("https://{}{VALIDATE}", server.local_addr());
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(go_client)
            .args(["-url", &url, "-ca"])
            .arg(&ca)
            .args([
                "-connections",
                "400",
                "-idle-from",
                "9980ms",
                "-idle-to",
                "10020ms",
            ])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.starts_with("0 of 400 failed"), "{report}");
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
    let mut last_answer = Instant::now();
    for conn in &mut reused {
        let reply = conn
            .post(VALIDATE, &body)
            .await
            .expect("kept open while idle");
        assert_eq!(reply.status, 200);
        last_answer = Instant::now();
    }
    // Left idle, it is closed at the idle timeout (of the last one answered, measured from
    // its answer).
    let last = reused.last_mut().unwrap();
    last.closed_after(Duration::from_secs(6))
        .await
        .expect("closed");
    let closed = last_answer.elapsed();
    assert!(
        closed > Duration::from_millis(2900) && closed < Duration::from_millis(5000),
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
        closed > Duration::from_millis(800) && closed < Duration::from_millis(2500),
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
            at > Duration::from_millis(1800) && at < Duration::from_millis(4000),
            "{at:?}"
        );
        assert!(closed, "closed after the 408");
    }
    server.shutdown().await;
}

/// A handler slower than the request deadline: 503 at the deadline, and it is cancelled.
#[tokio::test]
async fn a_handler_past_the_request_deadline_is_answered_503() {
    async fn stuck(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
        tokio::time::sleep(Duration::from_secs(30)).await;
        AdmissionResponse::from(&request)
    }
    let pki = pki();
    let (server, client) = serve(&pki, |b| {
        b.route(Route::typed("/stuck", stuck))
            .request_timeout(Duration::from_secs(1))
    })
    .await;
    let mut conn = client.connect().await.unwrap();
    let began = Instant::now();
    let reply = conn
        .post("/stuck", &review("u", database(1)))
        .await
        .unwrap();
    assert_eq!(reply.status, 503);
    assert_eq!(
        reply.text(),
        "the webhook handler at /stuck did not answer in time"
    );
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "{:?}",
        began.elapsed()
    );
    // The connection goes on.
    let reply = conn
        .post(VALIDATE, &review("u", database(1)))
        .await
        .unwrap();
    assert_eq!(reply.status, 200);
    server.shutdown().await;
}

// ---- memory, in a server process of its own -------------------------------------------------

/// Not a test: the server process of the memory tests, which start this binary again with
/// `--exact server_process --ignored` (and [`SERVER_CERTS`] set). It serves until its stdin
/// closes.
#[test]
#[ignore = "the server process the memory tests start"]
fn server_process() {
    let Some(dir) = std::env::var_os(SERVER_CERTS) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = builder(dir.as_ref())
            .build()
            .unwrap()
            .start()
            .await
            .unwrap();
        println!("listening on {}", server.local_addr());
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
        })
        .await
        .unwrap();
        server.shutdown().await;
    });
}

const MIB: u64 = 1 << 20;
/// The server's default body limit.
const BODY_LIMIT: u64 = 8 * MIB;

/// A warmed-up connection to `server` (TLS, hyper's buffers and the handler's path used once)
/// and the server's RSS then.
async fn warm(server: &ServerProcess, pki: &Pki) -> (Conn, u64) {
    let client = Client::new(server.addr, &pki.ca);
    let mut conn = client.connect().await.unwrap();
    assert_eq!(
        conn.post(VALIDATE, &review("u", database(10)))
            .await
            .unwrap()
            .status,
        200
    );
    assert_eq!(
        conn.post("/dynamic", &review("u", database(10)))
            .await
            .unwrap()
            .status,
        200
    );
    (conn, server.memory("VmRSS"))
}

/// A body sent one byte per TLS record: each arrives as a frame of its own. Collected frame by
/// frame, a 1 MB body took 1.8 GB; copied into one buffer, it costs about its size.
#[tokio::test]
async fn a_body_sent_one_byte_per_record_costs_about_its_size() {
    let pki = pki();
    let server = ServerProcess::start(pki.dir.path(), None);
    let (mut conn, before) = warm(&server, &pki).await;
    let mut body = review("u", database(10));
    body.resize(30_000, b' '); // JSON allows trailing whitespace
    conn.stream
        .write_all(head("/dynamic", body.len()).as_bytes())
        .await
        .unwrap();
    for byte in &body {
        conn.stream
            .write_all(std::slice::from_ref(byte))
            .await
            .unwrap();
        conn.stream.flush().await.unwrap();
        // Paced, so that the server reads each record on its own (this test's runtime has
        // nothing else to run; the server is another process).
        std::thread::sleep(Duration::from_micros(50));
    }
    let reply = conn.reply().await.unwrap();
    assert_eq!(reply.status, 200, "{}", reply.text());
    let grown = server.memory("VmHWM").saturating_sub(before);
    assert!(
        grown < 3 * BODY_LIMIT,
        "the server grew by {} MiB",
        grown / MIB
    );
}

/// An 8 MiB review whose object holds a long array of small numbers would decode to hundreds
/// of MB of JSON values for a DynamicObject handler: refused before decoding, and the server
/// grows by little more than the body. A smaller one is served.
#[tokio::test]
async fn a_review_that_would_decode_past_the_limit_is_refused_unread() {
    let pki = pki();
    let server = ServerProcess::start(pki.dir.path(), None);
    let (mut conn, before) = warm(&server, &pki).await;
    let with_numbers = |n: usize| {
        let mut object = database(1);
        object["samples"] = Value::Array(vec![Value::from(0); n]);
        review("u", object)
    };
    let big = with_numbers(4_000_000);
    assert!(big.len() as u64 <= BODY_LIMIT, "{}", big.len());
    let reply = conn.post("/dynamic", &big).await.unwrap();
    assert_eq!(reply.status, 413, "{}", reply.text());
    assert!(
        reply
            .text()
            .starts_with("decoding the AdmissionReview would take about ")
            && reply
                .text()
                .ends_with(" MiB, over the server's decode limit of 64 MiB"),
        "{}",
        reply.text()
    );
    let grown = server.memory("VmHWM").saturating_sub(before);
    assert!(
        grown < 3 * BODY_LIMIT,
        "the server grew by {} MiB",
        grown / MIB
    );

    let mut conn = Client::new(server.addr, &pki.ca).connect().await.unwrap();
    let reply = conn.post("/dynamic", &with_numbers(100_000)).await.unwrap();
    assert_eq!(reply.status, 200, "{}", reply.text());
}

/// After two rounds of 16 concurrent reviews of about 8 MiB each, the server's RSS comes back near where it
/// was: glibc keeps freed memory unless asked to give it back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_is_returned_after_large_reviews() {
    let pki = pki();
    let server = ServerProcess::start(pki.dir.path(), None);
    let (_conn, before) = warm(&server, &pki).await;
    let body = Arc::new(review("u", database(8_000_000)));
    let client = Client::new(server.addr, &pki.ca);
    // Two rounds: glibc's mmap threshold rises after the first large free, and the second
    // round's buffers come from its heap.
    for _ in 0..2 {
        let mut tasks = Vec::new();
        for _ in 0..16 {
            let (client, body) = (client.clone(), body.clone());
            tasks.push(tokio::spawn(async move {
                let mut conn = client.connect().await.unwrap();
                conn.post(VALIDATE, &body).await.unwrap()
            }));
        }
        for task in tasks {
            let reply = task.await.unwrap();
            assert_eq!(reply.status, 200, "{}", reply.text());
        }
    }
    let peak = server.memory("VmHWM").saturating_sub(before);
    assert!(
        peak > 4 * BODY_LIMIT,
        "the reviews were held at once: {} MiB",
        peak / MIB
    );
    // The trim runs on a blocking thread once the last large request is done.
    let deadline = Instant::now() + Duration::from_secs(5);
    let after = loop {
        let after = server.memory("VmRSS").saturating_sub(before);
        if after < 3 * BODY_LIMIT || Instant::now() > deadline {
            break after;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        after < 3 * BODY_LIMIT,
        "{} MiB still resident of a {} MiB peak",
        after / MIB,
        peak / MIB
    );
}

/// Reviews of about 8 MiB one after another, on two connections: RSS comes back within a
/// body's size of where it was. (The cause of what stayed before, glibc's rising thresholds,
/// is checked in the crate, `large_blocks_stay_mapped_after_one_is_freed`; the benchmark's
/// `sequential` lines measure both.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_is_returned_after_large_reviews_one_after_another() {
    let pki = pki();
    let server = ServerProcess::start(pki.dir.path(), None);
    let (_conn, before) = warm(&server, &pki).await;
    let body = Arc::new(review("u", database(8_000_000)));
    let client = Client::new(server.addr, &pki.ca);
    // Two connections, so that both of the server's workers take some.
    let mut tasks = Vec::new();
    for _ in 0..2 {
        let (client, body) = (client.clone(), body.clone());
        tasks.push(tokio::spawn(async move {
            let mut conn = client.connect().await.unwrap();
            for _ in 0..3 {
                let reply = conn.post(VALIDATE, &body).await.unwrap();
                assert_eq!(reply.status, 200, "{}", reply.text());
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    // The trim runs on a blocking thread once the last large request is done.
    let deadline = Instant::now() + Duration::from_secs(5);
    let after = loop {
        let after = server.memory("VmRSS").saturating_sub(before);
        if after < BODY_LIMIT || Instant::now() > deadline {
            break after;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        after < BODY_LIMIT,
        "{} MiB still resident after reviews of 8 MiB, one at a time on each of two connections",
        after / MIB
    );
}

/// Under a soft open-file limit of 1,024 (common in containers), the server raises it to the
/// hard limit when it starts, as Go programs do.
#[tokio::test]
async fn the_soft_open_file_limit_is_raised_to_the_hard_one() {
    let pki = pki();
    let server = ServerProcess::start(pki.dir.path(), Some(1024));
    let (soft, hard) = server.open_file_limits();
    assert_eq!(soft, hard, "soft limit {soft}, hard {hard}");
}
