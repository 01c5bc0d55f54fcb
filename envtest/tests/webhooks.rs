//! The MyDatabase operator's admission webhooks, served by `kube_markers::webhook::server` from
//! the registry (`registered()`, as the operator's `main` does) and configured by the
//! GENERATED `rbac-out/webhook/manifests.yaml`, its `clientConfig` pointed at the server on
//! loopback (`url`, the test CA as `caBundle`), called by a real kube-apiserver: an invalid
//! object is denied with the handler's message, the mutating default is applied, a dry-run
//! request reaches the `sideEffects: None` webhooks, and with the server stopped
//! `failurePolicy: Fail` rejects the request while `Ignore` lets it through. That the
//! generated rules send these requests to these paths is what proves them.
//!
//! One API server for the whole file: the steps run in order in one test.

mod common;
use common::{assets, refusal, root};
use kube::api::PostParams;
use kube::{Api, ResourceExt};
use kube_markers::webhook::server::{RunningServer, WebhookServer};
use kube_markers_envtest::{Envtest, TestCa, parse_manifests, point_webhooks_at};
use mydatabase_operator::webhooks::VERSION_LABEL;
use mydatabase_operator::{MyDatabase, MyDatabaseSpec};
use serde_json::Value;
use std::time::{Duration, Instant};

const NS: &str = "webhooks";

/// The generated webhook configurations, with every `failurePolicy` set to `failure_policy`,
/// pointed at the server at `base_url`.
fn configurations(failure_policy: &str, base_url: &str, ca: &TestCa) -> Vec<Value> {
    let path = root().join("rbac-out/webhook/manifests.yaml");
    let mut docs = parse_manifests(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(docs.len(), 2, "a mutating and a validating configuration");
    for doc in &mut docs {
        for webhook in doc["webhooks"].as_array_mut().unwrap() {
            assert_eq!(webhook["failurePolicy"], "Fail", "as generated");
            webhook["failurePolicy"] = failure_policy.into();
        }
    }
    point_webhooks_at(&mut docs, base_url, ca.pem());
    docs
}

fn database(name: &str, image: &str) -> MyDatabase {
    MyDatabase::new(
        name,
        MyDatabaseSpec {
            replicas: 1,
            image: image.into(),
            storage_class: None,
        },
    )
}

/// Retries `attempt` until it returns `Some`: the API server picks up new webhook
/// configurations asynchronously.
async fn eventually<T, Fut: Future<Output = Option<T>>>(
    what: &str,
    mut attempt: impl FnMut() -> Fut,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(value) = attempt().await {
            return value;
        }
        assert!(Instant::now() < deadline, "{what}: not within 30 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn serve(ca: &TestCa, dir: &std::path::Path) -> RunningServer {
    ca.issue("webhook-service").unwrap().write_to(dir).unwrap();
    let server = WebhookServer::builder()
        .registered()
        .cert_dir(dir)
        .bind(([127, 0, 0, 1], 0).into())
        .shutdown_timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    assert_eq!(
        server.paths(),
        [
            // The example's v1alpha1 <-> v1 conversion.
            "/convert",
            "/mutate-db-example-com-v1-mydatabase",
            "/validate-db-example-com-v1-mydatabase"
        ]
    );
    server.start().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_calls_the_served_webhooks() {
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    env.apply_dir(root().join("rbac-out/crd")).await.unwrap();
    env.ensure_namespace(NS).await.unwrap();
    let dbs: Api<MyDatabase> = Api::namespaced(env.admin_client().unwrap(), NS);

    let ca = TestCa::new("webhook test CA").unwrap();
    let certs = tempfile::tempdir().unwrap();
    let server = serve(&ca, certs.path()).await;
    let base_url = format!("https://{}", server.local_addr());
    env.apply_objects(configurations("Fail", &base_url, &ca))
        .await
        .unwrap();
    let refused_message = r#"admission webhook "vmydatabase.db.example.com" denied the request: spec.image "postgres" has no tag: pin the database's version, e.g. "postgres:16""#;

    // An invalid object is denied with the handler's message (retried until the API server
    // has the configuration). Dry runs reach the `sideEffects: None` webhooks: that is how
    // the wait stores nothing meanwhile.
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let (code, message) = eventually("the validating webhook is called", || async {
        match dbs.create(&dry_run, &database("no-tag", "postgres")).await {
            Ok(_) => None,
            refused => Some(refusal(refused)),
        }
    })
    .await;
    assert_eq!(message, refused_message);
    // A denial without a status code of its own is a Bad Request.
    assert_eq!(code, 400, "{message}");
    let refused = dbs
        .create(&PostParams::default(), &database("no-tag", "postgres"))
        .await;
    assert_eq!(refusal(refused), (400, refused_message.to_string()));
    assert!(dbs.get_opt("no-tag").await.unwrap().is_none());

    // The mutating default is applied (in a dry run's answer too), and stored.
    eventually("the mutating webhook is called", || async {
        let dry = dbs
            .create(&dry_run, &database("labelled", "postgres:17.2"))
            .await
            .unwrap();
        dry.labels().contains_key(VERSION_LABEL).then_some(())
    })
    .await;
    assert!(
        dbs.get_opt("labelled").await.unwrap().is_none(),
        "a dry run stores nothing"
    );
    let created = dbs
        .create(
            &PostParams::default(),
            &database("labelled", "postgres:17.2"),
        )
        .await
        .unwrap();
    assert_eq!(
        created.labels().get(VERSION_LABEL).map(String::as_str),
        Some("17.2")
    );
    let stored = dbs.get("labelled").await.unwrap();
    assert_eq!(
        stored.labels().get(VERSION_LABEL).map(String::as_str),
        Some("17.2")
    );
    // A label set by hand is kept.
    let mut pinned = database("pinned", "postgres:17.2");
    pinned
        .labels_mut()
        .insert(VERSION_LABEL.into(), "seventeen".into());
    let created = dbs.create(&PostParams::default(), &pinned).await.unwrap();
    assert_eq!(
        created.labels().get(VERSION_LABEL).map(String::as_str),
        Some("seventeen")
    );

    // The server stops: with `failurePolicy: Fail` the API server rejects the request...
    server.shutdown().await;
    let (code, message) = refusal(
        dbs.create(
            &PostParams::default(),
            &database("while-down", "postgres:17.2"),
        )
        .await,
    );
    assert_eq!(code, 500, "{message}");
    assert!(
        message.contains("failed calling webhook \"mmydatabase.db.example.com\""),
        "{message}"
    );
    assert!(dbs.get_opt("while-down").await.unwrap().is_none());

    // ... and with `Ignore` it goes through, neither labelled nor validated.
    env.apply_objects(configurations("Ignore", &base_url, &ca))
        .await
        .unwrap();
    let created = eventually("failurePolicy Ignore lets the request through", || async {
        dbs.create(&PostParams::default(), &database("while-down", "postgres"))
            .await
            .ok()
    })
    .await;
    assert_eq!(created.spec.image, "postgres", "not validated");
    assert!(
        !created.labels().contains_key(VERSION_LABEL),
        "not labelled"
    );
}
