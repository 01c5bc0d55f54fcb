//! Every call form the analysis knows, each on its own line with the need it must report
//! there (`// VERBS RESOURCE`, or `// none` for a form that makes no request itself): the
//! warning names that very line, and the attributes it suggests, pasted, silence them all.

use super::tests::{analyse_crate, assert_warned_once_each, expected_needs, pasted_all};
use super::*;
use kube_markers_registry::RbacEntry;

const FORMS: &str = r#"
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod, ServiceAccount};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::{events::Recorder, finalizer::finalizer, metadata_watcher, reflector, watcher};
use kube::runtime::{wait::await_condition, watcher::watch_object, Controller};

pub async fn methods(client: Client) {
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "web");
    cms.get("a").await; // get configmaps
    cms.get_opt("a").await; // get configmaps
    cms.get_metadata("a").await; // get configmaps
    cms.get_metadata_opt("a").await; // get configmaps
    cms.list(&ListParams::default()).await; // list configmaps
    cms.list_metadata(&lp).await; // list configmaps
    cms.watch(&wp, "0").await; // watch configmaps
    cms.watch_metadata(&wp, "0").await; // watch configmaps
    cms.create(&PostParams::default(), &cm).await; // create configmaps
    cms.replace("a", &pp, &cm).await; // update configmaps
    cms.patch("a", &PatchParams::default(), &Patch::Merge(&p)).await; // patch configmaps
    cms.patch("a", &PatchParams::apply("m"), &Patch::Apply(&cm)).await; // create;patch configmaps
    cms.patch_metadata("a", &pp, &p).await; // patch configmaps
    cms.delete("a", &DeleteParams::default()).await; // delete configmaps
    cms.delete_collection(&dp, &lp).await; // deletecollection configmaps
    cms.entry("a").await; // create;get;update configmaps
}

pub async fn subresources(client: Client) {
    let deploys = Api::<Deployment>::namespaced(client.clone(), "web");
    deploys.get_status("d").await; // get deployments.apps/status
    deploys.patch_status("d", &pp, &Patch::Apply(s)).await; // patch deployments.apps/status
    deploys.replace_status("d", &pp, &d).await; // update deployments.apps/status
    deploys.get_scale("d").await; // get deployments.apps/scale
    deploys.patch_scale("d", &pp, &p).await; // patch deployments.apps/scale
    deploys.replace_scale("d", &pp, &s).await; // update deployments.apps/scale
    deploys.get_subresource("scale", "d").await; // get deployments.apps/scale
    deploys.create_subresource("rollback", "d", &pp, data).await; // create deployments.apps/rollback
    deploys.patch_subresource("status", "d", &pp, &p).await; // patch deployments.apps/status
    deploys.replace_subresource("status", "d", &pp, data).await; // update deployments.apps/status
    deploys.restart("d").await; // patch deployments.apps
}

pub async fn pods(client: Client) {
    let pods = Api::<Pod>::all(client.clone());
    pods.logs("p", &lp).await; // get pods/log
    pods.log_stream("p", &lp).await; // get pods/log
    pods.evict("p", &ep).await; // create pods/eviction
    pods.exec("p", vec!["ls"], &ap).await; // create;get pods/exec
    pods.attach("p", &ap).await; // create;get pods/attach
    pods.portforward("p", &[80]).await; // create;get pods/portforward
    pods.get_ephemeral_containers("p").await; // get pods/ephemeralcontainers
    pods.patch_ephemeral_containers("p", &pp, &p).await; // patch pods/ephemeralcontainers
    pods.replace_ephemeral_containers("p", &pp, &pod).await; // update pods/ephemeralcontainers
    pods.get_resize("p").await; // get pods/resize
    pods.patch_resize("p", &pp, &p).await; // patch pods/resize
    pods.replace_resize("p", &pp, &pod).await; // update pods/resize
}

pub async fn others(client: Client) {
    let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), "web");
    sas.create_token_request("sa", &pp, &tr).await; // create serviceaccounts/token
    let nodes: Api<Node> = Api::all(client.clone());
    nodes.cordon("n").await; // patch nodes
    nodes.uncordon("n").await; // patch nodes
    let csrs: Api<CertificateSigningRequest> = Api::all(client.clone());
    csrs.get_approval("c").await; // get certificatesigningrequests.certificates.k8s.io/approval
    csrs.patch_approval("c", &pp, &p).await; // patch certificatesigningrequests.certificates.k8s.io/approval
}

pub async fn wiring(client: Client) {
    let deploys = Api::<Deployment>::all(client.clone());
    Controller::new(deploys.clone(), Config::default()) // list;watch deployments.apps
        .owns(Api::<ConfigMap>::all(client.clone()), cfg()) // list;watch configmaps
        .watches(Api::<Pod>::all(client.clone()), cfg(), mapper) // list;watch pods
        .run(reconcile, error_policy, ctx);
    let stream = watcher(Api::<Node>::all(client.clone()), cfg()); // list;watch nodes
    let metadata = metadata_watcher(Api::<ServiceAccount>::all(client.clone()), cfg()); // list;watch serviceaccounts
    let one = watch_object(Api::<Pod>::all(client.clone()), "p"); // list;watch pods
    await_condition(Api::<Node>::all(client.clone()), "n", ready).await; // list;watch nodes
    let (reader, writer) = reflector::store::<Deployment>(); // none
    let reflected = reflector(writer, stream); // none
    let shared = Controller::for_stream(reflected, reader); // none
    let recorder = Recorder::new(client.clone(), reporter()); // create;patch events.events.k8s.io
}

pub async fn reconcile(d: Arc<Deployment>, ctx: Arc<Ctx>) -> Result<Action> {
    let deploys: Api<Deployment> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&deploys, "f", d, |event| async { Ok(()) }).await // patch deployments.apps
}
"#;

fn analyse_forms(entries: &[&RbacEntry]) -> Analysis {
    analyse_crate(&[("lib.rs", FORMS)], entries)
}

#[test]
fn every_call_form_warns_at_its_line_and_its_attribute_silences_it() {
    let expected = expected_needs(FORMS, "op/src/lib.rs:");
    let analysis = analyse_forms(&[]);
    assert_warned_once_each(&analysis, &expected);

    // Each warning's attribute, pasted at the line it names: no warning is left, and no
    // pasted verb is unused.
    let entries = pasted_all(&analysis);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let again = analyse_forms(&refs);
    assert_eq!(again.warnings, []);
    assert_eq!(again.unused, []);
}
