//! Runs the MyDatabase operator against the cluster of the current kubeconfig.

#[tokio::main]
async fn main() -> Result<(), kube::Error> {
    let client = kube::Client::try_default().await?;
    mydatabase_operator::run(client).await;
    Ok(())
}
