//! What one candidate decides from the Lease it read, with no I/O: client-go's
//! `tryAcquireOrRenew` and `release`.
//!
//! A candidate trusts no timestamp in the Lease (another node's clock wrote them): a holder's
//! lease expires `leaseDurationSeconds` after this candidate last *saw the Lease change*, on
//! this candidate's monotonic clock. Writes are at the resourceVersion read, so of two
//! candidates that decide to take an expired lease only one succeeds.

use k8s_openapi::api::coordination::v1::LeaseSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What to do after reading the Lease.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// There is no Lease: create it, held by this candidate.
    Create(LeaseSpec),
    /// Write this spec over the Lease read (taking or renewing it).
    Update(LeaseSpec),
    /// Another candidate holds it, for at least `expires_in` more.
    HeldBy {
        /// Its holder.
        holder: String,
        /// How long until it expires if its holder stops renewing.
        expires_in: Duration,
    },
}

/// The Lease as this candidate last saw it, and when (its own clock).
#[derive(Debug, Clone)]
struct Observed {
    spec: LeaseSpec,
    at: Instant,
}

/// One candidate's view of the election.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    identity: String,
    lease_duration: Duration,
    observed: Option<Observed>,
}

impl Candidate {
    /// `lease_duration` is whole seconds, at least one (the builder checks it).
    pub(crate) fn new(identity: String, lease_duration: Duration) -> Self {
        Candidate {
            identity,
            lease_duration,
            observed: None,
        }
    }

    /// Whether the Lease last seen (read or written) names this candidate its holder.
    pub(crate) fn is_leader(&self) -> bool {
        self.observed
            .as_ref()
            .is_some_and(|o| o.spec.holder_identity.as_deref() == Some(&self.identity))
    }

    /// The next step, from the Lease read at `now` (`None`: there is none); `wall` is the time
    /// written into it.
    pub(crate) fn next(
        &mut self,
        current: Option<&LeaseSpec>,
        now: Instant,
        wall: SystemTime,
    ) -> Step {
        let wall = micro_time(wall);
        let Some(current) = current else {
            return Step::Create(LeaseSpec {
                holder_identity: Some(self.identity.clone()),
                lease_duration_seconds: Some(self.lease_seconds()),
                acquire_time: Some(wall.clone()),
                renew_time: Some(wall),
                lease_transitions: Some(0),
                ..LeaseSpec::default()
            });
        };
        // A changed Lease restarts its holder's term, as this candidate measures it.
        if self.observed.as_ref().is_none_or(|o| o.spec != *current) {
            self.observed = Some(Observed {
                spec: current.clone(),
                at: now,
            });
        }
        let since = self
            .observed
            .as_ref()
            .map_or(Duration::ZERO, |o| now.saturating_duration_since(o.at));
        let holder = current.holder_identity.as_deref().unwrap_or_default();
        let leading = holder == self.identity;
        if !holder.is_empty() && !leading {
            // The holder's own term; ours when it wrote none that makes sense.
            let term = match current.lease_duration_seconds {
                Some(seconds) if seconds > 0 => Duration::from_secs(seconds as u64),
                _ => self.lease_duration,
            };
            if since < term {
                return Step::HeldBy {
                    holder: holder.to_string(),
                    expires_in: term - since,
                };
            }
        }
        let transitions = current.lease_transitions.unwrap_or(0).max(0);
        Step::Update(LeaseSpec {
            holder_identity: Some(self.identity.clone()),
            lease_duration_seconds: Some(self.lease_seconds()),
            acquire_time: if leading {
                current.acquire_time.clone().or(Some(wall.clone()))
            } else {
                Some(wall.clone())
            },
            renew_time: Some(wall),
            lease_transitions: Some(if leading {
                transitions
            } else {
                transitions.saturating_add(1)
            }),
            // Coordinated leader election's fields belong to the API server's coordinator.
            preferred_holder: current.preferred_holder.clone(),
            strategy: current.strategy.clone(),
        })
    }

    /// `spec` was written (created or updated) at `now`: this candidate saw it.
    pub(crate) fn wrote(&mut self, spec: LeaseSpec, now: Instant) {
        self.observed = Some(Observed { spec, at: now });
    }

    /// The spec that gives the Lease up, if this candidate holds it: no holder, so that any
    /// candidate may take it at once, the transitions kept.
    pub(crate) fn release(&self, wall: SystemTime) -> Option<LeaseSpec> {
        if !self.is_leader() {
            return None;
        }
        let observed = &self.observed.as_ref()?.spec;
        let wall = micro_time(wall);
        Some(LeaseSpec {
            holder_identity: None,
            lease_duration_seconds: Some(1),
            acquire_time: Some(wall.clone()),
            renew_time: Some(wall),
            lease_transitions: observed.lease_transitions,
            preferred_holder: observed.preferred_holder.clone(),
            strategy: observed.strategy.clone(),
        })
    }

    fn lease_seconds(&self) -> i32 {
        i32::try_from(self.lease_duration.as_secs()).unwrap_or(i32::MAX)
    }
}

/// `wall` as the Lease's microsecond time (before 1970, or past jiff's range: the epoch, which
/// no candidate reads: they trust their own clocks).
pub(crate) fn micro_time(wall: SystemTime) -> MicroTime {
    let micros = wall
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_micros()).ok())
        .unwrap_or(0);
    MicroTime(Timestamp::from_microsecond(micros).unwrap_or(Timestamp::UNIX_EPOCH))
}
