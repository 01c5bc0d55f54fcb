//! The webhook server's load and memory benchmark (`scripts/bench-webhook.sh` runs it, release
//! build): `kube_markers::webhook::server` serving the MyDatabase example's handlers and the
//! `Cache` kind's conversion (`cache.rs`) on loopback over TLS in a process of its own (`serve`), whose RSS is read from
//! `/proc/<pid>/status`, and the clients that load it:
//!
//! - `load [--new-connections] CONCURRENCY SECONDS`: reviews/s and latency percentiles, on
//!   kept-alive connections or a new TLS connection per review;
//! - `big CONCURRENCY BYTES`: that many reviews of about BYTES at once; peak RSS, and RSS after;
//! - `idle-reuse CONNECTIONS FROM_MS TO_MS`: each connection sends a review, idles between
//!   FROM and TO ms, sends another; a failure is counted as the API server's client would
//!   (a POST on a connection closed under it is not retried);
//! - `go-idle-reuse GO_CLIENT CONNECTIONS FROM_MS TO_MS`: the same with Go's net/http client
//!   (`scripts/webhook-go-client.sh` builds it);
//! - `dynamic NUMBERS`: one review to a `DynamicObject` handler whose object holds an array
//!   of NUMBERS zeros; its status and the server's RSS growth;
//! - `one-byte BYTES [PACE_US]`: one body of BYTES sent one byte per TLS record (PACE_US µs
//!   apart, busy-waiting, so that the server reads each record on its own); RSS growth;
//! - `slow-bodies CONNECTIONS`: that many bodies trickling in at a byte a second (under a soft
//!   open-file limit of 1,024), and 6 ordinary reviews meanwhile; when the trickling ones are
//!   closed;
//! - `cap-probes SLOW PROBES`: SLOW bodies trickling in at a byte a second (past the cap of
//!   1,024 connections when SLOW is larger), then PROBES ordinary reviews one after another,
//!   each on a new connection with 15 s to be answered; how many were answered and how fast,
//!   and how many slow ones the server closed meanwhile;
//! - `sequential COUNT BYTES`: COUNT reviews of about BYTES one after another on one
//!   connection; the server's RSS before, after each, and once the connection closed;
//! - `convert-load CONCURRENCY SECONDS [OBJECTS_PER_REVIEW]`: `ConversionReview`s to `/convert`
//!   on kept-alive connections (the `Cache` kind of `cache.rs`, v1 to v2 and v2 to v1 in turn,
//!   1 object a review by default); reviews/s, objects/s, latency percentiles and peak RSS;
//! - `convert-beside SECONDS OBJECTS_PER_REVIEW`: 4 clients of the admission `load` while one
//!   more sends `ConversionReview`s of that many objects back to back; the admission latency
//!   beside large conversions.
//!
//! `WEBHOOK_BENCH_SERVER=PROGRAM` runs the admission scenarios against another server, started
//! as `PROGRAM serve DIR` (TLS from `DIR/tls.crt` and `DIR/tls.key`, printing `listening on
//! ADDR`, serving the validating path): controller-runtime's, built by
//! `scripts/controller-runtime-webhook.sh`.

use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kube::core::DynamicObject;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use kube_markers::webhook::server::{Route, WebhookServer};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

// The MyDatabase example's handlers, which `registered()` serves (with `cache`'s conversion).
use mydatabase_operator as _;

mod cache;
mod slow;
use slow::{cap_probes, sequential, slow_bodies};

const VALIDATE: &str = "/validate-db-example-com-v1-mydatabase";
type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if let ["serve", dir] = args[..] {
        return serve(dir.into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let number = |s: &str| s.parse::<u64>().map_err(|e| format!("{s:?}: {e}"));
    runtime.block_on(async {
        match args[..] {
            ["load", "--new-connections", c, s] => load(number(c)?, number(s)?, true).await,
            ["load", c, s] => load(number(c)?, number(s)?, false).await,
            ["big", c, b] => big(number(c)?, number(b)?).await,
            ["idle-reuse", c, from, to] => idle_reuse(number(c)?, number(from)?, number(to)?).await,
            ["go-idle-reuse", go, c, from, to] => go_idle_reuse(go, c, from, to).await,
            ["dynamic", n] => dynamic(number(n)?).await,
            ["one-byte", b] => one_byte(number(b)?, 0).await,
            ["one-byte", b, pace] => one_byte(number(b)?, number(pace)?).await,
            ["slow-bodies", c] => slow_bodies(number(c)?).await,
            ["cap-probes", c, p] => cap_probes(number(c)?, number(p)?).await,
            ["sequential", c, b] => sequential(number(c)?, number(b)?).await,
            ["convert-load", c, s] => convert_load(number(c)?, number(s)?, 1).await,
            ["convert-load", c, s, n] => convert_load(number(c)?, number(s)?, number(n)?).await,
            ["convert-beside", s, n] => convert_beside(number(s)?, number(n)?).await,
            _ => Err(format!("usage: see {}", file!()).into()),
        }
    })
}

// ---- the server process ---------------------------------------------------------------------

async fn allow_any(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    AdmissionResponse::from(&request)
}

/// Serves the MyDatabase handlers (and a `DynamicObject` one at `/dynamic`) with the defaults,
/// until stdin closes.
fn serve(dir: PathBuf) -> Result<(), Error> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let server = WebhookServer::builder()
            .registered()
            .route(Route::typed("/dynamic", allow_any))
            .cert_dir(&dir)
            .bind(([127, 0, 0, 1], 0).into())
            .build()?
            .start()
            .await?;
        println!("listening on {}", server.local_addr());
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
        })
        .await?;
        server.shutdown().await;
        Ok(())
    })
}

struct Server {
    child: Child,
    addr: SocketAddr,
    connector: TlsConnector,
    _dir: TempDir,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Server {
    /// The server process, with its soft open-file limit set to `soft_files` if given.
    fn start(soft_files: Option<u64>) -> Result<Server, Error> {
        let cert = rcgen::generate_simple_self_signed(["localhost".to_string()])?;
        let dir = std::env::temp_dir().join(format!("webhook-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("tls.crt"), cert.cert.pem())?;
        std::fs::write(dir.join("tls.key"), cert.signing_key.serialize_pem())?;
        // Another server to measure beside ours (controller-runtime's, from
        // scripts/controller-runtime-webhook.sh), started the same way.
        let program = match std::env::var_os("WEBHOOK_BENCH_SERVER") {
            Some(program) => PathBuf::from(program),
            None => std::env::current_exe()?,
        };
        let mut command = Command::new(program);
        command
            .arg("serve")
            .arg(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if let Some(soft) = soft_files {
            use std::os::unix::process::CommandExt;
            // prlimit-like, before exec: the server starts as under a container's limit.
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe { command.pre_exec(move || set_soft_file_limit(soft)) };
        }
        let mut child = command.spawn()?;
        let stdout = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut addr = None;
        for line in stdout.lines() {
            if let Some(a) = line?.strip_prefix("listening on ") {
                addr = Some(a.parse()?);
                break;
            }
        }
        let mut roots = RootCertStore::empty();
        roots.add(CertificateDer::from_pem_slice(cert.cert.pem().as_bytes())?)?;
        let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Server {
            child,
            addr: addr.ok_or("the server printed no address")?,
            connector: TlsConnector::from(Arc::new(config)),
            _dir: TempDir(dir),
        })
    }

    /// VmRSS or VmHWM of the server process, in MiB.
    fn memory(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
            .map_or(f64::NAN, |kib| kib / 1024.0)
    }

    async fn connect(&self) -> std::io::Result<Conn> {
        let tcp = TcpStream::connect(self.addr).await?;
        tcp.set_nodelay(true)?;
        let name = ServerName::try_from("localhost").expect("a DNS name");
        Ok(Conn {
            stream: self.connector.connect(name, tcp).await?,
            buffer: Vec::new(),
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn set_soft_file_limit(soft: u64) -> std::io::Result<()> {
    let mut limit = libc_rlimit();
    // SAFETY: getrlimit/setrlimit read and write the struct given; async-signal-safe.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        limit.rlim_cur = soft.min(limit.rlim_max);
        if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

fn libc_rlimit() -> libc::rlimit {
    libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    }
}

// ---- the client -----------------------------------------------------------------------------

struct Conn {
    stream: TlsStream<TcpStream>,
    buffer: Vec<u8>,
}

fn head(path: &str, length: usize) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )
}

impl Conn {
    /// One review and its answer's status; an error when the connection ends first.
    async fn post(&mut self, path: &str, body: &[u8]) -> std::io::Result<u16> {
        let mut request = head(path, body.len()).into_bytes();
        request.extend_from_slice(body);
        self.stream.write_all(&request).await?;
        self.stream.flush().await?;
        read_status(&mut self.stream, &mut self.buffer).await
    }

    /// One review, and its answer's status and body.
    async fn exchange(&mut self, path: &str, body: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
        let mut request = head(path, body.len()).into_bytes();
        request.extend_from_slice(body);
        self.stream.write_all(&request).await?;
        self.stream.flush().await?;
        read_response(&mut self.stream, &mut self.buffer, true).await
    }
}

/// The status of the next response on `stream`, its body read and dropped.
async fn read_status<R: AsyncRead + Unpin>(
    stream: &mut R,
    buffer: &mut Vec<u8>,
) -> std::io::Result<u16> {
    Ok(read_response(stream, buffer, false).await?.0)
}

/// The status of the next response on `stream` (`Content-Length` framed, as the server
/// answers), and its body if `keep` (else read and dropped, no copy).
async fn read_response<R: AsyncRead + Unpin>(
    stream: &mut R,
    buffer: &mut Vec<u8>,
    keep: bool,
) -> std::io::Result<(u16, Vec<u8>)> {
    let eof = || std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "EOF");
    let mut chunk = [0u8; 16 << 10];
    let end = loop {
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await? {
            0 => return Err(eof()),
            n => buffer.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buffer.len() < end + length {
        match stream.read(&mut chunk).await? {
            0 => return Err(eof()),
            n => buffer.extend_from_slice(&chunk[..n]),
        }
    }
    let body = if keep {
        buffer[end..end + length].to_vec()
    } else {
        Vec::new()
    };
    buffer.drain(..end + length);
    Ok((status, body))
}

fn review(annotation: usize) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "0df28fbd-5f5f-11e8-9b14-0800275bdd23",
            "kind": {"group": "db.example.com", "version": "v1", "kind": "MyDatabase"},
            "resource": {"group": "db.example.com", "version": "v1", "resource": "mydatabases"},
            "name": "orders", "namespace": "shop", "operation": "CREATE",
            "userInfo": {"username": "system:serviceaccount:shop:deployer", "groups": ["system:authenticated"]},
            "object": {
                "apiVersion": "db.example.com/v1", "kind": "MyDatabase",
                "metadata": {"name": "orders", "namespace": "shop", "labels": {"team": "payments"},
                             "annotations": {"note": "x".repeat(annotation)}},
                "spec": {"replicas": 3, "image": "postgres:16"},
            },
            "oldObject": Value::Null,
            "dryRun": false,
        }
    }))
    .expect("JSON")
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

// ---- the scenarios --------------------------------------------------------------------------

async fn load(concurrency: u64, seconds: u64, new_connections: bool) -> Result<(), Error> {
    let server = Arc::new(Server::start(None)?);
    let body = Arc::new(review(16));
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (server, body) = (server.clone(), body.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut failures = 0u64;
            let mut conn = None;
            while Instant::now() < end {
                let began = Instant::now();
                if conn.is_none() {
                    conn = server.connect().await.ok();
                }
                let Some(c) = conn.as_mut() else {
                    failures += 1;
                    continue;
                };
                match c.post(VALIDATE, &body).await {
                    Ok(200) => latencies.push(began.elapsed()),
                    _ => {
                        failures += 1;
                        conn = None;
                    }
                }
                if new_connections {
                    conn = None;
                }
            }
            (latencies, failures)
        }));
    }
    let began = Instant::now();
    let (mut latencies, mut failures) = (Vec::new(), 0);
    for task in tasks {
        let (l, f) = task.await?;
        latencies.extend(l);
        failures += f;
    }
    let elapsed = began.elapsed().as_secs_f64();
    latencies.sort();
    println!(
        "load {} concurrency={concurrency}: {:.0} reviews/s, p50 {:.2} ms, p99 {:.2} ms, {} failures, server peak RSS {:.1} MiB",
        if new_connections {
            "new-connections"
        } else {
            "keep-alive"
        },
        latencies.len() as f64 / elapsed,
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        failures,
        server.memory("VmHWM"),
    );
    Ok(())
}

async fn big(concurrency: u64, bytes: u64) -> Result<(), Error> {
    let server = Arc::new(Server::start(None)?);
    let body = Arc::new(review(bytes.saturating_sub(700) as usize));
    server.connect().await?.post(VALIDATE, &review(16)).await?;
    let before = server.memory("VmRSS");
    let barrier = Arc::new(tokio::sync::Barrier::new(concurrency as usize));
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (server, body, barrier) = (server.clone(), body.clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            let mut conn = server.connect().await?;
            barrier.wait().await;
            let status = conn.post(VALIDATE, &body).await?;
            Ok::<_, std::io::Error>((status, conn))
        }));
    }
    let began = Instant::now();
    let mut statuses = std::collections::BTreeMap::new();
    let mut open = Vec::new();
    for task in tasks {
        match task.await? {
            Ok((status, conn)) => {
                *statuses.entry(status).or_insert(0) += 1;
                open.push(conn);
            }
            Err(_) => *statuses.entry(0).or_insert(0) += 1,
        }
    }
    let elapsed = began.elapsed();
    let peak = server.memory("VmHWM");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let kept_open = server.memory("VmRSS");
    drop(open);
    tokio::time::sleep(Duration::from_secs(2)).await;
    println!(
        "big {concurrency} x {} bytes in {:.2} s: statuses {statuses:?}; server RSS before {before:.1} MiB, peak {peak:.1} MiB, 2 s after {kept_open:.1} MiB (connections kept open), {:.1} MiB 2 s after they closed",
        body.len(),
        elapsed.as_secs_f64(),
        server.memory("VmRSS"),
    );
    Ok(())
}

async fn idle_reuse(connections: u64, from_ms: u64, to_ms: u64) -> Result<(), Error> {
    let server = Arc::new(Server::start(None)?);
    let body = Arc::new(review(16));
    let handshakes = Arc::new(tokio::sync::Semaphore::new(64));
    let mut tasks = Vec::new();
    for i in 0..connections {
        let (server, body, handshakes) = (server.clone(), body.clone(), handshakes.clone());
        let idle = from_ms + (to_ms - from_ms) * i / connections.max(1);
        tasks.push(tokio::spawn(async move {
            let permit = handshakes.acquire().await;
            let mut conn = server
                .connect()
                .await
                .map_err(|e| format!("connect: {e}"))?;
            match conn.post(VALIDATE, &body).await {
                Ok(200) => {}
                other => return Err(format!("first review: {other:?}")),
            }
            drop(permit);
            tokio::time::sleep(Duration::from_millis(idle)).await;
            match conn.post(VALIDATE, &body).await {
                Ok(200) => Ok(()),
                other => Err(format!("after {idle} ms idle: {other:?}")),
            }
        }));
    }
    let mut failures = Vec::new();
    for task in tasks {
        if let Err(e) = task.await? {
            failures.push(e);
        }
    }
    println!(
        "idle-reuse {connections} connections idle {from_ms}-{to_ms} ms: {} failed {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
    Ok(())
}

async fn go_idle_reuse(
    go_client: &str,
    connections: &str,
    from_ms: &str,
    to_ms: &str,
) -> Result<(), Error> {
    let server = Server::start(None)?;
    let out = Command::new(go_client)
        .args(["-url", &format!("https://{}{VALIDATE}", server.addr), "-ca"])
        .arg(server._dir.0.join("tls.crt"))
        .args(["-connections", connections])
        .args([
            "-idle-from",
            &format!("{from_ms}ms"),
            "-idle-to",
            &format!("{to_ms}ms"),
        ])
        .output()?;
    print!(
        "go-idle-reuse {connections} connections idle {from_ms}-{to_ms} ms: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    Ok(())
}

async fn dynamic(numbers: u64) -> Result<(), Error> {
    let server = Server::start(None)?;
    let mut conn = server.connect().await?;
    conn.post("/dynamic", &review(16)).await?;
    let before = server.memory("VmRSS");
    let mut body: Value = serde_json::from_slice(&review(16))?;
    body["request"]["object"]["samples"] = Value::Array(vec![Value::from(0); numbers as usize]);
    let body = serde_json::to_vec(&body)?;
    let began = Instant::now();
    let status = conn.post("/dynamic", &body).await?;
    println!(
        "dynamic {numbers} numbers ({} bytes) in {:.2} s: status {status}; server RSS before {before:.1} MiB, peak {:.1} MiB",
        body.len(),
        began.elapsed().as_secs_f64(),
        server.memory("VmHWM"),
    );
    Ok(())
}

async fn one_byte(bytes: u64, pace_us: u64) -> Result<(), Error> {
    let server = Server::start(None)?;
    let mut conn = server.connect().await?;
    conn.post(VALIDATE, &review(16)).await?;
    let before = server.memory("VmRSS");
    let mut body = review(16);
    body.resize(bytes as usize, b' ');
    let began = Instant::now();
    conn.stream
        .write_all(head(VALIDATE, body.len()).as_bytes())
        .await?;
    for byte in &body {
        conn.stream.write_all(std::slice::from_ref(byte)).await?;
        conn.stream.flush().await?;
        let sent = Instant::now();
        while sent.elapsed() < Duration::from_micros(pace_us) {
            std::hint::spin_loop();
        }
    }
    let status = read_status(&mut conn.stream, &mut conn.buffer).await?;
    println!(
        "one-byte {bytes} bytes, one per TLS record {pace_us} µs apart, in {:.1} s: status {status}; server RSS before {before:.1} MiB, peak {:.1} MiB",
        began.elapsed().as_secs_f64(),
        server.memory("VmHWM"),
    );
    Ok(())
}

/// Whether a `/convert` answer succeeded: its `result` is the last field (serde_json writes
/// keys sorted), so the tail is enough and the client's cost stays small beside the server's.
fn converted(status: u16, body: &[u8]) -> bool {
    const SUCCESS: &[u8] = br#""status":"Success""#;
    let tail = &body[body.len().saturating_sub(128)..];
    status == 200 && tail.windows(SUCCESS.len()).any(|w| w == SUCCESS)
}

async fn convert_load(concurrency: u64, seconds: u64, objects: u64) -> Result<(), Error> {
    let objects = objects as usize;
    let server = Arc::new(Server::start(None)?);
    // A write at v1 (converted to the stored v2) and a read at v1 (v2 to v1), taken in turn.
    let directions = [("v1", "v2"), ("v2", "v1")];
    let bodies: Arc<Vec<Vec<u8>>> = Arc::new(
        directions
            .iter()
            .map(|(from, to)| cache::review("bench", from, to, objects))
            .collect(),
    );
    // Each direction answered as it should before the clock starts; this warms the server too.
    let mut conn = server.connect().await?;
    for ((_, to), body) in directions.iter().zip(bodies.iter()) {
        let (status, answer) = conn.exchange(cache::CONVERT, body).await?;
        if status != 200 {
            return Err(format!(
                "/convert answered {status}: {}",
                String::from_utf8_lossy(&answer)
            )
            .into());
        }
        cache::check_answer(&answer, "bench", to, objects)?;
    }
    drop(conn);
    let before = server.memory("VmRSS");
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for task in 0..concurrency as usize {
        let (server, bodies) = (server.clone(), bodies.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut failures = 0u64;
            let mut conn = None;
            let mut turn = task;
            while Instant::now() < end {
                let began = Instant::now();
                if conn.is_none() {
                    conn = server.connect().await.ok();
                }
                let Some(c) = conn.as_mut() else {
                    failures += 1;
                    continue;
                };
                let body = &bodies[turn % bodies.len()];
                turn += 1;
                match c.exchange(cache::CONVERT, body).await {
                    Ok((status, answer)) if converted(status, &answer) => {
                        latencies.push(began.elapsed())
                    }
                    Ok(_) => failures += 1,
                    Err(_) => {
                        failures += 1;
                        conn = None;
                    }
                }
            }
            (latencies, failures)
        }));
    }
    let began = Instant::now();
    let (mut latencies, mut failures) = (Vec::new(), 0);
    for task in tasks {
        let (l, f) = task.await?;
        latencies.extend(l);
        failures += f;
    }
    let elapsed = began.elapsed().as_secs_f64();
    latencies.sort();
    let reviews = latencies.len() as f64 / elapsed;
    println!(
        "convert-load keep-alive concurrency={concurrency} objects/review={objects} ({} and {} bytes): {reviews:.0} reviews/s ({:.0} objects/s), p50 {:.2} ms, p99 {:.2} ms, {failures} failures, server RSS before {before:.1} MiB, peak {:.1} MiB",
        bodies[0].len(),
        bodies[1].len(),
        reviews * objects as f64,
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        server.memory("VmHWM"),
    );
    Ok(())
}

async fn convert_beside(seconds: u64, objects: u64) -> Result<(), Error> {
    let server = Arc::new(Server::start(None)?);
    let admission = Arc::new(review(16));
    let conversion = Arc::new(cache::review("bench", "v1", "v2", objects as usize));
    let end = Instant::now() + Duration::from_secs(seconds);
    let converter = {
        let (server, conversion) = (server.clone(), conversion.clone());
        tokio::spawn(async move {
            let (mut done, mut failures) = (0u64, 0u64);
            let mut conn = server.connect().await?;
            while Instant::now() < end {
                match conn.exchange(cache::CONVERT, &conversion).await {
                    Ok((status, answer)) if converted(status, &answer) => done += 1,
                    _ => failures += 1,
                }
            }
            Ok::<_, std::io::Error>((done, failures))
        })
    };
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let (server, body) = (server.clone(), admission.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut conn = server.connect().await?;
            while Instant::now() < end {
                let began = Instant::now();
                if conn.post(VALIDATE, &body).await? == 200 {
                    latencies.push(began.elapsed());
                }
            }
            Ok::<_, std::io::Error>(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let (converted, failures) = converter.await??;
    latencies.sort();
    println!(
        "convert-beside {objects} objects/review ({} bytes): {converted} conversion reviews ({failures} failed) in {seconds} s; beside them 4 admission clients: {:.0} reviews/s, p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms; server peak RSS {:.1} MiB",
        conversion.len(),
        latencies.len() as f64 / seconds as f64,
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0),
        server.memory("VmHWM"),
    );
    Ok(())
}
