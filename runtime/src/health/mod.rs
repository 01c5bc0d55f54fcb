//! The `/healthz` and `/readyz` probes of the deploy bundle's Deployment (feature `health`).
//!
//! The bundle's Deployment probes `http://<pod>:8081/healthz` (liveness) and `/readyz`
//! (readiness), on the port its `health-probe-port` key sets and tells the operator in
//! `HEALTH_PROBE_PORT`. A [`Health`] answers them: `/healthz` is 200 while the process serves,
//! `/readyz` is 503 until every [`Condition`] made from it is ready (the controller's cache
//! has synced, the [preflight](crate::preflight()) passed, ...), then 200. A `Health` without
//! conditions is ready.
//!
//! ```
//! use kube_markers::health::Health;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let health = Health::new();
//! // Every condition is made before the probes are served, so that none is missed.
//! let preflight = health.condition("preflight");
//! let cache = health.condition("memcacheds cache");
//! # let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
//! // kube_markers::health::probe_addr()?: [::] and the bundle's HEALTH_PROBE_PORT, or 8081.
//! let probes = health.serve(addr).await?;
//! assert!(!health.readiness().is_ready());
//!
//! preflight.ready(); // after kube_markers::preflight(&client) found everything granted
//! // With a kube-runtime Controller: its store is ready once the first list is in.
//! // tokio::spawn(cache.ready_when(async move { store.wait_until_ready().await }));
//! # cache.ready();
//! assert!(health.readiness().is_ready());
//! probes.shutdown().await;
//! # Ok(()) }
//! ```

mod server;

use std::fmt;
use std::future::Future;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

pub use server::{HealthError, HealthServer};

/// controller-runtime's (and the bundle's default) health probe port.
pub const DEFAULT_PORT: u16 = 8081;
/// The environment variable the bundle's Deployment sets to its `health-probe-port`.
pub const PORT_ENV: &str = "HEALTH_PROBE_PORT";
/// How often [`Condition::ready_when`] polls its future again.
pub const RECHECK: std::time::Duration = std::time::Duration::from_millis(250);

/// Where to serve the probes: every interface, IPv6 and IPv4 (`[::]`, as Go's `:8081`: the
/// kubelet probes the Pod's IP, which is IPv6 in an IPv6 cluster; [`Health::serve`] clears
/// `IPV6_V6ONLY`, so IPv4 is served even with the kernel's `net.ipv6.bindv6only=1`, and where
/// the kernel has no IPv6 it listens on `0.0.0.0`), on the port of `HEALTH_PROBE_PORT` (the bundle's
/// `health-probe-port`), or [`DEFAULT_PORT`] when it is not set.
pub fn probe_addr() -> Result<SocketAddr, HealthError> {
    probe_addr_from(std::env::var(PORT_ENV).ok().as_deref())
}

fn probe_addr_from(port: Option<&str>) -> Result<SocketAddr, HealthError> {
    let port = match port.map(str::trim) {
        None | Some("") => DEFAULT_PORT,
        Some(text) => match text.parse::<u16>() {
            Ok(port) if port != 0 => port,
            _ => {
                return Err(HealthError::Port {
                    variable: PORT_ENV,
                    value: text.to_string(),
                });
            }
        },
    };
    Ok(SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), port))
}

/// The probes' state: what `/readyz` waits for. Cheap to clone (shared).
#[derive(Debug, Clone, Default)]
pub struct Health {
    conditions: Arc<Mutex<Vec<Entry>>>,
}

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    state: State,
}

/// Where one condition stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum State {
    /// Not ready yet, with no reason given.
    Pending,
    /// Ready.
    Ready,
    /// Not ready, for this reason.
    NotReady(String),
}

impl Health {
    /// A `Health` without conditions (ready).
    pub fn new() -> Self {
        Health::default()
    }

    /// A new condition of readiness, not ready until [`Condition::ready`]. Make every condition
    /// before serving the probes: one made later is not waited for until then.
    pub fn condition(&self, name: impl Into<String>) -> Condition {
        let mut conditions = self.lock();
        conditions.push(Entry {
            name: name.into(),
            state: State::Pending,
        });
        Condition {
            health: self.clone(),
            index: conditions.len() - 1,
        }
    }

    /// Every condition and where it stands, in the order they were made.
    pub fn readiness(&self) -> Readiness {
        Readiness {
            conditions: self
                .lock()
                .iter()
                .map(|e| (e.name.clone(), e.state.clone()))
                .collect(),
        }
    }

    /// Serves `/healthz` and `/readyz` on `addr` in a background task of the current tokio
    /// runtime, until [`HealthServer::shutdown`] (or the end of the runtime).
    pub async fn serve(&self, addr: SocketAddr) -> Result<HealthServer, HealthError> {
        HealthServer::start(self.clone(), addr).await
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // Each update is one assignment: what a panicking holder left is consistent.
        self.conditions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, index: usize, state: State) {
        if let Some(entry) = self.lock().get_mut(index) {
            entry.state = state;
        }
    }
}

/// One condition of readiness (see [`Health::condition`]). Clones share it.
#[derive(Debug, Clone)]
pub struct Condition {
    health: Health,
    index: usize,
}

impl Condition {
    /// Marks it ready.
    pub fn ready(&self) {
        self.health.set(self.index, State::Ready);
    }

    /// Marks it not ready, saying why (`/readyz` lists the reason).
    pub fn not_ready(&self, reason: impl Into<String>) {
        self.health.set(self.index, State::NotReady(reason.into()));
    }

    /// Waits for `future`, then marks the condition ready if it succeeded, or not ready with
    /// its error: `cache.ready_when(async move { store.wait_until_ready().await })` for a
    /// kube-runtime store. Returns what the future returned.
    ///
    /// The future is polled again every [`RECHECK`] as well as when it wakes:
    /// kube-runtime 5's `Store::wait_until_ready` wakes only the last of the tasks waiting on
    /// it (a oneshot channel's single waker), and a `Controller` waits on its own store too,
    /// so a second waiter is never woken.
    pub async fn ready_when<T, E: fmt::Display>(
        self,
        future: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        let mut future = std::pin::pin!(future);
        let mut recheck = tokio::time::interval(RECHECK);
        let result = loop {
            tokio::select! {
                result = &mut future => break result,
                _ = recheck.tick() => {}
            }
        };
        match &result {
            Ok(_) => self.ready(),
            Err(e) => self.not_ready(e.to_string()),
        }
        result
    }
}

/// Every condition of a [`Health`] at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// Each condition's name and state, in the order they were made.
    pub conditions: Vec<(String, State)>,
}

impl Readiness {
    /// Whether every condition is ready (true without conditions).
    pub fn is_ready(&self) -> bool {
        self.conditions.iter().all(|(_, s)| *s == State::Ready)
    }
}

impl fmt::Display for Readiness {
    /// One line per condition, `[+]name ok` or `[-]name: why`, then the verdict.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, state) in &self.conditions {
            match state {
                State::Ready => writeln!(f, "[+]{name} ok")?,
                State::Pending => writeln!(f, "[-]{name}: not ready yet")?,
                State::NotReady(reason) => writeln!(f, "[-]{name}: {reason}")?,
            }
        }
        if self.is_ready() {
            writeln!(f, "readyz check passed")
        } else {
            writeln!(f, "readyz check failed")
        }
    }
}

#[cfg(test)]
mod tests;
