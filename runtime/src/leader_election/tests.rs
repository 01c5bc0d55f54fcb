use super::candidate::{Candidate, Step, micro_time};
use super::*;
use k8s_openapi::api::coordination::v1::LeaseSpec;
use std::sync::Mutex;

/// A clock that moves only when told.
struct FakeClock {
    start: Instant,
    wall_start: SystemTime,
    offset: Mutex<Duration>,
}

impl FakeClock {
    fn new() -> Self {
        FakeClock {
            start: Instant::now(),
            wall_start: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
            offset: Mutex::new(Duration::ZERO),
        }
    }
    fn advance(&self, by: Duration) {
        *self.offset.lock().unwrap() += by;
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Instant {
        self.start + *self.offset.lock().unwrap()
    }
    fn wall(&self) -> SystemTime {
        self.wall_start + *self.offset.lock().unwrap()
    }
}

const LEASE: Duration = Duration::from_secs(15);

fn held_by(holder: &str, seconds: i32, transitions: i32) -> LeaseSpec {
    LeaseSpec {
        holder_identity: Some(holder.into()),
        lease_duration_seconds: Some(seconds),
        lease_transitions: Some(transitions),
        acquire_time: Some(micro_time(SystemTime::UNIX_EPOCH)),
        renew_time: Some(micro_time(SystemTime::UNIX_EPOCH)),
        ..LeaseSpec::default()
    }
}

fn step(c: &mut Candidate, current: Option<&LeaseSpec>, clock: &FakeClock) -> Step {
    c.next(current, clock.now(), clock.wall())
}

#[test]
fn no_lease_creates_one_held_from_now() {
    let clock = FakeClock::new();
    let mut a = Candidate::new("a".into(), LEASE);
    let Step::Create(spec) = step(&mut a, None, &clock) else {
        panic!("expected Create");
    };
    assert_eq!(spec.holder_identity.as_deref(), Some("a"));
    assert_eq!(spec.lease_duration_seconds, Some(15));
    assert_eq!(spec.lease_transitions, Some(0));
    assert_eq!(spec.acquire_time, Some(micro_time(clock.wall())));
    assert_eq!(spec.renew_time, spec.acquire_time);
    assert!(!a.is_leader(), "not leading until the create succeeds");
    a.wrote(spec, clock.now());
    assert!(a.is_leader());
}

#[test]
fn a_held_lease_waits_for_its_duration_after_the_last_change_seen() {
    let clock = FakeClock::new();
    let mut b = Candidate::new("b".into(), LEASE);
    let lease = held_by("a", 15, 3);
    assert_eq!(
        step(&mut b, Some(&lease), &clock),
        Step::HeldBy {
            holder: "a".into(),
            expires_in: LEASE
        }
    );
    clock.advance(Duration::from_secs(10));
    // Unchanged for 10 s: 5 s left.
    assert_eq!(
        step(&mut b, Some(&lease), &clock),
        Step::HeldBy {
            holder: "a".into(),
            expires_in: Duration::from_secs(5)
        }
    );
    // The holder renews: a new term starts, from when `b` sees it.
    clock.advance(Duration::from_secs(4));
    let mut renewed = lease.clone();
    renewed.renew_time = Some(micro_time(clock.wall()));
    assert_eq!(
        step(&mut b, Some(&renewed), &clock),
        Step::HeldBy {
            holder: "a".into(),
            expires_in: LEASE
        }
    );
    clock.advance(Duration::from_millis(14_999));
    assert!(matches!(
        step(&mut b, Some(&renewed), &clock),
        Step::HeldBy { .. }
    ));
    clock.advance(Duration::from_millis(1));
    // Expired: take it, one more transition, acquired now.
    let Step::Update(spec) = step(&mut b, Some(&renewed), &clock) else {
        panic!("expected Update");
    };
    assert_eq!(spec.holder_identity.as_deref(), Some("b"));
    assert_eq!(spec.lease_transitions, Some(4));
    assert_eq!(spec.acquire_time, Some(micro_time(clock.wall())));
    assert_eq!(spec.renew_time, Some(micro_time(clock.wall())));
}

#[test]
fn the_timestamps_in_the_lease_are_not_trusted() {
    // A holder whose clock is far behind (renewTime in 1970) still holds its term: only the
    // candidate's own observation counts.
    let clock = FakeClock::new();
    let mut b = Candidate::new("b".into(), LEASE);
    assert!(matches!(
        step(&mut b, Some(&held_by("a", 15, 0)), &clock),
        Step::HeldBy { .. }
    ));
}

#[test]
fn the_holders_own_duration_is_waited_for() {
    let clock = FakeClock::new();
    let mut b = Candidate::new("b".into(), LEASE);
    let lease = held_by("a", 60, 0);
    step(&mut b, Some(&lease), &clock);
    clock.advance(Duration::from_secs(30));
    assert_eq!(
        step(&mut b, Some(&lease), &clock),
        Step::HeldBy {
            holder: "a".into(),
            expires_in: Duration::from_secs(30)
        }
    );
    // A holder that wrote no usable duration gets this candidate's.
    let mut c = Candidate::new("c".into(), LEASE);
    let odd = held_by("a", 0, 0);
    step(&mut c, Some(&odd), &clock);
    clock.advance(LEASE);
    assert!(matches!(step(&mut c, Some(&odd), &clock), Step::Update(_)));
}

#[test]
fn an_empty_holder_is_taken_at_once() {
    let clock = FakeClock::new();
    let mut b = Candidate::new("b".into(), LEASE);
    let mut released = held_by("a", 1, 7);
    released.holder_identity = None;
    let Step::Update(spec) = step(&mut b, Some(&released), &clock) else {
        panic!("expected Update");
    };
    assert_eq!(spec.holder_identity.as_deref(), Some("b"));
    assert_eq!(spec.lease_transitions, Some(8));
    // An empty string is no holder either.
    released.holder_identity = Some(String::new());
    assert!(matches!(
        step(&mut b, Some(&released), &clock),
        Step::Update(_)
    ));
}

#[test]
fn the_leader_renews_keeping_its_acquire_time_and_transitions() {
    let clock = FakeClock::new();
    let mut a = Candidate::new("a".into(), LEASE);
    let Step::Create(created) = step(&mut a, None, &clock) else {
        panic!("expected Create");
    };
    a.wrote(created.clone(), clock.now());
    clock.advance(Duration::from_secs(2));
    let Step::Update(renewal) = step(&mut a, Some(&created), &clock) else {
        panic!("expected Update");
    };
    assert_eq!(renewal.acquire_time, created.acquire_time);
    assert_eq!(renewal.lease_transitions, Some(0));
    assert_eq!(renewal.renew_time, Some(micro_time(clock.wall())));
    // Even long past its duration (renewals failed), the holder renews rather than waits.
    clock.advance(Duration::from_secs(60));
    assert!(matches!(
        step(&mut a, Some(&created), &clock),
        Step::Update(_)
    ));
}

#[test]
fn a_leader_that_reads_another_holder_has_lost() {
    let clock = FakeClock::new();
    let mut a = Candidate::new("a".into(), LEASE);
    let Step::Create(created) = step(&mut a, None, &clock) else {
        panic!("expected Create");
    };
    a.wrote(created, clock.now());
    assert!(a.is_leader());
    let taken = held_by("b", 15, 1);
    assert!(
        matches!(step(&mut a, Some(&taken), &clock), Step::HeldBy { holder, .. } if holder == "b")
    );
    assert!(!a.is_leader());
    assert_eq!(a.release(clock.wall()), None, "nothing to release");
}

#[test]
fn release_clears_the_holder_and_keeps_the_transitions() {
    let clock = FakeClock::new();
    let mut a = Candidate::new("a".into(), LEASE);
    assert_eq!(a.release(clock.wall()), None, "never led");
    let lease = held_by("z", 15, 4);
    step(&mut a, Some(&lease), &clock);
    clock.advance(LEASE);
    let Step::Update(taken) = step(&mut a, Some(&lease), &clock) else {
        panic!("expected Update");
    };
    a.wrote(taken, clock.now());
    let released = a.release(clock.wall()).unwrap();
    assert_eq!(released.holder_identity, None);
    assert_eq!(released.lease_transitions, Some(5));
    assert_eq!(released.lease_duration_seconds, Some(1));
}

#[test]
fn coordinated_election_fields_are_kept() {
    let clock = FakeClock::new();
    let mut a = Candidate::new("a".into(), LEASE);
    let mut lease = held_by("a", 15, 0);
    lease.strategy = Some("OldestEmulationVersion".into());
    lease.preferred_holder = Some("b".into());
    let Step::Update(spec) = step(&mut a, Some(&lease), &clock) else {
        panic!("expected Update");
    };
    assert_eq!(spec.strategy, lease.strategy);
    assert_eq!(spec.preferred_holder, lease.preferred_holder);
}

#[test]
fn micro_time_is_the_wall_clock_to_the_microsecond() {
    let t = SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
    assert_eq!(micro_time(t).0.to_string(), "2023-11-14T22:13:20.123456Z");
    assert_eq!(
        micro_time(SystemTime::UNIX_EPOCH - Duration::from_secs(1)).0,
        k8s_openapi::jiff::Timestamp::UNIX_EPOCH
    );
}

fn builder() -> LeaderElectionBuilder {
    // A client that is never called: the checks are offline.
    let config = kube::Config::new("http://127.0.0.1:1".parse().unwrap());
    let client = kube::Client::try_from(config).unwrap();
    LeaderElection::builder(client, "op-leader")
        .namespace("op-system")
        .identity("me")
}

fn config_error(b: LeaderElectionBuilder) -> String {
    match b.build() {
        Err(e @ Error::Config { .. }) => e.to_string(),
        other => panic!("expected a Config error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_settings_are_checked() {
    let e = builder().build().unwrap();
    assert_eq!(e.lease(), "op-system/op-leader");
    assert_eq!(e.identity(), "me");
    assert_eq!(
        config_error(builder().lease_duration(Duration::from_millis(1500))),
        "leader election for the Lease op-system/op-leader: lease_duration 1.5s is not a whole \
         number of seconds (the Lease's leaseDurationSeconds)"
    );
    assert!(
        config_error(builder().renew_deadline(Duration::from_secs(15)))
            .contains("lease_duration 15s must be longer than renew_deadline 15s")
    );
    assert!(
        config_error(builder().retry_period(Duration::from_secs(9)))
            .contains("renew_deadline 10s must be longer than 1.2 × retry_period 9s")
    );
    assert!(config_error(builder().retry_period(Duration::ZERO)).contains("retry_period is zero"));
    assert!(config_error(builder().identity(" ")).contains("the identity is empty"));
    assert!(config_error(builder().namespace("")).contains("no namespace: set POD_NAMESPACE"));
    let unnamed = builder();
    let unnamed = LeaderElectionBuilder {
        name: String::new(),
        ..unnamed
    };
    assert!(config_error(unnamed).contains("the Lease needs a name"));
}

#[test]
fn default_identities_differ_and_name_the_host() {
    let (a, b) = (default_identity(), default_identity());
    assert_ne!(a, b);
    let (host, suffix) = a.rsplit_once('_').unwrap();
    assert!(!host.is_empty());
    assert_eq!(suffix.len(), 16, "{a}");
}

#[test]
fn errors_debug_as_their_message_and_cause() {
    let e = Error::Lost {
        lease: "ns/l".into(),
        reason: "`b` holds it now".into(),
    };
    assert_eq!(
        format!("{e:?}"),
        "lost the leader lease ns/l: `b` holds it now; the work was stopped"
    );
}

/// `run` can be spawned on a multi-threaded runtime when its work can.
#[allow(dead_code)]
fn run_is_send(election: &LeaderElection) {
    fn send<T: Send>(_: T) {}
    send(election.run(async {}, async {}));
}
