//! The CRDs an operator installs from code (`kube_markers::crd::definitions()` and friends) are
//! the files the generator wrote: for the example operators, the committed `rbac-out/crd/*.yaml`,
//! compared as objects (parsed, numbers as the float64 both sides are to JSON).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;
use kube_markers::crd::{DefinitionError, definition, definition_of, definitions};
use serde_json::Value;
use std::collections::BTreeMap;

// Only the example operators: their CRDs are the ones in rbac-out/crd/.
kube_markers::link!(memcached_operator, mydatabase_operator);

/// Every number as a float, as encoding/json would decode it.
fn numbers_as_floats(v: Value) -> Value {
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Number(n), Value::Number),
        Value::Array(items) => Value::Array(items.into_iter().map(numbers_as_floats).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, numbers_as_floats(v)))
                .collect(),
        ),
        other => other,
    }
}

fn as_value(crd: &CustomResourceDefinition) -> Value {
    numbers_as_floats(serde_json::to_value(crd).unwrap())
}

/// The committed CRD files, by `metadata.name`.
fn committed() -> BTreeMap<String, Value> {
    let dir = kube_markers_tests::workspace_root().join("rbac-out/crd");
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        // (Not the generator's ledger.)
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let value: Value =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = value["metadata"]["name"].as_str().unwrap().to_string();
        files.insert(name, numbers_as_floats(value));
    }
    files
}

#[test]
fn definitions_are_the_committed_crd_files() {
    let files = committed();
    let crds = definitions().unwrap();
    let names: Vec<&str> = crds
        .iter()
        .map(|c| c.metadata.name.as_deref().unwrap())
        .collect();
    assert_eq!(
        names,
        files.keys().map(String::as_str).collect::<Vec<_>>(),
        "one CRD per committed file"
    );
    for crd in &crds {
        let name = crd.metadata.name.as_deref().unwrap();
        assert!(
            as_value(crd) == files[name],
            "{name} differs from rbac-out/crd"
        );
    }
}

#[test]
fn definition_by_type_has_what_kube_derive_lacks() {
    use mydatabase_operator::{MyDatabase, v1alpha1};
    let files = committed();
    let crd = definition::<MyDatabase>().unwrap();
    assert!(as_value(&crd) == files[MyDatabase::crd_name()]);
    // Any version's type finds the merged CRD of its kind.
    assert_eq!(definition::<v1alpha1::MyDatabase>().unwrap(), crd);
    assert_eq!(definition_of("db.example.com", "MyDatabase").unwrap(), crd);
    let memcached = definition::<memcached_operator::Memcached>().unwrap();
    assert!(as_value(&memcached) == files[memcached_operator::Memcached::crd_name()]);

    // What kube-derive's own CRD misses: the other version, the generator's annotation. (Root
    // rules are the third; the doctest of `definition` shows them.)
    let derived = MyDatabase::crd();
    assert_eq!(derived.spec.versions.len(), 1);
    let versions: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(versions, ["v1", "v1alpha1"]);
    assert!(derived.metadata.annotations.is_none());
    assert!(
        crd.metadata
            .annotations
            .as_ref()
            .unwrap()
            .contains_key(kube_markers::crd::VERSION_ANNOTATION)
    );
}

#[test]
fn an_unregistered_kind_is_an_error_naming_it() {
    let err = definition_of("db.example.com", "NoSuchKind").unwrap_err();
    assert!(
        matches!(
            &err,
            DefinitionError::NotRegistered { group, kind }
                if group == "db.example.com" && kind == "NoSuchKind"
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("\"db.example.com\"") && message.contains("\"NoSuchKind\""),
        "{message}"
    );
}
