//! The `Vocabulary` CRD: every `#[k8s]` marker, with serde's and schemars' own names around
//! them. Compiled into `crd_schemas.rs`, whose tests check what each marker writes and what
//! the schema accepts offline; and written, as text, into a crate outside this workspace by
//! `envtest/tests/outside_crds.rs`, which generates its CRD there and tries it on a real API
//! server. So this file must stand alone: its own `use`s, nothing from the test around it.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An item of a list-map: `name` identifies it.
#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Entry {
    #[k8s(min_length = 1)]
    pub name: String,
    #[serde(default)]
    pub value: i32,
}

/// Exactly one way to reach a backend.
#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[k8s(exactly_one_of = ["url", "serviceName"], at_most_one_of = ["port", "portName"])]
pub struct Backend {
    pub url: Option<String>,
    pub service_name: Option<String>,
    pub port: Option<i32>,
    pub port_name: Option<String>,
}

/// Every marker of the vocabulary.
#[kube_markers::crd(validation(
    rule = "self.metadata.name.startsWith('v')",
    message = "names start with v"
))]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "vocabulary.example.com",
    version = "v1",
    kind = "Vocabulary",
    namespaced
)]
#[serde(rename_all = "camelCase")]
#[k8s(
    validation(rule = "self.minReplicas <= self.replicas", message = "minReplicas must not exceed replicas", field_path = ".minReplicas"),
    at_least_one_of = ["owner", "team"]
)]
pub struct VocabularySpec {
    #[k8s(minimum = 1, maximum = 10)]
    pub replicas: i32,
    #[serde(default)]
    pub min_replicas: i32,
    #[k8s(exclusive_minimum, minimum = 0, exclusive_maximum, maximum = 1)]
    pub ratio: f64,
    #[k8s(multiple_of = 5)]
    pub step: i32,
    #[k8s(min_length = 2, max_length = 5, pattern = "^[a-z]+$")]
    pub short_name: String,
    #[k8s(format = "hostname")]
    pub host: Option<String>,
    #[k8s(enum = ["Allow", "Forbid", "Replace"])]
    pub policy: String,
    #[k8s(min_items = 1, max_items = 3, list_type = "set", items(min_length = 1, enum = ["a", "b", "c"]))]
    pub tags: Vec<String>,
    #[k8s(min_properties = 1, max_properties = 2, map_type = "atomic")]
    pub labels: BTreeMap<String, String>,
    #[k8s(preserve_unknown_fields)]
    pub raw: Option<serde_json::Value>,
    #[k8s(embedded_resource)]
    pub template: Option<serde_json::Value>,
    #[k8s(pattern = "^[0-9]+%?$")]
    pub max_unavailable: Option<IntOrString>,
    #[k8s(items(int_or_string))]
    pub ports: Option<Vec<String>>,
    #[k8s(schemaless, preserve_unknown_fields)]
    pub anything: Option<serde_json::Value>,
    #[k8s(nullable)]
    pub note: Option<String>,
    #[k8s(required)]
    pub owner_ref: Option<String>,
    #[k8s(optional)]
    #[serde(default)]
    pub comment: String,
    #[k8s(list_type = "map", list_map_keys = ["name"])]
    pub entries: Vec<Entry>,
    #[k8s(struct_type = "atomic")]
    pub entry: Option<Entry>,
    #[k8s(immutable)]
    pub id: String,
    #[k8s(immutable)]
    pub zone: Option<String>,
    #[k8s(validation(
        rule = "oldSelf.hasValue() || self == 0",
        message = "only settable on update",
        optional_old_self
    ))]
    pub only_on_update: Option<i32>,
    // Not `string(self.size())` in the message: kube-apiserver 1.37 estimates the size of
    // `string(int)` as unbounded and refuses the CRD ("estimated messageExpression cost
    // exceeds budget"), as the generator's cost estimate does too.
    #[k8s(validation(
        rule = "self.size() % 2 == 0",
        message_expression = "'odd length: ' + self",
        reason = "FieldValueInvalid"
    ))]
    pub even: Option<String>,
    pub owner: Option<String>,
    pub team: Option<String>,
    pub backend: Option<Backend>,
}
