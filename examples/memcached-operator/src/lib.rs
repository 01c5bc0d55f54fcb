//! The kubebuilder tutorial's Memcached operator, written with kube-rs.
//!
//! A `Memcached` (`cache.example.com/v1alpha1`) asks for `size` memcached pods; the reconciler
//! server-side-applies a Deployment with that many replicas, owned by the `Memcached`, reports
//! an `Available` condition through the status subresource, and holds a finalizer so that
//! deletion passes through [`cleanup`].
//!
//! Its RBAC is exactly what [`reconcile`] and [`run`] do, written next to them (the envtest
//! suite proves each rule is needed). There is no rule for `memcacheds/finalizers`: kube-rs'
//! owner references do not set `blockOwnerDeletion`, so the OwnerReferencesPermissionEnforcement
//! admission plugin asks for nothing.
//! - watching `memcacheds` (list, watch), adding and removing the finalizer (patch);
//! - writing the status (patch on `memcacheds/status`);
//! - watching owned Deployments (list, watch) and applying them (patch, plus create when the
//!   apply creates the object).

use futures::StreamExt;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, ContainerPort, PodSpec, PodTemplateSpec};
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

/// The desired state of a memcached cluster.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Memcached",
    namespaced,
    status = "MemcachedStatus",
    shortname = "mc"
)]
pub struct MemcachedSpec {
    /// Number of memcached pods (the tutorial's limits: 1 to 3).
    #[k8s(minimum = 1, maximum = 3)]
    pub size: i32,
}

/// The observed state of a memcached cluster.
#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
pub struct MemcachedStatus {
    /// `Available`: whether the Deployment has `size` ready pods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[k8s(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
}

/// Finalizer held on every `Memcached` while the operator manages it.
pub const FINALIZER: &str = "cache.example.com/finalizer";
/// Field manager of the operator's server-side applies.
pub const FIELD_MANAGER: &str = "memcached-operator";
/// The memcached image the Deployment runs.
pub const IMAGE: &str = "memcached:1.6.26-alpine3.19";

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
    /// The object has no namespace (a `Memcached` is namespaced, so the API server is odd).
    #[error("Memcached {0} has no namespace")]
    NoNamespace(String),
}

/// Reconciles one `Memcached`: finalizer first, then [`apply`] or [`cleanup`].
#[rbac(
    groups = "cache.example.com",
    resources = "memcacheds",
    verbs = "list;watch;patch"
)]
#[rbac(
    groups = "cache.example.com",
    resources = "memcacheds/status",
    verbs = "patch"
)]
#[rbac(
    groups = "apps",
    resources = "deployments",
    verbs = "list;watch;create;patch",
    allow(
        workload-write,
        reason = "running memcached as a Deployment it creates and scales is this operator's job; \
                  the pod template it writes names no ServiceAccount and mounts no Secret"
    )
)]
pub async fn reconcile(memcached: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, Error> {
    let ns = memcached
        .namespace()
        .ok_or_else(|| Error::NoNamespace(memcached.name_any()))?;
    let api: Api<Memcached> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&api, FINALIZER, memcached, |event| async {
        match event {
            Event::Apply(m) => apply(&m, &ctx.client).await,
            Event::Cleanup(m) => cleanup(&m).await,
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)))
}

/// The Deployment a `Memcached` asks for.
pub fn desired_deployment(memcached: &Memcached) -> Deployment {
    let labels = BTreeMap::from([
        (
            "app.kubernetes.io/name".to_string(),
            "memcached".to_string(),
        ),
        (
            "app.kubernetes.io/instance".to_string(),
            memcached.name_any(),
        ),
    ]);
    Deployment {
        metadata: ObjectMeta {
            name: Some(memcached.name_any()),
            namespace: memcached.namespace(),
            labels: Some(labels.clone()),
            owner_references: memcached.controller_owner_ref(&()).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec: DeploymentSpec {
            replicas: Some(memcached.spec.size),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "memcached".into(),
                        image: Some(IMAGE.into()),
                        args: Some(vec![
                            "-m=64".into(),
                            "-o".into(),
                            "modern".into(),
                            "-v".into(),
                        ]),
                        ports: Some(vec![ContainerPort {
                            container_port: 11211,
                            name: Some("memcached".into()),
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

/// Applies the Deployment and reports whether it is available.
pub async fn apply(memcached: &Memcached, client: &Client) -> Result<Action, Error> {
    let ns = memcached.namespace().unwrap_or_default();
    let name = memcached.name_any();
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    let deployment = deployments
        .patch(&name, &params, &Patch::Apply(desired_deployment(memcached)))
        .await?;

    let ready = deployment
        .status
        .as_ref()
        .and_then(|s| s.ready_replicas)
        .unwrap_or(0);
    let available = ready == memcached.spec.size;
    let condition = available_condition(memcached, available, ready);
    let status = serde_json::json!({
        "apiVersion": Memcached::api_version(&()),
        "kind": Memcached::kind(&()),
        "status": MemcachedStatus { conditions: vec![condition] },
    });
    let memcacheds: Api<Memcached> = Api::namespaced(client.clone(), &ns);
    memcacheds
        .patch_status(&name, &params, &Patch::Apply(status))
        .await?;
    // Changes of the Deployment wake us up (it is owned); the requeue is a safety net.
    Ok(Action::requeue(Duration::from_secs(300)))
}

/// The `Available` condition, keeping its transition time while its status holds.
fn available_condition(memcached: &Memcached, available: bool, ready: i32) -> Condition {
    let status = if available { "True" } else { "False" };
    let previous = memcached
        .status
        .as_ref()
        .and_then(|s| s.conditions.iter().find(|c| c.type_ == "Available"));
    let last_transition_time = match previous {
        Some(c) if c.status == status => c.last_transition_time.clone(),
        _ => Time(jiff::Timestamp::now()),
    };
    Condition {
        type_: "Available".into(),
        status: status.into(),
        reason: if available {
            "DeploymentReady"
        } else {
            "DeploymentProgressing"
        }
        .into(),
        message: format!("{ready}/{} pods ready", memcached.spec.size),
        observed_generation: memcached.metadata.generation,
        last_transition_time,
    }
}

/// Runs when a `Memcached` is deleted. The Deployment goes with it through its owner
/// reference, so there is nothing to delete; the finalizer is where an operator would drain
/// or back up, and this one only lets the deletion proceed.
pub async fn cleanup(memcached: &Memcached) -> Result<Action, Error> {
    eprintln!(
        "memcached {}/{} deleted",
        memcached.namespace().unwrap_or_default(),
        memcached.name_any()
    );
    Ok(Action::await_change())
}

/// Retries a failed reconciliation after a short pause.
pub fn error_policy(_memcached: Arc<Memcached>, error: &Error, _ctx: Arc<Context>) -> Action {
    eprintln!("reconcile failed: {error}");
    Action::requeue(Duration::from_secs(5))
}

/// Runs the controller until the stream ends (on SIGINT/SIGTERM); `cache_synced` is ready
/// once the controller's cache holds every `Memcached` (the first list is in).
pub async fn run(client: Client, cache_synced: kube_markers::health::Condition) {
    let memcacheds = Api::<Memcached>::all(client.clone());
    let deployments = Api::<Deployment>::all(client.clone());
    let controller = Controller::new(memcacheds, watcher::Config::default())
        .owns(deployments, watcher::Config::default());
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

    /// Unit tests link this crate, so its registry entries are there: a sanity check that the
    /// attributes above registered.
    #[test]
    fn attributes_registered() {
        let here: Vec<_> = kube_markers::registry::rbac_entries()
            .into_iter()
            .filter(|e| e.source.crate_name() == "memcached_operator")
            .collect();
        assert_eq!(here.len(), 3);
        assert!(here.iter().all(|e| e.source.item == "reconcile"));
    }

    #[test]
    fn deployment_has_size_replicas() {
        let m = Memcached::new("mc", MemcachedSpec { size: 3 });
        let d = desired_deployment(&m);
        assert_eq!(d.spec.replicas, Some(3));
    }
}
