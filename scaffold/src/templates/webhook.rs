//! `kube-markers create webhook`'s files.

pub const HEADER: &str = r##"//! Admission webhooks of `{{kind}}`, `{{full_group}}/{{version}}`: what the CRD's schema and
//! its CEL rules cannot say. The generator writes them into `rbac-out/webhook/manifests.yaml`,
//! and the operator's webhook server serves them.

use crate::api::{{group_ident}}::{{version}}::{{kind}};
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
"##;

pub const DEFAULTING: &str = r##"
/// Sets the defaults of a {{kind}} on create and update.
#[kube_markers::webhook(
    name = "m{{lower}}-{{version}}.{{full_group}}",
    mutating = true,
    path = "/mutate-{{group_dashed}}-{{version}}-{{lower}}",
    failure_policy = "Fail",
    side_effects = "None",
    groups = "{{full_group}}",
    resources = "{{plural}}",
    verbs = "create;update",
    versions = "{{version}}",
    admission_review_versions = "v1"
)]
pub async fn default(req: AdmissionRequest<{{kind}}>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&req);
    let Some(original) = req.object.as_ref() else {
        return response;
    };
    let mut defaulted = original.clone();
    set_defaults(&mut defaulted);
    match kube_markers::webhook::patch_response(response.clone(), original, &defaulted) {
        Ok(patched) => patched,
        Err(e) => response.deny(format!("cannot encode the defaults: {e}")),
    }
}

/// The defaults (an example: replace it). Prefer schema defaults (`#[k8s(default = ...)]`)
/// where a constant will do; a webhook is for defaults that depend on other fields.
pub fn set_defaults(obj: &mut {{kind}}) {
    if obj.spec.foo.is_none() {
        obj.spec.foo = Some("default".into());
    }
}
"##;

pub const VALIDATION: &str = r##"
/// Refuses a {{kind}} that [`refusal`] refuses, on create and update.
#[kube_markers::webhook(
    name = "v{{lower}}-{{version}}.{{full_group}}",
    mutating = false,
    path = "/validate-{{group_dashed}}-{{version}}-{{lower}}",
    failure_policy = "Fail",
    side_effects = "None",
    groups = "{{full_group}}",
    resources = "{{plural}}",
    verbs = "create;update",
    versions = "{{version}}",
    admission_review_versions = "v1"
)]
pub async fn validate(req: AdmissionRequest<{{kind}}>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&req);
    match req.object.as_ref().and_then(|new| refusal(req.old_object.as_ref(), new)) {
        Some(reason) => response.deny(reason),
        None => response,
    }
}

/// Why `new` (replacing `old` on update) must be refused, naming the field (an example:
/// replace it). Prefer CEL rules (`#[k8s(validation(rule = ...))]`) where they can say it.
pub fn refusal(old: Option<&{{kind}}>, new: &{{kind}}) -> Option<String> {
    if new.spec.foo.as_deref() == Some("forbidden") {
        return Some("spec.foo may not be \"forbidden\"".into());
    }
    let _ = old;
    None
}
"##;

pub const TESTS: &str = r##"
#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::admission::AdmissionReview;

    /// The API server's review of `object` at `operation`.
    fn review(operation: &str, object: &{{kind}}) -> AdmissionRequest<{{kind}}> {
        let review: AdmissionReview<{{kind}}> = serde_json::from_value(serde_json::json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                "kind": { "group": "{{full_group}}", "version": "{{version}}", "kind": "{{kind}}" },
                "resource": { "group": "{{full_group}}", "version": "{{version}}", "resource": "{{plural}}" },
                "name": "sample",
                "operation": operation,
                "userInfo": { "username": "admin" },
                "object": object,
                "oldObject": if operation == "UPDATE" { serde_json::to_value(object).unwrap() } else { serde_json::Value::Null },
                "dryRun": false,
            },
        }))
        .unwrap();
        review.try_into().unwrap()
    }

    fn sample(foo: Option<&str>) -> {{kind}} {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "{{full_group}}/{{version}}",
            "kind": "{{kind}}",
            "metadata": { "name": "sample" },
            "spec": { "foo": foo },
        }))
        .unwrap()
    }
"##;

pub const DEFAULTING_TEST: &str = r##"
    #[tokio::test]
    async fn defaulting_sets_foo_and_keeps_a_value() {
        let response = default(review("CREATE", &sample(None))).await;
        assert!(response.allowed);
        let patch = serde_json::to_value(response.patch.as_ref().map(|p| {
            serde_json::from_slice::<serde_json::Value>(p).unwrap()
        }))
        .unwrap();
        assert_eq!(
            patch,
            serde_json::json!([{ "op": "add", "path": "/spec/foo", "value": "default" }])
        );
        let response = default(review("UPDATE", &sample(Some("mine")))).await;
        assert!(response.allowed);
        assert_eq!(response.patch, None);
    }
"##;

pub const VALIDATION_TEST: &str = r##"
    #[tokio::test]
    async fn validation_refuses_a_forbidden_foo_naming_it() {
        let response = validate(review("CREATE", &sample(Some("forbidden")))).await;
        assert!(!response.allowed);
        assert_eq!(response.result.message, "spec.foo may not be \"forbidden\"");
        let response = validate(review("UPDATE", &sample(Some("fine")))).await;
        assert!(response.allowed);
    }
"##;
