//! CRD versions that evolve, on a real API server: the CRD the generator gives
//! `spec.conversion` is accepted; the bundle that wires it renders with `kubectl kustomize`
//! (an overlay's `namespace:` and `namePrefix` follow into the CRD's `clientConfig.service`)
//! and applies server-side; and storage migration lets a CRD drop the version it moved away
//! from, which the API server refuses before it, also after an interrupted run.

mod common;

use common::bundle::{kustomize, named, of_kind};
use common::{assets, refusal};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResource;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube_markers::codegen::bundle::{self, Identity, Input};
use kube_markers::codegen::{GeneratedCrd, generate_crds, generate_crds_with_conversions};
use kube_markers::conversion::Migration;
use kube_markers::registry::{ConversionEntry, CrdEntry, Source, crd_entries};
use kube_markers_envtest::Envtest;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

mod v1 {
    use super::*;

    /// v1 of a kind whose v2 renames `size`: it converts.
    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "conv.example.com",
        version = "v1",
        kind = "Widget",
        namespaced
    )]
    pub struct WidgetSpec {
        pub size: i32,
    }

    /// v1 of a kind whose versions are the same: strategy `None`, migrated.
    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "conv.example.com",
        version = "v1",
        kind = "Gadget",
        namespaced
    )]
    pub struct GadgetSpec {
        pub size: i32,
    }
}

mod v2 {
    use super::*;

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "conv.example.com",
        version = "v2",
        kind = "Widget",
        root = "WidgetV2",
        namespaced
    )]
    pub struct WidgetSpec {
        pub replicas: i32,
    }

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "conv.example.com",
        version = "v2",
        kind = "Gadget",
        root = "GadgetV2",
        namespaced
    )]
    pub struct GadgetSpec {
        pub size: i32,
    }
}

fn unused(object: Value) -> Result<Value, String> {
    Ok(object)
}

/// What `#[kube_markers::conversion]` registers for Widget v1 ⇄ v2 (the functions are not
/// called here: no conversion server runs in these tests).
fn widget_conversion() -> ConversionEntry {
    use kube::CustomResourceExt;
    ConversionEntry::__new(
        v1::Widget::crd,
        v2::WidgetV2::crd,
        unused,
        unused,
        "v1::Widget",
        "v2::WidgetV2",
        Source::__new(file!(), line!(), 1, module_path!(), "impl"),
    )
}

fn entries(types: &[&str]) -> Vec<&'static CrdEntry> {
    crd_entries()
        .into_iter()
        .filter(|e| types.contains(&e.type_name))
        .collect()
}

fn widget_crd() -> GeneratedCrd {
    let conversion = widget_conversion();
    let mut crds =
        generate_crds_with_conversions(&entries(&["Widget", "WidgetV2"]), &[&conversion])
            .unwrap_or_else(|e| panic!("{e:#?}"));
    crds.remove(0)
}

#[test]
fn without_the_conversion_the_widget_is_refused_with_it_it_converts() {
    let errors = generate_crds(&entries(&["Widget", "WidgetV2"])).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0]
            .to_string()
            .contains("(spec.replicas exists in v2 only)"),
        "{}",
        errors[0]
    );
    let crd = serde_json::to_value(&widget_crd().crd).unwrap();
    assert_eq!(
        crd["spec"]["conversion"],
        json!({
            "strategy": "Webhook",
            "webhook": {
                "clientConfig": {"service": {
                    "name": "webhook-service", "namespace": "system", "path": "/convert",
                }},
                "conversionReviewVersions": ["v1"],
            },
        })
    );
}

#[test]
fn at_run_time_the_same_rule_holds() {
    // This binary registers no conversion: installed from code, the Widget is refused as the
    // generator refuses it; the Gadget, whose versions are the same, is the generator's.
    let error = kube_markers::crd::definition::<v2::WidgetV2>().unwrap_err();
    assert!(
        error
            .to_string()
            .contains("(spec.replicas exists in v2 only)"),
        "{error}"
    );
    let gadget = kube_markers::crd::definition::<v1::Gadget>().unwrap();
    let generated = generate_crds(&entries(&["Gadget", "GadgetV2"])).unwrap();
    assert_eq!(gadget, generated[0].crd);
}

/// The bundle of an operator whose one CRD converts, written into `dir` as the generator lays
/// it out (the CRD under `crd/`).
fn write_bundle(dir: &Path, id: &Identity) {
    let crd = widget_crd();
    let crd_file = Path::new("crd").join(&crd.file_name);
    std::fs::create_dir_all(dir.join("crd")).unwrap();
    std::fs::write(
        dir.join(&crd_file),
        kube_markers::codegen::render_crd(&crd, ""),
    )
    .unwrap();
    let crds = [crd];
    let listed = [crd_file];
    let input = Input {
        roles: &[],
        entries: &[],
        default_role_name: "manager-role",
        crds: &crds,
        listed_files: &listed,
        header: "",
        regenerate: "`cargo run -p codegen`",
        webhook_configurations: &[],
        webhook_file: None,
    };
    let mut files = bundle::generate(id, &input).unwrap_or_else(|e| panic!("{e:#?}"));
    files.extend(
        kube_markers::codegen::generate::chart::generate(id, &input)
            .unwrap_or_else(|e| panic!("{e:#?}")),
    );
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// An overlay of `base` that moves the operator: `namespace: prod-widgets`, `namePrefix: prod-`.
fn overlay(root: &Path, base: &str) -> PathBuf {
    let dir = root.join("overlay");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("kustomization.yaml"),
        format!("namespace: prod-widgets\nnamePrefix: prod-\nresources:\n- ../{base}\n"),
    )
    .unwrap();
    dir
}

fn identity() -> Identity {
    Identity::with_defaults("widget-operator")
}

#[test]
fn an_overlay_moves_the_conversion_webhook_with_the_operator() {
    let root = tempfile::tempdir().unwrap();
    write_bundle(&root.path().join("base"), &identity());
    let docs = kustomize(&overlay(root.path(), "base"));
    let crd = named(
        &docs,
        "CustomResourceDefinition",
        "widgets.conv.example.com",
    );
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"],
        json!({
            "name": "prod-widget-operator-webhook-service",
            "namespace": "prod-widgets",
            "path": "/convert",
        })
    );
    // The Service it names exists there, on the port it calls (443).
    let service = named(&docs, "Service", "prod-widget-operator-webhook-service");
    assert_eq!(service["metadata"]["namespace"], "prod-widgets");
    assert_eq!(service["spec"]["ports"][0]["port"], 443);
    assert_eq!(service["spec"]["ports"][0]["targetPort"], 9443);
    // The server writes the CA bundle itself: get, patch and watch on exactly this CRD.
    let role = named(
        &docs,
        "ClusterRole",
        "prod-widget-operator-conversion-ca-bundle-role",
    );
    assert_eq!(
        role["rules"],
        json!([{
            "apiGroups": ["apiextensions.k8s.io"],
            "resourceNames": ["widgets.conv.example.com"],
            "resources": ["customresourcedefinitions"],
            "verbs": ["get", "patch", "watch"],
        }])
    );
    let binding = named(
        &docs,
        "ClusterRoleBinding",
        "prod-widget-operator-conversion-ca-bundle-rolebinding",
    );
    assert_eq!(
        binding["subjects"][0]["name"],
        "prod-widget-operator-controller-manager"
    );
    assert_eq!(binding["subjects"][0]["namespace"], "prod-widgets");
    assert!(of_kind(&docs, "Certificate").is_empty());
}

#[test]
fn with_cert_manager_the_crd_is_annotated_and_keeps_its_own_annotations() {
    let root = tempfile::tempdir().unwrap();
    let mut id = identity();
    id.cert_manager = true;
    write_bundle(&root.path().join("base"), &id);
    let docs = kustomize(&root.path().join("base"));
    let crd = named(
        &docs,
        "CustomResourceDefinition",
        "widgets.conv.example.com",
    );
    let annotations = &crd["metadata"]["annotations"];
    assert_eq!(
        annotations["cert-manager.io/inject-ca-from"],
        "widget-operator-system/widget-operator-serving-cert"
    );
    assert!(
        annotations["kube-markers/version"].is_string(),
        "{annotations}"
    );
    let certificate = named(&docs, "Certificate", "widget-operator-serving-cert");
    assert_eq!(
        certificate["spec"]["dnsNames"][0],
        "widget-operator-webhook-service.widget-operator-system.svc"
    );
    assert!(
        !docs
            .iter()
            .any(|d| d["metadata"]["name"] == "widget-operator-conversion-ca-bundle-role")
    );
}

/// helm, built by `scripts/helm.sh`; `None` (the test skips) with `KUBE_MARKERS_SKIP_ORACLE=1`.
fn helm() -> Option<PathBuf> {
    common::oracle("helm.sh")
}

/// The objects by kind, namespace and name, without Helm's labels and the CRDs' keep
/// annotation (the chart adds them; kustomize has `managed-by: kustomize` and the name label).
fn comparable(docs: Vec<Value>) -> std::collections::BTreeMap<String, Value> {
    docs.into_iter()
        .map(|mut doc| {
            let metadata = doc["metadata"].as_object_mut().unwrap();
            for (field, keys) in [
                (
                    "labels",
                    &[
                        "helm.sh/chart",
                        "app.kubernetes.io/name",
                        "app.kubernetes.io/instance",
                        "app.kubernetes.io/version",
                        "app.kubernetes.io/managed-by",
                    ][..],
                ),
                ("annotations", &["helm.sh/resource-policy"][..]),
            ] {
                if let Some(map) = metadata.get_mut(field).and_then(Value::as_object_mut) {
                    for key in keys {
                        map.remove(*key);
                    }
                    if map.is_empty() {
                        metadata.remove(field);
                    }
                }
            }
            let key = format!(
                "{} {}/{}",
                doc["kind"].as_str().unwrap(),
                doc["metadata"]["namespace"].as_str().unwrap_or_default(),
                doc["metadata"]["name"].as_str().unwrap()
            );
            (key, doc)
        })
        .collect()
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn helm_template_of_the_converting_chart_is_the_kustomize_bundle() {
    let Some(helm) = helm() else { return };
    for cert_manager in [false, true] {
        let root = tempfile::tempdir().unwrap();
        let mut id = identity();
        id.cert_manager = cert_manager;
        write_bundle(root.path(), &id);
        let kustomized = comparable(kustomize(root.path()));
        // The chart of a bundle without cert-manager, its value switched as the bundle has it.
        let chart_dir = tempfile::tempdir().unwrap();
        write_bundle(chart_dir.path(), &identity());
        let out = std::process::Command::new(&helm)
            .args(["template", "widget-operator"])
            .arg(chart_dir.path().join("chart"))
            .args([
                "--namespace",
                "widget-operator-system",
                "--set",
                "createNamespace=true",
            ])
            .args(["--set", &format!("certManager.enabled={cert_manager}")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let templated = comparable(
            kube_markers_envtest::parse_manifests(&String::from_utf8(out.stdout).unwrap()).unwrap(),
        );
        assert_eq!(
            templated.keys().collect::<Vec<_>>(),
            kustomized.keys().collect::<Vec<_>>(),
            "cert-manager {cert_manager}"
        );
        for (key, expected) in &kustomized {
            assert_eq!(
                &templated[key], expected,
                "{key} (cert-manager {cert_manager})"
            );
        }
    }
}

fn stored_versions(crd: &CustomResourceDefinition) -> Vec<String> {
    crd.status
        .as_ref()
        .and_then(|s| s.stored_versions.clone())
        .unwrap_or_default()
}

/// The Gadget CRD (identical versions: strategy `None`) with `storage` on `version`, and only
/// the versions `keep`.
fn gadget_crd(storage: &str, keep: &[&str]) -> Value {
    let crds = generate_crds(&entries(&["Gadget", "GadgetV2"])).unwrap();
    let mut crd = crds[0].to_value();
    assert!(crd["spec"].get("conversion").is_none());
    let versions: Vec<Value> = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| keep.contains(&v["name"].as_str().unwrap()))
        .map(|v| {
            let mut v = v.clone();
            v["storage"] = json!(v["name"] == storage);
            v
        })
        .collect();
    crd["spec"]["versions"] = json!(versions);
    crd
}

const GADGETS: &str = "gadgets.conv.example.com";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_accepts_the_wiring_and_migration_lets_the_old_version_go() {
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    let client = env.admin_client().unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());

    // The generated CRD with `spec.conversion` (a service clientConfig) is valid.
    let widget: CustomResourceDefinition = serde_json::from_value(widget_crd().to_value()).unwrap();
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    crds.create(&dry_run, &widget)
        .await
        .unwrap_or_else(|e| panic!("the API server refused the converting CRD: {e}"));

    // The whole bundle, moved by an overlay, applies server-side.
    let root = tempfile::tempdir().unwrap();
    write_bundle(&root.path().join("base"), &identity());
    let overlay = overlay(root.path(), "base");
    let out = common::bundle::kubectl(
        &env,
        &["apply", "--server-side", "-k", overlay.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "kubectl apply --server-side -k: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let applied = crds.get("widgets.conv.example.com").await.unwrap();
    let service = applied.spec.conversion.unwrap().webhook.unwrap();
    let service = service.client_config.unwrap().service.unwrap();
    assert_eq!(
        (service.namespace.as_str(), service.name.as_str()),
        ("prod-widgets", "prod-widget-operator-webhook-service")
    );

    // Gadgets stored at v1, then the storage switches to v2.
    env.apply_objects(vec![gadget_crd("v1", &["v1", "v2"])])
        .await
        .unwrap();
    let resource = |version: &str| ApiResource {
        group: "conv.example.com".into(),
        version: version.into(),
        api_version: format!("conv.example.com/{version}"),
        kind: "Gadget".into(),
        plural: "gadgets".into(),
    };
    for (i, ns) in ["gadgets-a", "gadgets-b"].iter().enumerate() {
        env.ensure_namespace(ns).await.unwrap();
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &resource("v1"));
        for n in 0..(3 + i) {
            let object: DynamicObject = serde_json::from_value(json!({
                "apiVersion": "conv.example.com/v1", "kind": "Gadget",
                "metadata": {"name": format!("g{n}")}, "spec": {"size": n},
            }))
            .unwrap();
            api.create(&PostParams::default(), &object).await.unwrap();
        }
    }
    env.apply_objects(vec![gadget_crd("v2", &["v1", "v2"])])
        .await
        .unwrap();
    assert_eq!(
        stored_versions(&crds.get(GADGETS).await.unwrap()),
        ["v1", "v2"]
    );

    // Dropping v1 is refused while objects may be stored at it.
    let drop_v1 = || async {
        let patch = json!({"spec": {"versions": gadget_crd("v2", &["v2"])["spec"]["versions"]}});
        crds.patch(GADGETS, &PatchParams::default(), &Patch::Merge(&patch))
            .await
    };
    let (code, message) = refusal(drop_v1().await);
    assert_eq!(code, 422, "{message}");
    assert!(
        message.contains("must remain in spec.versions until a storage migration"),
        "{message}"
    );

    // The migration runs as a user granted exactly what its docs say it needs.
    let rule = |group: &str, resource: &str, verbs: &[&str], names: &[&str]| {
        let mut rule = json!({"apiGroups": [group], "resources": [resource], "verbs": verbs});
        if !names.is_empty() {
            rule["resourceNames"] = json!(names);
        }
        rule
    };
    env.apply_objects(vec![
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "gadget-migrator"},
            "rules": [
                rule("apiextensions.k8s.io", "customresourcedefinitions", &["get"], &[GADGETS]),
                rule("apiextensions.k8s.io", "customresourcedefinitions/status", &["patch"], &[GADGETS]),
                rule("conv.example.com", "gadgets", &["get", "list", "update"], &[]),
            ],
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "gadget-migrator"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gadget-migrator"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "migrator"}],
        }),
    ])
    .await
    .unwrap();
    let migrator = env.client_as("migrator", &[]).unwrap();

    // A migration interrupted after its first chunk leaves storedVersions as it was.
    let reports: Arc<Mutex<Vec<u64>>> = Arc::default();
    let first_chunk = Arc::new(tokio::sync::Notify::new());
    let migration = {
        let (reports, first_chunk) = (reports.clone(), first_chunk.clone());
        Migration::new(migrator.clone())
            .chunk(3)
            .on_progress(move |p| {
                reports.lock().unwrap().push(p.rewritten);
                first_chunk.notify_one();
            })
            .run::<v2::GadgetV2>()
    };
    tokio::select! {
        result = migration => panic!("the migration ended before it was interrupted: {result:?}"),
        () = first_chunk.notified() => {}
    }
    assert_eq!(*reports.lock().unwrap(), [3]);
    assert_eq!(
        stored_versions(&crds.get(GADGETS).await.unwrap()),
        ["v1", "v2"]
    );
    let (code, _) = refusal(drop_v1().await);
    assert_eq!(code, 422);

    // Run again: every object rewritten, storedVersions v2 alone.
    let reports: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = reports.clone();
    let migrated = Migration::new(migrator.clone())
        .chunk(3)
        .on_progress(move |p| seen.lock().unwrap().push(p.to_string()))
        .run::<v1::Gadget>()
        .await
        .unwrap();
    assert_eq!(migrated.crd, GADGETS);
    assert_eq!(migrated.storage_version, "v2");
    assert_eq!(migrated.stored_before, ["v1", "v2"]);
    assert_eq!(
        (migrated.progress.listed, migrated.progress.rewritten),
        (7, 7)
    );
    assert_eq!(
        *reports.lock().unwrap(),
        [
            "3 listed, 3 rewritten, 0 deleted meanwhile, 0 conflicts retried",
            "6 listed, 6 rewritten, 0 deleted meanwhile, 0 conflicts retried",
            "7 listed, 7 rewritten, 0 deleted meanwhile, 0 conflicts retried",
            "7 listed, 7 rewritten, 0 deleted meanwhile, 0 conflicts retried",
        ]
    );
    assert_eq!(stored_versions(&crds.get(GADGETS).await.unwrap()), ["v2"]);

    // Safe to run again: nothing left to do.
    let again = kube_markers::conversion::migrate::<v2::GadgetV2>(&migrator)
        .await
        .unwrap();
    assert_eq!(again.stored_before, ["v2"]);
    assert_eq!(again.progress.listed, 0);

    assert_eq!(
        env.forbidden_requests_of("migrator").unwrap(),
        Vec::<String>::new()
    );

    // Now v1 can go, and every object reads at v2.
    drop_v1()
        .await
        .unwrap_or_else(|e| panic!("dropping v1 after the migration: {e}"));
    let all: Api<DynamicObject> = Api::all_with(client.clone(), &resource("v2"));
    let listed = all.list(&Default::default()).await.unwrap();
    assert_eq!(listed.items.len(), 7);
}
