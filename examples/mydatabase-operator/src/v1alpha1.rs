//! The first version of the API, `db.example.com/v1alpha1`, still served for old clients and
//! converted to and from the stored `v1` ([`crate::MyDatabase`]) by the operator's webhook
//! server at `/convert`.
//!
//! What changed in v1: `size` became `replicas`; the image and its `version` became one image
//! reference `name[:tag]`; `storageClass` was added. v1alpha1 has no field for the storage
//! class: it travels in the annotation [`STORAGE_CLASS_ANNOTATION`], so that a v1alpha1
//! client's write keeps it.

use kube::CustomResource;
use kube_markers::conversion::Spoke;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a v1alpha1 object keeps v1's `spec.storageClass`.
pub const STORAGE_CLASS_ANNOTATION: &str = "db.example.com/storage-class";

/// A database cluster (deprecated version).
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(
    group = "db.example.com",
    version = "v1alpha1",
    kind = "MyDatabase",
    plural = "mydatabases",
    namespaced,
    status = "crate::MyDatabaseStatus",
    shortname = "mydb",
    deprecated = "db.example.com/v1alpha1 MyDatabase is deprecated; use db.example.com/v1"
)]
#[k8s(validation(
    rule = "self.size == 1 || !has(self.version) || self.version != 'latest'",
    message = "a replicated database must pin its version to one other than latest",
    field_path = ".version",
    reason = "FieldValueInvalid"
))]
pub struct MyDatabaseSpec {
    /// Number of database pods.
    #[k8s(minimum = 1, maximum = 10)]
    pub size: i32,
    /// Container image of the database, without its tag.
    #[k8s(pattern = "^[a-z0-9]+([._/-][a-z0-9]+)*$", max_length = 200)]
    pub image: String,
    /// The image's tag (the database's version); none for the image's default.
    #[k8s(pattern = "^[A-Za-z0-9._-]+$", max_length = 54)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// v1's image reference `name[:tag]` (its pattern allows no registry port) split into the
/// name and the tag.
pub fn split_image(image: &str) -> (&str, Option<&str>) {
    match image.split_once(':') {
        Some((name, tag)) if !tag.is_empty() => (name, Some(tag)),
        _ => (image, None),
    }
}

#[kube_markers::conversion]
impl Spoke<crate::MyDatabase> for MyDatabase {
    type Error = String;

    fn to_hub(mut self) -> Result<crate::MyDatabase, String> {
        let spec = self.spec;
        if spec.image.contains(':') {
            // The schema's pattern refuses it, but the API server converts an object for
            // the admission webhooks before it validates it.
            return Err(format!(
                "spec.image {:?} carries a tag: v1alpha1 gives the tag in spec.version",
                spec.image
            ));
        }
        let image = match &spec.version {
            Some(version) => format!("{}:{version}", spec.image),
            None => spec.image,
        };
        let annotations = &mut self.metadata.annotations;
        let storage_class = annotations
            .as_mut()
            .and_then(|a| a.remove(STORAGE_CLASS_ANNOTATION));
        if annotations.as_ref().is_some_and(|a| a.is_empty()) {
            *annotations = None;
        }
        Ok(crate::MyDatabase {
            metadata: self.metadata,
            spec: crate::MyDatabaseSpec {
                replicas: spec.size,
                image,
                storage_class,
            },
            status: self.status,
        })
    }

    fn from_hub(mut hub: crate::MyDatabase) -> Result<Self, String> {
        let spec = hub.spec;
        let (image, version) = split_image(&spec.image);
        let (image, version) = (image.to_string(), version.map(str::to_string));
        if let Some(class) = spec.storage_class {
            hub.metadata
                .annotations
                .get_or_insert_default()
                .insert(STORAGE_CLASS_ANNOTATION.into(), class);
        }
        Ok(MyDatabase {
            metadata: hub.metadata,
            spec: MyDatabaseSpec {
                size: spec.replicas,
                image,
                version,
            },
            status: hub.status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MyDatabase as Hub, MyDatabaseSpec as HubSpec};
    use kube::ResourceExt;

    fn v1(image: &str, storage_class: Option<&str>) -> Hub {
        Hub::new(
            "db",
            HubSpec {
                replicas: 3,
                image: image.into(),
                storage_class: storage_class.map(str::to_string),
            },
        )
    }

    fn v1alpha1(image: &str, version: Option<&str>) -> MyDatabase {
        MyDatabase::new(
            "db",
            MyDatabaseSpec {
                size: 3,
                image: image.into(),
                version: version.map(str::to_string),
            },
        )
    }

    #[test]
    fn v1alpha1_converts_to_v1_and_back_without_loss() {
        use kube_markers::conversion::{Spoke, check_hub_round_trip, check_spoke_round_trip};

        let mut old = v1alpha1("registry.example.com/db/postgres", Some("17.2"));
        old.annotations_mut()
            .insert(STORAGE_CLASS_ANNOTATION.into(), "fast".into());
        old.labels_mut().insert("team".into(), "db".into());
        let hub = old.clone().to_hub().unwrap();
        assert_eq!(
            hub.spec,
            HubSpec {
                replicas: 3,
                image: "registry.example.com/db/postgres:17.2".into(),
                storage_class: Some("fast".into()),
            }
        );
        // The annotation became the field; the labels stay.
        assert_eq!(hub.metadata.annotations, None);
        assert_eq!(hub.labels()["team"], "db");
        check_spoke_round_trip::<MyDatabase, Hub>(&old).unwrap();
        check_spoke_round_trip::<MyDatabase, Hub>(&v1alpha1("pg", None)).unwrap();

        for hub in [
            v1("postgres:16", Some("slow")),
            v1("postgres", None),
            v1("db/postgres:17.2-alpine", None),
        ] {
            check_hub_round_trip::<MyDatabase, Hub>(&hub).unwrap();
        }
        let spoke = MyDatabase::from_hub(v1("postgres:16", Some("slow"))).unwrap();
        assert_eq!(spoke.spec.image, "postgres");
        assert_eq!(spoke.spec.version.as_deref(), Some("16"));
        assert_eq!(spoke.annotations()[STORAGE_CLASS_ANNOTATION], "slow");
    }

    #[test]
    fn a_v1alpha1_image_with_a_tag_is_refused_naming_the_field() {
        use kube_markers::conversion::Spoke;
        let error = v1alpha1("postgres:16", Some("17")).to_hub().unwrap_err();
        assert_eq!(
            error,
            "spec.image \"postgres:16\" carries a tag: v1alpha1 gives the tag in spec.version"
        );
    }

    #[test]
    fn the_conversion_is_registered_for_the_generator_and_the_server() {
        let here: Vec<_> = kube_markers::registry::conversion_entries()
            .into_iter()
            .filter(|e| e.source.crate_name() == "mydatabase_operator")
            .collect();
        assert_eq!(here.len(), 1);
        assert_eq!(here[0].spoke_type, "MyDatabase");
        assert_eq!(here[0].hub_type, "crate::MyDatabase");
        let conversions = kube_markers::conversion::Conversions::registered().unwrap();
        let review = serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {
                "uid": "u1",
                "desiredAPIVersion": "db.example.com/v1",
                "objects": [serde_json::to_value(v1alpha1("pg", Some("17"))).unwrap()],
            },
        });
        let answer: serde_json::Value = serde_json::from_slice(
            &conversions
                .review(&serde_json::to_vec(&review).unwrap())
                .unwrap(),
        )
        .unwrap();
        let converted = &answer["response"]["convertedObjects"][0];
        assert_eq!(converted["apiVersion"], "db.example.com/v1");
        assert_eq!(
            converted["spec"],
            serde_json::json!({"replicas": 3, "image": "pg:17"})
        );
    }
}
