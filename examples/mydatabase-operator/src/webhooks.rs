//! Admission webhooks of `MyDatabase` (feature `webhook`): what the CRD's schema cannot say.
//!
//! - [`validate`] refuses an image without a tag: the schema's pattern allows `name` alone
//!   (an image reference may omit its tag), but a database must not silently follow `latest`;
//!   and a change of the storage class once set, which a v1alpha1 client could otherwise make
//!   ([`storage_class_change`]);
//! - [`default_version_label`] sets the `app.kubernetes.io/version` label from the image's tag,
//!   a default that depends on another field, which schema defaults cannot express.
//!
//! The generator writes both into `rbac-out/webhook/manifests.yaml`.

use crate::MyDatabase;
use json_patch::{AddOperation, Patch, PatchOperation, jsonptr::PointerBuf};
use kube::ResourceExt;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};

/// The label [`default_version_label`] sets.
pub const VERSION_LABEL: &str = "app.kubernetes.io/version";

/// The tag of an image reference `[host[:port]/]name[:tag]`, if it has one.
pub fn image_tag(image: &str) -> Option<&str> {
    let last_segment = image.rsplit('/').next().unwrap_or(image);
    last_segment
        .split_once(':')
        .map(|(_, tag)| tag)
        .filter(|tag| !tag.is_empty())
}

/// Why the API server must refuse this database, if it must.
pub fn refusal(db: &MyDatabase) -> Option<String> {
    let image = &db.spec.image;
    image_tag(image).is_none().then(|| {
        format!("spec.image {image:?} has no tag: pin the database's version, e.g. \"{image}:16\"")
    })
}

/// Why an update must be refused for changing the storage class once set, if it must.
///
/// The CRD's transition rule says the same, but the API server checks a request against the
/// schema of the request's version, and v1alpha1 has no `storageClass`: a v1alpha1 client
/// changes it through the annotation the conversion carries it in. This webhook sees every
/// request at v1 (the API server converts the others: `matchPolicy: Equivalent`, the default).
pub fn storage_class_change(old: &MyDatabase, new: &MyDatabase) -> Option<String> {
    let (old, new) = (&old.spec.storage_class, &new.spec.storage_class);
    (old.is_some() && old != new).then(|| {
        format!(
            "spec.storageClass is immutable once set: {} -> {} (a v1alpha1 client sets it with \
             the annotation {})",
            old.as_deref().unwrap_or_default(),
            new.as_deref().unwrap_or("none"),
            crate::v1alpha1::STORAGE_CLASS_ANNOTATION
        )
    })
}

/// The JSON patch that sets the version label from the image's tag, unless the object
/// already has that label or the image has no tag.
pub fn version_label_patch(db: &MyDatabase) -> Option<Patch> {
    let tag = image_tag(&db.spec.image)?;
    if db.labels().contains_key(VERSION_LABEL) {
        return None;
    }
    let operation = if db.metadata.labels.is_none() {
        AddOperation {
            path: PointerBuf::from_tokens(["metadata", "labels"]),
            value: serde_json::json!({ VERSION_LABEL: tag }),
        }
    } else {
        AddOperation {
            path: PointerBuf::from_tokens(["metadata", "labels", VERSION_LABEL]),
            value: serde_json::Value::String(tag.to_string()),
        }
    };
    Some(Patch(vec![PatchOperation::Add(operation)]))
}

/// Refuses a `MyDatabase` whose image has no tag, or an update that changes its storage class.
#[kube_markers::webhook(
    name = "vmydatabase.db.example.com",
    mutating = false,
    path = "/validate-db-example-com-v1-mydatabase",
    failure_policy = "Fail",
    side_effects = "None",
    groups = "db.example.com",
    resources = "mydatabases",
    verbs = "create;update",
    versions = "v1",
    admission_review_versions = "v1"
)]
pub async fn validate(req: AdmissionRequest<MyDatabase>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&req);
    let changed = match (&req.old_object, &req.object) {
        (Some(old), Some(new)) => storage_class_change(old, new),
        _ => None,
    };
    match changed.or_else(|| req.object.as_ref().and_then(refusal)) {
        Some(reason) => response.deny(reason),
        None => response,
    }
}

/// Labels a `MyDatabase` with the version its image pins.
#[kube_markers::webhook(
    name = "mmydatabase.db.example.com",
    mutating = true,
    path = "/mutate-db-example-com-v1-mydatabase",
    failure_policy = "Fail",
    side_effects = "None",
    groups = "db.example.com",
    resources = "mydatabases",
    verbs = "create;update",
    versions = "v1",
    admission_review_versions = "v1"
)]
pub async fn default_version_label(req: AdmissionRequest<MyDatabase>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&req);
    let Some(patch) = req.object.as_ref().and_then(version_label_patch) else {
        return response;
    };
    match response.clone().with_patch(patch) {
        Ok(patched) => patched,
        Err(e) => response.deny(format!("cannot encode the label patch: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MyDatabaseSpec;
    use kube_markers::registry::webhook_entries;
    use serde_json::{Value, json};

    fn db(image: &str, labels: Option<Value>) -> MyDatabase {
        let mut db = MyDatabase::new(
            "orders",
            MyDatabaseSpec {
                replicas: 1,
                image: image.into(),
                storage_class: None,
            },
        );
        db.metadata.namespace = Some("shop".into());
        db.metadata.labels = labels.map(|l| serde_json::from_value(l).unwrap());
        db
    }

    #[test]
    fn tags_are_read_past_a_registry_port() {
        assert_eq!(image_tag("postgres:16"), Some("16"));
        assert_eq!(image_tag("registry:5000/db/postgres:16.2"), Some("16.2"));
        assert_eq!(image_tag("registry:5000/db/postgres"), None);
        assert_eq!(image_tag("postgres"), None);
        assert_eq!(image_tag("postgres:"), None);
    }

    #[test]
    fn an_untagged_image_is_refused_naming_the_field() {
        let reason = refusal(&db("postgres", None)).unwrap();
        assert!(
            reason.starts_with("spec.image \"postgres\" has no tag"),
            "{reason}"
        );
        assert_eq!(refusal(&db("postgres:16", None)), None);
    }

    #[test]
    fn the_storage_class_is_fixed_once_set() {
        let with = |class: Option<&str>| {
            let mut db = db("postgres:16", None);
            db.spec.storage_class = class.map(str::to_string);
            db
        };
        let reason = storage_class_change(&with(Some("fast")), &with(Some("slow"))).unwrap();
        assert_eq!(
            reason,
            "spec.storageClass is immutable once set: fast -> slow (a v1alpha1 client sets it \
             with the annotation db.example.com/storage-class)"
        );
        assert!(storage_class_change(&with(Some("fast")), &with(None)).is_some());
        assert_eq!(storage_class_change(&with(None), &with(Some("fast"))), None);
        assert_eq!(
            storage_class_change(&with(Some("fast")), &with(Some("fast"))),
            None
        );
    }

    #[test]
    fn the_version_label_is_added_unless_present() {
        let patch = version_label_patch(&db("postgres:16", None)).unwrap();
        assert_eq!(
            serde_json::to_value(&patch).unwrap(),
            json!([{ "op": "add", "path": "/metadata/labels", "value": { VERSION_LABEL: "16" } }])
        );
        let patch = version_label_patch(&db("postgres:16", Some(json!({ "team": "a" })))).unwrap();
        assert_eq!(
            serde_json::to_value(&patch).unwrap(),
            json!([{ "op": "add", "path": "/metadata/labels/app.kubernetes.io~1version", "value": "16" }])
        );
        assert!(
            version_label_patch(&db("postgres:16", Some(json!({ VERSION_LABEL: "15" })))).is_none()
        );
        assert!(version_label_patch(&db("postgres", None)).is_none());
    }

    /// An `AdmissionReview` request body for `object`.
    fn review(object: &MyDatabase) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "0df28fbd-5f5f-11e8-9b14-0800275bdd23",
                "kind": { "group": "db.example.com", "version": "v1", "kind": "MyDatabase" },
                "resource": { "group": "db.example.com", "version": "v1", "resource": "mydatabases" },
                "operation": "CREATE",
                "name": "orders",
                "namespace": "shop",
                "userInfo": { "username": "alice" },
                "object": object,
                "dryRun": false,
            }
        }))
        .unwrap()
    }

    /// The registered handler of the webhook named `name`, called as a server would.
    async fn call(name: &str, object: &MyDatabase) -> Value {
        let entry = webhook_entries()
            .into_iter()
            .find(|e| e.attribute.marker.name == name)
            .unwrap();
        let handler = entry.handler.expect("registered with its handler");
        let body = handler(review(object)).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    #[tokio::test]
    async fn the_registered_handlers_answer_admission_reviews() {
        let denied = call("vmydatabase.db.example.com", &db("postgres", None)).await;
        let response = &denied["response"];
        assert_eq!(response["uid"], "0df28fbd-5f5f-11e8-9b14-0800275bdd23");
        assert_eq!(response["allowed"], false);
        assert!(
            response["status"]["message"]
                .as_str()
                .unwrap()
                .contains("spec.image \"postgres\" has no tag")
        );
        let allowed = call("vmydatabase.db.example.com", &db("postgres:16", None)).await;
        assert_eq!(allowed["response"]["allowed"], true);

        let mutated = call("mmydatabase.db.example.com", &db("postgres:16", None)).await;
        assert_eq!(mutated["response"]["allowed"], true);
        assert_eq!(mutated["response"]["patchType"], "JSONPatch");
        // kube-core writes the patch bytes as a JSON array of numbers.
        let bytes: Vec<u8> = serde_json::from_value(mutated["response"]["patch"].clone()).unwrap();
        let patch: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(patch[0]["path"], "/metadata/labels");
    }
}
