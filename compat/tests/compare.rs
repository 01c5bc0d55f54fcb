//! Whole CRDs compared: the CRD-wide checks, versions with their old selves, served pairs,
//! the policy, and bad input.

use kube_markers_compat::{Check, Policy, Severity, compare, compare_sets, has_errors};
use serde_json::{Value, json};

fn version(name: &str, served: bool, storage: bool, spec: Value) -> Value {
    json!({
        "name": name, "served": served, "storage": storage,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}
    })
}

fn crd(versions: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": versions
        }
    })
}

fn spec() -> Value {
    json!({"type": "object", "properties": {
        "size": {"type": "integer", "maximum": 10},
        "name": {"type": "string"}
    }})
}

fn found(old: &Value, new: &Value, policy: &Policy) -> Vec<(Check, String, String)> {
    compare(old, new, policy)
        .unwrap()
        .into_iter()
        .map(|f| (f.check, f.version, f.path))
        .collect()
}

fn t(check: Check, version: &str, path: &str) -> (Check, String, String) {
    (check, version.to_string(), path.to_string())
}

#[test]
fn an_unchanged_crd_has_no_finding() {
    let a = crd(vec![version("v1", true, true, spec())]);
    assert_eq!(found(&a, &a, &Policy::crdify()), []);
}

#[test]
fn a_field_removed_is_reported_once_at_its_top() {
    let a = crd(vec![version("v1", true, true, spec())]);
    let b = crd(vec![version("v1", true, true, json!({"type": "object"}))]);
    assert_eq!(
        found(&a, &b, &Policy::default()),
        [
            t(Check::ExistingFieldRemoval, "v1", "^.spec.name"),
            t(Check::ExistingFieldRemoval, "v1", "^.spec.size"),
        ]
    );
    let c = crd(vec![version("v1", true, true, json!(null))]);
    let gone = found(&a, &c, &Policy::default());
    assert_eq!(gone, [t(Check::ExistingFieldRemoval, "v1", "^.spec")]);
}

#[test]
fn crd_wide_changes() {
    let a = crd(vec![version("v1", true, true, spec())]);
    let mut b = a.clone();
    b["spec"]["scope"] = json!("Cluster");
    assert_eq!(found(&a, &b, &Policy::default()), [t(Check::Scope, "", "")]);

    let mut stored = crd(vec![
        version("v1beta1", true, false, spec()),
        version("v1", true, true, spec()),
    ]);
    stored["status"] = json!({"storedVersions": ["v1beta1", "v1"]});
    let b = crd(vec![version("v1", true, true, spec())]);
    assert_eq!(
        found(&stored, &b, &Policy::default()),
        [
            t(Check::StoredVersionRemoval, "v1beta1", ""),
            t(Check::ServedVersionRemoval, "v1beta1", ""),
        ]
    );
    // Unserved, not removed: still a served version gone.
    let b = crd(vec![
        version("v1beta1", false, false, spec()),
        version("v1", true, true, spec()),
    ]);
    assert_eq!(
        found(&stored, &b, &Policy::default()),
        [t(Check::ServedVersionRemoval, "v1beta1", "")]
    );

    let mut webhook = a.clone();
    webhook["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {}});
    assert_eq!(
        found(&webhook, &a, &Policy::default()),
        [t(Check::Conversion, "", "")]
    );
    // Adding a webhook is the way out of a breaking change, not one.
    assert_eq!(found(&a, &webhook, &Policy::default()), []);
}

#[test]
fn served_versions_are_compared_pairwise_less_what_was_there() {
    let narrow =
        json!({"type": "object", "properties": {"size": {"type": "integer", "maximum": 5}}});
    let a = crd(vec![version("v1", true, true, spec())]);
    let b = crd(vec![
        version("v1", true, true, spec()),
        version("v2", true, false, narrow.clone()),
    ]);
    assert_eq!(
        found(&a, &b, &Policy::default()),
        [
            t(Check::ExistingFieldRemoval, "v1 -> v2", "^.spec.name"),
            t(Check::Maximum, "v1 -> v2", "^.spec.size"),
        ]
    );
    // The same pair in the old CRD: nothing new.
    assert_eq!(found(&b, &b, &Policy::default()), []);
    // v1alpha1 sorts below v1: the pair is `v1alpha1 -> v1`, and exempt by default.
    let wider = json!({"type": "object", "properties": {
        "size": {"type": "integer", "maximum": 10},
        "name": {"type": "string"},
        "extra": {"type": "string"}
    }});
    let c = crd(vec![
        version("v1", true, true, spec()),
        version("v1alpha1", true, false, wider),
    ]);
    assert_eq!(found(&a, &c, &Policy::default()), []);
    assert_eq!(
        found(&a, &c, &Policy::crdify()),
        [t(
            Check::ExistingFieldRemoval,
            "v1alpha1 -> v1",
            "^.spec.extra"
        )]
    );
}

#[test]
fn alpha_versions_are_exempt_unless_checked() {
    let a = crd(vec![version("v1alpha1", true, true, spec())]);
    let b = crd(vec![version(
        "v1alpha1",
        true,
        true,
        json!({"type": "object"}),
    )]);
    assert_eq!(found(&a, &b, &Policy::default()), []);
    let policy = Policy::from_settings(&json!({"alpha": "checked"}), "test").unwrap();
    assert_eq!(found(&a, &b, &policy).len(), 2);
}

#[test]
fn the_policy_sets_each_checks_severity() {
    let a = crd(vec![version("v1", true, true, spec())]);
    let tighter = json!({"type": "object", "properties": {
        "size": {"type": "integer", "maximum": 5, "description": "how many"},
        "name": {"type": "string"}
    }});
    let b = crd(vec![version("v1", true, true, tighter)]);
    let default = compare(&a, &b, &Policy::default()).unwrap();
    assert_eq!(default.len(), 1, "description is off by default");
    assert_eq!(default[0].severity, Severity::Error);
    assert!(has_errors(&default));
    assert!(
        default[0]
            .message
            .starts_with("maximum decreased: 10 → 5; ratcheting (Kubernetes 1.33+)"),
        "{}",
        default[0].message
    );
    let policy = Policy::from_settings(
        &json!({"checks": {"maximum": "warn", "description": "error"}}),
        "test",
    )
    .unwrap();
    let set = compare(&a, &b, &policy).unwrap();
    let severities: Vec<(Check, Severity)> = set.iter().map(|f| (f.check, f.severity)).collect();
    assert_eq!(
        severities,
        [
            (Check::Maximum, Severity::Warn),
            (Check::Description, Severity::Error)
        ]
    );
    assert!(!has_errors(&set[..1]));
    let off = Policy::from_settings(&json!({"checks": {"maximum": "off"}}), "test").unwrap();
    assert_eq!(compare(&a, &b, &off).unwrap(), []);
}

#[test]
fn bad_settings_name_the_key() {
    let cases = [
        (
            json!({"checks": {"maximun": "off"}}),
            "T `checks.maximun`: no check is named `maximun`",
        ),
        (
            json!({"checks": {"maximum": "fatal"}}),
            "T `checks.maximum`: must be \"error\", \"warn\" or \"off\", found \"fatal\"",
        ),
        (
            json!({"checks": []}),
            "T `checks`: must be a table, found []",
        ),
        (
            json!({"enum-additions": true}),
            "T `enum-additions`: must be \"allow\" or \"disallow\", found true",
        ),
        (
            json!({"alpha": "yes"}),
            "T `alpha`: must be \"exempt\" or \"checked\", found \"yes\"",
        ),
        (
            json!({"strict": true}),
            "T `strict`: unknown setting; the settings: checks, enum-additions, alpha",
        ),
        (json!("error"), "T: must be a table, found \"error\""),
    ];
    for (settings, want) in cases {
        let got = Policy::from_settings(&settings, "T")
            .unwrap_err()
            .to_string();
        assert!(got.starts_with(want), "{got}");
    }
    assert_eq!(
        Policy::from_settings(&Value::Null, "T").unwrap(),
        Policy::default()
    );
}

#[test]
fn bad_crds_name_the_field() {
    let good = crd(vec![version("v1", true, true, spec())]);
    let cases = [
        (
            json!({"kind": "ConfigMap"}),
            "a CRD: kind: not a CustomResourceDefinition",
        ),
        (
            json!({"kind": "CustomResourceDefinition"}),
            "a CRD: metadata.name: missing or not a string",
        ),
        (
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "x"}}),
            "x: spec.versions: missing or not a list",
        ),
        (
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "x"}, "spec": {"versions": [{"name": 1}]}}),
            "x: spec.versions[0].name: missing or not a string",
        ),
        (
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "x"}, "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": "no"}}]}}),
            "x: spec.versions[0].schema.openAPIV3Schema: not an object",
        ),
    ];
    for (bad, want) in cases {
        assert_eq!(
            compare(&good, &bad, &Policy::default())
                .unwrap_err()
                .to_string(),
            want
        );
    }
}

#[test]
fn sets_match_by_name_and_a_crd_gone_loses_its_versions() {
    let a = crd(vec![version("v1", true, true, spec())]);
    let mut other = a.clone();
    other["metadata"]["name"] = json!("gadgets.example.com");
    let findings = compare_sets(
        &[a.clone(), other.clone()],
        std::slice::from_ref(&a),
        &Policy::default(),
    )
    .unwrap();
    let got: Vec<(Check, &str, &str)> = findings
        .iter()
        .map(|f| (f.check, f.crd.as_str(), f.version.as_str()))
        .collect();
    assert_eq!(
        got,
        [(Check::ServedVersionRemoval, "gadgets.example.com", "v1")]
    );
    assert_eq!(
        compare_sets(
            std::slice::from_ref(&a),
            &[a.clone(), other],
            &Policy::default()
        )
        .unwrap(),
        []
    );
    let errors =
        compare_sets(&[json!({})], &[json!({"kind": "Pod"})], &Policy::default()).unwrap_err();
    assert_eq!(errors.len(), 2);
}

#[test]
fn findings_render_one_line_and_serialize_with_the_issue_fields() {
    let a = crd(vec![version("v1", true, true, spec())]);
    let mut b = a.clone();
    b["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]
        ["type"] = json!("string");
    let findings = compare(&a, &b, &Policy::default()).unwrap();
    assert_eq!(
        findings[0].line(),
        "error[type]: widgets.example.com v1 spec.size: type changed: \"integer\" → \"string\"; \
         ratcheting cannot help: stored values of the old type fail every update that touches them"
    );
    let json = serde_json::to_value(&findings[0]).unwrap();
    for key in [
        "check",
        "version",
        "path",
        "severity",
        "message",
        "crd",
        "old",
        "new",
        "ratcheting",
    ] {
        assert!(json.get(key).is_some(), "{key}: {json}");
    }
    assert_eq!(json["check"], "type");
    assert_eq!(json["severity"], "error");
    assert_eq!(json["path"], "^.spec.size");
}
