//! The probes' HTTP/1.1 server: plain HTTP (the kubelet probes the Pod's IP), one request per
//! connection (the kubelet's prober opens a connection per probe), every connection bounded
//! in time and in number. The accept loop never waits for a slot: the kubelet sends its request
//! as soon as it connects, so at the cap the oldest connection that has not sent its request
//! yet is dropped for the new one, and silent or slow clients cannot keep a probe waiting.

use super::Health;
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};

/// Longest a client may take to send a request's headers (the unit tests' clocks are short):
/// the kubelet sends them right after connecting, and gives up after its probe's
/// `timeoutSeconds` (1 s by default).
#[cfg(not(test))]
pub(super) const HEADERS_DEADLINE: Duration = Duration::from_secs(1);
#[cfg(test)]
pub(super) const HEADERS_DEADLINE: Duration = Duration::from_millis(300);
/// Longest a connection may last, whatever the client does (reading the answer slowly, say).
#[cfg(not(test))]
pub(super) const CONNECTION_DEADLINE: Duration = Duration::from_secs(10);
#[cfg(test)]
pub(super) const CONNECTION_DEADLINE: Duration = Duration::from_millis(600);
/// Connections open at once; at the cap, a new one replaces the oldest that has not sent its
/// request yet (the unit tests' cap is small).
#[cfg(not(test))]
pub(super) const MAX_CONNECTIONS: usize = 256;
#[cfg(test)]
pub(super) const MAX_CONNECTIONS: usize = 64;

/// The probes could not be served.
///
/// Its `Debug` is its message and its cause, as `Display` would show them, so that a `main`
/// returning `Result<(), Box<dyn Error>>` prints `Error: cannot listen on [::]:8081 for the
/// probes: Address already in use (os error 98)`.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum HealthError {
    /// The probe port's variable is not a port.
    #[error("{variable}={value:?} is not a port (1 to 65535)")]
    Port {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// The address could not be bound (in use, say).
    #[error("cannot listen on {addr} for the probes")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl std::fmt::Debug for HealthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")?;
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

/// A listener on `addr`; on `[::]`, IPv4 too (IPV6_V6ONLY cleared, as Go's `:8081`, whatever
/// the kernel's `net.ipv6.bindv6only` says).
pub(super) fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    if addr.ip() == IpAddr::V6(Ipv6Addr::UNSPECIFIED)
        && let Err(e) = socket.set_only_v6(false)
    {
        // A kernel without dual-stack sockets: IPv6 only.
        tracing::warn!("the health probes listen on IPv6 only: {e}");
    }
    // As std's and tokio's `bind` do: a restarted process binds at once.
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    socket.set_nonblocking(true)?;
    TcpListener::from_std(socket.into())
}

/// The probes, served in the background (see [`Health::serve`]).
#[derive(Debug)]
pub struct HealthServer {
    local_addr: SocketAddr,
    stop: watch::Sender<bool>,
    serving: tokio::task::JoinHandle<()>,
}

impl HealthServer {
    pub(super) async fn start(health: Health, addr: SocketAddr) -> Result<Self, HealthError> {
        let bind = |source| HealthError::Bind { addr, source };
        let listener = match listen(addr) {
            Ok(listener) => listener,
            // `[::]` where the kernel has no IPv6: every IPv4 interface instead.
            Err(e)
                if addr.ip() == IpAddr::V6(Ipv6Addr::UNSPECIFIED)
                    && e.kind() != std::io::ErrorKind::AddrInUse =>
            {
                let v4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), addr.port());
                listen(v4).map_err(bind)?
            }
            Err(e) => return Err(bind(e)),
        };
        let local_addr = listener.local_addr().map_err(bind)?;
        let (stop, stopped) = watch::channel(false);
        let serving = tokio::spawn(accept(listener, health, stopped));
        tracing::info!(addr = %local_addr, "serving /healthz and /readyz");
        Ok(HealthServer {
            local_addr,
            stop,
            serving,
        })
    }

    /// The address it listens on (the port picked, for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting connections; those under way finish within their deadline.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.serving.await;
    }
}

/// One open connection, as the accept loop sees it.
#[derive(Default)]
struct Open {
    /// Its request's headers are in: it is being answered, and ends within its deadline.
    answering: AtomicBool,
    /// Told to close (to make room for a new connection).
    shed: Notify,
}

async fn accept(listener: TcpListener, health: Health, mut stopped: watch::Receiver<bool>) {
    // Oldest first; the connection's task holds the other reference while it runs.
    let mut open: VecDeque<Arc<Open>> = VecDeque::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped.changed() => return,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, say: back off rather than spin.
                tracing::warn!("accepting a health probe connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        open.retain(|o| Arc::strong_count(o) > 1);
        if open.len() >= MAX_CONNECTIONS {
            // The oldest still waiting for its request, else the oldest.
            let oldest = open
                .iter()
                .position(|o| !o.answering.load(Ordering::Acquire))
                .unwrap_or(0);
            if let Some(shed) = open.remove(oldest) {
                shed.shed.notify_one();
            }
        }
        let this = Arc::new(Open::default());
        open.push_back(this.clone());
        let health = health.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = connection(stream, peer, health, &this) => {}
                () = this.shed.notified() => {
                    tracing::debug!(%peer, "health probe connection dropped for a newer one");
                }
            }
        });
    }
}

async fn connection(stream: TcpStream, peer: SocketAddr, health: Health, open: &Arc<Open>) {
    let open = open.clone();
    let service = service_fn(move |request: Request<hyper::body::Incoming>| {
        open.answering.store(true, Ordering::Release);
        let response = respond(request.method(), request.uri(), &health);
        async move { Ok::<_, Infallible>(response) }
    });
    let serving = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADERS_DEADLINE)
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    match tokio::time::timeout(CONNECTION_DEADLINE, serving).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(%peer, "health probe connection ended: {e}"),
        Err(_) => {
            tracing::debug!(%peer, "health probe connection closed after {CONNECTION_DEADLINE:?}")
        }
    }
}

/// The answer to one request: `GET`/`HEAD` of `/healthz` (200 `ok`) or `/readyz` (200 `ok`, or
/// 503 with each condition; `?verbose` lists them on success too); 405 for other methods on
/// those paths, 404 elsewhere.
pub(super) fn respond(method: &Method, uri: &http::Uri, health: &Health) -> Response<Full<Bytes>> {
    let path = uri.path();
    if path != "/healthz" && path != "/readyz" {
        return text(StatusCode::NOT_FOUND, "404 page not found\n".into());
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{method} is not allowed: GET or HEAD\n"),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    if path == "/healthz" {
        return text(StatusCode::OK, "ok\n".into());
    }
    let verbose = uri.query().is_some_and(|q| {
        q.split('&')
            .any(|p| p == "verbose" || p.starts_with("verbose="))
    });
    let readiness = health.readiness();
    match (readiness.is_ready(), verbose) {
        (true, false) => text(StatusCode::OK, "ok\n".into()),
        (true, true) => text(StatusCode::OK, readiness.to_string()),
        (false, _) => text(StatusCode::SERVICE_UNAVAILABLE, readiness.to_string()),
    }
}

/// A text answer (hyper sends a HEAD answer's headers, with the body's length, and no body).
fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}
