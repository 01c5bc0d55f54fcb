//! The MyDatabase operator: a `MyDatabase` (`db.example.com/v1`) runs `replicas` pods of
//! `image` behind a Service, and its connection address is published to the tenant namespace
//! [`TENANT_NAMESPACE`] for the applications there.
//!
//! Its RBAC, written next to the code that needs it:
//! - a ClusterRole for the cluster-wide parts: watching `mydatabases` (and patching their
//!   finalizers list and status), applying the owned Deployments and Services;
//! - a Role named `mydatabase-tenant` in [`TENANT_NAMESPACE`], for the one ConfigMap the
//!   operator writes there ([`publish`]);
//! - `get` on the API server's `/metrics`, which the operator reads to enforce a cluster-wide
//!   limit on databases ([`cluster_database_count`]).

use futures::StreamExt;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    ConfigMap, Container, ContainerPort, PodSpec, PodTemplateSpec, Service, ServicePort,
    ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta, Time};
use kube::api::{Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{Event, finalizer};
use kube::runtime::watcher;
use kube::{Api, Client, CustomResource, Resource, ResourceExt};
use kube_markers::rbac;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// A database cluster.
#[kube_markers::crd(storage)]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(
    group = "db.example.com",
    version = "v1",
    kind = "MyDatabase",
    plural = "mydatabases",
    namespaced,
    status = "MyDatabaseStatus",
    shortname = "mydb",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.readyReplicas"
    ),
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"),
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp"
    )
)]
#[k8s(validation(
    rule = "self.replicas == 1 || !self.image.endsWith(':latest')",
    message = "a replicated database must pin its image to a tag other than :latest",
    field_path = ".image",
    reason = "FieldValueInvalid"
))]
pub struct MyDatabaseSpec {
    /// Number of database pods.
    #[k8s(minimum = 1, maximum = 10)]
    pub replicas: i32,
    /// Container image of the database, `name[:tag]`.
    #[k8s(
        pattern = "^[a-z0-9]+([._/-][a-z0-9]+)*(:[A-Za-z0-9._-]+)?$",
        max_length = 255
    )]
    pub image: String,
    /// Storage class of the data volumes: fixed once chosen.
    #[k8s(immutable)]
    #[serde(
        default,
        rename = "storageClass",
        skip_serializing_if = "Option::is_none"
    )]
    pub storage_class: Option<String>,
}

/// What the operator observed.
#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MyDatabaseStatus {
    /// Pods ready.
    #[serde(default)]
    pub ready_replicas: i32,
    /// `Ready`: whether all replicas are ready and the address is published.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[k8s(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
}

pub mod v1alpha1;

#[cfg(feature = "webhook")]
pub mod webhooks;

/// Namespace where applications find the databases' addresses.
pub const TENANT_NAMESPACE: &str = "db-tenants";
/// ConfigMap in [`TENANT_NAMESPACE`] holding one `namespace.name` → address entry per database.
pub const DIRECTORY: &str = "mydatabase-directory";
/// Finalizer held while the database is listed in the directory.
pub const FINALIZER: &str = "db.example.com/directory";
/// Field manager of the operator's server-side applies.
pub const FIELD_MANAGER: &str = "mydatabase-operator";
/// How many `MyDatabase` objects the cluster may hold before new ones are refused.
pub const MAX_DATABASES: u64 = 100;

/// Shared state of the reconciler.
pub struct Context {
    /// Client with the operator's identity.
    pub client: Client,
}

/// Why a reconciliation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the API server failed.
    #[error("Kubernetes API call failed: {0}")]
    Kube(#[from] kube::Error),
    /// Adding or removing the finalizer failed.
    #[error("finalizer: {0}")]
    Finalizer(#[source] Box<kube::runtime::finalizer::Error<Error>>),
    /// Building the `/metrics` request failed.
    #[error("request: {0}")]
    Http(#[from] http::Error),
    /// The object has no namespace.
    #[error("MyDatabase {0} has no namespace")]
    NoNamespace(String),
}

/// Reconciles one `MyDatabase`.
#[rbac(
    groups = "db.example.com",
    resources = "mydatabases",
    verbs = "list;watch;patch"
)]
#[rbac(
    groups = "db.example.com",
    resources = "mydatabases/status",
    verbs = "patch"
)]
#[rbac(
    groups = "apps",
    resources = "deployments",
    verbs = "list;watch;create;patch",
    allow(
        workload-write,
        reason = "running the database as a Deployment it creates and scales is this operator's \
                  job; the pod template it writes names no ServiceAccount and mounts no Secret"
    )
)]
#[rbac(groups = "", resources = "services", verbs = "create;patch")]
pub async fn reconcile(db: Arc<MyDatabase>, ctx: Arc<Context>) -> Result<Action, Error> {
    let ns = db
        .namespace()
        .ok_or_else(|| Error::NoNamespace(db.name_any()))?;
    let api: Api<MyDatabase> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&api, FINALIZER, db, |event| async {
        match event {
            Event::Apply(db) => apply(&db, &ctx.client).await,
            Event::Cleanup(db) => {
                publish(&ctx.client, &db, None).await?;
                Ok(Action::await_change())
            }
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)))
}

fn labels(db: &MyDatabase) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "app.kubernetes.io/name".to_string(),
            "mydatabase".to_string(),
        ),
        ("app.kubernetes.io/instance".to_string(), db.name_any()),
    ])
}

fn owned_meta(db: &MyDatabase) -> ObjectMeta {
    ObjectMeta {
        name: Some(db.name_any()),
        namespace: db.namespace(),
        labels: Some(labels(db)),
        owner_references: db.controller_owner_ref(&()).map(|o| vec![o]),
        ..ObjectMeta::default()
    }
}

/// The database pods.
pub fn desired_deployment(db: &MyDatabase) -> Deployment {
    Deployment {
        metadata: owned_meta(db),
        spec: DeploymentSpec {
            replicas: Some(db.spec.replicas),
            selector: LabelSelector {
                match_labels: Some(labels(db)),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels(db)),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "database".into(),
                        image: Some(db.spec.image.clone()),
                        ports: Some(vec![ContainerPort {
                            container_port: 5432,
                            name: Some("db".into()),
                            ..ContainerPort::default()
                        }]),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        },
        ..Deployment::default()
    }
}

/// The stable address of the database.
pub fn desired_service(db: &MyDatabase) -> Service {
    Service {
        metadata: owned_meta(db),
        spec: Some(ServiceSpec {
            selector: Some(labels(db)),
            ports: Some(vec![ServicePort {
                name: Some("db".into()),
                port: 5432,
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    }
}

async fn apply(db: &MyDatabase, client: &Client) -> Result<Action, Error> {
    let ns = db.namespace().unwrap_or_default();
    let name = db.name_any();
    let params = PatchParams::apply(FIELD_MANAGER).force();

    let count = cluster_database_count(client).await?;
    let (ready, condition) = if count > MAX_DATABASES {
        let message =
            format!("{count} MyDatabases exist, more than the cluster's limit of {MAX_DATABASES}");
        (
            0,
            ready_condition(db, false, "ClusterLimitReached", message),
        )
    } else {
        let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
        let deployment = deployments
            .patch(&name, &params, &Patch::Apply(desired_deployment(db)))
            .await?;
        let services: Api<Service> = Api::namespaced(client.clone(), &ns);
        services
            .patch(&name, &params, &Patch::Apply(desired_service(db)))
            .await?;
        publish(client, db, Some(format!("{name}.{ns}.svc:5432"))).await?;
        let ready = deployment
            .status
            .and_then(|s| s.ready_replicas)
            .unwrap_or(0);
        let all_ready = ready == db.spec.replicas;
        let reason = if all_ready {
            "AllReplicasReady"
        } else {
            "ReplicasStarting"
        };
        let message = format!("{ready}/{} replicas ready", db.spec.replicas);
        (ready, ready_condition(db, all_ready, reason, message))
    };

    let status = serde_json::json!({
        "apiVersion": MyDatabase::api_version(&()),
        "kind": MyDatabase::kind(&()),
        "status": MyDatabaseStatus { ready_replicas: ready, conditions: vec![condition] },
    });
    let api: Api<MyDatabase> = Api::namespaced(client.clone(), &ns);
    api.patch_status(&name, &params, &Patch::Apply(status))
        .await?;
    Ok(Action::requeue(Duration::from_secs(300)))
}

fn ready_condition(db: &MyDatabase, ready: bool, reason: &str, message: String) -> Condition {
    let status = if ready { "True" } else { "False" };
    let previous = db
        .status
        .as_ref()
        .and_then(|s| s.conditions.iter().find(|c| c.type_ == "Ready"));
    let last_transition_time = match previous {
        Some(c) if c.status == status => c.last_transition_time.clone(),
        _ => Time(jiff::Timestamp::now()),
    };
    Condition {
        type_: "Ready".into(),
        status: status.into(),
        reason: reason.into(),
        message,
        observed_generation: db.metadata.generation,
        last_transition_time,
    }
}

/// Adds (`Some(address)`) or removes (`None`) the database's entry in the tenant directory.
#[rbac(
    groups = "",
    resources = "configmaps",
    verbs = "patch;create",
    namespace = "db-tenants",
    role_name = "mydatabase-tenant"
)]
pub async fn publish(
    client: &Client,
    db: &MyDatabase,
    address: Option<String>,
) -> Result<(), Error> {
    let key = format!("{}.{}", db.namespace().unwrap_or_default(), db.name_any());
    // Server-side apply with one field manager per database: each owns its own key, and
    // applying an empty map releases (deletes) it.
    let manager = format!("{FIELD_MANAGER}-{key}");
    let data: BTreeMap<String, String> = address.into_iter().map(|a| (key.clone(), a)).collect();
    let directory = ConfigMap {
        metadata: ObjectMeta {
            name: Some(DIRECTORY.into()),
            namespace: Some(TENANT_NAMESPACE.into()),
            ..ObjectMeta::default()
        },
        data: Some(data),
        ..ConfigMap::default()
    };
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), TENANT_NAMESPACE);
    api.patch(
        DIRECTORY,
        &PatchParams::apply(&manager).force(),
        &Patch::Apply(directory),
    )
    .await?;
    Ok(())
}

/// The number of `MyDatabase` objects in the cluster, from the API server's
/// `apiserver_storage_objects` metric (cheaper than listing them all).
#[rbac(urls = "/metrics", verbs = "get")]
pub async fn cluster_database_count(client: &Client) -> Result<u64, Error> {
    let request = http::Request::get("/metrics").body(Vec::new())?;
    let text = client.request_text(request).await?;
    Ok(parse_storage_objects(&text, "mydatabases.db.example.com").unwrap_or(0))
}

/// Reads `apiserver_storage_objects{resource="<resource>"} N` from Prometheus text.
pub fn parse_storage_objects(metrics: &str, resource: &str) -> Option<u64> {
    let needle = format!("apiserver_storage_objects{{resource=\"{resource}\"}}");
    metrics.lines().find_map(|line| {
        let value = line.strip_prefix(&needle)?.trim();
        value.parse::<f64>().ok().map(|v| v as u64)
    })
}

/// Retries a failed reconciliation after a short pause.
pub fn error_policy(_db: Arc<MyDatabase>, error: &Error, _ctx: Arc<Context>) -> Action {
    eprintln!("reconcile failed: {error}");
    Action::requeue(Duration::from_secs(5))
}

/// Runs the controller until the stream ends (on SIGINT/SIGTERM); `cache_synced` is ready
/// once the controller's cache holds every `MyDatabase` (the first list is in).
pub async fn run(client: Client, cache_synced: kube_markers::health::Condition) {
    let databases = Api::<MyDatabase>::all(client.clone());
    let controller = Controller::new(databases, watcher::Config::default()).owns(
        Api::<Deployment>::all(client.clone()),
        watcher::Config::default(),
    );
    let store = controller.store();
    tokio::spawn(cache_synced.ready_when(async move { store.wait_until_ready().await }));
    controller
        .shutdown_on_signal()
        .run(reconcile, error_policy, Arc::new(Context { client }))
        .for_each(|result| async move {
            if let Err(e) = result {
                eprintln!("controller: {e}");
            }
        })
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_registered() {
        let here: Vec<_> = kube_markers::registry::rbac_entries()
            .into_iter()
            .filter(|e| e.source.crate_name() == "mydatabase_operator")
            .collect();
        assert_eq!(here.len(), 6);
        let tenant: Vec<_> = here
            .iter()
            .filter(|e| e.marker.namespace.is_some())
            .collect();
        assert_eq!(tenant.len(), 1);
        assert_eq!(
            tenant[0].marker.role_name.as_deref(),
            Some("mydatabase-tenant")
        );
        assert_eq!(tenant[0].source.item, "publish");
    }

    #[test]
    fn storage_objects_metric_is_read() {
        let text = "# HELP x\napiserver_storage_objects{resource=\"pods\"} 12\n\
                    apiserver_storage_objects{resource=\"mydatabases.db.example.com\"} 3\n";
        assert_eq!(
            parse_storage_objects(text, "mydatabases.db.example.com"),
            Some(3)
        );
        assert_eq!(parse_storage_objects(text, "nope"), None);
    }
}
