//! Admission webhooks served by `kube_markers::webhook::server`, called by a real
//! kube-apiserver on loopback (`url` client config, the test CA as `caBundle`): an invalid
//! object is denied with the handler's message, the mutating default is applied, a dry-run
//! request reaches the `sideEffects: None` webhooks, and with the server stopped
//! `failurePolicy: Fail` rejects the request while `Ignore` lets it through.
//!
//! One API server for the whole file: the steps run in order in one test.

mod common;
use common::{assets, root};
use kube::Api;
use kube::api::PostParams;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use kube_markers::webhook::SideEffects;
use kube_markers::webhook::server::{Route, RunningServer, WebhookServer};
use kube_markers_envtest::{Envtest, TestCa, point_webhooks_at};
use mydatabase_operator::{MyDatabase, MyDatabaseSpec};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const NS: &str = "webhooks";
const VALIDATE: &str = "/validate-db-example-com-v1-mydatabase";
const MUTATE: &str = "/mutate-db-example-com-v1-mydatabase";

/// Dry-run requests the handlers saw.
static DRY_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Refuses an image without a tag (the CRD's pattern allows one).
async fn validate(request: AdmissionRequest<MyDatabase>) -> AdmissionResponse {
    if request.dry_run {
        DRY_RUNS.fetch_add(1, Ordering::SeqCst);
    }
    let response = AdmissionResponse::from(&request);
    match &request.object {
        Some(db) if !db.spec.image.contains(':') => response.deny(format!(
            "image {:?} has no tag: pin a version",
            db.spec.image
        )),
        _ => response,
    }
}

/// Defaults the storage class.
async fn default_storage_class(request: AdmissionRequest<MyDatabase>) -> AdmissionResponse {
    if request.dry_run {
        DRY_RUNS.fetch_add(1, Ordering::SeqCst);
    }
    let response = AdmissionResponse::from(&request);
    let Some(original) = request.object else {
        return response;
    };
    let mut mutated = original.clone();
    mutated
        .spec
        .storage_class
        .get_or_insert_with(|| "standard".into());
    kube_markers::webhook::patch_response(response, &original, &mutated)
        .unwrap_or_else(AdmissionResponse::invalid)
}

/// The webhook configurations as the generator writes them (a Service in the cluster), with
/// `failure_policy`.
fn configurations(failure_policy: &str) -> Vec<Value> {
    let webhook = |name: &str, path: &str| {
        json!({
            "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"name": "webhook-service", "namespace": "system", "path": path}},
            "failurePolicy": failure_policy,
            "name": name,
            "rules": [{
                "apiGroups": ["db.example.com"],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": ["mydatabases"],
            }],
            "sideEffects": "None",
            "timeoutSeconds": 5,
        })
    };
    vec![
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "mutating-webhook-configuration"},
            "webhooks": [webhook("mmydatabase.db.example.com", MUTATE)],
        }),
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "validating-webhook-configuration"},
            "webhooks": [webhook("vmydatabase.db.example.com", VALIDATE)],
        }),
    ]
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

/// The API server's refusal of a request, as (HTTP code, message).
fn refusal<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message.clone()),
        other => panic!("expected the API server to refuse, got {other:?}"),
    }
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
    WebhookServer::builder()
        .route(Route::typed(VALIDATE, validate).side_effects(SideEffects::None))
        .route(Route::typed(MUTATE, default_storage_class).side_effects(SideEffects::None))
        .cert_dir(dir)
        .bind(([127, 0, 0, 1], 0).into())
        .shutdown_timeout(Duration::from_secs(5))
        .build()
        .unwrap()
        .start()
        .await
        .unwrap()
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
    let mut docs = configurations("Fail");
    point_webhooks_at(&mut docs, &base_url, ca.pem());
    env.apply_objects(docs).await.unwrap();

    // An invalid object is denied with the handler's message (retried until the API server
    // has the configuration; dry runs, so that nothing is stored meanwhile).
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
    assert_eq!(
        message,
        r#"admission webhook "vmydatabase.db.example.com" denied the request: image "postgres" has no tag: pin a version"#
    );
    // A denial without a status code of its own is a Bad Request.
    assert_eq!(code, 400, "{message}");
    let (code, message) = refusal(
        dbs.create(&PostParams::default(), &database("no-tag", "postgres"))
            .await,
    );
    assert_eq!(code, 400);
    assert!(
        message.ends_with("image \"postgres\" has no tag: pin a version"),
        "{message}"
    );

    // The mutating default is applied, and stored.
    eventually("the mutating webhook is called", || async {
        let created = dbs
            .create(&dry_run, &database("defaulted", "postgres:17.2"))
            .await
            .unwrap();
        created.spec.storage_class.is_some().then_some(())
    })
    .await;
    let created = dbs
        .create(
            &PostParams::default(),
            &database("defaulted", "postgres:17.2"),
        )
        .await
        .unwrap();
    assert_eq!(created.spec.storage_class.as_deref(), Some("standard"));
    let stored = dbs.get("defaulted").await.unwrap();
    assert_eq!(stored.spec.storage_class.as_deref(), Some("standard"));
    // An explicit class is kept.
    let mut gold = database("gold", "postgres:17.2");
    gold.spec.storage_class = Some("gold".into());
    let created = dbs.create(&PostParams::default(), &gold).await.unwrap();
    assert_eq!(created.spec.storage_class.as_deref(), Some("gold"));

    // A dry-run request reaches both `sideEffects: None` webhooks: defaulted, validated, not
    // stored.
    let before = DRY_RUNS.load(Ordering::SeqCst);
    let dry = dbs
        .create(&dry_run, &database("dry", "postgres:17.2"))
        .await
        .unwrap();
    assert_eq!(dry.spec.storage_class.as_deref(), Some("standard"));
    assert_eq!(
        DRY_RUNS.load(Ordering::SeqCst),
        before + 2,
        "both handlers saw the dry run"
    );
    assert!(
        dbs.get_opt("dry").await.unwrap().is_none(),
        "a dry run stores nothing"
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

    // ... and with `Ignore` it goes through, unmutated and unvalidated.
    let mut docs = configurations("Ignore");
    point_webhooks_at(&mut docs, &base_url, ca.pem());
    env.apply_objects(docs).await.unwrap();
    let created = eventually("failurePolicy Ignore lets the request through", || async {
        dbs.create(&PostParams::default(), &database("while-down", "postgres"))
            .await
            .ok()
    })
    .await;
    assert_eq!(
        created.spec.storage_class, None,
        "the mutating webhook was not applied"
    );
    assert_eq!(
        created.spec.image, "postgres",
        "the validating webhook was not applied"
    );
}
