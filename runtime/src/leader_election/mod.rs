//! Lease-based leader election (feature `leader-election`): run an operator's controllers on
//! one replica at a time, as controller-runtime's `--leader-elect` does.
//!
//! Every replica is a candidate for one `coordination.k8s.io/v1` Lease in the operator's
//! namespace. One holds it and renews it every [`retry_period`](LeaderElectionBuilder::retry_period);
//! the others read it as often and take it once it has not changed for its
//! `leaseDurationSeconds`, as measured on their own clocks (no candidate trusts another's
//! timestamps). Every write is at the resourceVersion read, so of two candidates only one
//! wins. A leader that cannot renew within [`renew_deadline`](LeaderElectionBuilder::renew_deadline)
//! (shorter than the lease duration) stops its work before another may take over.
//!
//! The requests are `get`, `create` and `update` of the Lease, all granted by the Role the
//! deploy bundle writes with `leader-election = true` (`leader_election_role.yaml`).
//!
//! ```no_run
//! use kube_markers::leader_election::{LeaderElection, Outcome};
//!
//! # async fn controllers() {}
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let client = kube::Client::try_default().await?;
//! // In the operator's namespace (the bundle's POD_NAMESPACE), controller-runtime's timings.
//! let election = LeaderElection::builder(client, "my-operator-leader").build()?;
//! // The controllers start once this replica leads. On SIGTERM (the controllers stop on it
//! // too, with kube-runtime's `shutdown_on_signal`) a candidate stops waiting, and a leader
//! // lets its controllers finish, then releases the Lease so that another takes over at once.
//! # let shutdown = std::future::pending::<()>();
//! // shutdown: a future that ends on SIGTERM (tokio::signal::unix::signal) or Ctrl-C.
//! match election.run(controllers(), shutdown).await? {
//!     Outcome::Completed(()) => println!("the controllers ended; the Lease is released"),
//!     _shut_down => println!("stopped on shutdown"),
//! }
//! // Losing the lease is an error (`Error::Lost`): like controller-runtime, exit and let the
//! // Deployment restart this replica as a candidate.
//! # Ok(()) }
//! ```

mod candidate;

use candidate::{Candidate, Step};
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, PostParams};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// controller-runtime's lease duration: how long a lease that is not renewed stays its
/// holder's.
pub const DEFAULT_LEASE_DURATION: Duration = Duration::from_secs(15);
/// controller-runtime's renew deadline: how long a leader keeps trying to renew before it
/// gives up leading.
pub const DEFAULT_RENEW_DEADLINE: Duration = Duration::from_secs(10);
/// controller-runtime's retry period: how often a leader renews and a candidate tries.
pub const DEFAULT_RETRY_PERIOD: Duration = Duration::from_secs(2);
/// How long a leader waits, after shutdown was asked, for its work to finish before it drops
/// it and releases the lease: less than the bundle's `terminationGracePeriodSeconds` (10).
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// client-go's jitter: a candidate waits between one and 2.2 retry periods between tries,
/// so that candidates started together do not read the Lease in step.
const JITTER: f64 = 1.2;
/// The environment variable the bundle's Deployment sets to the Pod's namespace.
pub const NAMESPACE_ENV: &str = "POD_NAMESPACE";

/// The time a candidate decides by: a monotonic clock for how long a Lease has been seen
/// unchanged, and the wall clock for the times it writes into the Lease. Replaceable for
/// tests ([`LeaderElectionBuilder::clock`]); the waits between requests are tokio's.
pub trait Clock: Send + Sync {
    /// Now, on a monotonic clock.
    fn now(&self) -> Instant;
    /// Now, on the wall clock (the Lease's `acquireTime` and `renewTime`).
    fn wall(&self) -> SystemTime;
}

/// The system's clocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn wall(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// How [`LeaderElection::run`] ended, the lease released (if it was held).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome<T> {
    /// The work ran to its end while this candidate led.
    Completed(T),
    /// Shutdown was asked before this candidate led, or the work outlived the
    /// [shutdown grace](LeaderElectionBuilder::shutdown_grace) and was dropped.
    ShutDown,
}

/// Leader election failed. Its `Debug` is its message with its causes, so that a `main`
/// returning `Result<(), Box<dyn Error>>` prints it whole.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The settings cannot elect safely.
    #[error("leader election for the Lease {lease}: {problem}")]
    Config {
        /// `namespace/name` of the Lease.
        lease: String,
        /// What is wrong, and what to set.
        problem: String,
    },
    /// The API server refused a request in a way retrying cannot mend (RBAC, a bad name, a
    /// namespace that does not exist): the work did not start, or was stopped.
    #[error("leader election cannot {verb} the Lease {lease} ({hint})")]
    Refused {
        /// `get`, `create` or `update`.
        verb: &'static str,
        /// `namespace/name` of the Lease.
        lease: String,
        /// What to check.
        hint: String,
        /// The API server's answer.
        #[source]
        source: Box<kube::Error>,
    },
    /// This candidate led and lost the lease: its work was stopped. controller-runtime exits
    /// then; so should an operator, and its Deployment restarts it as a candidate.
    #[error("lost the leader lease {lease}: {reason}; the work was stopped")]
    Lost {
        /// `namespace/name` of the Lease.
        lease: String,
        /// Another candidate took it, or renewing failed until the renew deadline.
        reason: String,
    },
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::with_sources(self))
    }
}

/// The namespace of the operator's Lease: `POD_NAMESPACE` (the bundle's Deployment sets it to
/// the Pod's namespace), else the client's default namespace (the kubeconfig context's, when
/// run out of the cluster).
pub fn operator_namespace(client: &kube::Client) -> String {
    std::env::var(NAMESPACE_ENV)
        .ok()
        .filter(|ns| !ns.trim().is_empty())
        .unwrap_or_else(|| client.default_namespace().to_string())
}

/// An identity unique to this process: the host name (the Pod's name in a cluster), then a
/// random suffix, as controller-runtime's (`<hostname>_<uuid>`), so that a restarted Pod
/// of the same name is a new candidate.
pub fn default_identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "candidate".to_string());
    format!("{host}_{:016x}", random_u64())
}

/// A random number from std's hasher keys (random per process, and per call).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// The settings of a [`LeaderElection`], checked by [`build`](Self::build).
pub struct LeaderElectionBuilder {
    client: kube::Client,
    name: String,
    namespace: Option<String>,
    identity: Option<String>,
    lease_duration: Duration,
    renew_deadline: Duration,
    retry_period: Duration,
    shutdown_grace: Duration,
    clock: Arc<dyn Clock>,
}

impl LeaderElectionBuilder {
    /// The Lease's namespace (default: [`operator_namespace`]).
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// This candidate's identity, the Lease's `holderIdentity` while it leads (default:
    /// [`default_identity`]). Two candidates must never share one.
    pub fn identity(mut self, identity: impl Into<String>) -> Self {
        self.identity = Some(identity.into());
        self
    }

    /// How long a lease that is not renewed stays its holder's (default 15 s; whole seconds,
    /// as the Lease stores it).
    pub fn lease_duration(mut self, duration: Duration) -> Self {
        self.lease_duration = duration;
        self
    }

    /// How long a leader keeps trying to renew before it stops its work (default 10 s; less
    /// than the lease duration, so that it stops before another candidate may take over).
    pub fn renew_deadline(mut self, deadline: Duration) -> Self {
        self.renew_deadline = deadline;
        self
    }

    /// How often the leader renews and the others try (default 2 s).
    pub fn retry_period(mut self, period: Duration) -> Self {
        self.retry_period = period;
        self
    }

    /// After shutdown is asked, how long the leader lets its work finish before it drops it
    /// (default 5 s). It keeps renewing meanwhile; either way it then releases the lease.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The clock the candidate decides by (default [`SystemClock`]).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Checks the settings: client-go's rules (lease duration > renew deadline > 1.2 × retry
    /// period > 0), a lease duration of whole seconds, a name, a namespace and an identity.
    pub fn build(self) -> Result<LeaderElection, Error> {
        let namespace = self
            .namespace
            .unwrap_or_else(|| operator_namespace(&self.client));
        let lease = format!("{namespace}/{}", self.name);
        let problem = |problem: String| Error::Config {
            lease: lease.clone(),
            problem,
        };
        if self.name.trim().is_empty() {
            return Err(problem("the Lease needs a name".into()));
        }
        if namespace.trim().is_empty() {
            return Err(problem(format!(
                "no namespace: set {NAMESPACE_ENV} or call .namespace(..)"
            )));
        }
        let identity = self.identity.unwrap_or_else(default_identity);
        if identity.trim().is_empty() {
            return Err(problem("the identity is empty".into()));
        }
        let (lease_duration, renew_deadline, retry_period) =
            (self.lease_duration, self.renew_deadline, self.retry_period);
        if lease_duration.subsec_nanos() != 0 || lease_duration.is_zero() {
            return Err(problem(format!(
                "lease_duration {lease_duration:?} is not a whole number of seconds (the Lease's \
                 leaseDurationSeconds)"
            )));
        }
        if i32::try_from(lease_duration.as_secs()).is_err() {
            return Err(problem(format!(
                "lease_duration {lease_duration:?} is too long"
            )));
        }
        if retry_period.is_zero() {
            return Err(problem("retry_period is zero".into()));
        }
        if lease_duration <= renew_deadline {
            return Err(problem(format!(
                "lease_duration {lease_duration:?} must be longer than renew_deadline \
                 {renew_deadline:?}, so that a leader that cannot renew stops before another \
                 candidate takes over"
            )));
        }
        if renew_deadline.as_secs_f64() <= JITTER * retry_period.as_secs_f64() {
            return Err(problem(format!(
                "renew_deadline {renew_deadline:?} must be longer than {JITTER} × retry_period \
                 {retry_period:?}, to leave room for a retry"
            )));
        }
        Ok(LeaderElection {
            api: Api::namespaced(self.client, &namespace),
            name: self.name,
            lease,
            identity,
            lease_duration,
            renew_deadline,
            retry_period,
            shutdown_grace: self.shutdown_grace,
            clock: self.clock,
        })
    }
}

/// A candidate for one Lease (see the [module](self)). Build it with [`LeaderElection::builder`].
pub struct LeaderElection {
    api: Api<Lease>,
    name: String,
    lease: String,
    identity: String,
    lease_duration: Duration,
    renew_deadline: Duration,
    retry_period: Duration,
    shutdown_grace: Duration,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for LeaderElection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaderElection")
            .field("lease", &self.lease)
            .field("identity", &self.identity)
            .field("lease_duration", &self.lease_duration)
            .field("renew_deadline", &self.renew_deadline)
            .field("retry_period", &self.retry_period)
            .finish_non_exhaustive()
    }
}

/// One try at the Lease.
enum Attempt {
    /// This candidate holds it now.
    Leading,
    /// Another holds it.
    HeldBy(String),
    /// The write lost a race, or the API server failed in a way worth retrying.
    Retry(String),
}

/// Why leading ended.
enum Ended<T> {
    Work(T),
    Lost(Result<String, Error>),
    GraceOver,
}

impl LeaderElection {
    /// A candidate for the Lease `name`, with controller-runtime's timings (15 s lease, 10 s
    /// renew deadline, 2 s retry period).
    pub fn builder(client: kube::Client, name: impl Into<String>) -> LeaderElectionBuilder {
        LeaderElectionBuilder {
            client,
            name: name.into(),
            namespace: None,
            identity: None,
            lease_duration: DEFAULT_LEASE_DURATION,
            renew_deadline: DEFAULT_RENEW_DEADLINE,
            retry_period: DEFAULT_RETRY_PERIOD,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            clock: Arc::new(SystemClock),
        }
    }

    /// This candidate's identity (the Lease's `holderIdentity` while it leads).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The Lease, `namespace/name`.
    pub fn lease(&self) -> &str {
        &self.lease
    }

    /// Waits to lead, then runs `work` while leading.
    ///
    /// - Before leading, `shutdown` ends the wait: [`Outcome::ShutDown`], `work` never started.
    /// - While leading, `work` ending releases the lease: [`Outcome::Completed`]. After
    ///   `shutdown`, the leader keeps renewing while `work` finishes (it should stop on the
    ///   same signal), for at most the shutdown grace, then drops it: [`Outcome::ShutDown`].
    ///   Either way the lease is released, so that another candidate takes over at once.
    /// - Losing the lease drops `work` and returns [`Error::Lost`]; a request the API server
    ///   refuses for good (RBAC, say) returns [`Error::Refused`], having dropped `work`.
    ///
    /// Requests that fail otherwise are logged and retried. A `LeaderElection` may run again
    /// (a new term) after `run` returns.
    pub async fn run<T>(
        &self,
        work: impl Future<Output = T>,
        shutdown: impl Future<Output = ()>,
    ) -> Result<Outcome<T>, Error> {
        let mut candidate = Candidate::new(self.identity.clone(), self.lease_duration);
        let mut shutdown = std::pin::pin!(shutdown);
        let mut written: Option<Lease> = None;
        let acquired = tokio::select! {
            acquired = self.acquire(&mut candidate, &mut written) => Some(acquired),
            () = &mut shutdown => None,
        };
        match acquired {
            Some(acquired) => acquired?,
            None => {
                // Shutdown may have won the race against a successful write.
                self.release(&candidate, written).await;
                return Ok(Outcome::ShutDown);
            }
        }
        tracing::info!(lease = %self.lease, identity = %self.identity, "acquired the leader lease");

        let mut work = std::pin::pin!(work);
        let mut renewing: Pin<Box<dyn Future<Output = Result<String, Error>> + Send + '_>> =
            Box::pin(self.keep_renewing(&mut candidate, &mut written));
        let mut grace: Option<Pin<Box<tokio::time::Sleep>>> = None;
        let ended = loop {
            tokio::select! {
                value = &mut work => break Ended::Work(value),
                lost = &mut renewing => break Ended::Lost(lost),
                () = &mut shutdown, if grace.is_none() => {
                    grace = Some(Box::pin(tokio::time::sleep(self.shutdown_grace)));
                }
                () = async { if let Some(g) = grace.as_mut() { g.await } }, if grace.is_some() => {
                    break Ended::GraceOver;
                }
            }
        };
        drop(renewing);
        match ended {
            Ended::Lost(reason) => {
                let reason = reason?;
                tracing::error!(lease = %self.lease, identity = %self.identity, "{reason}");
                Err(Error::Lost {
                    lease: self.lease.clone(),
                    reason,
                })
            }
            Ended::Work(value) => {
                self.release(&candidate, written).await;
                Ok(Outcome::Completed(value))
            }
            Ended::GraceOver => {
                tracing::warn!(
                    lease = %self.lease,
                    "the work did not finish within {:?} of shutdown: dropped",
                    self.shutdown_grace
                );
                self.release(&candidate, written).await;
                Ok(Outcome::ShutDown)
            }
        }
    }

    /// Tries until this candidate leads (jittered waits between tries).
    async fn acquire(
        &self,
        candidate: &mut Candidate,
        written: &mut Option<Lease>,
    ) -> Result<(), Error> {
        let mut last_holder: Option<String> = None;
        loop {
            match self.try_acquire_or_renew(candidate, written).await? {
                Attempt::Leading => return Ok(()),
                Attempt::HeldBy(holder) => {
                    if last_holder.as_ref() != Some(&holder) {
                        tracing::info!(lease = %self.lease, %holder, "the leader lease is held: waiting");
                        last_holder = Some(holder);
                    }
                }
                Attempt::Retry(why) => {
                    tracing::warn!(lease = %self.lease, "cannot take the leader lease yet: {why}")
                }
            }
            let jitter = (random_u64() as f64 / u64::MAX as f64) * JITTER;
            tokio::time::sleep(self.retry_period.mul_f64(1.0 + jitter)).await;
        }
    }

    /// Renews every retry period until it fails for the renew deadline, or another holds
    /// the Lease: then returns why (`Ok`), or a refusal (`Err`).
    async fn keep_renewing(
        &self,
        candidate: &mut Candidate,
        written: &mut Option<Lease>,
    ) -> Result<String, Error> {
        let mut renewed = self.clock.now();
        loop {
            tokio::time::sleep(self.retry_period).await;
            let left = self
                .renew_deadline
                .saturating_sub(self.clock.now().saturating_duration_since(renewed));
            let attempt =
                tokio::time::timeout(left, self.try_acquire_or_renew(candidate, written)).await;
            match attempt {
                Ok(Ok(Attempt::Leading)) => renewed = self.clock.now(),
                Ok(Ok(Attempt::HeldBy(holder))) => {
                    return Ok(format!("`{holder}` holds it now"));
                }
                Ok(Ok(Attempt::Retry(why))) => {
                    tracing::warn!(lease = %self.lease, "cannot renew the leader lease: {why}");
                }
                Ok(Err(refused)) => return Err(refused),
                Err(_elapsed) => {}
            }
            let since = self.clock.now().saturating_duration_since(renewed);
            if since >= self.renew_deadline {
                return Ok(format!(
                    "not renewed for {since:?}, past the renew deadline {:?}",
                    self.renew_deadline
                ));
            }
        }
    }

    /// Reads the Lease and creates, takes or renews it as the candidate decides.
    async fn try_acquire_or_renew(
        &self,
        candidate: &mut Candidate,
        written: &mut Option<Lease>,
    ) -> Result<Attempt, Error> {
        let current = match self.api.get_opt(&self.name).await {
            Ok(current) => current,
            Err(e) => return self.failed("get", e),
        };
        // A Lease without a spec is a Lease with an empty one.
        let empty = LeaseSpec::default();
        let spec = current.as_ref().map(|l| l.spec.as_ref().unwrap_or(&empty));
        let step = candidate.next(spec, self.clock.now(), self.clock.wall());
        let result = match step {
            Step::HeldBy { holder, .. } => return Ok(Attempt::HeldBy(holder)),
            Step::Create(spec) => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.name.clone()),
                        ..ObjectMeta::default()
                    },
                    spec: Some(spec.clone()),
                };
                (
                    "create",
                    spec,
                    self.api.create(&PostParams::default(), &lease).await,
                )
            }
            Step::Update(spec) => {
                // At the resourceVersion read: a concurrent write makes this one conflict.
                let mut lease = current.unwrap_or_default();
                lease.spec = Some(spec.clone());
                (
                    "update",
                    spec,
                    self.api
                        .replace(&self.name, &PostParams::default(), &lease)
                        .await,
                )
            }
        };
        match result {
            (_, spec, Ok(lease)) => {
                candidate.wrote(spec, self.clock.now());
                *written = Some(lease);
                Ok(Attempt::Leading)
            }
            (verb, _, Err(e)) => self.failed(verb, e),
        }
    }

    /// A failed request: a race or a transient failure to retry, or a refusal to report.
    fn failed(&self, verb: &'static str, error: kube::Error) -> Result<Attempt, Error> {
        let code = match &error {
            kube::Error::Api(status) => status.code,
            _ => 0,
        };
        let hint = match code {
            // Another candidate wrote first (a conflict, or a Lease created meanwhile).
            409 => {
                return Ok(Attempt::Retry(format!(
                    "another candidate wrote first ({verb})"
                )));
            }
            401 => "the client's credentials are not accepted".to_string(),
            403 => format!(
                "grant `{verb}` on leases.coordination.k8s.io in its namespace: the deploy \
                 bundle's `leader-election = true` writes that Role"
            ),
            404 => "the namespace does not exist".to_string(),
            400 | 405 | 410 | 413 | 415 | 422 => "the API server rejects the Lease".to_string(),
            _ => return Ok(Attempt::Retry(format!("{verb}: {error}"))),
        };
        Err(Error::Refused {
            verb,
            lease: self.lease.clone(),
            hint,
            source: Box::new(error),
        })
    }

    /// Gives the lease up, if this candidate holds it (bounded by the renew deadline: a
    /// shutdown must not hang on it; not released, it expires after the lease duration).
    async fn release(&self, candidate: &Candidate, written: Option<Lease>) {
        let Some(spec) = candidate.release(self.clock.wall()) else {
            return;
        };
        let release = async {
            let mut lease = written.unwrap_or_default();
            for _ in 0..2 {
                lease.spec = Some(spec.clone());
                match self
                    .api
                    .replace(&self.name, &PostParams::default(), &lease)
                    .await
                {
                    Ok(_) => return Ok(()),
                    // A renewal in flight when leading ended may have moved the version on:
                    // read it again, and release only what this candidate still holds.
                    Err(kube::Error::Api(status)) if status.code == 409 => {
                        match self.api.get_opt(&self.name).await? {
                            Some(current)
                                if current
                                    .spec
                                    .as_ref()
                                    .and_then(|s| s.holder_identity.as_deref())
                                    == Some(self.identity.as_str()) =>
                            {
                                lease = current;
                            }
                            _ => return Ok(()),
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        };
        match tokio::time::timeout(self.renew_deadline, release).await {
            Ok(Ok(())) => {
                tracing::info!(lease = %self.lease, identity = %self.identity, "released the leader lease")
            }
            Ok(Err(e)) => {
                tracing::warn!(lease = %self.lease, "cannot release the leader lease: {e}")
            }
            Err(_) => tracing::warn!(
                lease = %self.lease,
                "cannot release the leader lease within {:?}: it expires on its own",
                self.renew_deadline
            ),
        }
    }
}

#[cfg(test)]
mod tests;
