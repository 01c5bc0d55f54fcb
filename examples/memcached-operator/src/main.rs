//! Runs the Memcached operator against the cluster of the current kubeconfig, serving the
//! deploy bundle's `/healthz` and `/readyz` probes (`HEALTH_PROBE_PORT`, default 8081).

use kube_markers::health::{Health, probe_addr};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Ready once every permission is granted and the controller's cache has synced; the
    // conditions exist before the probes are served, so that none is missed.
    let health = Health::new();
    let preflight = health.condition("preflight");
    let cache = health.condition("memcacheds cache");
    let _probes = health.serve(probe_addr()?).await?;

    let client = kube::Client::try_default().await?;
    // Refuse to start without every permission the #[rbac] attributes declare.
    let report = kube_markers::preflight(&client).await?;
    if !report.is_complete() {
        eprintln!("{report}");
        std::process::exit(1);
    }
    preflight.ready();
    memcached_operator::run(client, cache).await;
    Ok(())
}
