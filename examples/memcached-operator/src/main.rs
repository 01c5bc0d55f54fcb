//! Runs the Memcached operator against the cluster of the current kubeconfig.

#[tokio::main]
async fn main() -> Result<(), kube::Error> {
    let client = kube::Client::try_default().await?;
    memcached_operator::run(client).await;
    Ok(())
}
