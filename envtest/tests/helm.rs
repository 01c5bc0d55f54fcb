//! The examples' Helm chart (`rbac-out/chart/`) against the kustomize bundle it is made from:
//! `helm template` gives kubectl kustomize's objects, object for object (with default values,
//! and with values that do what an overlay does), `helm lint --strict` passes, the values'
//! checks refuse what would not work, and on a real API server `helm install` lets both example
//! operators converge under the chart's ServiceAccount with zero Forbidden responses.
//!
//! helm is the oracle: `scripts/helm.sh` builds the pinned version from the Go module proxy;
//! `KUBE_MARKERS_SKIP_ORACLE=1` skips these tests (they are then reported as ignored).

mod common;
use common::bundle::{kustomize, named, of_kind, rendered, service_account};
use common::operators::{self, NS, create_objects};
use common::{assets, root};
use k8s_openapi::api::rbac::v1::ClusterRole;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube_markers_envtest::{Envtest, parse_manifests};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const OPERATOR_NS: &str = "example-operator-system";
const TENANT_NS: &str = mydatabase_operator::TENANT_NAMESPACE;
const RELEASE: &str = "example-operator";

/// helm, built by `scripts/helm.sh`; `None` (the test skips) with `KUBE_MARKERS_SKIP_ORACLE=1`
/// (set at build time, it also marks the tests ignored: see `build.rs`).
fn helm() -> Option<PathBuf> {
    common::oracle("helm.sh")
}

fn chart() -> PathBuf {
    root().join("rbac-out/chart")
}

fn run(helm: &Path, args: &[&str]) -> Output {
    Command::new(helm)
        .args(args)
        // No user configuration or cache of the machine's.
        .env("HELM_CONFIG_HOME", root().join("target/helm-test/config"))
        .env("HELM_CACHE_HOME", root().join("target/helm-test/cache"))
        .env("HELM_DATA_HOME", root().join("target/helm-test/data"))
        .output()
        .expect("run helm")
}

fn succeeded(what: &str, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `helm template` of the chart with `args`: the objects.
fn template(helm: &Path, args: &[&str]) -> Vec<Value> {
    let chart = chart();
    let mut all = vec!["template", RELEASE, chart.to_str().unwrap()];
    all.extend(args);
    let text = succeeded("helm template", &run(helm, &all));
    parse_manifests(&text).unwrap()
}

/// Helm's standard labels (kustomize's objects carry `managed-by` and `name` of them).
const HELM_LABELS: &[&str] = &[
    "helm.sh/chart",
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by",
];

/// The object without Helm's standard labels and the CRDs' `helm.sh/resource-policy` (both
/// checked on their own below), empty maps left by that removed.
fn without_helm_metadata(mut doc: Value) -> Value {
    let metadata = doc["metadata"].as_object_mut().unwrap();
    for (field, keys) in [
        ("labels", HELM_LABELS),
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
    doc
}

type Key = (String, String, String, String);

fn by_identity(docs: Vec<Value>) -> BTreeMap<Key, Value> {
    let mut out = BTreeMap::new();
    for doc in docs {
        let field = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let key = (
            field(&doc["apiVersion"]),
            field(&doc["kind"]),
            field(&doc["metadata"]["namespace"]),
            field(&doc["metadata"]["name"]),
        );
        let previous = out.insert(key.clone(), without_helm_metadata(doc));
        assert!(previous.is_none(), "{key:?} twice");
    }
    out
}

/// The two renderings hold the same objects, each equal to its counterpart.
fn assert_same_objects(helm: Vec<Value>, kustomize: Vec<Value>) {
    let (helm, kustomize) = (by_identity(helm), by_identity(kustomize));
    let only = |a: &BTreeMap<Key, Value>, b: &BTreeMap<Key, Value>| -> Vec<Key> {
        a.keys().filter(|k| !b.contains_key(*k)).cloned().collect()
    };
    assert_eq!(only(&helm, &kustomize), Vec::<Key>::new(), "only in helm");
    assert_eq!(
        only(&kustomize, &helm),
        Vec::<Key>::new(),
        "only in kustomize"
    );
    for (key, expected) in &kustomize {
        assert_eq!(
            &helm[key],
            expected,
            "{key:?} differs:\nhelm: {}\nkustomize: {}",
            serde_json::to_string_pretty(&helm[key]).unwrap(),
            serde_json::to_string_pretty(expected).unwrap()
        );
    }
}

/// Every object of the chart carries Helm's labels for this release; the CRDs stay on
/// `helm uninstall`.
fn assert_helm_metadata(docs: &[Value]) {
    for doc in docs {
        let labels = &doc["metadata"]["labels"];
        assert_eq!(labels["app.kubernetes.io/managed-by"], "Helm", "{doc}");
        assert_eq!(labels["app.kubernetes.io/instance"], RELEASE, "{doc}");
        assert_eq!(
            labels["app.kubernetes.io/name"], "example-operator",
            "{doc}"
        );
        assert_eq!(labels["app.kubernetes.io/version"], "0.1.0", "{doc}");
        if doc["kind"] == "CustomResourceDefinition" {
            assert_eq!(
                doc["metadata"]["annotations"]["helm.sh/resource-policy"],
                "keep"
            );
        }
    }
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn helm_template_with_default_values_is_the_kustomize_bundle() {
    let Some(helm) = helm() else { return };
    let kustomized = rendered();
    // Helm's way: the release namespace, made by `--create-namespace`, not by the chart.
    let docs = template(&helm, &["--namespace", OPERATOR_NS]);
    assert_helm_metadata(&docs);
    let without_namespace: Vec<Value> = kustomized
        .iter()
        .filter(|d| d["kind"] != "Namespace")
        .cloned()
        .collect();
    assert_eq!(without_namespace.len() + 1, kustomized.len());
    assert_same_objects(docs, without_namespace);
    // With `createNamespace`, the Namespace too.
    let docs = template(
        &helm,
        &["--namespace", OPERATOR_NS, "--set", "createNamespace=true"],
    );
    assert_same_objects(docs, kustomized);
}

/// An overlay in a temporary directory next to `rbac-out/` (kustomize wants relative paths).
fn overlay(kustomization: &str) -> Vec<Value> {
    let dir = tempfile::Builder::new()
        .prefix("helm-overlay-")
        .tempdir_in(root().join("target"))
        .unwrap();
    std::fs::write(dir.path().join("kustomization.yaml"), kustomization).unwrap();
    kustomize(dir.path())
}

const OVERLAY_VALUES: &str =
    "namespace: prod-ops\nnamePrefix: prod-example-operator-\ncreateNamespace: true\n";

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn values_that_move_and_prefix_the_operator_give_what_the_overlay_gives() {
    let Some(helm) = helm() else { return };
    let kustomized = overlay(
        "namespace: prod-ops\nnamePrefix: prod-\nresources: [../../rbac-out]\n\
         transformers: [../../rbac-out/pinned-namespaces]\n",
    );
    let values = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(values.path(), OVERLAY_VALUES).unwrap();
    // The release's own namespace is another: the `namespace` value decides.
    let docs = template(
        &helm,
        &[
            "--namespace",
            "default",
            "-f",
            values.path().to_str().unwrap(),
        ],
    );
    let (sa_ns, sa_name) = service_account(&docs);
    assert_eq!(
        (sa_ns.as_str(), sa_name.as_str()),
        ("prod-ops", "prod-example-operator-controller-manager")
    );
    // The tenant Role stays in its namespace.
    let tenant: Vec<&Value> = of_kind(&docs, "Role")
        .into_iter()
        .filter(|r| r["metadata"]["namespace"] == TENANT_NS)
        .collect();
    assert_eq!(tenant.len(), 1, "{docs:#?}");
    assert_same_objects(docs, kustomized);
    // fullnameOverride gives the same prefix.
    let docs = template(
        &helm,
        &[
            "-f",
            values.path().to_str().unwrap(),
            "--set",
            "fullnameOverride=prod-example-operator",
        ],
    );
    let (_, sa_name) = service_account(&docs);
    assert_eq!(sa_name, "prod-example-operator-controller-manager");
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn helm_lint_passes() {
    let Some(helm) = helm() else { return };
    let chart = chart();
    let out = run(&helm, &["lint", "--strict", chart.to_str().unwrap()]);
    let text = succeeded("helm lint --strict", &out);
    assert!(
        text.contains("1 chart(s) linted, 0 chart(s) failed"),
        "{text}"
    );
    let values = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(values.path(), OVERLAY_VALUES).unwrap();
    let out = run(
        &helm,
        &[
            "lint",
            "--strict",
            chart.to_str().unwrap(),
            "-f",
            values.path().to_str().unwrap(),
        ],
    );
    succeeded("helm lint --strict with the overlay's values", &out);
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn the_values_set_the_manager_and_refuse_replicas_without_leader_election() {
    let Some(helm) = helm() else { return };
    let docs = template(
        &helm,
        &[
            "--set",
            "replicas=2",
            "--set",
            "image.tag=0.2.0",
            "--set",
            "image.pullPolicy=Always",
            "--set",
            "extraArgs={--zap-devel}",
            "--set",
            "nodeSelector.disk=ssd",
            "--set",
            "resources.limits.memory=256Mi",
            "--set",
            "crds.install=false",
        ],
    );
    assert!(of_kind(&docs, "CustomResourceDefinition").is_empty());
    let manager = of_kind(&docs, "Deployment")[0];
    let pod = &manager["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    assert_eq!(manager["spec"]["replicas"], 2);
    assert_eq!(
        container["image"],
        "ghcr.io/kube-markers/example-operator:0.2.0"
    );
    assert_eq!(container["imagePullPolicy"], "Always");
    assert_eq!(container["args"], serde_json::json!(["--zap-devel"]));
    assert_eq!(container["resources"]["limits"]["memory"], "256Mi");
    assert_eq!(pod["nodeSelector"]["disk"], "ssd");

    let chart = chart();
    let out = run(
        &helm,
        &[
            "template",
            RELEASE,
            chart.to_str().unwrap(),
            "--set",
            "replicas=2",
            "--set",
            "leaderElection.enabled=false",
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("replicas: more than one manager needs leaderElection.enabled"),
        "{stderr}"
    );
    // Without leader election there is no Role for its Leases.
    let docs = template(&helm, &["--set", "leaderElection.enabled=false"]);
    assert!(docs.iter().all(|d| {
        !d["metadata"]["name"]
            .as_str()
            .unwrap()
            .contains("leader-election")
    }),);
}

/// `helm install` on a real API server, then the operators run under the installed
/// ServiceAccount (a TokenRequest token) until they converge, and the API server refused none
/// of their requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
async fn helm_install_runs_the_operators_with_zero_forbidden() {
    let Some(helm) = helm() else { return };
    let env = Envtest::builder()
        .assets(assets())
        .apiserver_arg("--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    // Tenant namespaces belong to the cluster: the chart only grants in them.
    for ns in [TENANT_NS, NS] {
        env.ensure_namespace(ns).await.unwrap();
    }
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let chart = chart();
    let out = run(
        &helm,
        &[
            "install",
            RELEASE,
            chart.to_str().unwrap(),
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--namespace",
            OPERATOR_NS,
            "--create-namespace",
        ],
    );
    let text = succeeded("helm install", &out);
    assert!(text.contains("STATUS: deployed"), "{text}");
    let out = run(
        &helm,
        &[
            "get",
            "manifest",
            RELEASE,
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--namespace",
            OPERATOR_NS,
        ],
    );
    let installed = parse_manifests(&succeeded("helm get manifest", &out)).unwrap();
    assert_eq!(
        installed.len() + 1,
        rendered().len(),
        "all but the Namespace"
    );

    let (sa_ns, sa_name) = service_account(&installed);
    assert_eq!(
        (sa_ns.as_str(), sa_name.as_str()),
        (OPERATOR_NS, "example-operator-controller-manager")
    );
    let user = format!("system:serviceaccount:{sa_ns}:{sa_name}");
    let token = env.service_account_token(&sa_ns, &sa_name).await.unwrap();
    let operator = env.client_for_token(&token, &sa_ns).unwrap();
    let admin = env.admin_client().unwrap();
    let running = operators::start(operator).await;
    operators::become_ready(&running).await;
    create_objects(&admin).await;
    operators::converge(&admin).await;
    for task in running.tasks {
        task.abort();
    }
    running.probes.shutdown().await;
    let forbidden = env.forbidden_requests_of(&user).unwrap();
    assert!(
        forbidden.is_empty(),
        "the operators were denied: {forbidden:#?}"
    );
    let theirs = env
        .audit_events()
        .unwrap()
        .into_iter()
        .filter(|e| e["user"]["username"] == user.as_str())
        .count();
    assert!(
        theirs > 20,
        "only {theirs} requests by {user} in the audit log"
    );
    uninstall_keeps_the_crds(&env, &helm).await;
}

/// `helm uninstall` deletes the release's objects but the CRDs (`crds.keep`), which a release
/// of another name then cannot take over (`crds.install=false` installs beside them).
async fn uninstall_keeps_the_crds(env: &Envtest, helm: &Path) {
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let kubeconfig = kubeconfig.to_str().unwrap();
    let chart = chart();
    let helm_in = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", kubeconfig, "--namespace", OPERATOR_NS]);
        run(helm, &all)
    };
    let text = succeeded(
        "helm uninstall",
        &helm_in(&["uninstall", RELEASE, "--wait"]),
    );
    assert!(text.contains("uninstalled"), "{text}");
    let crds: Api<CustomResourceDefinition> = Api::all(env.admin_client().unwrap());
    for crd in ["memcacheds.cache.example.com", "mydatabases.db.example.com"] {
        crds.get(crd)
            .await
            .unwrap_or_else(|e| panic!("{crd} is gone: {e}"));
    }
    let roles: Api<ClusterRole> = Api::all(env.admin_client().unwrap());
    let left = roles
        .get_opt("example-operator-manager-role")
        .await
        .unwrap();
    assert!(left.is_none(), "the release's ClusterRole is left");

    let out = helm_in(&["install", "second", chart.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("CustomResourceDefinition")
            && stderr.contains("invalid ownership metadata"),
        "{stderr}"
    );
    let out = helm_in(&[
        "install",
        "second",
        chart.to_str().unwrap(),
        "--set",
        "crds.install=false",
    ]);
    succeeded("helm install with crds.install=false", &out);
}

/// The examples' bundle and chart as `codegen/Cargo.toml` declares them, plus `webhooks` and
/// `cert-manager`, and a `--header-file` text holding `{{`, written into a directory beside
/// `rbac-out/` (the role file, CRDs and webhook manifests copied from there: the same registry
/// made them).
fn webhook_bundle() -> tempfile::TempDir {
    use kube_markers::codegen::bundle::{self, Identity};
    let mut id = Identity::with_defaults("example-operator");
    id.image = "ghcr.io/kube-markers/example-operator:0.1.0".into();
    id.leader_election = true;
    id.metrics_auth = true;
    id.aggregate_to_default_roles = true;
    id.webhooks = true;
    id.cert_manager = true;
    let entries = kube_markers::registry::rbac_entries();
    let roles = kube_markers::codegen::roles_for(&entries, "manager-role");
    let crds = kube_markers::codegen::generate_crds_with_conversions(
        &kube_markers::registry::crd_entries(),
        &kube_markers::registry::conversion_entries(),
    )
    .unwrap();
    let manifests =
        std::fs::read_to_string(root().join("rbac-out/webhook/manifests.yaml")).unwrap();
    let configurations = parse_manifests(&manifests).unwrap();
    let mut listed = vec![PathBuf::from("role.yaml")];
    listed.extend(crds.iter().map(|c| Path::new("crd").join(&c.file_name)));
    let input = bundle::Input {
        roles: &roles,
        entries: &entries,
        default_role_name: "manager-role",
        crds: &crds,
        listed_files: &listed,
        // Text Helm would read as an action if the chart did not escape it.
        header: "# Copyright {{ the authors }}\n",
        regenerate: "the generator",
        webhook_configurations: &configurations,
        webhook_file: Some(Path::new("webhook/manifests.yaml")),
    };
    let dir = tempfile::Builder::new()
        .prefix("helm-webhooks-")
        .tempdir_in(root().join("target"))
        .unwrap();
    let mut files = bundle::generate(&id, &input).unwrap();
    files.extend(kube_markers::codegen::generate::chart::generate(&id, &input).unwrap());
    for path in listed
        .iter()
        .chain([&PathBuf::from("webhook/manifests.yaml")])
    {
        files.push((
            path.clone(),
            std::fs::read_to_string(root().join("rbac-out").join(path)).unwrap(),
        ));
    }
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn with_webhooks_and_cert_manager_helm_template_is_the_kustomize_bundle() {
    let Some(helm) = helm() else { return };
    let dir = webhook_bundle();
    let kustomized = kustomize(dir.path());
    let chart = dir.path().join("chart");
    let render = |args: &[&str]| {
        let mut all = vec!["template", RELEASE, chart.to_str().unwrap()];
        all.extend(args);
        parse_manifests(&succeeded("helm template", &run(&helm, &all))).unwrap()
    };
    let docs = render(&["--namespace", OPERATOR_NS, "--set", "createNamespace=true"]);
    for kind in [
        "Service",
        "Issuer",
        "Certificate",
        "ValidatingWebhookConfiguration",
    ] {
        assert_eq!(of_kind(&docs, kind).len(), 1, "{kind}");
    }
    assert_same_objects(docs, kustomized.clone());
    // The examples' chart offers the same, switched on by its values.
    let docs = template(
        &helm,
        &[
            "--namespace",
            OPERATOR_NS,
            "--set",
            "createNamespace=true",
            "--set",
            "webhooks.enabled=true",
            "--set",
            "certManager.enabled=true",
        ],
    );
    assert_same_objects(docs, kustomized);
    // Moved by the values, the names cert-manager reads move too (an overlay would have to
    // patch them).
    let docs = render(&["--namespace", "prod-ops"]);
    let certificate = of_kind(&docs, "Certificate")[0];
    assert_eq!(
        certificate["spec"]["dnsNames"][0],
        "example-operator-webhook-service.prod-ops.svc"
    );
    let configuration = of_kind(&docs, "ValidatingWebhookConfiguration")[0];
    assert_eq!(
        configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "prod-ops/example-operator-serving-cert"
    );
    // Off, no admission webhook calls the manager; the example's converting CRD still does,
    // so its Service, certificate, port and certificate volume stay.
    let docs = render(&["--set", "webhooks.enabled=false"]);
    for kind in [
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
    ] {
        assert!(of_kind(&docs, kind).is_empty(), "{kind}");
    }
    for kind in ["Service", "Issuer", "Certificate"] {
        assert_eq!(of_kind(&docs, kind).len(), 1, "{kind}");
    }
    let crd = named(
        &docs,
        "CustomResourceDefinition",
        "mydatabases.db.example.com",
    );
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["name"],
        "example-operator-webhook-service"
    );
    assert_eq!(
        crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "default/example-operator-serving-cert"
    );
    let pod = &of_kind(&docs, "Deployment")[0]["spec"]["template"]["spec"];
    assert!(
        pod.get("volumes").is_some() && pod["containers"][0].get("ports").is_some(),
        "{pod}"
    );
    let out = run(&helm, &["lint", "--strict", chart.to_str().unwrap()]);
    succeeded("helm lint --strict of the webhook chart", &out);
}
