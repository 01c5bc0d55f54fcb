//! Accepting connections, at most [`Limits::max_connections`] at once.
//!
//! The accept loop never leaves a new connection waiting while an old one holds its place
//! without a request to serve, as the health server's: at the cap, a new connection takes the
//! place of the one that has been longest at a request it has not finished sending (its TLS
//! handshake, its head or its body; or an answer it does not read), else of the one idle for
//! longest. So 1,024 slow bodies cannot keep the API server's reviews waiting for the request
//! deadline to free a place: each new connection closes the oldest of them. A request the
//! API server is sending has just started, so it is the last of its kind to go; an API
//! server's pooled connection is closed only when nothing is slower or idle longer, and Go's
//! pool reuses its most recently used connection first. Connections whose handler runs are
//! never closed for another: the new one waits until one of them finishes (the request
//! deadline bounds that).
//!
//! Reaching the cap is logged once per episode, which ends when the open connections fall to
//! three quarters of the cap; each connection closed for a newer one is logged at debug.

use std::collections::VecDeque;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};

use super::connection::{Activity, Limits, TrackedStream};

/// One accepted connection: its stream and activity, and its place under the cap (released
/// when both are dropped).
pub(crate) struct Accepted {
    pub(crate) stream: TrackedStream,
    pub(crate) activity: Arc<Activity>,
    pub(crate) peer: SocketAddr,
    _slot: OwnedSemaphorePermit,
}

/// The open connections, in the order they were accepted (closed ones are dropped lazily).
struct Open {
    connections: VecDeque<Weak<Activity>>,
    max: usize,
}

impl Open {
    /// Forgets the connections that have ended.
    fn prune(&mut self) {
        self.connections.retain(|c| c.strong_count() > 0);
    }

    /// Closes the connection that comes first in the order of closing; whether there was one.
    fn shed_first(&mut self) -> bool {
        self.prune();
        // The rank may move between the look and the close (a body finishing, say): look again.
        for _ in 0..4 {
            let first = self
                .connections
                .iter()
                .filter_map(|c| {
                    let c = c.upgrade()?;
                    Some((c.shed_rank()?, c))
                })
                // The first of equals: the earlier accepted.
                .min_by_key(|(rank, _)| *rank);
            match first {
                None => return false,
                Some((rank, connection)) if connection.shed_if(rank) => return true,
                Some(_) => {}
            }
        }
        false
    }

    fn push(&mut self, activity: &Arc<Activity>) {
        // Below the cap nothing else prunes: keep the list near the connections open.
        if self.connections.len() >= 2 * self.max {
            self.prune();
        }
        self.connections.push_back(Arc::downgrade(activity));
    }
}

/// One episode at the cap, logged once when it starts and once when it ends.
#[derive(Default)]
struct Episode {
    at_cap: bool,
    shed: Arc<std::sync::atomic::AtomicU64>,
}

/// Accepts connections until `stopped`, at most `limits.max_connections` open at once (see
/// the module's documentation for who makes room at the cap); `serve` runs each one.
pub(crate) async fn accept_capped<F, Fut>(
    listener: &TcpListener,
    limits: Limits,
    stopped: &mut watch::Receiver<bool>,
    mut serve: F,
) where
    F: FnMut(Accepted) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let max = limits.max_connections;
    let slots = Arc::new(Semaphore::new(max));
    let became_idle = Arc::new(Notify::new());
    let mut open = Open {
        connections: VecDeque::new(),
        max,
    };
    let mut episode = Episode::default();
    // The episode ends when a quarter of the places are free again.
    let well_below = (max / 4).max(1);
    loop {
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
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                if episode.at_cap && slots.available_permits() >= well_below {
                    let shed = episode.shed.swap(0, std::sync::atomic::Ordering::Relaxed);
                    tracing::info!(
                        open = max - slots.available_permits(),
                        max_connections = max,
                        closed_for_newer = shed,
                        "webhook connections well below the limit again"
                    );
                    episode.at_cap = false;
                }
                slot
            }
            Err(_) => {
                if !episode.at_cap {
                    tracing::warn!(
                        max_connections = max,
                        "webhook connection limit reached: new connections take the place of the oldest that have not sent a whole request, else of the longest idle"
                    );
                    episode.at_cap = true;
                }
                let Some(slot) = make_room(&mut open, &slots, &became_idle, stopped).await else {
                    return;
                };
                slot
            }
        };
        let _ = stream.set_nodelay(true);
        let activity = Arc::new(Activity::new(limits, became_idle.clone()));
        open.push(&activity);
        let connection = serve(Accepted {
            stream: TrackedStream {
                inner: stream,
                activity: activity.clone(),
            },
            activity: activity.clone(),
            peer,
            _slot: slot,
        });
        let shed_count = episode.shed.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = connection => {}
                () = activity.on_shed.notified() => {
                    shed_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tracing::debug!(%peer, "webhook connection closed at the connection limit for a newer one: it had not sent a whole request, or was idle longest");
                }
            }
        });
    }
}

/// A place for a new connection at the cap: closes the first in the order of closing and
/// takes its place; when every connection's handler runs, waits until one ends or becomes
/// idle. `None` when the server stops meanwhile.
async fn make_room(
    open: &mut Open,
    slots: &Arc<Semaphore>,
    became_idle: &Notify,
    stopped: &mut watch::Receiver<bool>,
) -> Option<OwnedSemaphorePermit> {
    loop {
        if open.shed_first() {
            // Its task closes it at once, and its place is ours.
            return tokio::select! {
                slot = slots.clone().acquire_owned() => slot.ok(),
                _ = stopped.changed() => None,
            };
        }
        tokio::select! {
            slot = slots.clone().acquire_owned() => return slot.ok(),
            () = became_idle.notified() => {}
            _ = stopped.changed() => return None,
        }
    }
}
