//! Accepting connections (at most [`Limits::max_connections`] at once) and the deadlines of
//! each one, for every route alike.
//!
//! hyper's own `header_read_timeout` starts when the connection waits for a request, so it
//! also closes keep-alive connections that are merely idle: the API server's pool keeps idle
//! connections for 90 s and does not retry a POST that meets the close. Here, as in Go's
//! `net/http`, an idle connection waits for [`Limits::idle_timeout`], and the header deadline
//! starts with the first byte of a request. A watchdog per connection closes it when the
//! phase it is in overruns:
//!
//! | phase | from | closed after |
//! |---|---|---|
//! | head | the end of the TLS handshake, or the first byte after an idle wait | `header_timeout` |
//! | serving | the request's head is read | `request_timeout` from the first byte, plus a second to send the answer |
//! | idle | the handler answered | `idle_timeout` |
//! | (any) | a write that the client does not read | `header_timeout` |
//!
//! The body and the handler get the same request deadline from [`Activity::serve`], so they
//! answer 408 or 503 before the watchdog has to close the connection.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::time::Instant;

/// The deadlines and the connection cap the server applies to every connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// From accepting the TCP connection to the end of the TLS handshake.
    pub(crate) handshake_timeout: Duration,
    /// From the first byte of a request (or the end of the handshake) to the end of its head.
    pub(crate) header_timeout: Duration,
    /// From the first byte of a request to its answer: body, handler and all.
    pub(crate) request_timeout: Duration,
    /// How long a keep-alive connection may wait for its next request.
    pub(crate) idle_timeout: Duration,
    /// Connections served at once; more wait in the listen backlog.
    pub(crate) max_connections: usize,
}

/// The time left to send an answer after the request deadline, before the watchdog closes.
const ANSWER_GRACE: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Waiting for the next request since the instant.
    Idle(Instant),
    /// Reading a request's head, whose first byte came at the instant.
    Head(Instant),
    /// Serving a request whose first byte came at the instant.
    Serving(Instant),
}

/// What a connection is doing, shared by its socket, its service and its watchdog.
#[derive(Debug)]
pub(crate) struct Activity {
    phase: Mutex<Phase>,
    write_blocked: Mutex<Option<Instant>>,
    /// Set while a write is blocked, so that a write that goes through is cheap to record.
    blocked: AtomicBool,
    /// Whether a request over [`LARGE_BODY`](super::process::LARGE_BODY) came this way: its
    /// read buffers are freed with the connection.
    large: AtomicBool,
    /// Wakes the watchdog when a deadline moves earlier.
    earlier: Notify,
    limits: Limits,
}

impl Activity {
    fn new(limits: Limits) -> Activity {
        Activity {
            phase: Mutex::new(Phase::Head(Instant::now())),
            write_blocked: Mutex::new(None),
            blocked: AtomicBool::new(false),
            large: AtomicBool::new(false),
            earlier: Notify::new(),
            limits,
        }
    }

    fn phase(&self) -> std::sync::MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes came from the client: an idle connection starts a request.
    fn on_read(&self) {
        let mut phase = self.phase();
        if let Phase::Idle(_) = *phase {
            *phase = Phase::Head(Instant::now());
            drop(phase);
            self.earlier.notify_one();
        }
    }

    /// The TLS handshake is done: the first request's head is due within the header deadline.
    fn handshake_done(&self) {
        *self.phase() = Phase::Head(Instant::now());
    }

    /// A request's head is read: the deadline of its body and its handler.
    pub(crate) fn serve(&self) -> Instant {
        let mut phase = self.phase();
        let started = match *phase {
            Phase::Head(started) | Phase::Serving(started) => started,
            // Its bytes came with the previous request's (pipelined, or read with the
            // handshake).
            Phase::Idle(_) => Instant::now(),
        };
        *phase = Phase::Serving(started);
        started + self.limits.request_timeout
    }

    /// A large request came on this connection.
    pub(crate) fn saw_large_request(&self) {
        self.large.store(true, Ordering::Relaxed);
    }

    /// Whether a large request came on this connection.
    pub(crate) fn had_large_request(&self) -> bool {
        self.large.load(Ordering::Relaxed)
    }

    /// The answer is handed to hyper: the connection waits for the next request.
    pub(crate) fn served(&self) {
        *self.phase() = Phase::Idle(Instant::now());
    }

    fn on_write(&self, blocked: bool) {
        if blocked {
            if !self.blocked.swap(true, Ordering::Relaxed) {
                *self.write_blocked.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(Instant::now());
                self.earlier.notify_one();
            }
        } else if self.blocked.swap(false, Ordering::Relaxed) {
            *self.write_blocked.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// When the connection must be closed, and why.
    fn deadline(&self) -> (Instant, &'static str) {
        let limits = &self.limits;
        let (mut at, mut why) = match *self.phase() {
            Phase::Idle(since) => (since + limits.idle_timeout, "idle for too long"),
            Phase::Head(since) => (
                since + limits.header_timeout,
                "the request's headers did not arrive in time",
            ),
            Phase::Serving(since) => (
                since + limits.request_timeout + ANSWER_GRACE,
                "the request was not served in time",
            ),
        };
        if let Some(since) = *self.write_blocked.lock().unwrap_or_else(|e| e.into_inner()) {
            let stalled = since + limits.header_timeout;
            if stalled < at {
                (at, why) = (stalled, "the client stopped reading the answer");
            }
        }
        (at, why)
    }
}

/// The TCP stream, reporting reads and blocked writes to the connection's [`Activity`].
pub(crate) struct TrackedStream {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for TrackedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.on_read();
        }
        polled
    }
}

impl AsyncWrite for TrackedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.activity.on_write(polled.is_pending());
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.activity.on_write(polled.is_pending());
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// One accepted connection: its stream and activity, and its place under the cap (released
/// when both are dropped).
pub(crate) struct Accepted {
    pub(crate) stream: TrackedStream,
    pub(crate) activity: Arc<Activity>,
    pub(crate) peer: SocketAddr,
    _slot: tokio::sync::OwnedSemaphorePermit,
}

/// Accepts connections while fewer than `limits.max_connections` are open, until `stopped`;
/// `serve` runs each one. When the cap is reached, new connections wait in the listen backlog
/// (as Go's `netutil.LimitListener` does), and that is logged once until the server is below
/// the cap again.
pub(crate) async fn accept_capped<F, Fut>(
    listener: &TcpListener,
    limits: Limits,
    stopped: &mut watch::Receiver<bool>,
    mut serve: F,
) where
    F: FnMut(Accepted) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut at_cap = false;
    loop {
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                if at_cap {
                    tracing::info!("webhook connections below the limit again: accepting");
                    at_cap = false;
                }
                slot
            }
            Err(_) => {
                if !at_cap {
                    tracing::warn!(
                        max_connections = limits.max_connections,
                        "webhook connection limit reached: new connections wait until one closes"
                    );
                    at_cap = true;
                }
                tokio::select! {
                    slot = slots.clone().acquire_owned() => match slot {
                        Ok(slot) => slot,
                        Err(_) => return,
                    },
                    _ = stopped.changed() => return,
                }
            }
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, say: back off rather than spin.
                    tracing::warn!("accepting a webhook connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stopped.changed() => return,
        };
        let _ = stream.set_nodelay(true);
        let activity = Arc::new(Activity::new(limits));
        tokio::spawn(serve(Accepted {
            stream: TrackedStream {
                inner: stream,
                activity: activity.clone(),
            },
            activity,
            peer,
            _slot: slot,
        }));
    }
}

/// Runs the TLS handshake under its deadline (`Err` when it is not done in time).
pub(crate) async fn handshake<T>(
    activity: &Activity,
    accept: impl Future<Output = io::Result<T>>,
) -> Result<io::Result<T>, tokio::time::error::Elapsed> {
    let done = tokio::time::timeout(activity.limits.handshake_timeout, accept).await?;
    activity.handshake_done();
    Ok(done)
}

/// Runs `connection` until it ends, or until a phase of `activity` overruns (`Err` with the
/// reason); dropping it closes the socket.
pub(crate) async fn with_deadlines<F: Future>(
    activity: &Activity,
    connection: F,
) -> Result<F::Output, &'static str> {
    let mut connection = pin!(connection);
    loop {
        let (at, _) = activity.deadline();
        tokio::select! {
            done = &mut connection => return Ok(done),
            _ = tokio::time::sleep_until(at) => {
                // The phase may have moved on since: only an overrun of the current one closes.
                let (at, why) = activity.deadline();
                if at <= Instant::now() {
                    return Err(why);
                }
            }
            _ = activity.earlier.notified() => {}
        }
    }
}
