//! The probes over real TCP connections, as the kubelet sends them.

use super::server::{CONNECTION_DEADLINE, HEADERS_DEADLINE, MAX_CONNECTIONS};
use super::*;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const LOOPBACK: ([u8; 4], u16) = ([127, 0, 0, 1], 0);

/// One HTTP/1.1 request, as the kubelet's prober sends it; the whole answer as
/// (status, headers, body).
async fn request(addr: SocketAddr, method: &str, target: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: kube-probe/1.37\r\n\
         Accept: */*\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut answer))
        .await
        .expect("the server answers and closes")
        .unwrap();
    let (headers, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = headers[9..12].parse().unwrap();
    (status, headers.to_ascii_lowercase(), body.to_string())
}

#[tokio::test]
async fn readyz_is_503_until_every_condition_is_ready_and_healthz_is_always_200() {
    let health = Health::new();
    let preflight = health.condition("preflight");
    let cache = health.condition("memcacheds cache");
    let server = health.serve(LOOPBACK.into()).await.unwrap();
    let addr = server.local_addr();

    assert_eq!(request(addr, "GET", "/healthz").await.0, 200);
    let (status, headers, body) = request(addr, "GET", "/readyz").await;
    assert_eq!(status, 503);
    assert!(
        headers.contains("content-type: text/plain; charset=utf-8"),
        "{headers}"
    );
    assert_eq!(
        body,
        "[-]preflight: not ready yet\n[-]memcacheds cache: not ready yet\nreadyz check failed\n"
    );

    preflight.ready();
    cache.not_ready("the first list failed: 403");
    let (status, _, body) = request(addr, "GET", "/readyz").await;
    assert_eq!(status, 503);
    assert_eq!(
        body,
        "[+]preflight ok\n[-]memcacheds cache: the first list failed: 403\nreadyz check failed\n"
    );

    cache.ready();
    let (status, _, body) = request(addr, "GET", "/readyz").await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    let (status, _, body) = request(addr, "GET", "/readyz?verbose").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        "[+]preflight ok\n[+]memcacheds cache ok\nreadyz check passed\n"
    );
    // Readiness can be lost again.
    preflight.not_ready("a binding was deleted");
    assert_eq!(request(addr, "GET", "/readyz").await.0, 503);
    assert_eq!(request(addr, "GET", "/healthz").await.2, "ok\n");
    server.shutdown().await;
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "nothing listens after shutdown"
    );
}

#[tokio::test]
async fn without_conditions_it_is_ready() {
    let server = Health::new().serve(LOOPBACK.into()).await.unwrap();
    let (status, _, body) = request(server.local_addr(), "GET", "/readyz").await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
}

#[tokio::test]
async fn ready_when_follows_the_future() {
    let health = Health::new();
    let synced = health.condition("cache");
    let failed = health.condition("other cache");
    let value = synced.ready_when(async { Ok::<_, String>(7) }).await;
    assert_eq!(value, Ok(7));
    let error = failed
        .ready_when(async { Err::<(), _>("writer was dropped before store became ready") })
        .await;
    assert!(error.is_err());
    assert_eq!(
        health.readiness().conditions,
        [
            ("cache".to_string(), State::Ready),
            (
                "other cache".to_string(),
                State::NotReady("writer was dropped before store became ready".into())
            ),
        ]
    );
}

/// A future that is ready once a flag is set but, like a second waiter on kube-runtime's
/// `Store::wait_until_ready`, is never woken for it: `ready_when` still sees it.
#[tokio::test]
async fn ready_when_sees_a_future_that_is_never_woken() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let done = Arc::new(AtomicBool::new(false));
    let never_woken = {
        let done = done.clone();
        std::future::poll_fn(move |_| {
            if done.load(Ordering::SeqCst) {
                std::task::Poll::Ready(Ok::<_, String>(()))
            } else {
                std::task::Poll::Pending
            }
        })
    };
    let health = Health::new();
    let waiting = tokio::spawn(health.condition("cache").ready_when(never_woken));
    tokio::time::sleep(RECHECK * 2).await;
    assert!(!health.readiness().is_ready());
    done.store(true, Ordering::SeqCst);
    tokio::time::timeout(RECHECK * 8, waiting)
        .await
        .expect("polled again without a wake-up")
        .unwrap()
        .unwrap();
    assert!(health.readiness().is_ready());
}

#[tokio::test]
async fn other_methods_and_paths_are_refused_and_head_has_no_body() {
    let health = Health::new();
    let _pending = health.condition("cache");
    let server = health.serve(LOOPBACK.into()).await.unwrap();
    let addr = server.local_addr();

    let get = request(addr, "GET", "/readyz").await.2;
    let (status, headers, body) = request(addr, "HEAD", "/readyz").await;
    assert_eq!(status, 503);
    assert!(
        headers.contains(&format!("content-length: {}", get.len())),
        "the GET answer's length: {headers}"
    );
    assert_eq!(body, "");
    let (status, headers, body) = request(addr, "POST", "/healthz").await;
    assert_eq!(status, 405);
    assert!(headers.contains("allow: get, head"), "{headers}");
    assert_eq!(body, "POST is not allowed: GET or HEAD\n");
    for path in ["/", "/healthz/ping", "/metrics", "/readyz/"] {
        assert_eq!(request(addr, "GET", path).await.0, 404, "{path}");
    }
}

/// Clients that connect and send nothing, or half their headers, are cut off at the headers'
/// deadline; while they hang, and when there are more of them than the cap, the probes are
/// still answered at once.
#[tokio::test]
async fn slow_and_silent_clients_do_not_keep_the_probes_from_answering() {
    let server = Health::new().serve(LOOPBACK.into()).await.unwrap();
    let addr = server.local_addr();

    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut partial = TcpStream::connect(addr).await.unwrap();
    partial
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    assert_eq!(request(addr, "GET", "/healthz").await.0, 200);
    for stream in [&mut silent, &mut partial] {
        let mut rest = Vec::new();
        tokio::time::timeout(
            HEADERS_DEADLINE + Duration::from_secs(2),
            stream.read_to_end(&mut rest),
        )
        .await
        .expect("the server closes a connection without headers")
        .ok();
    }
    assert!(started.elapsed() >= HEADERS_DEADLINE / 2, "cut too early");

    // More silent clients than the cap: the newest replace the oldest, and the probe is
    // answered without waiting for any deadline.
    let mut hogs = Vec::new();
    for _ in 0..MAX_CONNECTIONS + 4 {
        hogs.push(TcpStream::connect(addr).await.unwrap());
    }
    let started = Instant::now();
    assert_eq!(request(addr, "GET", "/healthz").await.0, 200);
    assert!(
        started.elapsed() < HEADERS_DEADLINE.min(CONNECTION_DEADLINE),
        "answered after {:?}",
        started.elapsed()
    );
    drop(hogs);
    server.shutdown().await;
}

/// 200 clients (more than the cap) that connect, send nothing and reconnect as soon as they
/// are cut off: the probes are still answered, each within 1 s (the kubelet's default
/// `timeoutSeconds`), over several header deadlines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_silent_reconnecting_clients_do_not_starve_the_probes() {
    const SILENT: usize = 200;
    const { assert!(SILENT > MAX_CONNECTIONS) };
    let server = Health::new().serve(LOOPBACK.into()).await.unwrap();
    let addr = server.local_addr();
    let mut hogs = Vec::new();
    for _ in 0..SILENT {
        hogs.push(tokio::spawn(async move {
            loop {
                if let Ok(mut stream) = TcpStream::connect(addr).await {
                    let mut rest = Vec::new();
                    let _ = stream.read_to_end(&mut rest).await;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let mut probes = 0;
    while started.elapsed() < HEADERS_DEADLINE * 5 {
        let probe = Instant::now();
        let answer =
            tokio::time::timeout(Duration::from_secs(1), request(addr, "GET", "/healthz")).await;
        assert!(
            matches!(answer, Ok((200, _, _))),
            "probe {probes} not answered within 1 s: {:?} after {:?}",
            answer.map(|a| a.0),
            probe.elapsed()
        );
        probes += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(probes >= 5, "{probes} probes");
    for hog in hogs {
        hog.abort();
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_port_in_use_is_an_error_naming_the_address() {
    let first = Health::new().serve(LOOPBACK.into()).await.unwrap();
    let addr = first.local_addr();
    let error = Health::new().serve(addr).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("cannot listen on {addr} for the probes")
    );
    assert!(matches!(error, HealthError::Bind { .. }));
    // What `main() -> Result<(), Box<dyn Error>>` prints after `Error: `: readable, with the
    // cause.
    let printed = format!("{:?}", Box::<dyn std::error::Error>::from(error));
    let cause = std::io::Error::from_raw_os_error(libc_addr_in_use()).to_string();
    assert_eq!(
        printed,
        format!("cannot listen on {addr} for the probes: {cause}")
    );
    let port = format!("{:?}", probe_addr_from(Some("http")).unwrap_err());
    assert_eq!(
        port,
        r#"HEALTH_PROBE_PORT="http" is not a port (1 to 65535)"#
    );
}

/// EADDRINUSE, whose number differs between systems.
fn libc_addr_in_use() -> i32 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    std::net::TcpListener::bind(listener.local_addr().unwrap())
        .unwrap_err()
        .raw_os_error()
        .unwrap()
}

#[test]
fn the_probe_port_comes_from_the_bundles_variable() {
    let any = std::net::Ipv6Addr::UNSPECIFIED;
    assert_eq!(probe_addr_from(None).unwrap(), (any, 8081).into());
    assert_eq!(probe_addr_from(Some("")).unwrap().port(), DEFAULT_PORT);
    assert_eq!(probe_addr_from(Some("9440")).unwrap(), (any, 9440).into());
    for bad in ["0", "65536", "http", "-1", ":8081"] {
        let error = probe_addr_from(Some(bad)).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("HEALTH_PROBE_PORT={bad:?} is not a port (1 to 65535)")
        );
    }
}

/// The probe address, `[::]`, answers the kubelet over IPv4 (and over IPv6 where the machine
/// has it), as Go's `:8081` does.
#[tokio::test]
async fn the_probe_address_answers_over_ipv4_and_ipv6() {
    let any = SocketAddr::new(std::net::Ipv6Addr::UNSPECIFIED.into(), 0);
    let server = Health::new().serve(any).await.unwrap();
    let port = server.local_addr().port();
    let v4 = SocketAddr::from(([127, 0, 0, 1], port));
    assert_eq!(request(v4, "GET", "/healthz").await.0, 200);
    if server.local_addr().is_ipv6() {
        let v6 = SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port));
        assert_eq!(request(v6, "GET", "/healthz").await.0, 200);
    } else {
        eprintln!("no IPv6 here: only 127.0.0.1 was probed");
    }
}

/// The kernel's `net.ipv6.bindv6only=1` makes a `[::]` socket IPv6-only unless it says
/// otherwise: the test above again, in a network namespace of its own with that setting
/// (skipped where `unshare -rn` cannot make one).
#[test]
fn the_probe_address_answers_over_ipv4_with_bindv6only() {
    use std::process::Command;
    const SETUP: &str = "ip link set lo up && echo 1 > /proc/sys/net/ipv6/bindv6only";
    let usable = Command::new("unshare")
        .args(["-rn", "sh", "-c", SETUP])
        .output()
        .is_ok_and(|o| o.status.success());
    if !usable {
        eprintln!("skipped: no network namespace with bindv6only=1 here (unshare -rn)");
        return;
    }
    let test = "health::tests::the_probe_address_answers_over_ipv4_and_ipv6";
    let out = Command::new("unshare")
        .args(["-rn", "sh", "-c"])
        .arg(format!(
            "{SETUP} && test \"$(cat /proc/sys/net/ipv6/bindv6only)\" = 1 && exec \"$0\" --exact {test}"
        ))
        .arg(std::env::current_exe().unwrap())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
