//! Runs the MyDatabase operator against the cluster of the current kubeconfig, serving the
//! deploy bundle's `/healthz` and `/readyz` probes (`HEALTH_PROBE_PORT`, default 8081). With
//! the feature `webhook-server` (on by default), it also serves its admission webhooks and the
//! v1alpha1 <-> v1 conversion on `0.0.0.0:9443` with the certificate mounted at
//! `/tmp/k8s-webhook-server/serving-certs`, and keeps that certificate's CA in the CRD's
//! conversion `caBundle`, until the operator stops (SIGTERM or Ctrl-C).

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
        .patch_conversion_ca_bundle(client.clone())
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
