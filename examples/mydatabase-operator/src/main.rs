//! Runs the MyDatabase operator against the cluster of the current kubeconfig. Built with the
//! feature `webhook-server`, it also serves its admission webhooks on `0.0.0.0:9443` with the
//! certificate cert-manager mounts at `/tmp/k8s-webhook-server/serving-certs`, until the
//! operator stops (SIGTERM or Ctrl-C).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = kube::Client::try_default().await?;
    // Refuse to start without every permission the #[rbac] attributes declare.
    let preflight = kube_markers::preflight(&client).await?;
    if !preflight.is_complete() {
        eprintln!("{preflight}");
        std::process::exit(1);
    }
    #[cfg(feature = "webhook-server")]
    let webhooks = kube_markers::webhook::server::WebhookServer::builder()
        .registered()
        .build()?
        .start()
        .await?;
    mydatabase_operator::run(client).await;
    #[cfg(feature = "webhook-server")]
    webhooks.shutdown().await;
    Ok(())
}
