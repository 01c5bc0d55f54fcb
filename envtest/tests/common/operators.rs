//! Running the example operators against the environment, and what they must achieve.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Service};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use kube_markers::health::{Health, HealthServer};
use memcached_operator::{Memcached, MemcachedSpec};
use mydatabase_operator::{MyDatabase, MyDatabaseSpec};
use serde_json::json;
use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Where the tests create the operators' objects.
pub const NS: &str = "e2e";

/// Both operators, acting with `client`, and their probes as the examples' binaries serve
/// them (on loopback).
pub struct Running {
    /// The operators' tasks.
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
    /// `/healthz` and `/readyz`: ready once both controllers' caches have synced.
    pub probes: HealthServer,
}

/// Both operators, acting with `client`; `/readyz` is checked to be 503 before they start.
pub async fn start(client: Client) -> Running {
    let health = Health::new();
    let memcacheds = health.condition("memcacheds cache");
    let databases = health.condition("mydatabases cache");
    let probes = health.serve(([127, 0, 0, 1], 0).into()).await.unwrap();
    let (status, body) = get(probes.local_addr(), "/readyz").await;
    assert_eq!(
        (status, body.as_str()),
        (
            503,
            "[-]memcacheds cache: not ready yet\n[-]mydatabases cache: not ready yet\n\
             readyz check failed\n"
        )
    );
    let tasks = vec![
        tokio::spawn(memcached_operator::run(client.clone(), memcacheds)),
        tokio::spawn(mydatabase_operator::run(client, databases)),
    ];
    Running { tasks, probes }
}

/// `GET path` as the kubelet's prober sends it: (status, body).
pub async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: kube-probe/1.37\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head[9..12].parse().unwrap(), body.to_string())
}

/// `/readyz` turns 200 once both controllers' caches have synced, and says so.
pub async fn become_ready(running: &Running) {
    let addr = running.probes.local_addr();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = get(addr, "/readyz").await;
        if status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "/readyz still {status} after 30 s:\n{body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        get(addr, "/readyz?verbose").await,
        (
            200,
            "[+]memcacheds cache ok\n[+]mydatabases cache ok\nreadyz check passed\n".to_string()
        )
    );
    assert_eq!(get(addr, "/healthz").await, (200, "ok\n".to_string()));
}

/// A Memcached and a MyDatabase in [`NS`].
pub async fn create_objects(admin: &Client) {
    let mcs: Api<Memcached> = Api::namespaced(admin.clone(), NS);
    mcs.create(
        &PostParams::default(),
        &Memcached::new("mc", MemcachedSpec { size: 2 }),
    )
    .await
    .unwrap();
    let dbs: Api<MyDatabase> = Api::namespaced(admin.clone(), NS);
    let spec = MyDatabaseSpec {
        replicas: 2,
        image: "postgres:17.2".into(),
        storage_class: None,
    };
    dbs.create(&PostParams::default(), &MyDatabase::new("db", spec))
        .await
        .unwrap();
}

/// Polls `check` until it holds, failing after `timeout`.
pub async fn eventually<F, Fut>(what: &str, timeout: Duration, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + timeout;
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn replicas(api: &Api<Deployment>, name: &str) -> Option<i32> {
    api.get_opt(name)
        .await
        .ok()
        .flatten()
        .and_then(|d| d.spec.replicas)
}

/// The operators (already running) do all their work on the objects of [`create_objects`]:
/// Deployments created and scaled, Service, tenant directory entry, status conditions,
/// finalizers added and, on deletion, removed.
pub async fn converge(admin: &Client) {
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), NS);
    let mcs: Api<Memcached> = Api::namespaced(admin.clone(), NS);
    let dbs: Api<MyDatabase> = Api::namespaced(admin.clone(), NS);
    let services: Api<Service> = Api::namespaced(admin.clone(), NS);
    let directory: Api<ConfigMap> =
        Api::namespaced(admin.clone(), mydatabase_operator::TENANT_NAMESPACE);
    let timeout = Duration::from_secs(60);

    // Memcached: a Deployment of `size` replicas, the finalizer, the Available condition.
    eventually("the memcached Deployment", timeout, || async {
        replicas(&deployments, "mc").await == Some(2)
    })
    .await;
    eventually("the memcached finalizer and condition", timeout, || async {
        let mc = mcs.get("mc").await.unwrap();
        mc.finalizers()
            .contains(&memcached_operator::FINALIZER.to_string())
            && mc
                .status
                .is_some_and(|s| s.conditions.iter().any(|c| c.type_ == "Available"))
    })
    .await;
    // Scaling follows the spec.
    mcs.patch(
        "mc",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"size": 3}})),
    )
    .await
    .unwrap();
    eventually("the memcached Deployment to scale", timeout, || async {
        replicas(&deployments, "mc").await == Some(3)
    })
    .await;

    // MyDatabase: Deployment, Service, the tenant directory entry, the Ready condition.
    eventually("the database Deployment", timeout, || async {
        replicas(&deployments, "db").await == Some(2)
    })
    .await;
    eventually("the database Service", timeout, || async {
        services.get_opt("db").await.unwrap().is_some()
    })
    .await;
    eventually("the directory entry", timeout, || async {
        directory
            .get_opt(mydatabase_operator::DIRECTORY)
            .await
            .unwrap()
            .and_then(|cm| cm.data)
            .is_some_and(|d| d.get("e2e.db").map(String::as_str) == Some("db.e2e.svc:5432"))
    })
    .await;
    eventually("the database status", timeout, || async {
        dbs.get("db")
            .await
            .unwrap()
            .status
            .is_some_and(|s| s.conditions.iter().any(|c| c.type_ == "Ready"))
    })
    .await;

    // Deletion passes through the finalizers, which the operators remove.
    mcs.delete("mc", &DeleteParams::default()).await.unwrap();
    dbs.delete("db", &DeleteParams::default()).await.unwrap();
    eventually("the Memcached to be gone", timeout, || async {
        mcs.get_opt("mc").await.unwrap().is_none()
    })
    .await;
    eventually("the MyDatabase to be gone", timeout, || async {
        dbs.get_opt("db").await.unwrap().is_none()
    })
    .await;
    eventually("the directory entry to be removed", timeout, || async {
        directory
            .get_opt(mydatabase_operator::DIRECTORY)
            .await
            .unwrap()
            .is_some_and(|cm| cm.data.unwrap_or_default().is_empty())
    })
    .await;
}
