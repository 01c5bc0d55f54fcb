//! `WebhookServerBuilder::registered` with two `#[kube_markers::webhook]` handlers on one
//! path: the server refuses to start, naming both attributes. (A test binary of its own: the
//! registry holds every attribute linked into it.)

use kube::core::DynamicObject;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use kube_markers::webhook::server::WebhookServer;

#[kube_markers::webhook(
    name = "vfirst.example.com",
    mutating = false,
    path = "/validate",
    failure_policy = "Fail",
    side_effects = "None",
    groups = "",
    resources = "configmaps",
    verbs = "create",
    versions = "v1",
    admission_review_versions = "v1"
)]
async fn first(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    AdmissionResponse::from(&request)
}

#[kube_markers::webhook(
    name = "vsecond.example.com",
    mutating = false,
    path = "/validate",
    failure_policy = "Fail",
    side_effects = "None",
    groups = "",
    resources = "secrets",
    verbs = "create",
    versions = "v1",
    admission_review_versions = "v1"
)]
async fn second(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    AdmissionResponse::from(&request)
}

#[test]
fn two_handlers_on_one_path_are_refused_naming_both_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let ca = kube_markers_envtest::TestCa::new("test CA").unwrap();
    ca.issue("server").unwrap().write_to(dir.path()).unwrap();
    let error = WebhookServer::builder()
        .registered()
        .cert_dir(dir.path())
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "two webhooks serve the path /validate: envtest/tests/webhook_registry.rs:9 (first) \
         and envtest/tests/webhook_registry.rs:25 (second)"
    );
}
