//! `kube-markers create api`'s files.

/// A kind's types at its first version, the storage version (and the hub of the versions
/// added later).
pub const TYPES: &str = r##"//! `{{kind}}`, `{{full_group}}/{{version}}`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The desired state of a {{kind}}.
#[kube_markers::crd(storage)]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(
    group = "{{full_group}}",
    version = "{{version}}",
    kind = "{{kind}}",
    plural = "{{plural}}",{{namespaced}}
    status = "{{kind}}Status",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp")
)]
pub struct {{kind}}Spec {
    /// An example field: replace it with what a {{kind}} asks for. Its `#[k8s]` markers are
    /// the schema's validation (kube-markers' docs/crds.md), and this comment is what
    /// `kubectl explain {{plural}}.spec.foo` prints.
    #[k8s(min_length = 1, max_length = 63)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// The observed state of a {{kind}}.
#[kube_markers::schema]
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct {{kind}}Status {
    /// The latest observations: `Ready`, set by the controller, and those you add (the API
    /// conventions suggest `Available`, `Progressing` and `Degraded`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[k8s(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was written for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
"##;

/// A later version of a kind: a spoke converted to and from the hub (the first version).
pub const SPOKE_TYPES: &str = r##"//! `{{kind}}`, `{{full_group}}/{{version}}`: served beside the storage version `{{hub}}` (the
//! hub), and converted to and from it by the operator's webhook server at `/convert`.

use crate::api::{{group_ident}}::{{hub}} as hub;
use kube::CustomResource;
use kube_markers::conversion::Spoke;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The desired state of a {{kind}} ({{version}}).
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(
    group = "{{full_group}}",
    version = "{{version}}",
    kind = "{{kind}}",
    plural = "{{plural}}",{{namespaced}}
    status = "hub::{{kind}}Status",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp")
)]
pub struct {{kind}}Spec {
    /// An example field, as in {{hub}}: change this version's fields here, and the
    /// conversion below with them.
    #[k8s(min_length = 1, max_length = 63)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// {{version}} to and from {{hub}}. Both have the same fields today, so a spec converts as
/// its JSON; once they differ, write each field's mapping here, and keep what a version
/// cannot hold (an annotation, say) so that nothing is lost (docs/conversions.md).
#[kube_markers::conversion]
impl Spoke<hub::{{kind}}> for {{kind}} {
    type Error = String;

    fn to_hub(self) -> Result<hub::{{kind}}, String> {
        Ok(hub::{{kind}} {
            metadata: self.metadata,
            spec: same_fields(self.spec)?,
            status: self.status,
        })
    }

    fn from_hub(hub: hub::{{kind}}) -> Result<Self, String> {
        Ok({{kind}} {
            metadata: hub.metadata,
            spec: same_fields(hub.spec)?,
            status: hub.status,
        })
    }
}

/// A spec as the other version's, field by field through JSON.
fn same_fields<A: Serialize, B: serde::de::DeserializeOwned>(spec: A) -> Result<B, String> {
    serde_json::to_value(spec)
        .and_then(serde_json::from_value)
        .map_err(|e| format!("the spec does not convert between {{hub}} and {{version}}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// {{version}} → {{hub}} → {{version}} gives back every field.
    #[test]
    fn the_sample_round_trips_through_the_hub() {
        let sample: {{kind}} = serde_json::from_value(serde_json::json!({
            "apiVersion": "{{full_group}}/{{version}}",
            "kind": "{{kind}}",
            "metadata": { "name": "round-trip", "labels": { "a": "b" } },
            "spec": { "foo": "bar" },
        }))
        .unwrap();
        kube_markers::conversion::check_spoke_round_trip::<{{kind}}, hub::{{kind}}>(&sample)
            .unwrap();
    }
}
"##;

pub const SAMPLE: &str = r##"apiVersion: {{full_group}}/{{version}}
kind: {{kind}}
metadata:
  name: {{lower}}-sample
spec:
  foo: bar
"##;

/// The module of a group (`api/<group>/mod.rs`).
pub const GROUP_MOD: &str = r##"//! The `{{full_group}}` API group, one module per version.

// +kube-markers:scaffold:versions
"##;

/// The module of a group's version (`api/<group>/<version>/mod.rs`).
pub const VERSION_MOD: &str = r##"//! `{{full_group}}/{{version}}`, one module per kind.

// +kube-markers:scaffold:kinds
"##;

/// The controller of a kind.
pub const CONTROLLER: &str = r##"//! The {{kind}} controller: it holds a finalizer on every {{kind}}, sets its `Ready` condition
//! with the generation it observed (a server-side apply of the status), and records an event
//! each time `Ready` changes.

use crate::FIELD_MANAGER;
use crate::api::{{group_ident}}::{{version}}::{{{kind}}, {{kind}}Status};
use futures::StreamExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::api::{Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event as Recorded, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{Event, finalizer};
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};
use kube_markers::rbac;
use std::sync::Arc;
use std::time::Duration;

/// Held on every {{kind}} while the operator manages it: a deletion waits for [`cleanup`].
pub const FINALIZER: &str = "{{full_group}}/finalizer";

/// Shared state of the reconciler.
pub struct Context {
    /// Client with the operator's identity.
    pub client: Client,
    /// Records the events of [`publish`].
    pub recorder: Recorder,
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
}

/// The API of a {{kind}} ({{scope}}).
fn {{snake}}_api(client: &Client, {{obj_param}}: &{{kind}}) -> Api<{{kind}}> {
    {{api_of_obj}}
}

/// Reconciles one {{kind}}: the finalizer first, then [`apply`] or [`cleanup`].
#[rbac(groups = "{{full_group}}", resources = "{{plural}}", verbs = "list;watch;patch")]
#[rbac(groups = "{{full_group}}", resources = "{{plural}}/status", verbs = "patch")]
pub async fn reconcile(obj: Arc<{{kind}}>, ctx: Arc<Context>) -> Result<Action, Error> {
    let api = {{snake}}_api(&ctx.client, &obj);
    finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            Event::Apply(obj) => apply(&obj, &ctx).await,
            Event::Cleanup(obj) => cleanup(&obj, &ctx).await,
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)))
}

/// Does what a {{kind}} asks, then reports it `Ready`.
async fn apply(obj: &{{kind}}, ctx: &Context) -> Result<Action, Error> {
    // Your reconciliation goes here: create or update what the spec asks for, each call with
    // the #[rbac] it needs (the generator warns at a call no attribute grants).
    let ready = ready_condition(obj, true, "Reconciled", "the spec is applied");
    set_ready(obj, ctx, ready).await?;
    // A change of the {{kind}} wakes the controller; the requeue is a safety net.
    Ok(Action::requeue(Duration::from_secs(300)))
}

/// Runs when a {{kind}} is deleted, before the finalizer is removed.
async fn cleanup(obj: &{{kind}}, ctx: &Context) -> Result<Action, Error> {
    // Release here what the {{kind}} holds outside the cluster; objects it owns (through
    // owner references) are deleted by the garbage collector.
    publish(ctx, obj, EventType::Normal, "Finalized", "Cleanup", "deletion may proceed").await?;
    Ok(Action::await_change())
}

/// Applies `ready` and the observed generation to the status, and records an event when
/// `Ready` changes.
async fn set_ready(obj: &{{kind}}, ctx: &Context, ready: Condition) -> Result<(), Error> {
    let before = obj
        .status
        .as_ref()
        .and_then(|s| s.conditions.iter().find(|c| c.type_ == "Ready"))
        .map(|c| c.status.clone());
    let status = serde_json::json!({
        "apiVersion": {{kind}}::api_version(&()),
        "kind": {{kind}}::kind(&()),
        "status": {{kind}}Status {
            conditions: vec![ready.clone()],
            observed_generation: obj.metadata.generation,
        },
    });
    let params = PatchParams::apply(FIELD_MANAGER).force();
    {{snake}}_api(&ctx.client, obj)
        .patch_status(&obj.name_any(), &params, &Patch::Apply(status))
        .await?;
    if before.as_deref() != Some(ready.status.as_str()) {
        let type_ = match ready.status.as_str() {
            "True" => EventType::Normal,
            _ => EventType::Warning,
        };
        let reason = if ready.status == "True" { "Ready" } else { "NotReady" };
        publish(ctx, obj, type_, reason, "Reconcile", &ready.message).await?;
    }
    Ok(())
}

/// The `Ready` condition, keeping its transition time while its status holds.
fn ready_condition(obj: &{{kind}}, ready: bool, reason: &str, message: &str) -> Condition {
    let status = if ready { "True" } else { "False" };
    let previous = obj
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
        message: message.into(),
        observed_generation: obj.metadata.generation,
        last_transition_time,
    }
}

/// Records an event about `obj`.
async fn publish(
    ctx: &Context,
    obj: &{{kind}},
    type_: EventType,
    reason: &str,
    action: &str,
    note: &str,
) -> Result<(), Error> {
    let event = Recorded {
        type_,
        reason: reason.into(),
        note: Some(note.into()),
        action: action.into(),
        secondary: None,
    };
    ctx.recorder.publish(&event, &obj.object_ref(&())).await?;
    Ok(())
}

/// Logs a failed reconciliation and retries it after a pause.
pub fn error_policy(obj: Arc<{{kind}}>, error: &Error, _ctx: Arc<Context>) -> Action {
    tracing::warn!(name = %obj.name_any(), "reconciling {{kind}} failed: {error}");
    Action::requeue(Duration::from_secs(5))
}

/// Runs the controller until SIGTERM or Ctrl-C; `cache_synced` is ready once its cache holds
/// every {{kind}} (the first list is in). With `--leader-elect` a standby marked it ready: it
/// is not ready again until this replica leads and the first list is in.
#[rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
pub async fn run(client: Client, cache_synced: kube_markers::health::Condition) {
    cache_synced.not_ready("the first list is not in yet");
    let objects = Api::<{{kind}}>::all(client.clone());
    let controller = Controller::new(objects, watcher::Config::default());
    let store = controller.store();
    tokio::spawn(cache_synced.ready_when(async move { store.wait_until_ready().await }));
    let reporter = Reporter {
        controller: FIELD_MANAGER.into(),
        instance: std::env::var("POD_NAME").ok(),
    };
    let recorder = Recorder::new(client.clone(), reporter);
    controller
        .shutdown_on_signal()
        .run(reconcile, error_policy, Arc::new(Context { client, recorder }))
        .for_each(|result| async move {
            if let Err(e) = result {
                tracing::warn!("{{kind}} controller: {e}");
            }
        })
        .await;
}
"##;

/// The envtest test of a kind's controller.
pub const CONTROLLER_TEST: &str = r##"//! The {{kind}} controller against a real kube-apiserver: the generated CRD and the bundle's
//! roles applied, the controller run as the bundle's ServiceAccount, the sample made `Ready`
//! for its generation and its deletion finalized, without one forbidden request.

use {{ident}}::api::{{group_ident}}::{{version}}::{{kind}};
use {{ident}}::controllers::{{snake}}::{FINALIZER, run};
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::ResourceExt;
use kube_markers_envtest::Envtest;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The bundle's ServiceAccount (codegen/Cargo.toml), before kustomize's name prefix.
const NAMESPACE: &str = "{{name}}-system";
const SERVICE_ACCOUNT: &str = "controller-manager";

/// kube-apiserver and etcd: `KUBEBUILDER_ASSETS`; `None` (the test skips) without it.
fn assets() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("KUBEBUILDER_ASSETS")?);
    dir.join("kube-apiserver").is_file().then_some(dir)
}

/// `check` until it gives a value, for 30 s at most.
async fn eventually<T, F: std::future::Future<Output = Option<T>>>(
    what: &str,
    mut check: impl FnMut() -> F,
) -> T {
    for _ in 0..300 {
        if let Some(value) = check().await {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out after 30 s waiting for {what}");
}

#[tokio::test(flavor = "multi_thread")]
async fn {{snake}}_becomes_ready_and_its_deletion_is_finalized() {
    let Some(assets) = assets() else {
        eprintln!(
            "SKIPPED: KUBEBUILDER_ASSETS does not name a directory with kube-apiserver and etcd \
             (`export KUBEBUILDER_ASSETS=$(setup-envtest use -p path)`)"
        );
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let env = Envtest::builder()
        .assets(assets)
        .operator(NAMESPACE, SERVICE_ACCOUNT)
        .start()
        .await
        .unwrap();
    env.apply_dir(root.join("rbac-out/crd")).await.unwrap();
    env.apply_file(root.join("rbac-out/role.yaml")).await.unwrap();
    env.apply_file(root.join("rbac-out/role_binding.yaml")).await.unwrap();
    let cache = kube_markers::health::Health::new().condition("{{plural}} cache");
    let controller = tokio::spawn(run(env.operator_client().unwrap(), cache));

    let admin = env.admin_client().unwrap();
    let text = std::fs::read_to_string(root.join("config/samples/{{sample}}")).unwrap();
    let mut docs = kube_markers_envtest::parse_manifests(&text).unwrap();
    let sample: {{kind}} = serde_json::from_value(docs.remove(0)).unwrap();
    let name = sample.name_any();
    {{test_api}}
    api.create(&PostParams::default(), &sample).await.unwrap();

    let ready = eventually("Ready for the created generation", || async {
        let obj = api.get(&name).await.unwrap();
        let status = obj.status.as_ref()?;
        let ready = status.conditions.iter().find(|c| c.type_ == "Ready")?;
        (ready.status == "True"
            && ready.observed_generation == obj.metadata.generation
            && status.observed_generation == obj.metadata.generation)
            .then_some(obj)
    })
    .await;
    assert!(ready.finalizers().iter().any(|f| f == FINALIZER), "{ready:?}");
    let events: Api<Event> = Api::all(admin.clone());
    eventually("the Ready event", || async {
        let list = events.list(&ListParams::default()).await.unwrap();
        list.items
            .iter()
            .any(|e| {
                e.reason.as_deref() == Some("Ready")
                    && e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(&name)
            })
            .then_some(())
    })
    .await;

    api.delete(&name, &DeleteParams::default()).await.unwrap();
    eventually("the deletion, finalized", || async {
        api.get_opt(&name).await.unwrap().is_none().then_some(())
    })
    .await;
    controller.abort();
    assert_eq!(env.forbidden_requests().unwrap(), Vec::<String>::new());
}
"##;
