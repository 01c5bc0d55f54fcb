//! The server's start-up errors as a `main` prints them, and the connection cap under slow
//! clients (loopback, TLS, a cap of a few connections, bounded in time: every wait is for an
//! outcome, with a generous timeout only against a hang).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use kube::core::DynamicObject;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

use super::{Route, RunningServer, ServerError, WebhookServer, WebhookServerBuilder};

#[allow(dead_code)] // each includer uses some of it
#[path = "../../../tests/support/log_lines.rs"]
mod log_lines;
use log_lines::LogLines;

const VALIDATE: &str = "/validate";
/// Against a hang only: every outcome below comes in milliseconds.
const HANG: Duration = Duration::from_secs(20);

async fn allow_any(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    AdmissionResponse::from(&request)
}

/// Holds its requests until [`RELEASE`] lets one through.
static RELEASE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);
static HELD: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

async fn held(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    HELD.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    RELEASE.acquire().await.unwrap().forget();
    AdmissionResponse::from(&request)
}

fn review(uid: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "name": "a", "namespace": "default", "operation": "CREATE",
            "userInfo": {"username": "alice"},
            "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
        }
    }))
    .unwrap()
}

struct Pki {
    dir: tempfile::TempDir,
    connector: TlsConnector,
}

fn pki() -> Pki {
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(["localhost".to_string()]).unwrap();
    std::fs::write(dir.path().join("tls.crt"), cert.cert.pem()).unwrap();
    std::fs::write(dir.path().join("tls.key"), cert.signing_key.serialize_pem()).unwrap();
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(cert.cert.pem().as_bytes()).unwrap())
        .unwrap();
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Pki {
        dir,
        connector: TlsConnector::from(Arc::new(config)),
    }
}

fn builder(pki: &Pki) -> WebhookServerBuilder {
    WebhookServer::builder()
        .route(Route::typed(VALIDATE, allow_any))
        .route(Route::typed("/held", held))
        .cert_dir(pki.dir.path())
        .bind(([127, 0, 0, 1], 0).into())
        .shutdown_timeout(Duration::from_secs(1))
}

struct Conn {
    stream: TlsStream<TcpStream>,
    buffer: Vec<u8>,
}

async fn connect(pki: &Pki, addr: SocketAddr) -> std::io::Result<Conn> {
    let tcp = TcpStream::connect(addr).await?;
    tcp.set_nodelay(true)?;
    let name = ServerName::try_from("localhost").unwrap();
    Ok(Conn {
        stream: pki.connector.connect(name, tcp).await?,
        buffer: Vec::new(),
    })
}

fn head(path: &str, length: usize, extra: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n{extra}\r\n"
    )
}

impl Conn {
    /// Sends a review, and the status of its answer; an error when the connection ends first.
    async fn post(&mut self, path: &str, body: &[u8]) -> std::io::Result<u16> {
        self.send(path, body).await?;
        self.status().await
    }

    async fn send(&mut self, path: &str, body: &[u8]) -> std::io::Result<()> {
        let mut request = head(path, body.len(), "").into_bytes();
        request.extend_from_slice(body);
        self.stream.write_all(&request).await?;
        self.stream.flush().await
    }

    /// Sends the head of a review and the first `sent` bytes of its body, once the server
    /// reads the body (its `100 Continue`): a client sending its body slowly, which the
    /// server is known to have started.
    async fn slow_body(pki: &Pki, addr: SocketAddr, body: &[u8], sent: usize) -> Conn {
        let mut conn = connect(pki, addr).await.unwrap();
        let head = head(VALIDATE, body.len(), "Expect: 100-continue\r\n");
        conn.stream.write_all(head.as_bytes()).await.unwrap();
        conn.stream.flush().await.unwrap();
        let status = tokio::time::timeout(HANG, conn.status()).await.unwrap();
        assert_eq!(status.unwrap(), 100);
        conn.stream.write_all(&body[..sent]).await.unwrap();
        conn.stream.flush().await.unwrap();
        conn
    }

    /// The status of the next answer (its body read and dropped).
    async fn status(&mut self) -> std::io::Result<u16> {
        let closed = || std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed");
        let mut chunk = [0u8; 4096];
        let end = loop {
            if let Some(i) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let n = self.stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(closed());
            }
            self.buffer.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&self.buffer[..end]).into_owned();
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().unwrap())
            })
            .unwrap_or(0);
        while self.buffer.len() < end + length {
            let n = self.stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(closed());
            }
            self.buffer.extend_from_slice(&chunk[..n]);
        }
        self.buffer.drain(..end + length);
        Ok(status)
    }

    /// Whether the server closed the connection without an answer (it sends nothing more).
    async fn was_closed(&mut self) -> bool {
        let mut chunk = [0u8; 1024];
        match tokio::time::timeout(HANG, self.stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) => true,
            Ok(Ok(n)) => panic!(
                "the server sent data: {}",
                String::from_utf8_lossy(&chunk[..n])
            ),
            Err(_) => panic!("the connection is still open after {HANG:?}"),
        }
    }
}

async fn start(pki: &Pki, max_connections: usize) -> RunningServer {
    builder(pki)
        .max_connections(max_connections)
        .build()
        .unwrap()
        .start()
        .await
        .unwrap()
}

/// EADDRINUSE's message, whose number differs between systems.
fn addr_in_use() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std::net::TcpListener::bind(listener.local_addr().unwrap())
        .unwrap_err()
        .to_string()
}

/// A port in use: what `main() -> Result<(), Box<dyn Error>>` prints after `Error: ` is the
/// message with its cause, as the health server's, not the variant's fields.
#[tokio::test]
async fn a_port_in_use_reads_as_a_message_where_main_prints_it() {
    let pki = pki();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let error = builder(&pki)
        .bind(addr)
        .build()
        .unwrap()
        .start()
        .await
        .unwrap_err();
    assert!(matches!(error, ServerError::Bind { .. }), "{error}");
    let message = format!(
        "cannot listen on {addr} for the webhooks: {}",
        addr_in_use()
    );
    assert_eq!(error.to_string(), message);
    assert_eq!(format!("{error:?}"), message);
    let boxed: Box<dyn std::error::Error> = error.into();
    assert_eq!(format!("{boxed:?}"), message);
}

/// `build()?` in a `main`: every reason, one a line, and a bad certificate names its file and
/// what is wrong with it.
#[test]
fn build_errors_read_as_messages_where_main_prints_them() {
    let pki = pki();
    let missing = pki.dir.path().join("nothing");
    let error = WebhookServer::builder()
        .cert_dir(&missing)
        .build()
        .unwrap_err();
    let printed = format!("{:?}", Box::<dyn std::error::Error>::from(error));
    assert_eq!(
        printed.lines().collect::<Vec<_>>(),
        [
            "no webhook handlers to serve (is every crate with #[kube_markers::webhook] or #[kube_markers::conversion] linked?)".to_string(),
            format!(
                "{}: cannot be read: {}",
                missing.join("tls.crt").display(),
                std::io::Error::from_raw_os_error(libc::ENOENT)
            ),
        ]
    );
}

/// At the cap, slow bodies make room for the API server's reviews, oldest first: each new
/// connection closes the one longest at its unfinished request, never one that has just
/// started; then the longest idle; and a connection whose handler runs is never closed for
/// another. Reaching the cap is logged once for the whole episode.
#[tokio::test]
async fn at_the_cap_the_oldest_unfinished_requests_make_room_for_new_ones() {
    // A current-thread runtime: the server's tasks log on this thread.
    let log = LogLines::default();
    let _logging = tracing::subscriber::set_default(log.clone());
    let pki = pki();
    let server = start(&pki, 6).await;
    let addr = server.local_addr();
    let body = review("slow");

    // Six slow bodies fill the cap, in order: each has sent its head and part of its body.
    let mut slow = Vec::new();
    for sent in 0..6 {
        slow.push(Conn::slow_body(&pki, addr, &body, sent * 10).await);
    }
    // Four reviews on new connections, each answered while the slow ones are still open.
    let mut reviews = Vec::new();
    for i in 0..4 {
        let mut conn = tokio::time::timeout(HANG, connect(&pki, addr))
            .await
            .expect("connected at the cap")
            .unwrap();
        let status = tokio::time::timeout(HANG, conn.post(VALIDATE, &review(&format!("r{i}"))))
            .await
            .expect("answered at the cap");
        assert_eq!(status.unwrap(), 200, "review {i}");
        reviews.push(conn);
    }
    // The four oldest slow bodies made room, and only they.
    for (i, conn) in slow.iter_mut().enumerate().take(4) {
        assert!(conn.was_closed().await, "slow body {i}");
    }
    for (i, conn) in slow.iter_mut().enumerate().skip(4) {
        let sent = i * 10;
        conn.stream.write_all(&body[sent..]).await.unwrap();
        conn.stream.flush().await.unwrap();
        let status = tokio::time::timeout(HANG, conn.status()).await.unwrap();
        assert_eq!(status.unwrap(), 200, "slow body {i} was kept and answered");
    }

    // Now every connection is idle, the first review's the longest: it makes room.
    let mut newest = connect(&pki, addr).await.unwrap();
    assert_eq!(newest.post(VALIDATE, &review("n")).await.unwrap(), 200);
    assert!(reviews[0].was_closed().await, "the longest idle");
    for (i, conn) in reviews.iter_mut().enumerate().skip(1) {
        assert_eq!(
            conn.post(VALIDATE, &review("again")).await.unwrap(),
            200,
            "review {i}"
        );
    }
    for conn in slow.iter_mut().skip(4) {
        assert_eq!(conn.post(VALIDATE, &review("again")).await.unwrap(), 200);
    }

    // Connections whose handler runs are not closed: with all six held, a new connection
    // waits until one of them is answered, then takes its place (idle by then).
    let mut holding = vec![newest];
    holding.extend(reviews.drain(1..));
    holding.extend(slow.drain(4..));
    assert_eq!(holding.len(), 6);
    for conn in &mut holding {
        conn.send("/held", &review("held")).await.unwrap();
    }
    tokio::time::timeout(HANG, async {
        while HELD.load(std::sync::atomic::Ordering::SeqCst) < 6 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("six handlers running");
    let waiting = tokio::spawn({
        let connector = pki.connector.clone();
        async move {
            let tcp = TcpStream::connect(addr).await?;
            let name = ServerName::try_from("localhost").unwrap();
            connector.connect(name, tcp).await
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "a connection was closed under a running handler"
    );
    RELEASE.add_permits(1);
    let answered = tokio::time::timeout(HANG, async {
        loop {
            for (i, conn) in holding.iter_mut().enumerate() {
                let poll = tokio::time::timeout(Duration::from_millis(20), conn.status());
                if let Ok(status) = poll.await {
                    assert_eq!(status.unwrap(), 200);
                    return i;
                }
            }
        }
    })
    .await
    .expect("one held review was answered");
    let stream = tokio::time::timeout(HANG, waiting)
        .await
        .expect("the new connection took the answered one's place")
        .unwrap()
        .unwrap();
    let mut waited = Conn {
        stream,
        buffer: Vec::new(),
    };
    assert!(holding[answered].was_closed().await);
    RELEASE.add_permits(5);
    for (i, conn) in holding.iter_mut().enumerate() {
        if i != answered {
            assert_eq!(conn.status().await.unwrap(), 200, "held review {i}");
        }
    }
    assert_eq!(waited.post(VALIDATE, &review("w")).await.unwrap(), 200);

    // Well below the cap again once most close (seen by the next connection accepted):
    // logged once, as reaching it was.
    drop(holding);
    drop(waited);
    tokio::time::timeout(HANG, async {
        while log.containing("well below").is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let mut conn = connect(&pki, addr).await.unwrap();
            assert_eq!(conn.post(VALIDATE, &review("l")).await.unwrap(), 200);
        }
    })
    .await
    .expect("below the cap again");
    server.shutdown().await;
    let lines = log.all();
    assert_eq!(
        log.containing("limit reached"),
        [
            "WARN message=webhook connection limit reached: new connections take the place of the oldest that have not sent a whole request, else of the longest idle max_connections=6"
        ],
        "{lines:#?}"
    );
    assert_eq!(
        log.containing("closed at the connection limit").len(),
        6,
        "four slow bodies, the longest idle, the answered held one: {lines:#?}"
    );
    let below = log.containing("well below the limit again");
    assert_eq!(below.len(), 1, "{lines:#?}");
    assert!(
        below[0].starts_with("INFO message=webhook connections well below the limit again open=")
            && below[0].ends_with(" max_connections=6 closed_for_newer=6"),
        "{lines:#?}"
    );
}

/// Once the server has started, glibc's mmap threshold no longer rises after a large block
/// is freed: the next block of that size is mapped again (and unmapped when freed) instead of
/// coming from a thread's arena, whose top `malloc_trim` cannot shrink.
///
/// In a process of its own (this test binary again, running this test only): the allocator's
/// state is the process's, and a block can be cut from the free chunks the other tests,
/// running beside it, left in an arena.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn large_blocks_stay_mapped_after_one_is_freed() {
    const ALONE: &str = "KUBE_MARKERS_TEST_ALLOCATOR_ALONE";
    if std::env::var_os(ALONE).is_none() {
        let module = module_path!().split_once("::").map_or("", |(_, m)| m);
        let name = format!("{module}::large_blocks_stay_mapped_after_one_is_freed");
        let run = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &name, "--test-threads=1", "--nocapture"])
            .env(ALONE, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && stdout.contains("test result: ok. 1 passed"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        return;
    }
    const BLOCK: usize = 8 << 20;
    super::process::keep_allocator_thresholds();
    // Glibc's dynamic threshold would rise to the size of this block when it is freed.
    drop(std::hint::black_box(Vec::<u8>::with_capacity(BLOCK)));
    let again = std::hint::black_box(Vec::<u8>::with_capacity(BLOCK));
    // SAFETY: mallinfo2 only reads glibc's counters.
    let mapped = unsafe { libc::mallinfo2() }.hblkhd;
    drop(again);
    assert!(
        mapped >= BLOCK,
        "{mapped} bytes mapped with an {BLOCK}-byte block alive: it came from an arena"
    );
}
