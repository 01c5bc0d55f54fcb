//! `kube_markers::leader_election` on a real API server, each candidate running as the deploy
//! bundle's ServiceAccount with only the bundle's leader-election Role (the examples'
//! `rbac-out/`): exactly one of two candidates leads; a leader that shuts down releases the
//! Lease and the other takes over at once; a leader whose requests stop (paused) stops its
//! work within the renew deadline and the other takes over after the lease duration; a
//! standby shut down stops waiting, a leader's work that ignores shutdown is dropped after the
//! grace and the Lease released; a candidate without the Role, or in a namespace that does not
//! exist, gets a clear refusal; and the bundle's candidates were never
//! refused a request (the API server's audit log), with only `get`, `create` and `update`.

mod common;
use common::{assets, root};
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kube::client::ClientBuilder;
use kube_markers::leader_election::{Error, LeaderElection, Outcome};
use kube_markers_envtest::Envtest;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::watch;

const NS: &str = "example-operator-system";
const SA: &str = "controller-manager";
const LEASE: &str = "example-operator-leader";
const LEASE_DURATION: Duration = Duration::from_secs(3);
const RENEW_DEADLINE: Duration = Duration::from_secs(2);
const RETRY_PERIOD: Duration = Duration::from_millis(500);

/// A tower layer whose requests hang while paused: a network partition of one candidate.
#[derive(Clone, Default)]
struct Pause(Arc<AtomicBool>);

impl Pause {
    fn set(&self, paused: bool) {
        self.0.store(paused, Ordering::SeqCst);
    }
}

impl<S> tower_layer::Layer<S> for Pause {
    type Service = Paused<S>;
    fn layer(&self, inner: S) -> Paused<S> {
        Paused {
            inner,
            pause: self.clone(),
        }
    }
}

#[derive(Clone)]
struct Paused<S> {
    inner: S,
    pause: Pause,
}

impl<S, R> tower_service::Service<R> for Paused<S>
where
    S: tower_service::Service<R>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        if self.pause.0.load(Ordering::SeqCst) {
            Box::pin(std::future::pending())
        } else {
            Box::pin(self.inner.call(request))
        }
    }
}

/// One candidate: its election, whether its work runs, and its shutdown switch.
struct Candidate {
    election: Arc<LeaderElection>,
    working: Arc<AtomicBool>,
    pause: Pause,
}

/// Clears the flag when the work ends or is dropped.
struct Working(Arc<AtomicBool>);

impl Drop for Working {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

type Run = tokio::task::JoinHandle<Result<Outcome<&'static str>, Error>>;

impl Candidate {
    /// Runs for the lease: the work (a controller, say) runs until `stop`, which also is the
    /// shutdown signal, as kube-runtime's `shutdown_on_signal` and the operator's SIGTERM.
    fn run(&self) -> (Run, watch::Sender<bool>) {
        self.run_work(false)
    }

    /// As [`Self::run`]; a `stubborn` work ignores the shutdown signal.
    fn run_work(&self, stubborn: bool) -> (Run, watch::Sender<bool>) {
        let (stop, stopped) = watch::channel(false);
        let election = self.election.clone();
        let working = self.working.clone();
        let mut work_stop = stopped.clone();
        let mut shutdown = stopped;
        let task = tokio::spawn(async move {
            let work = async move {
                working.store(true, Ordering::SeqCst);
                let _working = Working(working);
                if stubborn {
                    std::future::pending::<()>().await;
                }
                let _ = work_stop.wait_for(|s| *s).await;
                "finished"
            };
            let shutdown = async move {
                let _ = shutdown.wait_for(|s| *s).await;
            };
            election.run(work, shutdown).await
        });
        (task, stop)
    }

    fn working(&self) -> bool {
        self.working.load(Ordering::SeqCst)
    }
}

async fn candidate(env: &Envtest, token: &str, identity: &str) -> Candidate {
    candidate_with_grace(env, token, identity, Duration::from_secs(5)).await
}

async fn candidate_with_grace(
    env: &Envtest,
    token: &str,
    identity: &str,
    grace: Duration,
) -> Candidate {
    let pause = Pause::default();
    let client = ClientBuilder::try_from(env.config_for_token(token, NS).unwrap())
        .unwrap()
        .with_layer(&pause)
        .build();
    let election = LeaderElection::builder(client, LEASE)
        .namespace(NS)
        .identity(identity)
        .lease_duration(LEASE_DURATION)
        .renew_deadline(RENEW_DEADLINE)
        .retry_period(RETRY_PERIOD)
        .shutdown_grace(grace)
        .build()
        .unwrap();
    Candidate {
        election: Arc::new(election),
        working: Arc::new(AtomicBool::new(false)),
        pause,
    }
}

/// Waits (up to `limit`) until `done`, checking every 20 ms that never two candidates work.
async fn until(limit: Duration, all: &[&Candidate], done: impl Fn() -> bool) -> Duration {
    let start = Instant::now();
    loop {
        let working = all.iter().filter(|c| c.working()).count();
        assert!(working <= 1, "{working} candidates work at once");
        if done() {
            return start.elapsed();
        }
        assert!(start.elapsed() < limit, "not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn holder(admin: &Api<Lease>) -> Option<String> {
    admin
        .get(LEASE)
        .await
        .unwrap()
        .spec
        .and_then(|s| s.holder_identity)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn candidates_elect_one_leader_release_it_and_take_over_a_paused_one() {
    let env = Envtest::builder().assets(assets()).start().await.unwrap();
    env.ensure_namespace(NS).await.unwrap();
    for file in [
        "service_account.yaml",
        "leader_election_role.yaml",
        "leader_election_role_binding.yaml",
    ] {
        env.apply_file(root().join("rbac-out").join(file))
            .await
            .unwrap();
    }
    let token = env.service_account_token(NS, SA).await.unwrap();
    let leases: Api<Lease> = Api::namespaced(env.admin_client().unwrap(), NS);
    let a = candidate(&env, &token, "a").await;
    let b = candidate(&env, &token, "b").await;
    let all = [&a, &b];

    // Exactly one leads, and stays the only one for two lease durations.
    let (run_a, stop_a) = a.run();
    let (run_b, stop_b) = b.run();
    until(Duration::from_secs(10), &all, || a.working() || b.working()).await;
    let hold = Instant::now();
    until(Duration::from_secs(10), &all, || {
        hold.elapsed() > 2 * LEASE_DURATION
    })
    .await;
    let (leader, leader_run, leader_stop, other, other_run, other_stop) = if a.working() {
        (&a, run_a, stop_a, &b, run_b, stop_b)
    } else {
        (&b, run_b, stop_b, &a, run_a, stop_a)
    };
    assert!(leader.working() && !other.working());
    assert_eq!(
        holder(&leases).await.as_deref(),
        Some(leader.election.identity())
    );
    let transitions = |l: Lease| l.spec.unwrap().lease_transitions.unwrap();
    let before = transitions(leases.get(LEASE).await.unwrap());

    // The leader shuts down: its work finishes, it releases, the other takes over at once
    // (within a jittered retry, well before the lease duration would have expired).
    leader_stop.send(true).unwrap();
    let outcome = leader_run.await.unwrap().unwrap();
    assert_eq!(outcome, Outcome::Completed("finished"));
    let released = Instant::now();
    until(Duration::from_secs(5), &all, || other.working()).await;
    let takeover = released.elapsed();
    assert!(
        takeover < RETRY_PERIOD.mul_f64(2.2) + Duration::from_millis(500),
        "took over {takeover:?} after the release"
    );
    assert_eq!(
        holder(&leases).await.as_deref(),
        Some(other.election.identity())
    );
    assert_eq!(transitions(leases.get(LEASE).await.unwrap()), before + 1);

    // The first leader stands again; the new leader's requests stop (paused). It stops its
    // work within the renew deadline and says it lost; the candidate takes over only after
    // the lease duration, and never while the paused one still works.
    let (again_run, again_stop) = leader.run();
    tokio::time::sleep(RETRY_PERIOD * 3).await;
    assert!(!leader.working(), "the lease is held: no takeover yet");
    other.pause.set(true);
    let paused = Instant::now();
    let lost = tokio::time::timeout(RENEW_DEADLINE + RETRY_PERIOD * 2, other_run)
        .await
        .expect("the paused leader notices within its renew deadline")
        .unwrap();
    let noticed = paused.elapsed();
    match lost {
        Err(e @ Error::Lost { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("lost the leader lease example-operator-system/example-operator-leader: not renewed for"),
                "{text}"
            );
        }
        other => panic!("expected Error::Lost, got {other:?}"),
    }
    assert!(!other.working(), "a leader that lost stops its work");
    until(Duration::from_secs(10), &all, || leader.working()).await;
    let took_over = paused.elapsed();
    assert!(
        // Its last renewal was at most a retry period (and a request) before the pause.
        took_over >= LEASE_DURATION - RETRY_PERIOD * 2 && took_over > noticed,
        "took over {took_over:?} after the pause (lost noticed after {noticed:?})"
    );
    assert!(
        // The standby saw that renewal within 2.2 retry periods, and tries again as late.
        took_over < LEASE_DURATION + RETRY_PERIOD * 6,
        "took over {took_over:?} after the pause"
    );
    eprintln!(
        "took over {takeover:?} after a release; a paused leader noticed after {noticed:?}, \
         replaced after {took_over:?}"
    );
    other.pause.set(false);
    assert_eq!(
        holder(&leases).await.as_deref(),
        Some(leader.election.identity())
    );
    drop(other_stop);

    // Shut down: released, no holder left.
    again_stop.send(true).unwrap();
    assert_eq!(
        again_run.await.unwrap().unwrap(),
        Outcome::Completed("finished")
    );
    assert_eq!(holder(&leases).await, None);

    // A leader whose work ignores shutdown: dropped after the grace, and the Lease released.
    // Meanwhile a standby that is asked to shut down stops waiting at once, never working.
    let stubborn = candidate_with_grace(&env, &token, "stubborn", Duration::from_secs(1)).await;
    let standby = candidate(&env, &token, "standby").await;
    let (stubborn_run, stubborn_stop) = stubborn.run_work(true);
    until(Duration::from_secs(5), &[&stubborn, &standby], || {
        stubborn.working()
    })
    .await;
    let (standby_run, standby_stop) = standby.run();
    tokio::time::sleep(RETRY_PERIOD * 3).await;
    standby_stop.send(true).unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(1), standby_run)
        .await
        .expect("a standby stops waiting at once")
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Outcome::ShutDown);
    assert!(!standby.working());
    let asked = Instant::now();
    stubborn_stop.send(true).unwrap();
    let outcome = stubborn_run.await.unwrap().unwrap();
    assert_eq!(outcome, Outcome::ShutDown);
    assert!(!stubborn.working(), "the work was dropped");
    assert!(
        asked.elapsed() >= Duration::from_secs(1),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(holder(&leases).await, None);

    // A namespace that does not exist is a refusal that names it, not a retry forever.
    let lost = LeaderElection::builder(env.admin_client().unwrap(), LEASE)
        .namespace("no-such-namespace")
        .build()
        .unwrap()
        .run(async {}, std::future::pending())
        .await;
    match lost {
        Err(e @ Error::Refused { verb: "create", .. }) => assert!(
            e.to_string()
                == "leader election cannot create the Lease no-such-namespace/example-operator-leader \
                    (the namespace does not exist)",
            "{e:?}"
        ),
        other => panic!("expected Error::Refused, got {other:?}"),
    }

    // A candidate without the Role is refused at once, with what to grant.
    let nobody = env.client_as("nobody", &["system:authenticated"]).unwrap();
    let refused = LeaderElection::builder(nobody, LEASE)
        .namespace(NS)
        .build()
        .unwrap()
        .run(async {}, std::future::pending())
        .await;
    match refused {
        Err(e @ Error::Refused { verb: "get", .. }) => assert!(
            format!("{e:?}").contains(
                "leader election cannot get the Lease example-operator-system/example-operator-leader \
                 (grant `get` on leases.coordination.k8s.io in its namespace: the deploy bundle's \
                 `leader-election = true` writes that Role): "
            ),
            "{e:?}"
        ),
        other => panic!("expected Error::Refused, got {other:?}"),
    }

    // The bundle's ServiceAccount was refused nothing, and used only get, create and update.
    let user = format!("system:serviceaccount:{NS}:{SA}");
    assert_eq!(
        env.forbidden_requests_of(&user).unwrap(),
        Vec::<String>::new()
    );
    let mut verbs: Vec<String> = env
        .audit_events()
        .unwrap()
        .iter()
        .filter(|e| {
            e["user"]["username"] == user.as_str() && e["objectRef"]["resource"] == "leases"
        })
        .map(|e| e["verb"].as_str().unwrap().to_string())
        .collect();
    verbs.sort();
    verbs.dedup();
    assert_eq!(verbs, ["create", "get", "update"]);
}
