//! Applying manifest files (the generator's output) to the environment.

use super::{Envtest, Error};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ApiResource, DynamicObject, Patch, PatchParams};
use kube::{Api, Client, Resource};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// One object applied: its kind and name (with namespace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// `kind` of the object.
    pub kind: String,
    /// `namespace/name`, or `name` for cluster-scoped objects.
    pub name: String,
}

const MANAGER: &str = "kube-markers-envtest";

async fn apply_typed<K>(client: &Client, doc: Value) -> Result<String, Error>
where
    K: Resource<DynamicType = ()>,
{
    let name = doc["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let namespace = doc["metadata"]["namespace"].as_str().map(str::to_string);
    let resource = ApiResource::erase::<K>(&());
    let api: Api<DynamicObject> = match &namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    api.patch(
        &name,
        &PatchParams::apply(MANAGER).force(),
        &Patch::Apply(doc),
    )
    .await
    .map_err(Error::Kube)?;
    Ok(match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name,
    })
}

/// The objects of a multi-document YAML text (empty documents left out).
pub fn parse_manifests(text: &str) -> Result<Vec<Value>, Error> {
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(text).map_err(|e| Error::Manifest(format!("not YAML: {e}")))?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// Points the webhooks of `Validating`/`MutatingWebhookConfiguration`s at a server of the test
/// (`base_url`, `https://127.0.0.1:<port>`) instead of the cluster Service they name: each
/// `clientConfig.service` (its `path` kept) becomes `url: <base_url><path>`, and every
/// `caBundle` the test CA (`ca_pem`, see [`TestCa`](crate::TestCa)). Other objects are left alone.
pub fn point_webhooks_at(docs: &mut [Value], base_url: &str, ca_pem: &str) {
    let ca_bundle = serde_json::to_value(k8s_openapi::ByteString(ca_pem.as_bytes().to_vec()))
        .expect("bytes serialize to base64");
    for doc in docs.iter_mut().filter(|d| {
        d["kind"] == "ValidatingWebhookConfiguration" || d["kind"] == "MutatingWebhookConfiguration"
    }) {
        let Some(webhooks) = doc["webhooks"].as_array_mut() else {
            continue;
        };
        for webhook in webhooks {
            let config = &mut webhook["clientConfig"];
            if let Some(service) = config.as_object_mut().and_then(|c| c.remove("service")) {
                let path = service["path"].as_str().unwrap_or("/");
                config["url"] = format!("{base_url}{path}").into();
            }
            config["caBundle"] = ca_bundle.clone();
        }
    }
}

impl Envtest {
    /// Creates a namespace if it does not exist.
    pub async fn ensure_namespace(&self, name: &str) -> Result<(), Error> {
        let doc = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        apply_typed::<Namespace>(&self.admin_client()?, doc)
            .await
            .map(|_| ())
    }

    /// Applies every object of a YAML file (server-side apply, as admin). CRDs are waited for
    /// until they are Established.
    pub async fn apply_file(&self, path: impl AsRef<Path>) -> Result<Vec<Applied>, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        let docs = parse_manifests(&text)
            .map_err(|e| Error::Manifest(format!("{}: {e}", path.display())))?;
        self.apply_objects(docs).await
    }

    /// Applies objects (server-side apply, as admin); CRDs are waited for until Established.
    pub async fn apply_objects(&self, docs: Vec<Value>) -> Result<Vec<Applied>, Error> {
        let client = self.admin_client()?;
        let mut applied = Vec::new();
        for doc in docs {
            let kind = doc["kind"].as_str().unwrap_or_default().to_string();
            let name = match kind.as_str() {
                "CustomResourceDefinition" => {
                    let name = apply_typed::<CustomResourceDefinition>(&client, doc).await?;
                    self.wait_established(&client, &name).await?;
                    name
                }
                "ClusterRole" => apply_typed::<ClusterRole>(&client, doc).await?,
                "ClusterRoleBinding" => apply_typed::<ClusterRoleBinding>(&client, doc).await?,
                "Role" => apply_typed::<Role>(&client, doc).await?,
                "RoleBinding" => apply_typed::<RoleBinding>(&client, doc).await?,
                "Namespace" => apply_typed::<Namespace>(&client, doc).await?,
                "ServiceAccount" => apply_typed::<ServiceAccount>(&client, doc).await?,
                "Deployment" => apply_typed::<Deployment>(&client, doc).await?,
                "ValidatingWebhookConfiguration" => {
                    apply_typed::<ValidatingWebhookConfiguration>(&client, doc).await?
                }
                "MutatingWebhookConfiguration" => {
                    apply_typed::<MutatingWebhookConfiguration>(&client, doc).await?
                }
                other => {
                    return Err(Error::Manifest(format!(
                        "cannot apply a {other:?} (supported: CRDs, RBAC objects, namespaces, \
                         service accounts, deployments, webhook configurations)"
                    )));
                }
            };
            applied.push(Applied { kind, name });
        }
        Ok(applied)
    }

    /// Applies every `.yaml` file of a directory, in name order.
    pub async fn apply_dir(&self, dir: impl AsRef<Path>) -> Result<Vec<Applied>, Error> {
        let dir = dir.as_ref();
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        let mut applied = Vec::new();
        for file in files {
            applied.extend(self.apply_file(&file).await?);
        }
        Ok(applied)
    }

    async fn wait_established(&self, client: &Client, name: &str) -> Result<(), Error> {
        let api: Api<CustomResourceDefinition> = Api::all(client.clone());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let crd = api.get(name).await?;
            let conditions = crd.status.and_then(|s| s.conditions).unwrap_or_default();
            if conditions
                .iter()
                .any(|c| c.type_ == "Established" && c.status == "True")
            {
                return Ok(());
            }
            if let Some(c) = conditions
                .iter()
                .find(|c| c.type_ == "NamesAccepted" && c.status == "False")
            {
                return Err(Error::Manifest(format!(
                    "CRD {name} names not accepted: {}",
                    c.message.clone().unwrap_or_default()
                )));
            }
            if Instant::now() > deadline {
                return Err(Error::Manifest(format!(
                    "CRD {name} not Established after 30 s: {conditions:?}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
