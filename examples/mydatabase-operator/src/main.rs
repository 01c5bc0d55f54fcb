//! Runs the MyDatabase operator against the cluster of the current kubeconfig, serving the
//! deploy bundle's `/healthz` and `/readyz` probes (`HEALTH_PROBE_PORT`, default 8081). Built
//! with the feature `webhook-server`, it also serves its admission webhooks on `0.0.0.0:9443`
//! with the certificate cert-manager mounts at `/tmp/k8s-webhook-server/serving-certs`, until
//! the operator stops (SIGTERM or Ctrl-C).

use kube_markers::health::{Health, probe_addr};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Ready once every permission is granted, the webhooks are served and the controller's
    // cache has synced; the conditions exist before the probes are served.
    let health = Health::new();
    let preflight = health.condition("preflight");
    #[cfg(feature = "webhook-server")]
    let serving_webhooks = health.condition("webhook server");
    let cache = health.condition("mydatabases cache");
    let _probes = health.serve(probe_addr()?).await?;

    let client = kube::Client::try_default().await?;
    // Refuse to start without every permission the #[rbac] attributes declare.
    let report = kube_markers::preflight(&client).await?;
    if !report.is_complete() {
        eprintln!("{report}");
        std::process::exit(1);
    }
    preflight.ready();
    #[cfg(feature = "webhook-server")]
    let webhooks = kube_markers::webhook::server::WebhookServer::builder()
        .registered()
        .build()?
        .start()
        .await?;
    #[cfg(feature = "webhook-server")]
    serving_webhooks.ready();
    mydatabase_operator::run(client, cache).await;
    #[cfg(feature = "webhook-server")]
    webhooks.shutdown().await;
    Ok(())
}
