//! The examples' Helm chart (`rbac-out/chart/`) against the kustomize bundle it is made from:
//! `helm template` gives kubectl kustomize's objects, object for object (with default values,
//! and with values that do what an overlay does), `helm lint --strict` passes, the values'
//! checks refuse what would not work, and on a real API server `helm install` lets both example
//! operators converge under the chart's ServiceAccount with zero Forbidden responses.
//!
//! helm is the oracle: `scripts/helm.sh` builds the pinned version from the Go module proxy;
//! `KUBE_MARKERS_SKIP_ORACLE=1` skips these tests (they are then reported as ignored).

mod common;
use common::bundle::{kubectl, kustomize, named, of_kind, rendered, service_account};
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
    // Without leader election there is no Role for its Leases, and the manager is not asked
    // to take one: the flag that asks is dropped, the other arguments kept.
    let args = |docs: &[Value]| {
        of_kind(docs, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0]["args"].clone()
    };
    let set_args = "args={--leader-elect,--zap-devel}";
    let docs = template(&helm, &["--set", set_args]);
    assert_eq!(
        args(&docs),
        serde_json::json!(["--leader-elect", "--zap-devel"])
    );
    let docs = template(
        &helm,
        &["--set", set_args, "--set", "leaderElection.enabled=false"],
    );
    assert_eq!(args(&docs), serde_json::json!(["--zap-devel"]));
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
    let mut id = examples_identity();
    id.webhooks = true;
    id.cert_manager = true;
    bundle_dir(&id, true)
}

/// The identity `codegen/Cargo.toml` declares.
fn examples_identity() -> kube_markers::codegen::bundle::Identity {
    let mut id = kube_markers::codegen::bundle::Identity::with_defaults("example-operator");
    id.image = "ghcr.io/kube-markers/example-operator:0.1.0".into();
    id.leader_election = true;
    id.metrics_auth = true;
    id.aggregate_to_default_roles = true;
    id
}

/// The examples' bundle and chart for `id`, with a `--header-file` text holding `{{`, written
/// into a directory beside `rbac-out/` (the role file, CRDs and webhook manifests copied from
/// there: the same registry made them).
/// Without `converting`, the CRDs that convert are left out (the webhook server is then
/// optional).
fn bundle_dir(id: &kube_markers::codegen::bundle::Identity, converting: bool) -> tempfile::TempDir {
    use kube_markers::codegen::bundle;
    let entries = kube_markers::registry::rbac_entries();
    let roles = kube_markers::codegen::roles_for(&entries, "manager-role");
    let mut crds = kube_markers::codegen::generate_crds_with_conversions(
        &kube_markers::registry::crd_entries(),
        &kube_markers::registry::conversion_entries(),
    )
    .unwrap();
    if !converting {
        crds.retain(|c| c.crd.spec.conversion.is_none());
        assert_eq!(crds.len(), 1);
    }
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
        .prefix("helm-bundle-")
        .tempdir_in(root().join("target"))
        .unwrap();
    let mut files = bundle::generate(id, &input).unwrap();
    files.extend(kube_markers::codegen::generate::chart::generate(id, &input).unwrap());
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

// ---- an operator that serves its own probes and metrics (controller-rs's shape) ----

/// controller-rs: `/health` and `/metrics` on 8080, no readiness endpoint.
fn own_endpoints_bundle() -> tempfile::TempDir {
    let mut id = examples_identity();
    id.health_probe_port = 8080;
    id.liveness_probe_path = Some("/health".into());
    id.readiness_probe_path = None;
    id.metrics_port = Some(8080);
    bundle_dir(&id, true)
}

/// A value for every install-time choice a user of an operator's chart expects to set.
const EVERY_VALUE: &str = r#"
env:
- name: RUST_LOG
  value: info,kube=debug
- name: OPENTELEMETRY_ENDPOINT_URL
  value: http://otel-collector.observability:4317
- name: CLUSTER
  valueFrom: {configMapKeyRef: {name: cluster-info, key: name, optional: true}}
imagePullSecrets: [{name: regcred}]
deploymentLabels: {team: platform}
deploymentAnnotations: {owner: platform@example.com}
podLabels: {sidecar.istio.io/inject: "false"}
podAnnotations: {prometheus.io/scrape: "true", prometheus.io/port: "8080"}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Equal, value: operators, effect: NoSchedule}]
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64, arm64]}]
priorityClassName: system-cluster-critical
resources: {limits: {memory: 256Mi}, requests: {cpu: 50m, memory: 128Mi}}
podSecurityContext:
  runAsNonRoot: true
  runAsUser: 65532
  fsGroup: 65532
  seccompProfile: {type: RuntimeDefault}
securityContext:
  allowPrivilegeEscalation: false
  capabilities: {drop: [ALL]}
  readOnlyRootFilesystem: true
  runAsGroup: 65532
metrics:
  serviceMonitor:
    enabled: true
    labels: {release: prometheus}
    interval: 15s
    scrapeTimeout: 10s
    endpoint: {scheme: http, honorLabels: true}
"#;

fn render_chart(helm: &Path, chart: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["template", RELEASE, chart.to_str().unwrap()];
    all.extend(args);
    parse_manifests(&succeeded("helm template", &run(helm, &all))).unwrap()
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn own_probes_and_metrics_render_as_the_kustomize_bundle_and_every_value_renders() {
    let Some(helm) = helm() else { return };
    let dir = own_endpoints_bundle();
    let chart = dir.path().join("chart");
    let kustomized = kustomize(dir.path());
    // The defaults are the kustomize bundle's: the probe and its port, no readiness probe,
    // the metrics port and Service; no ServiceMonitor.
    let docs = render_chart(
        &helm,
        &chart,
        &["--namespace", OPERATOR_NS, "--set", "createNamespace=true"],
    );
    assert!(of_kind(&docs, "ServiceMonitor").is_empty());
    let container = &of_kind(&docs, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        container["livenessProbe"]["httpGet"],
        serde_json::json!({"path": "/health", "port": 8080})
    );
    assert!(container.get("readinessProbe").is_none(), "{container}");
    let service = named(
        &docs,
        "Service",
        "example-operator-controller-manager-metrics-service",
    );
    assert_eq!(service["spec"]["ports"][0]["targetPort"], "metrics");
    assert_same_objects(docs, kustomized);
    let values = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(values.path(), EVERY_VALUE).unwrap();
    let chart_path = chart.to_str().unwrap();
    succeeded(
        "helm lint --strict",
        &run(&helm, &["lint", "--strict", chart_path]),
    );
    succeeded(
        "helm lint --strict with every value",
        &run(
            &helm,
            &[
                "lint",
                "--strict",
                chart_path,
                "-f",
                values.path().to_str().unwrap(),
            ],
        ),
    );

    let docs = every_value_rendered(&helm, &chart);
    let deployment = of_kind(&docs, "Deployment")[0];
    assert_eq!(deployment["metadata"]["labels"]["team"], "platform");
    assert_eq!(
        deployment["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        "Helm"
    );
    assert_eq!(
        deployment["metadata"]["annotations"]["owner"],
        "platform@example.com"
    );
    let template = &deployment["spec"]["template"];
    assert_eq!(
        template["metadata"]["labels"]["sidecar.istio.io/inject"],
        "false"
    );
    assert_eq!(
        template["metadata"]["labels"]["control-plane"],
        "controller-manager"
    );
    assert_eq!(
        template["metadata"]["annotations"]["prometheus.io/port"],
        "8080"
    );
    assert_eq!(
        template["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"],
        "manager"
    );
    let pod = &template["spec"];
    assert_eq!(
        pod["imagePullSecrets"],
        serde_json::json!([{"name": "regcred"}])
    );
    assert_eq!(pod["nodeSelector"]["kubernetes.io/os"], "linux");
    assert_eq!(pod["tolerations"][0]["value"], "operators");
    assert_eq!(
        pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            [0]["matchExpressions"][0]["values"],
        serde_json::json!(["amd64", "arm64"])
    );
    assert_eq!(pod["priorityClassName"], "system-cluster-critical");
    assert_eq!(pod["securityContext"]["runAsUser"], 65532);
    assert_eq!(pod["securityContext"]["fsGroup"], 65532);
    let container = &pod["containers"][0];
    assert_eq!(container["securityContext"]["runAsGroup"], 65532);
    assert_eq!(container["resources"]["limits"]["memory"], "256Mi");
    let env: Vec<&str> = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        env,
        [
            "POD_NAMESPACE",
            "POD_SERVICE_ACCOUNT",
            "HEALTH_PROBE_PORT",
            "RUST_LOG",
            "OPENTELEMETRY_ENDPOINT_URL",
            "CLUSTER"
        ]
    );
    assert_eq!(container["env"][3]["value"], "info,kube=debug");
    assert_eq!(
        container["env"][5]["valueFrom"]["configMapKeyRef"]["name"],
        "cluster-info"
    );
    let monitor = named(
        &docs,
        "ServiceMonitor",
        "example-operator-controller-manager-metrics-monitor",
    );
    assert_eq!(monitor["metadata"]["namespace"], OPERATOR_NS);
    assert_eq!(monitor["metadata"]["labels"]["release"], "prometheus");
    assert_eq!(
        monitor["spec"]["endpoints"],
        serde_json::json!([{
            "honorLabels": true, "interval": "15s", "path": "/metrics", "port": "metrics",
            "scheme": "http", "scrapeTimeout": "10s",
        }])
    );
    // It selects the metrics Service, and only it.
    let selector = monitor["spec"]["selector"]["matchLabels"]
        .as_object()
        .unwrap();
    let selected: Vec<&str> = of_kind(&docs, "Service")
        .into_iter()
        .filter(|s| {
            selector
                .iter()
                .all(|(k, v)| &s["metadata"]["labels"][k] == v)
        })
        .map(|s| s["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        selected,
        ["example-operator-controller-manager-metrics-service"]
    );
}

/// The chart with [`EVERY_VALUE`], in the operator's namespace, the Namespace included.
fn every_value_rendered(helm: &Path, chart: &Path) -> Vec<Value> {
    let values = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(values.path(), EVERY_VALUE).unwrap();
    render_chart(
        helm,
        chart,
        &[
            "--namespace",
            OPERATOR_NS,
            "--set",
            "createNamespace=true",
            "-f",
            values.path().to_str().unwrap(),
        ],
    )
}

/// The API server accepts every object the chart renders with every value set (a server-side
/// dry run, after the namespaces the dry run cannot create); the ServiceMonitor's kind is
/// prometheus-operator's, which an API server without its CRDs does not know.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
async fn the_api_server_accepts_the_chart_with_every_value_set() {
    let Some(helm) = helm() else { return };
    let dir = own_endpoints_bundle();
    let docs: Vec<Value> = every_value_rendered(&helm, &dir.path().join("chart"))
        .into_iter()
        .filter(|d| d["kind"] != "ServiceMonitor")
        .collect();
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    for ns in [TENANT_NS, NS, OPERATOR_NS] {
        env.ensure_namespace(ns).await.unwrap();
    }
    let file = tempfile::Builder::new()
        .suffix(".yaml")
        .tempfile_in(root().join("target"))
        .unwrap();
    let text: String = docs
        .iter()
        .map(|d| format!("---\n{}\n", serde_json::to_string(d).unwrap()))
        .collect();
    std::fs::write(file.path(), text).unwrap();
    let out = kubectl(
        &env,
        &[
            "apply",
            "--server-side",
            "--dry-run=server",
            "-f",
            file.path().to_str().unwrap(),
        ],
    );
    let text = succeeded("kubectl apply --server-side --dry-run=server", &out);
    assert_eq!(
        text.matches("serverside-applied (server dry run)").count(),
        docs.len(),
        "every object passes the dry run:\n{text}"
    );
    // The Deployment as the API server would store it: every value is kept.
    let out = kubectl(
        &env,
        &[
            "apply",
            "--server-side",
            "--dry-run=server",
            "-o",
            "json",
            "-f",
            file.path().to_str().unwrap(),
        ],
    );
    let stored: Value = serde_json::from_str(&succeeded("kubectl apply -o json", &out)).unwrap();
    let deployment = stored["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .unwrap();
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(pod["priorityClassName"], "system-cluster-critical");
    assert_eq!(pod["imagePullSecrets"][0]["name"], "regcred");
    assert_eq!(pod["containers"][0]["env"][3]["name"], "RUST_LOG");
    assert_eq!(pod["containers"][0]["ports"][0]["containerPort"], 8080);
}

/// Without a CRD that converts, the webhook server's port follows `webhooks.enabled` while the
/// metrics port stays.
#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: helm is not run")]
fn the_metrics_port_stays_when_the_webhook_port_is_switched_off() {
    let Some(helm) = helm() else { return };
    let mut id = examples_identity();
    id.webhooks = true;
    id.metrics_port = Some(8443);
    let dir = bundle_dir(&id, false);
    let chart = dir.path().join("chart");
    let docs = render_chart(
        &helm,
        &chart,
        &["--namespace", OPERATOR_NS, "--set", "createNamespace=true"],
    );
    assert_same_objects(docs, kustomize(dir.path()));
    let docs = render_chart(&helm, &chart, &["--set", "webhooks.enabled=false"]);
    let pod = &of_kind(&docs, "Deployment")[0]["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["ports"],
        serde_json::json!([{"containerPort": 8443, "name": "metrics", "protocol": "TCP"}])
    );
    assert!(pod.get("volumes").is_none() && pod["containers"][0].get("volumeMounts").is_none());
    let services: Vec<&str> = of_kind(&docs, "Service")
        .into_iter()
        .map(|s| s["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        services,
        ["example-operator-controller-manager-metrics-service"]
    );
    succeeded(
        "helm lint --strict",
        &run(&helm, &["lint", "--strict", chart.to_str().unwrap()]),
    );
}
