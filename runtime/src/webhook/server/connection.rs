//! The deadlines of each connection, for every route alike, and what the connection cap
//! ([`super::cap`]) needs to know of it: whether it has sent a whole request.
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
//! | body, handler | the request's head is read | `request_timeout` from the first byte, plus a second to send the answer |
//! | idle | the handler answered | `idle_timeout` |
//! | (any) | a write that the client does not read | `header_timeout` |
//!
//! The body and the handler get the same request deadline from [`Activity::serve`], so they
//! answer 408 or 503 before the watchdog has to close the connection.

use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
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
    /// Connections served at once; at the cap a new one takes the place of an old one that
    /// has not sent a whole request, or is idle (see [`super::cap`]).
    pub(crate) max_connections: usize,
}

/// The time left to send an answer after the request deadline, before the watchdog closes.
const ANSWER_GRACE: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Waiting for the next request since the instant.
    Idle(Instant),
    /// Reading a request's head, whose first byte came at the instant (or the TLS handshake,
    /// from the instant the connection was accepted or the handshake ended).
    Head(Instant),
    /// Reading the body of a request whose first byte came at the instant.
    Body(Instant),
    /// The whole request is in, since its first byte at the instant: its handler runs.
    Handling(Instant),
}

/// Where a connection stands in the order of closing at the cap, lowest first: those that
/// have not sent a whole request (or stopped reading the answer) by how long they have been
/// at it, then idle ones by how long they have been idle.
pub(crate) type ShedRank = (u8, Instant);

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
    /// Set from the handler's answer until it is flushed to the socket: the connection is not
    /// idle (nor closed for a newer one) before its client has the answer.
    answering: AtomicBool,
    /// Set when the accept loop closes the connection for a newer one.
    shed: AtomicBool,
    /// Wakes the connection's task to close it, once `shed` is set.
    pub(crate) on_shed: Notify,
    /// Wakes the accept loop, which may be waiting at the cap for a connection it can close,
    /// when this one becomes idle.
    became_idle: Arc<Notify>,
    limits: Limits,
}

impl Activity {
    pub(crate) fn new(limits: Limits, became_idle: Arc<Notify>) -> Activity {
        Activity {
            phase: Mutex::new(Phase::Head(Instant::now())),
            write_blocked: Mutex::new(None),
            blocked: AtomicBool::new(false),
            large: AtomicBool::new(false),
            earlier: Notify::new(),
            answering: AtomicBool::new(false),
            shed: AtomicBool::new(false),
            on_shed: Notify::new(),
            became_idle,
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
            Phase::Head(started) | Phase::Body(started) | Phase::Handling(started) => started,
            // Its bytes came with the previous request's (pipelined, or read with the
            // handshake).
            Phase::Idle(_) => Instant::now(),
        };
        *phase = Phase::Body(started);
        started + self.limits.request_timeout
    }

    /// The request's body is all in: from now on the connection waits for its own handler,
    /// and is not closed for a newer one.
    fn body_read(&self) {
        let mut phase = self.phase();
        if let Phase::Body(started) = *phase {
            *phase = Phase::Handling(started);
        }
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
        let mut phase = self.phase();
        *phase = Phase::Idle(Instant::now());
        self.answering.store(true, Ordering::Release);
    }

    /// Everything written so far is on the socket: an answer handed over is sent.
    fn on_flushed(&self) {
        if self.answering.swap(false, Ordering::AcqRel) {
            self.became_idle.notify_one();
        }
    }

    /// Its place in the order of closing at the cap; `None` while its handler runs (the
    /// request deadline bounds that) or once it is closed for a newer one.
    pub(crate) fn shed_rank(&self) -> Option<ShedRank> {
        self.rank_in(*self.phase())
    }

    fn rank_in(&self, phase: Phase) -> Option<ShedRank> {
        if self.shed.load(Ordering::Acquire) {
            return None;
        }
        if let Some(since) = *self.write_blocked.lock().unwrap_or_else(|e| e.into_inner()) {
            return Some((0, since));
        }
        match phase {
            Phase::Head(since) | Phase::Body(since) => Some((0, since)),
            Phase::Handling(_) => None,
            Phase::Idle(_) if self.answering.load(Ordering::Acquire) => None,
            Phase::Idle(since) => Some((1, since)),
        }
    }

    /// Closes the connection for a newer one if its rank is still `rank` (it has not moved
    /// on since the accept loop looked); whether it did.
    pub(crate) fn shed_if(&self, rank: ShedRank) -> bool {
        // Held while deciding, so that the phase cannot move between the check and the mark.
        let phase = self.phase();
        if self.rank_in(*phase) != Some(rank) {
            return false;
        }
        self.shed.store(true, Ordering::Release);
        self.on_shed.notify_one();
        true
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
            Phase::Body(since) | Phase::Handling(since) => (
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
    pub(crate) inner: TcpStream,
    pub(crate) activity: Arc<Activity>,
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
        // Under TLS this comes once every record is written (tokio-rustls flushes its own
        // buffer first); hyper flushes after each answer.
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        if let Poll::Ready(Ok(())) = polled {
            self.activity.on_flushed();
        }
        polled
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A request's body, reporting to the connection's [`Activity`] when it is all in.
pub(crate) struct TrackedBody<B> {
    inner: B,
    activity: Arc<Activity>,
}

impl<B> TrackedBody<B> {
    pub(crate) fn new(inner: B, activity: Arc<Activity>) -> Self {
        TrackedBody { inner, activity }
    }
}

impl<B: Body + Unpin> Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.activity.body_read();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
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
