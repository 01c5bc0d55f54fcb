//! The conversion workflow of docs/conversions.md, release by release, from a workspace of a
//! new user's own (`tests/tests/outside/mod.rs`) against one real kube-apiserver:
//!
//! 1. v1alpha1 alone (`size`, `color`);
//! 2. v1 beside it (`size` renamed `replicas`, `color` moved under `style`, a v1-only
//!    `style.shape`), the hub of a `#[kube_markers::conversion]`, served while v1alpha1 is still
//!    stored;
//! 3. v1 stored;
//! 4. the objects migrated (`kube_markers::conversion::migrate`);
//! 5. v1alpha1 dropped, the CRD applied server-side.
//!
//! At each release: the generator's verdict, `check-crds --previous cluster`, the CRD applied
//! with `kubectl apply --server-side` as the docs say (while it converts, pointed at the
//! operator run locally, the docs' local development), objects read and written at every
//! served version, and nothing lost. The operator is the user's own binary: its webhook
//! server serves the conversion and writes the CRD's `caBundle`. Only the version modules
//! change between releases, so each rebuild compiles the user's crates alone.

mod common;
#[allow(dead_code)]
#[path = "../../tests/tests/outside/mod.rs"]
mod outside;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::assets;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube_markers_envtest::Envtest;
use outside::write;
use serde_json::{Value, json};

const NS: &str = "widgets";
const CRD: &str = "widgets.example.com";
const CRD_FILE: &str = "rbac-out/crd/example.com_widgets.yaml";
const SHAPE: &str = "example.com/shape";

const V1ALPHA1: &str = r#"//! The first version.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A widget.
#[kube_markers::crd__STORAGE__]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(group = "example.com", version = "v1alpha1", kind = "Widget", namespaced)]
pub struct WidgetSpec {
    /// How many.
    pub size: i32,
    /// Its color.
    pub color: String,
}
"#;

const V1: &str = r#"//! The second version: `size` is `replicas`, `color` moved under `style`.
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A widget.
#[kube_markers::crd__STORAGE__]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
__ALLOW__pub struct WidgetSpec {
    /// How many.
    pub replicas: i32,
    /// How it looks.
    pub style: Style,
}

/// How a widget looks.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
pub struct Style {
    /// Its color.
    pub color: String,
    /// Its shape: v1 only (v1alpha1 keeps it in an annotation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
}
__WEBHOOK__"#;

/// An admission webhook of the hub, from release 3 on.
const WEBHOOK: &str = r#"
use kube::core::admission::{AdmissionRequest, AdmissionResponse};

/// Refuses more than 100 replicas, whatever version a write is at (the API server converts a
/// v1alpha1 write to v1 for it).
#[kube_markers::webhook(
    name = "vwidget.example.com", mutating = false, path = "/validate-example-com-v1-widget",
    failure_policy = "Fail", side_effects = "None", groups = "example.com", resources = "widgets",
    verbs = "create;update", versions = "v1", admission_review_versions = "v1",
)]
pub async fn validate(req: AdmissionRequest<Widget>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&req);
    match &req.object {
        Some(w) if w.spec.replicas > 100 => {
            response.deny(format!("replicas {} is over 100", w.spec.replicas))
        }
        _ => response,
    }
}
"#;

/// Release 4's letting go of the caBundle the server wrote (docs/conversions.md).
const RELEASE: &str = r#"//! Lets go of the caBundle release 3's webhook server wrote.

#[kube_markers::rbac(groups = "apiextensions.k8s.io", resources = "customresourcedefinitions",
                     resourceNames = "widgets.example.com", verbs = "get;patch")]
pub async fn release_ca_bundle(client: kube::Client) -> Result<(), kube_markers::conversion::ReleaseError> {
    kube_markers::conversion::release_ca_bundle(client, ["widgets.example.com"]).await?;
    Ok(())
}
"#;

const CONVERSION: &str = r#"
/// Where a v1alpha1 object keeps v1's `style.shape`.
pub const SHAPE: &str = "example.com/shape";

#[kube_markers::conversion]
impl kube_markers::conversion::Spoke<crate::v1::Widget> for Widget {
    type Error = String;

    fn to_hub(self) -> Result<crate::v1::Widget, String> {
        let mut metadata = self.metadata;
        let shape = metadata.annotations.as_mut().and_then(|a| a.remove(SHAPE));
        Ok(crate::v1::Widget {
            metadata,
            spec: crate::v1::WidgetSpec {
                replicas: self.spec.size,
                style: crate::v1::Style { color: self.spec.color, shape },
            },
        })
    }

    fn from_hub(hub: crate::v1::Widget) -> Result<Self, String> {
        let mut metadata = hub.metadata;
        if let Some(shape) = hub.spec.style.shape {
            metadata.annotations.get_or_insert_default().insert(SHAPE.into(), shape);
        }
        Ok(Widget {
            metadata,
            spec: WidgetSpec { size: hub.spec.replicas, color: hub.spec.style.color },
        })
    }
}
"#;

/// The operator's binary: docs/conversions.md's server, run locally, and its migration.
const MAIN: &str = r#"use kube_markers::webhook::server::WebhookServer;
use std::io::Read;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = kube::Client::try_default().await?;
__RELEASE__    if std::env::args().nth(1).as_deref() == Some("migrate") {
        let migrated = kube_markers::conversion::migrate::<my_operator::v1::Widget>(&client).await?;
        println!("{migrated:?}");
        return Ok(());
    }
    let running = WebhookServer::builder()
        .registered()
        .cert_dir(std::env::var("CERT_DIR")?)
        .bind(std::env::var("BIND")?.parse()?)__CA_BUNDLE__
        .build()?
        .start()
        .await?;
    println!("serving on {}", running.local_addr());
    // Until the test closes stdin.
    tokio::task::spawn_blocking(|| std::io::stdin().read_to_end(&mut Vec::new())).await??;
    running.shutdown().await;
    Ok(())
}
"#;

/// One state of the user's library: which versions exist, which is stored, whether the
/// conversion is there.
struct Release {
    v1alpha1: Option<&'static str>,
    v1: Option<&'static str>,
    conversion: bool,
    webhook: bool,
    /// An attribute of the generator's to paste above `pub struct WidgetSpec` of v1.
    allow: &'static str,
}

impl Release {
    fn write(&self, ws: &Path) {
        let src = ws.join("my-operator/src");
        let mut lib = String::new();
        for (name, storage, text) in [("v1alpha1", self.v1alpha1, V1ALPHA1), ("v1", self.v1, V1)] {
            let file = src.join(format!("{name}.rs"));
            match storage {
                Some(marker) => {
                    lib.push_str(&format!("pub mod {name};\n"));
                    let webhook = if self.webhook { WEBHOOK } else { "" };
                    let mut text = text
                        .replace("__STORAGE__", marker)
                        .replace("__WEBHOOK__", webhook)
                        .replace("__ALLOW__", self.allow);
                    if name == "v1alpha1" && self.conversion {
                        text.push_str(CONVERSION);
                    }
                    write(&file, &text);
                }
                None => {
                    let _ = std::fs::remove_file(&file);
                }
            }
        }
        // The release that drops the last conversion lets go of the caBundle.
        let releases = self.v1alpha1.is_none() && !self.conversion;
        if releases {
            lib.push_str("pub mod release;\n");
            write(&src.join("release.rs"), RELEASE);
        } else {
            let _ = std::fs::remove_file(src.join("release.rs"));
        }
        write(&src.join("lib.rs"), &lib);
        // The binary: the server keeps the caBundle while there is a conversion (it refuses
        // to without one).
        let ca_bundle = if self.conversion {
            "\n        .patch_conversion_ca_bundle(client)"
        } else {
            ""
        };
        write(
            &src.join("main.rs"),
            &MAIN.replace("__CA_BUNDLE__", ca_bundle).replace(
                "__RELEASE__",
                if releases {
                    "    my_operator::release::release_ca_bundle(client.clone()).await?;\n"
                } else {
                    ""
                },
            ),
        );
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn kubectl(kubeconfig: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let kubectl = std::env::var("KUBECTL").unwrap_or_else(|_| "kubectl".into());
    let mut child = Command::new(kubectl)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// docs/conversions.md's local development: the generated CRD pointed at the operator's URL
/// (`kubectl patch --local`), applied server-side.
fn apply_pointed_at(ws: &Path, kubeconfig: &Path, url: &str) -> Output {
    let patch = json!([{"op": "replace", "path": "/spec/conversion/webhook/clientConfig",
                        "value": {"url": url}}])
    .to_string();
    let local = kubectl(
        kubeconfig,
        &[
            "patch",
            "--local",
            "-f",
            &ws.join(CRD_FILE).to_string_lossy(),
            "--type=json",
            "-p",
            &patch,
            "-o",
            "yaml",
        ],
        None,
    );
    assert!(local.status.success(), "{}", text(&local));
    kubectl(
        kubeconfig,
        &["apply", "--server-side", "-f", "-"],
        Some(&String::from_utf8(local.stdout).unwrap()),
    )
}

/// `check-crds --previous cluster rbac-out/crd` with the generator the last run built.
fn check_crds(ws: &Path, kubeconfig: &Path) -> Output {
    Command::new(outside::built(ws, "codegen"))
        .args(["check-crds", "--previous", "cluster", "rbac-out/crd"])
        .current_dir(ws)
        .env("KUBECONFIG", kubeconfig)
        .output()
        .unwrap()
}

/// The user's operator, serving on loopback until dropped.
struct Operator {
    child: Child,
    url: String,
}

impl Operator {
    /// On a port of its own choosing: its URL is what it prints.
    fn start(ws: &Path, kubeconfig: &Path, certs: &Path) -> Operator {
        Operator::spawn(ws, kubeconfig, certs, 0)
    }

    /// On `port`, which the CRD names already.
    fn start_on(ws: &Path, kubeconfig: &Path, certs: &Path, port: u16) -> Operator {
        Operator::spawn(ws, kubeconfig, certs, port)
    }

    fn spawn(ws: &Path, kubeconfig: &Path, certs: &Path, port: u16) -> Operator {
        let mut child = Command::new(outside::built(ws, "my-operator"))
            .env("KUBECONFIG", kubeconfig)
            .env("CERT_DIR", certs)
            .env("BIND", format!("127.0.0.1:{port}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("serving on ")
            .unwrap_or_else(|| panic!("the operator said {line:?}"));
        Operator {
            url: format!("https://{addr}/convert"),
            child,
        }
    }
}

/// A port free a moment ago.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// docs/conversions.md's local development, for the admission webhook: the generated
/// configuration pointed at the operator's URL, with its certificate as the CA.
fn apply_webhooks_pointed_at(ws: &Path, kubeconfig: &Path, port: u16, ca: &[u8]) -> Output {
    let ca = serde_json::to_value(k8s_openapi::ByteString(ca.to_vec())).unwrap();
    let patch = json!([{"op": "replace", "path": "/webhooks/0/clientConfig", "value": {
        "url": format!("https://127.0.0.1:{port}/validate-example-com-v1-widget"),
        "caBundle": ca,
    }}])
    .to_string();
    let file = ws.join("rbac-out/webhook/manifests.yaml");
    let local = kubectl(
        kubeconfig,
        &[
            "patch",
            "--local",
            "-f",
            file.to_str().unwrap(),
            "--type=json",
            "-p",
            &patch,
            "-o",
            "yaml",
        ],
        None,
    );
    assert!(local.status.success(), "{}", text(&local));
    kubectl(
        kubeconfig,
        &["apply", "--server-side", "-f", "-"],
        Some(&String::from_utf8(local.stdout).unwrap()),
    )
}

/// A write refused with `message` in its reason.
fn refused(result: Result<DynamicObject, kube::Error>, message: &str) {
    match result {
        Err(kube::Error::Api(e)) => assert!(e.message.contains(message), "{e:?}"),
        other => panic!("expected a refusal with {message:?}, got {other:?}"),
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn build(ws: &Path, what: &[&str]) {
    let out = outside::build_package(ws, what);
    assert!(out.status.success(), "cargo build {what:?}: {}", text(&out));
}

fn generate(ws: &Path) -> Output {
    outside::run_generator(ws, &[])
}

fn api(client: &kube::Client, version: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("example.com", version, "Widget");
    Api::namespaced_with(
        client.clone(),
        NS,
        &ApiResource::from_gvk_with_plural(&gvk, "widgets"),
    )
}

fn widget(version: &str, name: &str, spec: Value, annotations: Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("example.com/{version}"), "kind": "Widget",
        "metadata": {"name": name, "annotations": annotations},
        "spec": spec,
    }))
    .unwrap()
}

async fn crd(client: &kube::Client) -> CustomResourceDefinition {
    Api::<CustomResourceDefinition>::all(client.clone())
        .get(CRD)
        .await
        .unwrap()
}

async fn stored_versions(client: &kube::Client) -> Vec<String> {
    crd(client).await.status.unwrap().stored_versions.unwrap()
}

/// Waits for the API server to trust the operator: the caBundle written, within 2 s of the
/// apply (docs/conversions.md), then a read at the version that needs converting.
async fn converting(client: &kube::Client, version: &str, ca: &[u8]) {
    let start = Instant::now();
    loop {
        let bundle = crd(client)
            .await
            .spec
            .conversion
            .and_then(|c| c.webhook?.client_config?.ca_bundle);
        if bundle.is_some_and(|b| b.0 == ca) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "the caBundle is not there 2 s after the apply"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Err(e) = api(client, version).list(&Default::default()).await {
        assert!(Instant::now() < deadline, "no conversion at {version}: {e}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Every object, read at `version`: name → (spec, the shape annotation).
async fn all_at(client: &kube::Client, version: &str) -> Vec<(String, Value, Option<String>)> {
    let list = api(client, version)
        .list(&Default::default())
        .await
        .unwrap();
    list.items
        .into_iter()
        .map(|o| {
            let shape = o
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(SHAPE).cloned());
            (o.metadata.name.unwrap(), o.data["spec"].clone(), shape)
        })
        .collect()
}

/// What every object must read as, at v1alpha1 and at v1, after the writes of releases 1-3.
fn expected(v1alpha1: bool) -> Vec<(String, Value, Option<String>)> {
    // name, size/replicas, color, shape
    let objects = [
        ("a1", 1, "red", None),
        ("a2", 4, "green", Some("round")),
        ("b1", 3, "blue", Some("square")),
        ("c1", 5, "white", Some("oval")),
        ("c2", 6, "black", None),
    ];
    objects
        .iter()
        .map(|&(name, n, color, shape)| {
            let (spec, annotation) = if v1alpha1 {
                (json!({"size": n, "color": color}), shape.map(String::from))
            } else {
                let mut style = json!({"color": color});
                if let Some(shape) = shape {
                    style["shape"] = json!(shape);
                }
                (json!({"replicas": n, "style": style}), None)
            };
            (name.to_string(), spec, annotation)
        })
        .collect()
}

fn must_pass(out: &Output, what: &str) {
    assert!(out.status.success(), "{what}: {}", text(out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conversion_workflow_release_by_release() {
    let ws = outside::quick_start_workspace("conversion-workflow", "");
    // The features docs/conversions.md names, and tokio for the operator's binary.
    let manifest = ws.join("my-operator/Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap().replace(
        r#"features = ["health"]"#,
        r#"features = ["health", "webhook-server", "conversion-ca-bundle", "migrate"]"#,
    );
    write(
        &manifest,
        &format!(
            "{toml}tokio = {{ version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }}\n"
        ),
    );
    assert!(toml.contains("conversion-ca-bundle"), "{toml}");
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    env.ensure_namespace(NS).await.unwrap();
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let client = env.admin_client().unwrap();
    // docs/conversions.md's self-signed certificate for the local server.
    let certs = tempfile::tempdir().unwrap();
    let openssl = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "30",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            "tls.key",
            "-out",
            "tls.crt",
        ])
        .current_dir(certs.path())
        .output()
        .unwrap();
    must_pass(&openssl, "openssl");
    let ca = std::fs::read(certs.path().join("tls.crt")).unwrap();
    let at = |v: &str| api(&client, v);
    let create = |v: &'static str, name: &'static str, spec: Value, ann: Value| {
        let api = at(v);
        async move {
            api.create(&PostParams::default(), &widget(v, name, spec, ann))
                .await
                .unwrap_or_else(|e| panic!("create {name} at {v}: {e}"))
        }
    };

    // Release 1: v1alpha1 alone.
    let release = |v1alpha1, v1, conversion, webhook| Release {
        v1alpha1,
        v1,
        conversion,
        webhook,
        allow: "",
    };
    release(Some(""), None, false, false).write(&ws);
    must_pass(&generate(&ws), "release 1: the generator");
    must_pass(&check_crds(&ws, &kubeconfig), "release 1: check-crds");
    let crd_file = ws.join(CRD_FILE);
    let crd_file = crd_file.to_str().unwrap();
    let applied = kubectl(
        &kubeconfig,
        &["apply", "--server-side", "-f", crd_file],
        None,
    );
    must_pass(&applied, "release 1: kubectl apply");
    let deadline = Instant::now() + Duration::from_secs(20);
    while at("v1alpha1").list(&Default::default()).await.is_err() {
        assert!(Instant::now() < deadline, "release 1's CRD not served");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    create(
        "v1alpha1",
        "a1",
        json!({"size": 1, "color": "red"}),
        json!({}),
    )
    .await;
    create(
        "v1alpha1",
        "a2",
        json!({"size": 2, "color": "green"}),
        json!({SHAPE: "round"}),
    )
    .await;

    // Step 1: v1 beside v1alpha1, refused, naming both versions and a field that differs;
    // first without a storage version, then with v1alpha1 stored.
    release(Some(""), Some(""), false, false).write(&ws);
    let out = generate(&ws);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(
        said.contains("example.com/Widget has 2 versions")
            && said.contains("none is the storage version")
            && said.contains("their schemas differ too (spec.color exists in v1alpha1 only)"),
        "{said}"
    );
    release(Some("(storage)"), Some(""), false, false).write(&ws);
    let out = generate(&ws);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(
        said.contains("example.com/Widget: versions v1alpha1 (my-operator/src/v1alpha1.rs:")
            && said.contains("and v1 (my-operator/src/v1.rs:")
            && said.contains("have different schemas (spec.color exists in v1alpha1 only)"),
        "{said}"
    );

    // Release 2: the conversion, v1 its hub, served while v1alpha1 is still stored. The
    // operator first, the CRD then.
    release(Some("(storage)"), Some(""), true, false).write(&ws);
    must_pass(&generate(&ws), "release 2: the generator");
    build(&ws, &["-p", "my-operator", "--bin", "my-operator"]);
    must_pass(&check_crds(&ws, &kubeconfig), "release 2: check-crds");
    let operator = Operator::start(&ws, &kubeconfig, certs.path());
    must_pass(
        &apply_pointed_at(&ws, &kubeconfig, &operator.url),
        "release 2: apply",
    );
    converting(&client, "v1", &ca).await;
    assert_eq!(stored_versions(&client).await, ["v1alpha1"]);
    // Written at v1 (the shape is v1's only): read at v1alpha1 with the shape annotated.
    create(
        "v1",
        "b1",
        json!({"replicas": 3, "style": {"color": "blue", "shape": "square"}}),
        json!({}),
    )
    .await;
    // An update at v1alpha1 keeps the shape its annotation holds.
    let patch = json!({"spec": {"size": 4}});
    at("v1alpha1")
        .patch("a2", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    let so_far: Vec<_> = expected(true).into_iter().take(3).collect();
    assert_eq!(all_at(&client, "v1alpha1").await, so_far);
    let so_far: Vec<_> = expected(false).into_iter().take(3).collect();
    assert_eq!(all_at(&client, "v1").await, so_far);
    drop(operator);

    // Release 3: v1 stored, and an admission webhook of v1. The CRD first, the operator then.
    release(Some(""), Some("(storage)"), true, true).write(&ws);
    must_pass(&generate(&ws), "release 3: the generator");
    build(&ws, &["-p", "my-operator", "--bin", "my-operator"]);
    must_pass(&check_crds(&ws, &kubeconfig), "release 3: check-crds");
    let port = free_port();
    let url = format!("https://127.0.0.1:{port}/convert");
    must_pass(
        &apply_pointed_at(&ws, &kubeconfig, &url),
        "release 3: apply",
    );
    let operator = Operator::start_on(&ws, &kubeconfig, certs.path(), port);
    must_pass(
        &apply_webhooks_pointed_at(&ws, &kubeconfig, port, &ca),
        "release 3: the webhook configuration",
    );
    converting(&client, "v1alpha1", &ca).await;
    assert_eq!(stored_versions(&client).await, ["v1alpha1", "v1"]);
    create(
        "v1alpha1",
        "c1",
        json!({"size": 5, "color": "white"}),
        json!({SHAPE: "oval"}),
    )
    .await;
    create(
        "v1",
        "c2",
        json!({"replicas": 6, "style": {"color": "black"}}),
        json!({}),
    )
    .await;
    assert_eq!(all_at(&client, "v1alpha1").await, expected(true));
    assert_eq!(all_at(&client, "v1").await, expected(false));
    // The webhook of v1 decides a write at v1alpha1, converted for it.
    refused(
        at("v1alpha1")
            .create(
                &PostParams::default(),
                &widget(
                    "v1alpha1",
                    "c3",
                    json!({"size": 200, "color": "red"}),
                    json!({}),
                ),
            )
            .await,
        "replicas 200 is over 100",
    );

    // Migrated: the operator's migration rewrites every object at v1.
    let migrated = Command::new(outside::built(&ws, "my-operator"))
        .arg("migrate")
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .unwrap();
    must_pass(&migrated, "the migration");
    let said = text(&migrated);
    assert!(said.contains("rewritten: 5"), "{said}");
    assert_eq!(stored_versions(&client).await, ["v1"]);
    assert_eq!(all_at(&client, "v1alpha1").await, expected(true));
    assert_eq!(all_at(&client, "v1").await, expected(false));

    // Release 4: v1alpha1 dropped, with its conversion. The generator, which cannot see the
    // cluster, refuses the served version's removal and names the allow that accepts it.
    release(None, Some("(storage)"), false, true).write(&ws);
    let out = generate(&ws);
    assert!(
        !out.status.success(),
        "release 4 without an allow: {}",
        text(&out)
    );
    let said = text(&out);
    assert!(
        said.contains("[servedVersionRemoval]") && said.contains("v1alpha1"),
        "{said}"
    );
    let allow = said
        .split("to accept it: ")
        .nth(1)
        .and_then(|rest| rest.split(" on the struct WidgetSpec").next())
        .unwrap_or_else(|| panic!("no allow in {said}"));
    assert_eq!(
        allow,
        r#"#[k8s(allow(servedVersionRemoval, reason = "..."))]"#
    );
    let allow = allow.replace("...", "v1alpha1 migrated, and no client uses it") + "\n";
    Release {
        allow: Box::leak(allow.into_boxed_str()),
        ..release(None, Some("(storage)"), false, true)
    }
    .write(&ws);
    must_pass(&generate(&ws), "release 4: the generator, with the allow");
    build(&ws, &["-p", "my-operator", "--bin", "my-operator"]);
    // 1. Release 3's operator stops (it would write the caBundle back). check-crds foresees
    // the API server's refusal, and names the ways out.
    drop(operator);
    let out = check_crds(&ws, &kubeconfig);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(
        said.contains(
            "error[conversion]: widgets.example.com: the installed CRD converts through a \
             webhook and field manager kube-markers-webhook-server (Update) owns its \
             spec.conversion.webhook.clientConfig.caBundle"
        ) && said.contains("kube_markers::conversion::release_ca_bundle"),
        "{said}"
    );
    let apply = || {
        kubectl(
            &kubeconfig,
            &["apply", "--server-side", "-f", crd_file],
            None,
        )
    };
    // As foreseen.
    let refusal = apply();
    assert!(!refusal.status.success());
    assert!(
        text(&refusal).contains("should not be set when strategy is not set to Webhook"),
        "{}",
        text(&refusal)
    );
    // 2. Release 4's operator lets go of the caBundle at start.
    let operator = Operator::start_on(&ws, &kubeconfig, certs.path(), port);
    // A second one on the same port: the user's `main` ends with the server's own words.
    let second = Command::new(outside::built(&ws, "my-operator"))
        .env("KUBECONFIG", &kubeconfig)
        .env("CERT_DIR", certs.path())
        .env("BIND", format!("127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!second.status.success());
    assert_eq!(
        String::from_utf8_lossy(&second.stderr),
        format!(
            "Error: cannot listen on 127.0.0.1:{port} for the webhooks: Address already in \
             use (os error 98)\n"
        )
    );
    must_pass(
        &check_crds(&ws, &kubeconfig),
        "release 4: check-crds once its operator let go of the caBundle",
    );
    // 3. The apply.
    must_pass(&apply(), "release 4: kubectl apply --server-side");
    let installed = crd(&client).await;
    let versions: Vec<&str> = installed
        .spec
        .versions
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(versions, ["v1"]);
    let conversion = installed
        .spec
        .conversion
        .map(|c| (c.strategy, c.webhook.is_some()));
    assert_eq!(conversion, Some(("None".to_string(), false)));
    // Nothing lost; v1alpha1 is no longer served; the webhook still decides.
    assert_eq!(all_at(&client, "v1").await, expected(false));
    let gone = at("v1alpha1").get("a1").await.unwrap_err();
    assert!(
        matches!(gone, kube::Error::Api(ref e) if e.code == 404),
        "{gone}"
    );
    refused(
        at("v1")
            .create(
                &PostParams::default(),
                &widget(
                    "v1",
                    "d1",
                    json!({"replicas": 101, "style": {"color": "red"}}),
                    json!({}),
                ),
            )
            .await,
        "replicas 101 is over 100",
    );
    create(
        "v1",
        "d2",
        json!({"replicas": 7, "style": {"color": "grey"}}),
        json!({}),
    )
    .await;
    drop(operator);
}
