//! End to end, against a real kube-apiserver: the generated CRDs are accepted and enforce
//! their schemas and the generated roles are accepted. (The example operators converging with
//! exactly the generated roles, each permission of them needed, is `bundle.rs`.)

mod common;
mod fixtures;
use common::operators::eventually;
use common::{assets, patch_spec, refusal, root};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::ResourceExt;
use kube::api::{Api, DynamicObject, PostParams};
use kube::core::ApiResource;
use kube::{Client, Resource};
use kube_markers::webhook::server::WebhookServer;
use kube_markers_envtest::{Envtest, TestCa, parse_manifests, point_webhooks_at};
use mydatabase_operator::v1alpha1::STORAGE_CLASS_ANNOTATION;
use mydatabase_operator::{MyDatabase, v1alpha1};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

async fn start() -> Envtest {
    Envtest::builder()
        .assets(assets())
        .operator("operators", "example-operator")
        // Setting blockOwnerDeletion needs `update` on the owner's finalizers, as on OpenShift.
        .apiserver_arg("--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"))
}

fn api_for<K: Resource<DynamicType = ()>>(client: &Client, ns: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), ns, &ApiResource::erase::<K>(&()))
}

fn object(kind: &str, api_version: &str, name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(
        json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec}),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_crds_are_established_and_enforce_their_schemas() {
    let env = start().await;
    let applied = env.apply_dir(root().join("rbac-out/crd")).await.unwrap();
    assert_eq!(applied.len(), 2, "{applied:?}");
    env.ensure_namespace("e2e").await.unwrap();
    let admin = env.admin_client().unwrap();
    let dbs = api_for::<mydatabase_operator::MyDatabase>(&admin, "e2e");
    let new = |name: &str, spec: Value| object("MyDatabase", "db.example.com/v1", name, spec);

    // The seeds' three invalid objects, each refused with 422 naming the field.
    for (spec, field) in [
        (json!({"replicas": "3", "image": "nginx"}), "spec.replicas"),
        (json!({"replicas": 15, "image": "nginx"}), "spec.replicas"),
        (
            json!({"replicas": 1, "image": "nginx:latest!"}),
            "spec.image",
        ),
    ] {
        let (code, message) = refusal(
            dbs.create(&PostParams::default(), &new("bad", spec.clone()))
                .await,
        );
        assert_eq!(code, 422, "{spec}: {message}");
        assert!(message.contains(field), "{spec}: {message}");
    }
    // The cross-field CEL rule.
    let (code, message) = refusal(
        dbs.create(
            &PostParams::default(),
            &new("latest", json!({"replicas": 3, "image": "nginx:latest"})),
        )
        .await,
    );
    assert_eq!(code, 422);
    assert!(
        message.contains("spec.image") && message.contains("must pin its image"),
        "{message}"
    );

    // A valid object round-trips unchanged: nothing pruned.
    let spec = json!({"replicas": 3, "image": "postgres:17.2", "storageClass": "fast"});
    dbs.create(&PostParams::default(), &new("db", spec.clone()))
        .await
        .unwrap();
    let stored = dbs.get("db").await.unwrap();
    assert_eq!(stored.data["spec"], spec);

    // Transition rules: the storage class is fixed once set.
    let (code, message) = refusal(patch_spec(&dbs, "db", json!({"storageClass": "slow"})).await);
    assert_eq!(code, 422);
    assert!(message.contains("field is immutable"), "{message}");
    let (code, message) = refusal(patch_spec(&dbs, "db", json!({"storageClass": null})).await);
    assert_eq!(code, 422);
    assert!(
        message.contains("field storageClass is immutable once set"),
        "{message}"
    );
    patch_spec(&dbs, "db", json!({"replicas": 4}))
        .await
        .unwrap();

    // The deprecated version is served through the example's conversion webhook, which no
    // one serves here: a write at it fails naming the webhook
    // (`the_example_converges_objects_written_at_v1alpha1` serves it).
    let old = Api::<DynamicObject>::namespaced_with(
        admin.clone(),
        "e2e",
        &ApiResource::erase::<mydatabase_operator::v1alpha1::MyDatabase>(&()),
    );
    let (code, message) = refusal(
        old.create(
            &PostParams::default(),
            &object(
                "MyDatabase",
                "db.example.com/v1alpha1",
                "old",
                json!({"size": 2, "image": "pg", "version": "17"}),
            ),
        )
        .await,
    );
    assert_eq!(code, 500, "{message}");
    assert!(message.contains("conversion webhook"), "{message}");

    // Memcached: 1 to 3 pods.
    let mcs = api_for::<memcached_operator::Memcached>(&admin, "e2e");
    let (code, message) = refusal(
        mcs.create(
            &PostParams::default(),
            &object(
                "Memcached",
                "cache.example.com/v1alpha1",
                "big",
                json!({"size": 4}),
            ),
        )
        .await,
    );
    assert_eq!(code, 422);
    assert!(message.contains("spec.size"), "{message}");
}

/// The MyDatabase example as its binary runs: its webhook server (`registered()`) serves the
/// v1alpha1 <-> v1 conversion and writes its CA into the generated CRD's `caBundle`, acting
/// with exactly the generated `conversion_ca_bundle_role.yaml`; the controller, which watches
/// v1, converges an object written at v1alpha1, and the object reads back at v1alpha1 as it
/// was written, the operator's status converted with it; and its validating webhook keeps a
/// v1alpha1 client from changing the storage class.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_converges_objects_written_at_v1alpha1() {
    let env = start().await;
    env.ensure_namespace("e2e").await.unwrap();
    env.ensure_namespace(mydatabase_operator::TENANT_NAMESPACE)
        .await
        .unwrap();
    let admin = env.admin_client().unwrap();

    // The generated role for the CA bundle, bound to the user the server acts as.
    let patcher = "mydatabase-webhook-server";
    let mut role = parse_manifests(
        &std::fs::read_to_string(root().join("rbac-out/conversion_ca_bundle_role.yaml")).unwrap(),
    )
    .unwrap();
    let role_name = role[0]["metadata"]["name"].clone();
    role.push(json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "conversion-ca-bundle"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role_name},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": patcher}],
    }));
    env.apply_objects(role).await.unwrap();

    // The server, as the example's main starts it, on loopback with a test certificate.
    let ca = TestCa::new("mydatabase webhook CA").unwrap();
    let certs = tempfile::tempdir().unwrap();
    ca.issue("127.0.0.1")
        .unwrap()
        .write_to(certs.path())
        .unwrap();
    std::fs::write(certs.path().join("ca.crt"), ca.pem()).unwrap();
    let server = WebhookServer::builder()
        .registered()
        .cert_dir(certs.path())
        .bind(([127, 0, 0, 1], 0).into())
        .shutdown_timeout(Duration::from_secs(5))
        .patch_conversion_ca_bundle(env.client_as(patcher, &[]).unwrap())
        .conversion_ca_resync(Duration::from_secs(1))
        .build()
        .unwrap()
        .start()
        .await
        .unwrap();

    // The generated CRD, its webhook Service replaced by the server's loopback URL.
    let mut crd = parse_manifests(
        &std::fs::read_to_string(root().join("rbac-out/crd/db.example.com_mydatabases.yaml"))
            .unwrap(),
    )
    .unwrap()
    .remove(0);
    let client_config = &mut crd["spec"]["conversion"]["webhook"]["clientConfig"];
    assert_eq!(client_config["service"]["path"], "/convert");
    *client_config = json!({"url": format!("https://{}/convert", server.local_addr())});
    env.apply_objects(vec![crd]).await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(admin.clone());
    let ca_pem = ca.pem().replace("\r\n", "\n").into_bytes();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let crd = crds.get("mydatabases.db.example.com").await.unwrap();
        let bundle = crd
            .spec
            .conversion
            .and_then(|c| c.webhook?.client_config?.ca_bundle);
        if bundle.is_some_and(|b| b.0 == ca_pem) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not write the CRD's caBundle within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // The admission webhooks too, served by the same server: the API server sends them every
    // request at v1, converting a v1alpha1 one (matchPolicy Equivalent).
    let mut configurations = parse_manifests(
        &std::fs::read_to_string(root().join("rbac-out/webhook/manifests.yaml")).unwrap(),
    )
    .unwrap();
    point_webhooks_at(
        &mut configurations,
        &format!("https://{}", server.local_addr()),
        ca.pem(),
    );
    env.apply_objects(configurations).await.unwrap();

    // Written at v1alpha1, as an old client writes it.
    let old: Api<v1alpha1::MyDatabase> = Api::namespaced(admin.clone(), "e2e");
    let mut written = v1alpha1::MyDatabase::new(
        "old",
        v1alpha1::MyDatabaseSpec {
            size: 2,
            image: "postgres".into(),
            version: Some("17.2".into()),
        },
    );
    written
        .annotations_mut()
        .insert(STORAGE_CLASS_ANNOTATION.into(), "fast".into());
    old.create(&PostParams::default(), &written).await.unwrap();
    let current: Api<MyDatabase> = Api::namespaced(admin.clone(), "e2e");
    let stored = current.get("old").await.unwrap();
    assert_eq!(stored.spec.replicas, 2);
    assert_eq!(stored.spec.image, "postgres:17.2");
    assert_eq!(stored.spec.storage_class.as_deref(), Some("fast"));
    assert!(
        !stored.annotations().contains_key(STORAGE_CLASS_ANNOTATION),
        "{:?}",
        stored.annotations()
    );

    // The controller converges it: its Deployment from the converted spec, its status.
    let health = kube_markers::health::Health::new();
    let controller = tokio::spawn(mydatabase_operator::run(
        admin.clone(),
        health.condition("mydatabases cache"),
    ));
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), "e2e");
    // The Deployment's replicas and image, once it exists.
    let deployed = || async {
        let spec = deployments.get_opt("old").await.ok().flatten()?.spec;
        let image = spec.template.spec.unwrap_or_default().containers[0]
            .image
            .clone();
        Some((spec.replicas, image))
    };
    let pg = Some("postgres:17.2".to_string());
    eventually(
        "the Deployment of the v1alpha1 object",
        Duration::from_secs(60),
        || async { deployed().await == Some((Some(2), pg.clone())) },
    )
    .await;
    eventually(
        "the status, read at v1alpha1",
        Duration::from_secs(60),
        || async {
            old.get("old").await.ok().is_some_and(|db| {
                db.status.is_some_and(|s| {
                    s.conditions
                        .iter()
                        .any(|c| c.type_ == "Ready" && c.reason == "ReplicasStarting")
                })
            })
        },
    )
    .await;

    // Read back at v1alpha1 as it was written: the finalizer the operator added, nothing lost.
    let read = old.get("old").await.unwrap();
    assert_eq!(read.spec, written.spec);
    assert_eq!(read.annotations(), written.annotations());
    assert_eq!(read.finalizers(), [mydatabase_operator::FINALIZER]);

    // An update at v1alpha1 (the old client scales it) reaches the Deployment.
    old.patch(
        "old",
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Merge(json!({"spec": {"size": 3}})),
    )
    .await
    .unwrap();
    eventually(
        "the Deployment scaled from v1alpha1",
        Duration::from_secs(60),
        || async { deployed().await == Some((Some(3), pg.clone())) },
    )
    .await;
    let storage_class = || async { current.get("old").await.unwrap().spec.storage_class };
    assert_eq!(storage_class().await.as_deref(), Some("fast"));

    // The storage class is fixed once set, for a v1alpha1 client too, which would change it
    // through the annotation: the validating webhook sees the update converted, with the old
    // object. (The CRD's transition rule is v1's; the API server checks a request against its
    // own version's schema.)
    let (_, message) = refusal(
        old.patch(
            "old",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(
                json!({"metadata": {"annotations": {STORAGE_CLASS_ANNOTATION: "slow"}}}),
            ),
        )
        .await,
    );
    assert!(
        message.contains("spec.storageClass is immutable once set: fast -> slow"),
        "{message}"
    );
    assert_eq!(storage_class().await.as_deref(), Some("fast"));

    controller.abort();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_accepts_every_generated_file() {
    let env = start().await;
    env.ensure_namespace("db-tenants").await.unwrap();
    let kubeconfig = env.admin_kubeconfig().unwrap();
    // CRDs must exist before objects of their kinds; here every file is RBAC or a CRD.
    let mut files = vec![root().join("rbac-out/role.yaml")];
    // The YAML files only: the generator's ledger lives beside them.
    let mut crds: Vec<PathBuf> = std::fs::read_dir(root().join("rbac-out/crd"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    crds.sort();
    files.extend(crds);
    for file in files {
        let out = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["apply", "--server-side", "--dry-run=server", "-f"])
            .arg(&file)
            .output()
            .expect("run kubectl");
        assert!(
            out.status.success(),
            "kubectl refused {}:\n{}{}",
            file.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_environments_run_side_by_side_and_clean_up() {
    let (a, b) = (start().await, start().await);
    assert_ne!(a.url(), b.url());
    let dir = a.dir().to_path_buf();
    let version = a.admin_client().unwrap().apiserver_version().await.unwrap();
    assert_eq!(version.minor, "37");
    b.admin_client().unwrap().apiserver_version().await.unwrap();
    drop(a);
    assert!(!dir.exists(), "the working directory is removed on drop");
}

/// What the generator makes of one registered type of this test binary: its CRD, or the
/// problems it refuses it for.
fn generated_crd(type_name: &str) -> Result<Value, Vec<kube_markers::crd::CrdProblem>> {
    let entries: Vec<_> = kube_markers::registry::crd_entries()
        .into_iter()
        .filter(|e| e.type_name == type_name)
        .collect();
    assert_eq!(entries.len(), 1, "{type_name} is registered once");
    kube_markers::codegen::generate_crds(&entries).map(|crds| crds[0].to_value())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escaped_property_names_in_generated_rules_are_accepted_and_enforced() {
    let env = start().await;
    let crd = generated_crd("Escaped").unwrap_or_else(|e| panic!("{e:#?}"));
    // Established: every rule compiled, with the names escaped as the API server escapes them.
    env.apply_objects(vec![crd]).await.unwrap();
    env.ensure_namespace("escaping").await.unwrap();
    let admin = env.admin_client().unwrap();
    let api = api_for::<fixtures::Escaped>(&admin, "escaping");
    let new = |name: &str, spec: Value| object("Escaped", "escaping.example.com/v1", name, spec);
    let create = |name: &'static str, spec: Value| {
        let api = api.clone();
        let object = new(name, spec);
        async move { api.create(&PostParams::default(), &object).await }
    };

    // The one-of rules.
    for (spec, message) in [
        (
            json!({"in": "a", "s3-bucket": "b"}),
            "exactly one of the fields in [in s3-bucket] must be set",
        ),
        (
            json!({}),
            "exactly one of the fields in [in s3-bucket] must be set",
        ),
        (
            json!({"in": "a", "a.b": "v", "x__y": "z"}),
            "at most one of the fields in [a.b x__y] may be set",
        ),
    ] {
        let (code, refused) = refusal(create("bad", spec.clone()).await);
        assert_eq!(code, 422, "{spec}: {refused}");
        assert!(refused.contains(message), "{spec}: {refused}");
    }
    create("bucket", json!({"s3-bucket": "b", "a.b": "v"}))
        .await
        .unwrap();
    create("plain", json!({"in": "a", "x__y": "z"}))
        .await
        .unwrap();

    // The immutable fields, and the parent rules of the optional ones.
    for (name, spec, message) in [
        ("bucket", json!({"s3-bucket": "c"}), "field is immutable"),
        (
            "bucket",
            json!({"a.b": null}),
            "field a.b is immutable once set",
        ),
        (
            "plain",
            json!({"x__y": null}),
            "field x__y is immutable once set",
        ),
        ("plain", json!({"x__y": "other"}), "field is immutable"),
    ] {
        let (code, refused) = refusal(patch_spec(&api, name, spec.clone()).await);
        assert_eq!(code, 422, "{name} {spec}: {refused}");
        assert!(refused.contains(message), "{name} {spec}: {refused}");
    }
    // What is not immutable changes.
    patch_spec(&api, "plain", json!({"in": "b"})).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_refuses_the_defaults_the_generator_refuses() {
    let problems = generated_crd("BadDefaults").unwrap_err();
    let fields = ["name", "labels", "host", "count"];
    for field in fields {
        assert!(
            problems.iter().any(|p| matches!(p,
                kube_markers::crd::CrdProblem::Schema { problem, .. }
                    if problem.path.as_deref() == Some(&*format!("spec.{field}"))
                        && problem.message.starts_with("the default"))),
            "{field}: {problems:#?}"
        );
    }
    assert_eq!(problems.len(), fields.len(), "{problems:#?}");

    // The same schema, as kube-derive builds it with the markers applied: refused for each.
    let env = start().await;
    let crd =
        serde_json::to_value(<fixtures::BadDefaults as kube::CustomResourceExt>::crd()).unwrap();
    let refused = env.apply_objects(vec![crd]).await.unwrap_err().to_string();
    for field in fields {
        assert!(
            refused.contains(&format!("properties[{field}].default")),
            "{field}: {refused}"
        );
    }
}
