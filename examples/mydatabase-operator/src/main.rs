//! Runs the MyDatabase operator against the cluster of the current kubeconfig.

#[tokio::main]
async fn main() -> Result<(), kube::Error> {
    let client = kube::Client::try_default().await?;
    // Refuse to start without every permission the #[rbac] attributes declare.
    let preflight = kube_markers::preflight(&client).await?;
    if !preflight.is_complete() {
        eprintln!("{preflight}");
        std::process::exit(1);
    }
    mydatabase_operator::run(client).await;
    Ok(())
}
