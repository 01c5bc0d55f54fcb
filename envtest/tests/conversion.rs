//! Conversion webhooks end to end: a kind in two versions (`v1` served, `v2` served and
//! stored) whose conversion is a `#[kube_markers::conversion]` in this file, served by
//! `kube_markers::webhook::server` at `/convert` (`registered()`, as an operator's `main`
//! does) and called by a real kube-apiserver on loopback.
//!
//! One API server for the whole conversion suite: the steps run in order in one test. The CRD
//! is installed without a `caBundle`, 3.5 s after the server started; the server writes it
//! (`patch_conversion_ca_bundle`) within 2 s, as a user allowed only `get`, `patch` and `watch`
//! on that CRD by name, the rule the generator writes, and logs that it serves conversions.
//! Then: an object created at v1 reads at v2 converted and back at v1 unchanged; a list at
//! either version returns objects stored from either; server-side apply at v1 on an object
//! written at v2; a watch at v1 sees a change made at v2; a conversion error reaches the
//! client with its message; with the server stopped, requests that need a conversion (a GET
//! or a write at v1) fail and those at the storage version succeed.
//!
//! `the_convert_route_refuses_bad_requests_and_survives_a_panic` talks to `/convert` over TLS
//! directly: bad JSON and other reviews get 400, an oversized body 413, a panicking conversion
//! a failed review, and the server goes on.

mod common;
use common::{assets, refusal};
#[allow(dead_code)] // each includer uses some of it
#[path = "../../runtime/tests/support/log_lines.rs"]
mod log_lines;
use log_lines::LogLines;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::core::crd::merge_crds;
use kube::{CustomResource, CustomResourceExt, ResourceExt};
use kube_markers::conversion::{Released, Spoke, release_ca_bundle};
use kube_markers::webhook::server::{RunningServer, WebhookServer};
use kube_markers_envtest::{Envtest, TestCa};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const NS: &str = "conversion";
const GROUP: &str = "conv.kube-markers.dev";
const CRD: &str = "caches.conv.kube-markers.dev";
const ENGINE: &str = "conv.kube-markers.dev/engine";

pub mod v1 {
    use super::*;

    /// v1: `image` is `name:tag`; no engine (kept in an annotation when not the default).
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(
        group = "conv.kube-markers.dev",
        version = "v1",
        kind = "Cache",
        namespaced
    )]
    pub struct CacheSpec {
        pub replicas: i32,
        pub image: String,
    }
}

pub mod v2 {
    use super::*;

    /// v2, the storage version: `replicas` renamed `size`, `image` split, `engine` added.
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    #[kube(
        group = "conv.kube-markers.dev",
        version = "v2",
        kind = "Cache",
        namespaced
    )]
    pub struct CacheSpec {
        pub size: i32,
        pub image: Image,
        pub engine: String,
    }

    #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
    pub struct Image {
        pub name: String,
        pub tag: String,
    }
}

#[kube_markers::conversion]
impl Spoke<v2::Cache> for v1::Cache {
    type Error = String;

    fn to_hub(self) -> Result<v2::Cache, String> {
        if self.spec.replicas < 0 {
            return Err(format!(
                "replicas must not be negative, not {}",
                self.spec.replicas
            ));
        }
        if self.spec.image == "panic" {
            panic!("this conversion panics on purpose");
        }
        let mut metadata = self.metadata;
        let engine = metadata
            .annotations
            .as_mut()
            .and_then(|a| a.remove(ENGINE))
            .unwrap_or_else(|| "redis".into());
        let (name, tag) = self
            .spec
            .image
            .split_once(':')
            .unwrap_or((&self.spec.image, "latest"));
        Ok(v2::Cache {
            metadata,
            spec: v2::CacheSpec {
                size: self.spec.replicas,
                image: v2::Image {
                    name: name.into(),
                    tag: tag.into(),
                },
                engine,
            },
        })
    }

    fn from_hub(hub: v2::Cache) -> Result<Self, String> {
        let mut metadata = hub.metadata;
        if hub.spec.engine != "redis" {
            metadata
                .annotations
                .get_or_insert_default()
                .insert(ENGINE.into(), hub.spec.engine);
        }
        Ok(v1::Cache {
            metadata,
            spec: v1::CacheSpec {
                replicas: hub.spec.size,
                image: format!("{}:{}", hub.spec.image.name, hub.spec.image.tag),
            },
        })
    }
}

/// The CRD of both versions, v2 stored, converted by the webhook at `url` (no `caBundle`:
/// the server writes it).
fn crd(url: &str) -> Value {
    let mut crd =
        serde_json::to_value(merge_crds(vec![v1::Cache::crd(), v2::Cache::crd()], "v2").unwrap())
            .unwrap();
    crd["spec"]["conversion"] = json!({
        "strategy": "Webhook",
        "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": url}},
    });
    crd
}

/// The role the generator writes for the server's caBundle patching, bound to `user`.
fn ca_bundle_role(user: &str) -> Vec<Value> {
    vec![
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "conversion-ca-bundle"},
            "rules": [{
                "apiGroups": ["apiextensions.k8s.io"],
                "resources": ["customresourcedefinitions"],
                "resourceNames": [CRD],
                "verbs": ["get", "patch", "watch"],
            }],
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "conversion-ca-bundle"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "conversion-ca-bundle"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
        }),
    ]
}

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

/// `tls.crt`, `tls.key` and `ca.crt` in `dir`, as a `kubernetes.io/tls` Secret is mounted.
fn write_certs(ca: &TestCa, dir: &std::path::Path) {
    ca.issue("127.0.0.1").unwrap().write_to(dir).unwrap();
    std::fs::write(dir.join("ca.crt"), ca.pem()).unwrap();
}

fn v1_cache(name: &str, replicas: i32, image: &str) -> v1::Cache {
    v1::Cache::new(
        name,
        v1::CacheSpec {
            replicas,
            image: image.into(),
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_converts_through_the_served_conversions() {
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    env.ensure_namespace(NS).await.unwrap();
    let ca = TestCa::new("conversion test CA").unwrap();
    let certs = tempfile::tempdir().unwrap();
    write_certs(&ca, certs.path());

    // The server first (the CRD names its URL), then the CRD, without a caBundle.
    let patcher = "conversion-server";
    env.apply_objects(ca_bundle_role(patcher)).await.unwrap();
    let server = WebhookServer::builder()
        .registered()
        .cert_dir(certs.path())
        .bind(([127, 0, 0, 1], 0).into())
        .shutdown_timeout(Duration::from_secs(5))
        .patch_conversion_ca_bundle(env.client_as(patcher, &[]).unwrap())
        .build()
        .unwrap();
    assert!(server.paths().contains(&"/convert"), "{:?}", server.paths());
    // It says what it serves (this binary links the MyDatabase example's admission handlers).
    let log = LogLines::default();
    let server: RunningServer = {
        let _logging = tracing::subscriber::set_default(log.clone());
        server.start().await.unwrap()
    };
    let said = log.all();
    assert!(
        said.iter().any(|l| l
            .starts_with("INFO message=serving admission webhooks and conversions addr=")
            && l.contains("paths=[\"/convert\", \"/mutate-db-example-com-v1-mydatabase\"")),
        "{said:?}"
    );
    let url = format!("https://{}/convert", server.local_addr());
    // The CRD a while after the server: it watches the CRD instead of backing off (1, 2, 4 s
    // would next look 3.5 s after the CRD is applied), with the default resync of 5 minutes.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    env.apply_objects(vec![crd(&url)]).await.unwrap();
    let applied = Instant::now();

    // The server writes the CA into the CRD within 2 s.
    let admin = env.admin_client().unwrap();
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(admin.clone());
    loop {
        let bundle = crds
            .get(CRD)
            .await
            .ok()
            .and_then(|crd| crd.spec.conversion?.webhook?.client_config?.ca_bundle);
        if bundle.is_some_and(|b| b.0 == ca.pem().replace("\r\n", "\n").into_bytes()) {
            break;
        }
        assert!(
            applied.elapsed() < Duration::from_secs(2),
            "no caBundle 2 s after the CRD was applied"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let at_v1: Api<v1::Cache> = Api::namespaced(admin.clone(), NS);
    let at_v2: Api<v2::Cache> = Api::namespaced(admin.clone(), NS);

    // Created at v1: stored at v2 (converted), read at v2 converted, back at v1 unchanged.
    let mut original = v1_cache("from-v1", 2, "valkey:8.1");
    original
        .annotations_mut()
        .insert(ENGINE.into(), "valkey".into());
    original.labels_mut().insert("team".into(), "db".into());
    let created = eventually("the API server trusts the patched caBundle", || async {
        at_v1.create(&PostParams::default(), &original).await.ok()
    })
    .await;
    assert_eq!(created.spec, original.spec);
    let hub = at_v2.get("from-v1").await.unwrap();
    assert_eq!(
        hub.spec,
        v2::CacheSpec {
            size: 2,
            image: v2::Image {
                name: "valkey".into(),
                tag: "8.1".into()
            },
            engine: "valkey".into(),
        }
    );
    assert!(
        !hub.annotations().contains_key(ENGINE),
        "moved into spec.engine"
    );
    assert_eq!(hub.labels().get("team").map(String::as_str), Some("db"));
    assert_eq!(hub.uid(), created.uid(), "metadata is the API server's");
    let back = at_v1.get("from-v1").await.unwrap();
    assert_eq!(back.spec, original.spec);
    assert_eq!(back.metadata.labels, original.metadata.labels);
    assert_eq!(back.metadata.annotations, original.metadata.annotations);

    // Created at v2; a list at v2 and one at v1 return both, each converted.
    at_v2
        .create(
            &PostParams::default(),
            &v2::Cache::new(
                "from-v2",
                v2::CacheSpec {
                    size: 1,
                    image: v2::Image {
                        name: "redis".into(),
                        tag: "7".into(),
                    },
                    engine: "redis".into(),
                },
            ),
        )
        .await
        .unwrap();
    let listed = at_v2.list(&ListParams::default()).await.unwrap();
    let sizes: Vec<(String, i32)> = listed.iter().map(|c| (c.name_any(), c.spec.size)).collect();
    assert_eq!(sizes, [("from-v1".into(), 2), ("from-v2".into(), 1)]);
    let listed = at_v1.list(&ListParams::default()).await.unwrap();
    let images: Vec<(String, String)> = listed
        .iter()
        .map(|c| (c.name_any(), c.spec.image.clone()))
        .collect();
    assert_eq!(
        images,
        [
            ("from-v1".into(), "valkey:8.1".into()),
            ("from-v2".into(), "redis:7".into())
        ]
    );

    // Server-side apply at v1 on the object written at v2.
    let apply = json!({
        "apiVersion": format!("{GROUP}/v1"), "kind": "Cache",
        "metadata": {"name": "from-v2"},
        "spec": {"replicas": 4, "image": "redis:7.4"},
    });
    let applied = at_v1
        .patch(
            "from-v2",
            &PatchParams::apply("conversion-test").force(),
            &Patch::Apply(&apply),
        )
        .await
        .unwrap();
    assert_eq!(applied.spec.replicas, 4);
    let hub = at_v2.get("from-v2").await.unwrap();
    assert_eq!((hub.spec.size, hub.spec.image.tag.as_str()), (4, "7.4"));
    assert_eq!(hub.spec.engine, "redis", "kept through the round trip");

    // A watch at v1 sees a change made at v2.
    let version = at_v1
        .get("from-v1")
        .await
        .unwrap()
        .resource_version()
        .unwrap();
    let mut events = at_v1
        .watch(
            &WatchParams::default().fields("metadata.name=from-v1"),
            &version,
        )
        .await
        .unwrap()
        .boxed();
    at_v2
        .patch(
            "from-v1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 3}})),
        )
        .await
        .unwrap();
    let event = tokio::time::timeout(Duration::from_secs(30), events.try_next())
        .await
        .expect("a watch event within 30 s")
        .unwrap();
    match event {
        Some(WatchEvent::Modified(cache)) => {
            assert_eq!(cache.spec.replicas, 3);
            assert_eq!(cache.spec.image, "valkey:8.1");
        }
        other => panic!("expected the modification at v1, got {other:?}"),
    }
    drop(events);

    // A conversion error reaches the client with its message.
    let (code, message) = refusal(
        at_v1
            .create(&PostParams::default(), &v1_cache("negative", -1, "redis:7"))
            .await,
    );
    assert!(
        message.contains(&format!(
            "cannot convert Cache {NS}/negative from {GROUP}/v1 to {GROUP}/v2: replicas must not be negative, not -1"
        )),
        "{code} {message}"
    );
    assert!(at_v2.get_opt("negative").await.unwrap().is_none());

    // The server stops: what needs a conversion fails, the storage version still serves.
    server.shutdown().await;
    let (code, message) = refusal(at_v1.get("from-v1").await);
    assert_eq!(code, 500, "{message}");
    assert!(message.contains("conversion webhook for"), "{message}");
    // A write at v1 needs its object converted to the storage version. (A LIST at v1 is not
    // asserted: kube-apiserver keeps a watch cache per served version, filled with objects
    // converted while the webhook was up, and serves consistent lists from it.)
    let (code, message) = refusal(
        at_v1
            .create(
                &PostParams::default(),
                &v1_cache("while-down", 1, "redis:7"),
            )
            .await,
    );
    assert_eq!(code, 500, "{message}");
    assert!(message.contains("conversion webhook for"), "{message}");
    assert!(at_v2.get_opt("while-down").await.unwrap().is_none());
    assert_eq!(at_v2.get("from-v1").await.unwrap().spec.size, 3);
    assert_eq!(
        at_v2
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len(),
        2
    );
    let mut at_storage = at_v2.get("from-v2").await.unwrap();
    at_storage.spec.size = 5;
    at_storage.metadata.managed_fields = None;
    at_v2
        .replace("from-v2", &PostParams::default(), &at_storage)
        .await
        .unwrap();

    // The release that drops the last conversion: v2 alone, no conversion. The server's field
    // manager owns the caBundle it wrote, so server-side apply keeps it without the rest of
    // `spec.conversion.webhook`, and the API server refuses that.
    let mut one_version = serde_json::to_value(v2::Cache::crd()).unwrap();
    one_version["spec"]["conversion"] = json!({"strategy": "None"});
    let refused = env
        .apply_objects(vec![one_version.clone()])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("should not be set when strategy is not set to Webhook"),
        "{refused}"
    );
    // That release's operator lets go of it, with `get` and `patch` on the CRD by name (the
    // `#[rbac]` of release_ca_bundle's docs); the apply then goes through.
    let releaser = "conversion-releaser";
    let mut role = ca_bundle_role(releaser);
    role[0]["metadata"]["name"] = json!("conversion-ca-bundle-release");
    role[0]["rules"][0]["verbs"] = json!(["get", "patch"]);
    role[1]["metadata"]["name"] = json!("conversion-ca-bundle-release");
    role[1]["roleRef"]["name"] = json!("conversion-ca-bundle-release");
    env.apply_objects(role).await.unwrap();
    let as_releaser = env.client_as(releaser, &[]).unwrap();
    let released = release_ca_bundle(as_releaser.clone(), [CRD]).await.unwrap();
    assert_eq!(released, [(CRD.to_string(), Released::Removed)]);
    env.apply_objects(vec![one_version]).await.unwrap();
    let installed = crds.get(CRD).await.unwrap();
    let conversion = installed.spec.conversion.unwrap();
    assert_eq!(
        (conversion.strategy.as_str(), conversion.webhook.is_none()),
        ("None", true)
    );
    assert_eq!(at_v2.get("from-v2").await.unwrap().spec.size, 5);
    // Once released, nothing is left to release; a CRD that is not there is said so.
    assert_eq!(
        release_ca_bundle(as_releaser, [CRD]).await.unwrap(),
        [(CRD.to_string(), Released::NoBundle)]
    );
    let again = release_ca_bundle(admin, [CRD, "absent.example.com"])
        .await
        .unwrap();
    assert_eq!(
        again,
        [
            (CRD.to_string(), Released::NoBundle),
            ("absent.example.com".to_string(), Released::Absent),
        ]
    );
}

// ---- /convert over TLS, without an API server ------------------------------------------------

/// One request on a fresh TLS connection: (status, body).
async fn post(
    addr: std::net::SocketAddr,
    ca: &TestCa,
    content_type: &str,
    body: &[u8],
) -> (u16, Vec<u8>) {
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
    use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca.pem().as_bytes()).unwrap())
        .unwrap();
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::IpAddress(addr.ip().into()), tcp)
        .await
        .unwrap();
    let head = format!(
        "POST /convert HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    tls.write_all(head.as_bytes()).await.unwrap();
    // A body over the limit is answered before it is all sent.
    let _ = tls.write_all(body).await;
    let mut reply = Vec::new();
    let _ = tls.read_to_end(&mut reply).await;
    let text = String::from_utf8_lossy(&reply);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.as_bytes().to_vec())
}

fn conversion_review(uid: &str, objects: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": format!("{GROUP}/v2"), "objects": objects},
    }))
    .unwrap()
}

fn cache_at_v1(name: &str, image: &str) -> Value {
    json!({
        "apiVersion": format!("{GROUP}/v1"), "kind": "Cache",
        "metadata": {"name": name, "namespace": "ns", "uid": "u"},
        "spec": {"replicas": 1, "image": image},
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_convert_route_refuses_bad_requests_and_survives_a_panic() {
    let ca = TestCa::new("conversion test CA").unwrap();
    let certs = tempfile::tempdir().unwrap();
    write_certs(&ca, certs.path());
    let server = WebhookServer::builder()
        .registered()
        .cert_dir(certs.path())
        .bind(([127, 0, 0, 1], 0).into())
        .body_limit(64 << 10)
        .build()
        .unwrap()
        .start()
        .await
        .unwrap();
    let addr = server.local_addr();
    let json_type = "application/json";

    let (status, body) = post(addr, &ca, json_type, b"{\"apiVersion\":").await;
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    let admission =
        br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x"}}"#;
    let (status, body) = post(addr, &ca, json_type, admission).await;
    assert_eq!(
        (status, String::from_utf8_lossy(&body).into_owned()),
        (400, "the request body is not an apiextensions.k8s.io/v1 ConversionReview: its apiVersion is \"admission.k8s.io/v1\" and its kind \"AdmissionReview\"".into())
    );
    let no_request = br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}"#;
    let (status, body) = post(addr, &ca, json_type, no_request).await;
    assert_eq!(
        (status, body),
        (400, b"the ConversionReview has no request".to_vec())
    );
    let (status, _) = post(addr, &ca, "text/plain", &conversion_review("t", vec![])).await;
    assert_eq!(status, 415);
    let big = conversion_review("big", vec![cache_at_v1(&"x".repeat(70 << 10), "redis")]);
    let (status, _) = post(addr, &ca, json_type, &big).await;
    assert_eq!(status, 413);

    // A panicking conversion fails its review; the next review is answered.
    let (status, body) = post(
        addr,
        &ca,
        json_type,
        &conversion_review("p", vec![cache_at_v1("boom", "panic")]),
    )
    .await;
    assert_eq!(status, 200);
    let review: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(review["response"]["uid"], "p");
    assert_eq!(review["response"]["result"]["status"], "Failure");
    let message = review["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("Cache ns/boom") && message.contains("panicked"),
        "{message}"
    );
    let (status, body) = post(
        addr,
        &ca,
        json_type,
        &conversion_review("ok", vec![cache_at_v1("fine", "redis:7")]),
    )
    .await;
    assert_eq!(status, 200);
    let review: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        review["response"]["result"]["status"], "Success",
        "{review}"
    );
    assert_eq!(
        review["response"]["convertedObjects"][0]["spec"],
        json!({"size": 1, "image": {"name": "redis", "tag": "7"}, "engine": "redis"})
    );
    server.shutdown().await;
}
