//! The `#[k8s]` vocabulary, end to end: what each marker writes into the generated CRD, and
//! what the resulting schema accepts and rejects (the OpenAPI part through a JSON Schema
//! validator, the CEL rules through kube-cel, transition rules included).

use kube::CustomResource;
use kube_markers::codegen::{GeneratedCrd, generate_crds_with_conversions};
use kube_markers::registry::{conversion_entries, crd_entries};
use kube_markers_tests::{cel_errors, openapi_errors};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

kube_markers::link!(mydatabase_operator, memcached_operator);

mod vocabulary;
use vocabulary::{valid, with};

fn crds() -> Vec<GeneratedCrd> {
    generate_crds_with_conversions(&crd_entries(), &conversion_entries())
        .unwrap_or_else(|errors| panic!("{errors:#?}"))
}

fn schema(kind: &str, version: &str) -> Value {
    let crd = crds()
        .into_iter()
        .find(|c| c.crd.spec.names.kind == kind)
        .unwrap();
    let v = crd
        .crd
        .spec
        .versions
        .iter()
        .find(|v| v.name == version)
        .unwrap();
    serde_json::to_value(&v.schema.as_ref().unwrap().open_api_v3_schema).unwrap()
}

fn spec(schema: &Value) -> &Value {
    &schema["properties"]["spec"]
}

fn prop<'a>(schema: &'a Value, name: &str) -> &'a Value {
    &spec(schema)["properties"][name]
}

#[test]
fn every_marker_is_written_where_controller_gen_writes_it() {
    let s = schema("Vocabulary", "v1");
    let p = |name| prop(&s, name).clone();
    assert_eq!(p("replicas")["minimum"], json!(1.0));
    assert_eq!(p("replicas")["maximum"], json!(10.0));
    assert_eq!(p("ratio")["exclusiveMinimum"], json!(true));
    assert_eq!(p("ratio")["exclusiveMaximum"], json!(true));
    assert_eq!(p("step")["multipleOf"], json!(5.0));
    assert_eq!(p("shortName")["minLength"], json!(2));
    assert_eq!(p("shortName")["maxLength"], json!(5));
    assert_eq!(p("shortName")["pattern"], json!("^[a-z]+$"));
    assert_eq!(p("host")["format"], json!("hostname"));
    assert_eq!(p("policy")["enum"], json!(["Allow", "Forbid", "Replace"]));
    assert_eq!(p("tags")["minItems"], json!(1));
    assert_eq!(p("tags")["x-kubernetes-list-type"], json!("set"));
    assert_eq!(
        p("tags")["items"],
        json!({"type": "string", "minLength": 1, "enum": ["a", "b", "c"]})
    );
    assert_eq!(p("labels")["minProperties"], json!(1));
    assert_eq!(p("labels")["x-kubernetes-map-type"], json!("atomic"));
    assert_eq!(
        p("raw")["x-kubernetes-preserve-unknown-fields"],
        json!(true)
    );
    assert_eq!(p("template")["type"], json!("object"));
    assert_eq!(p("template")["x-kubernetes-embedded-resource"], json!(true));
    assert_eq!(
        p("maxUnavailable")["x-kubernetes-int-or-string"],
        json!(true)
    );
    assert_eq!(p("maxUnavailable")["pattern"], json!("^[0-9]+%?$"));
    assert_eq!(
        p("ports")["items"],
        json!({"x-kubernetes-int-or-string": true})
    );
    assert_eq!(
        p("anything"),
        json!({"x-kubernetes-preserve-unknown-fields": true})
    );
    assert_eq!(p("note")["nullable"], json!(true));
    assert_eq!(p("entries")["x-kubernetes-list-map-keys"], json!(["name"]));
    assert_eq!(p("entry")["x-kubernetes-map-type"], json!("atomic"));
    assert_eq!(
        p("id")["x-kubernetes-validations"],
        json!([{"rule": "self == oldSelf", "message": "field is immutable"}])
    );
    assert_eq!(
        p("onlyOnUpdate")["x-kubernetes-validations"],
        json!([{"rule": "oldSelf.hasValue() || self == 0", "message": "only settable on update", "optionalOldSelf": true}])
    );
    assert_eq!(
        p("even")["x-kubernetes-validations"][0]["messageExpression"],
        json!("'odd length: ' + self")
    );
    // The spec's required list: serde's, plus the explicitly required, minus the optional.
    let required = spec(&s)["required"].as_array().unwrap();
    assert!(required.contains(&json!("ownerRef")));
    assert!(!required.contains(&json!("comment")));
    // Type rules: the type's own, then the one-of rules, then immutability of optional fields.
    assert_eq!(
        spec(&s)["x-kubernetes-validations"],
        json!([
            {"rule": "self.minReplicas <= self.replicas", "message": "minReplicas must not exceed replicas", "fieldPath": ".minReplicas"},
            {"rule": "has(self.owner)||has(self.team)", "message": "at least one of the fields in [owner team] must be set"},
            {"rule": "!has(oldSelf.zone) || has(self.zone)", "message": "field zone is immutable once set"},
        ])
    );
    assert_eq!(
        prop(&s, "backend")["x-kubernetes-validations"],
        json!([
            {"rule": "(has(self.port)?1:0)+(has(self.portName)?1:0) <= 1", "message": "at most one of the fields in [port portName] may be set"},
            {"rule": "(has(self.url)?1:0)+(has(self.serviceName)?1:0) == 1", "message": "exactly one of the fields in [url serviceName] must be set"},
        ])
    );
    // Root rules, where `self` is the whole object.
    assert_eq!(
        s["x-kubernetes-validations"],
        json!([{"rule": "self.metadata.name.startsWith('v')", "message": "names start with v"}])
    );
}

#[test]
fn the_openapi_part_accepts_and_rejects_as_the_api_server_would() {
    let s = schema("Vocabulary", "v1");
    assert_eq!(openapi_errors(&s, &valid()), Vec::<String>::new());
    for (change, expected) in [
        (json!({"replicas": 0}), "/spec/replicas"),
        (json!({"replicas": 11}), "/spec/replicas"),
        (json!({"replicas": "3"}), "/spec/replicas"),
        (json!({"ratio": 0.0}), "/spec/ratio"),
        (json!({"ratio": 1.0}), "/spec/ratio"),
        (json!({"step": 7}), "/spec/step"),
        (json!({"shortName": "a"}), "/spec/shortName"),
        (json!({"shortName": "abcdef"}), "/spec/shortName"),
        (json!({"shortName": "ab1"}), "/spec/shortName"),
        (json!({"policy": "Sometimes"}), "/spec/policy"),
        (json!({"tags": []}), "/spec/tags"),
        (json!({"tags": ["a", "b", "c", "a"]}), "/spec/tags"),
        (json!({"tags": ["d"]}), "/spec/tags/0"),
        (json!({"labels": {}}), "/spec/labels"),
        (
            json!({"labels": {"a": "1", "b": "2", "c": "3"}}),
            "/spec/labels",
        ),
        (json!({"maxUnavailable": "many"}), "/spec/maxUnavailable"),
        (json!({"ports": [true]}), "/spec/ports/0"),
        (json!({"ownerRef": null}), "/spec"),
        (json!({"entries": [{"name": ""}]}), "/spec/entries/0/name"),
    ] {
        let errors = openapi_errors(&s, &with(change.clone()));
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with(&format!("{expected}:"))),
            "{change} should be rejected at {expected}, got {errors:#?}"
        );
    }
    // Optional fields may be left out, and `note` may be null.
    assert!(
        openapi_errors(
            &s,
            &with(json!({"comment": null, "note": null, "host": null}))
        )
        .is_empty()
    );
}

#[test]
fn cel_rules_hold_including_transition_rules() {
    let s = schema("Vocabulary", "v1");
    let obj = valid();
    assert_eq!(cel_errors(&s, &obj, None), Vec::<String>::new());
    assert_eq!(cel_errors(&s, &obj, Some(&obj)), Vec::<String>::new());
    let errors = |o: &Value, old: Option<&Value>| cel_errors(&s, o, old).join("\n");

    assert!(
        errors(&with(json!({"minReplicas": 5})), None)
            .contains("minReplicas must not exceed replicas")
    );
    assert!(
        errors(&with(json!({"owner": null})), None)
            .contains("at least one of the fields in [owner team]")
    );
    let both = with(json!({"backend": {"url": "u", "serviceName": "s"}}));
    assert!(errors(&both, None).contains("exactly one of the fields in [url serviceName]"));
    let neither = with(json!({"backend": {"port": 1, "portName": "p", "url": "u"}}));
    assert!(errors(&neither, None).contains("at most one of the fields in [port portName]"));
    assert!(errors(&with(json!({"even": "abc"})), None).contains("odd length: abc"));
    let mut bad_name = valid();
    bad_name["metadata"]["name"] = json!("nope");
    assert!(errors(&bad_name, None).contains("names start with v"));

    // Transition rules: `self == oldSelf` only on update.
    let old = with(json!({"id": "1", "zone": "a"}));
    assert!(
        errors(&with(json!({"id": "2", "zone": "a"})), Some(&old)).contains("field is immutable")
    );
    assert!(
        errors(&with(json!({"zone": null})), Some(&old))
            .contains("field zone is immutable once set")
    );
    assert_eq!(errors(&with(json!({"zone": "a"})), Some(&old)), "");
    // `optionalOldSelf` is emitted (see above), but not evaluated here: kube-cel binds a
    // missing old value to `null` where the API server binds an empty optional, so
    // `oldSelf.hasValue()` cannot be checked offline. The envtest suite checks it for real.
}

#[test]
fn mydatabase_rejects_the_seed_objects_and_accepts_a_valid_one() {
    let s = schema("MyDatabase", "v1");
    let object = |spec: Value| json!({"apiVersion": "db.example.com/v1", "kind": "MyDatabase", "metadata": {"name": "db"}, "spec": spec});
    let ok = object(json!({"replicas": 3, "image": "postgres:17.2"}));
    assert!(openapi_errors(&s, &ok).is_empty());
    assert!(cel_errors(&s, &ok, None).is_empty());
    for (spec, at) in [
        (json!({"replicas": "3", "image": "nginx"}), "/spec/replicas"),
        (json!({"replicas": 15, "image": "nginx"}), "/spec/replicas"),
        (
            json!({"replicas": 1, "image": "nginx:latest!"}),
            "/spec/image",
        ),
    ] {
        let errors = openapi_errors(&s, &object(spec.clone()));
        assert!(
            errors.iter().any(|e| e.starts_with(&format!("{at}:"))),
            "{spec}: {errors:#?}"
        );
    }
    // The cross-field rule: replicated databases pin a tag.
    let latest = object(json!({"replicas": 3, "image": "nginx:latest"}));
    assert!(openapi_errors(&s, &latest).is_empty());
    let cel = cel_errors(&s, &latest, None).join("\n");
    assert!(cel.contains("must pin its image"), "{cel}");
    assert!(
        cel_errors(
            &s,
            &object(json!({"replicas": 1, "image": "nginx:latest"})),
            None
        )
        .is_empty()
    );
    // Conditions are a list-map keyed by type.
    let status = &s["properties"]["status"]["properties"]["conditions"];
    assert_eq!(status["x-kubernetes-list-type"], json!("map"));
    assert_eq!(status["x-kubernetes-list-map-keys"], json!(["type"]));
}

#[test]
fn mydatabase_merges_its_two_versions() {
    let crd = crds()
        .into_iter()
        .find(|c| c.crd.spec.names.kind == "MyDatabase")
        .unwrap();
    let versions: Vec<(&str, bool, bool, bool)> = crd
        .crd
        .spec
        .versions
        .iter()
        .map(|v| {
            (
                v.name.as_str(),
                v.served,
                v.storage,
                v.deprecated.unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        versions,
        [("v1", true, true, false), ("v1alpha1", true, false, true)]
    );
    assert_eq!(crd.file_name, "db.example.com_mydatabases.yaml");
    assert_eq!(
        crd.crd.spec.names.list_kind.as_deref(),
        Some("MyDatabaseList")
    );
    assert_eq!(
        crd.crd.metadata.name.as_deref(),
        Some("mydatabases.db.example.com")
    );
    // The versions' schemas differ: the example's #[conversion] makes the CRD call the
    // webhook server.
    let conversion = serde_json::to_value(crd.crd.spec.conversion.as_ref().unwrap()).unwrap();
    assert_eq!(
        conversion,
        json!({
            "strategy": "Webhook",
            "webhook": {
                "clientConfig": {
                    "service": {"name": "webhook-service", "namespace": "system", "path": "/convert"},
                },
                "conversionReviewVersions": ["v1"],
            },
        })
    );
    let v1 = &crd.crd.spec.versions[0];
    let scale = v1.subresources.as_ref().unwrap().scale.as_ref().unwrap();
    assert_eq!(scale.spec_replicas_path, ".spec.replicas");
    assert_eq!(v1.additional_printer_columns.as_ref().unwrap().len(), 3);
}

// Types generated by macro_rules!: the literals arrive wrapped in invisible groups.
macro_rules! generated_kind {
    ($spec:ident, $kind:literal, $max:literal) => {
        #[kube_markers::crd]
        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[kube(group = "generated.example.com", version = "v1", kind = $kind)]
        pub struct $spec {
            #[k8s(maximum = $max, exclusive_maximum = true)]
            pub size: i32,
        }
    };
}

generated_kind!(GeneratedSpec, "Generated", 5);

#[test]
fn markers_work_through_macro_rules() {
    let s = schema("Generated", "v1");
    assert_eq!(prop(&s, "size")["maximum"], json!(5.0));
    assert_eq!(prop(&s, "size")["exclusiveMaximum"], json!(true));
}

/// Property names CEL must escape, in the rules `immutable` and the one-of markers write. (The
/// derive above the attribute is not one the markers need: only those below it must be.)
#[derive(Clone, Debug)]
#[kube_markers::crd]
#[derive(CustomResource, Deserialize, Serialize, JsonSchema)]
#[kube(group = "escaping.example.com", version = "v1", kind = "Escaped")]
#[k8s(exactly_one_of = ["in", "s3-bucket"], at_most_one_of = ["a.b", "x__y"])]
pub struct EscapedSpec {
    #[serde(rename = "in")]
    pub in_: Option<String>,
    #[k8s(immutable)]
    #[serde(rename = "s3-bucket")]
    pub s3_bucket: Option<String>,
    #[k8s(immutable)]
    #[serde(rename = "a.b")]
    pub a_dot_b: Option<String>,
    #[serde(rename = "x__y")]
    pub x_y: Option<String>,
}

#[test]
fn generated_rules_escape_property_names_as_kubernetes_does() {
    let s = schema("Escaped", "v1");
    assert_eq!(
        spec(&s)["x-kubernetes-validations"],
        json!([
            {"rule": "(has(self.a__dot__b)?1:0)+(has(self.x__underscores__y)?1:0) <= 1", "message": "at most one of the fields in [a.b x__y] may be set"},
            {"rule": "(has(self.__in__)?1:0)+(has(self.s3__dash__bucket)?1:0) == 1", "message": "exactly one of the fields in [in s3-bucket] must be set"},
            {"rule": "!has(oldSelf.s3__dash__bucket) || has(self.s3__dash__bucket)", "message": "field s3-bucket is immutable once set"},
            {"rule": "!has(oldSelf.a__dot__b) || has(self.a__dot__b)", "message": "field a.b is immutable once set"},
        ])
    );
    // The rules hold as the API server evaluates them (kube-cel escapes these names the same
    // way; it escapes `x__y` differently, which the envtest suite covers for real).
    let object = |spec: Value| json!({"apiVersion": "escaping.example.com/v1", "kind": "Escaped", "metadata": {"name": "e"}, "spec": spec});
    let errors = |new: Value, old: Option<Value>| {
        cel_errors(&s, &object(new), old.map(object).as_ref()).join("\n")
    };
    assert_eq!(errors(json!({"in": "x"}), None), "");
    assert_eq!(errors(json!({"s3-bucket": "b", "a.b": "v"}), None), "");
    assert!(
        errors(json!({"in": "x", "s3-bucket": "b"}), None)
            .contains("exactly one of the fields in [in s3-bucket]")
    );
    assert!(errors(json!({}), None).contains("exactly one of the fields in [in s3-bucket]"));
    let old = json!({"s3-bucket": "b", "a.b": "v"});
    assert!(
        errors(json!({"in": "x"}), Some(old.clone()))
            .contains("field s3-bucket is immutable once set")
    );
    assert!(
        errors(json!({"s3-bucket": "b"}), Some(old.clone()))
            .contains("field a.b is immutable once set")
    );
    assert!(
        errors(json!({"s3-bucket": "c", "a.b": "v"}), Some(old.clone()))
            .contains("field is immutable")
    );
    assert_eq!(errors(old.clone(), Some(old)), "");
}

/// serde's two-sided forms and schemars' own naming: the markers must name the properties the
/// schema really has (kube's schemars settings describe what deserializes).
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "naming.example.com", version = "v1", kind = "Named")]
#[serde(rename_all(serialize = "kebab-case", deserialize = "camelCase"))]
pub struct NamedSpec {
    #[k8s(required)]
    pub max_size: Option<i32>,
    #[k8s(immutable)]
    #[serde(rename(serialize = "bucket-out", deserialize = "s3Bucket"))]
    pub bucket: Option<String>,
    pub nested: Option<SnakeNamed>,
}

#[kube_markers::schema]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename_all = "snake_case")]
pub struct SnakeNamed {
    #[k8s(required)]
    pub storage_class: Option<String>,
}

#[test]
fn markers_name_the_properties_serde_and_schemars_name() {
    let s = schema("Named", "v1");
    let properties = |node: &Value| -> Vec<String> {
        node["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(properties(spec(&s)), ["maxSize", "nested", "s3Bucket"]);
    assert_eq!(spec(&s)["required"], json!(["maxSize"]));
    assert_eq!(
        spec(&s)["x-kubernetes-validations"],
        json!([{"rule": "!has(oldSelf.s3Bucket) || has(self.s3Bucket)", "message": "field s3Bucket is immutable once set"}])
    );
    let nested = prop(&s, "nested");
    assert_eq!(properties(nested), ["storage_class"]);
    assert_eq!(nested["required"], json!(["storage_class"]));
}
