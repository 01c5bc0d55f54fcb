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

    // Offline (no status.storedVersions): a served version removed may have stored objects.
    let two = crd(vec![
        version("v1beta1", true, false, spec()),
        version("v1", true, true, spec()),
    ]);
    let b = crd(vec![version("v1", true, true, spec())]);
    let offline = compare(&two, &b, &Policy::default()).unwrap();
    assert_eq!(
        offline
            .iter()
            .map(|f| (f.check, f.severity))
            .collect::<Vec<_>>(),
        [(Check::ServedVersionRemoval, Severity::Error)]
    );
    assert!(
        offline[0]
            .message
            .contains("Objects may still be stored at it"),
        "{}",
        offline[0].message
    );
    // The cluster's storedVersions lists it: the stored version removed, reported once.
    let mut stored = two.clone();
    stored["status"] = json!({"storedVersions": ["v1beta1", "v1"]});
    assert_eq!(
        found(&stored, &b, &Policy::default()),
        [t(Check::StoredVersionRemoval, "v1beta1", "")]
    );
    // Migrated (storedVersions no longer lists it): clients of it get 404, a warning.
    let mut migrated = two.clone();
    migrated["status"] = json!({"storedVersions": ["v1"]});
    let after = compare(&migrated, &b, &Policy::default()).unwrap();
    assert_eq!(
        after
            .iter()
            .map(|f| (f.check, f.severity))
            .collect::<Vec<_>>(),
        [(Check::ServedVersionRemoval, Severity::Warn)]
    );
    assert!(
        after[0]
            .message
            .contains("No object is stored at it (status.storedVersions: v1)"),
        "{}",
        after[0].message
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

    let mut webhook = two.clone();
    webhook["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {}});
    assert_eq!(
        found(&webhook, &two, &Policy::default()),
        [t(Check::Conversion, "", "")]
    );
    // Adding a webhook is the way out of a breaking change, not one.
    assert_eq!(found(&two, &webhook, &Policy::default()), []);
    // With one version left there is nothing to convert: dropping the webhook is no change.
    let mut one = a.clone();
    one["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {}});
    assert_eq!(found(&one, &a, &Policy::default()), []);
    let mut none = a.clone();
    none["spec"]["conversion"] = json!({"strategy": "None"});
    assert_eq!(found(&one, &none, &Policy::default()), []);
}

/// Release 2 of the issue's trial: v1alpha1 unchanged, v1 added with `size` renamed
/// `replicas` and `color` moved under `style`, converted by a webhook.
#[test]
fn versions_a_webhook_converts_are_not_compared_with_each_other() {
    let alpha = json!({"type": "object", "properties": {
        "size": {"type": "integer"}, "color": {"type": "string"}
    }});
    let v1 = json!({"type": "object", "required": ["replicas", "style"], "properties": {
        "replicas": {"type": "integer"},
        "style": {"type": "object", "properties": {"color": {"type": "string"}}}
    }});
    let release1 = crd(vec![version("v1alpha1", true, true, alpha.clone())]);
    let mut release2 = crd(vec![
        version("v1alpha1", true, true, alpha.clone()),
        version("v1", true, false, v1.clone()),
    ]);
    release2["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {}});
    assert_eq!(found(&release1, &release2, &Policy::default()), []);
    // crdify's default compares them anyway (`conversion: None` in its configuration).
    assert_eq!(
        found(&release1, &release2, &Policy::crdify()),
        [
            t(Check::Required, "v1alpha1 -> v1", "^.spec"),
            t(
                Check::ExistingFieldRemoval,
                "v1alpha1 -> v1",
                "^.spec.color"
            ),
            t(Check::ExistingFieldRemoval, "v1alpha1 -> v1", "^.spec.size"),
        ]
    );
    // Without the webhook the API server rewrites apiVersion only: the fields are lost.
    let mut unconverted = release2.clone();
    unconverted["spec"]["conversion"] = json!({"strategy": "None"});
    assert_eq!(found(&release1, &unconverted, &Policy::default()).len(), 3);
    // Each version is still compared with its old self.
    let mut changed = release2.clone();
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["size"]["maximum"] = json!(5);
    assert_eq!(
        found(&release2, &changed, &Policy::default()),
        [t(Check::Maximum, "v1alpha1", "^.spec.size")]
    );
    // The webhook dropped with two versions left: the pairs are compared again, all of them.
    let mut dropped = release2.clone();
    dropped["spec"]["conversion"] = json!({"strategy": "None"});
    let found_dropped = found(&release2, &dropped, &Policy::default());
    assert_eq!(found_dropped[0], t(Check::Conversion, "", ""));
    assert_eq!(found_dropped.len(), 4, "{found_dropped:?}");
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
    // v1alpha1 sorts below v1: the pair is `v1alpha1 -> v1`, checked as all others.
    let wider = json!({"type": "object", "properties": {
        "size": {"type": "integer", "maximum": 10},
        "name": {"type": "string"},
        "extra": {"type": "string"}
    }});
    let c = crd(vec![
        version("v1", true, true, spec()),
        version("v1alpha1", true, false, wider),
    ]);
    let pair = [t(
        Check::ExistingFieldRemoval,
        "v1alpha1 -> v1",
        "^.spec.extra",
    )];
    assert_eq!(found(&a, &c, &Policy::default()), pair);
    assert_eq!(found(&a, &c, &Policy::crdify()), pair);
}

/// Every breaking change of the issue's list, made to a v1alpha1 kind: each reported, as an
/// error, by the default policy.
#[test]
fn every_breaking_change_to_an_alpha_version_is_reported_by_default() {
    let spec = json!({"type": "object", "properties": {
        "size": {"type": "integer", "maximum": 10},
        "colour": {"type": "string"},
        "count": {"type": "integer"},
        "note": {"type": "string"}
    }});
    let a = crd(vec![version("v1alpha1", true, true, spec)]);
    let changed = json!({"type": "object", "required": ["note"], "properties": {
        "size": {"type": "integer", "maximum": 5},
        "count": {"type": "string"},
        "note": {"type": "string"}
    }});
    let b = crd(vec![version("v1alpha1", true, true, changed)]);
    let findings = compare(&a, &b, &Policy::default()).unwrap();
    let got: Vec<(Check, &str, &str, Severity)> = findings
        .iter()
        .map(|f| (f.check, f.version.as_str(), f.path.as_str(), f.severity))
        .collect();
    assert_eq!(
        got,
        [
            (Check::Required, "v1alpha1", "^.spec", Severity::Error),
            (
                Check::ExistingFieldRemoval,
                "v1alpha1",
                "^.spec.colour",
                Severity::Error
            ),
            (Check::Type, "v1alpha1", "^.spec.count", Severity::Error),
            (Check::Maximum, "v1alpha1", "^.spec.size", Severity::Error),
        ]
    );
    assert!(
        findings[3]
            .message
            .starts_with("maximum decreased: 10 → 5;")
    );
    // The version dropped (a v1 in its place).
    let c = crd(vec![version("v1", true, true, json!({"type": "object"}))]);
    let dropped = compare(&a, &c, &Policy::default()).unwrap();
    assert_eq!(
        dropped
            .iter()
            .map(|f| (f.check, f.version.as_str(), f.severity))
            .collect::<Vec<_>>(),
        [(Check::ServedVersionRemoval, "v1alpha1", Severity::Error)]
    );
}

#[test]
fn a_relaxed_alpha_policy_still_reports_each_finding_as_a_warning_naming_it() {
    let a = crd(vec![version("v1alpha1", true, true, spec())]);
    let b = crd(vec![version(
        "v1alpha1",
        true,
        true,
        json!({"type": "object"}),
    )]);
    for level in ["warn", "off"] {
        let policy = Policy::from_settings(&json!({"alpha": level}), "[T]").unwrap();
        let findings = compare(&a, &b, &policy).unwrap();
        assert_eq!(findings.len(), 2, "{findings:?}");
        for f in &findings {
            assert_eq!(f.severity, Severity::Warn);
            let setting = format!("alpha = \"{level}\" in [T]");
            assert_eq!(f.relaxed_by.as_deref(), Some(setting.as_str()));
            assert!(
                f.line().ends_with(&format!(
                    "(a warning, not an error: {setting} relaxes alpha versions)"
                )),
                "{}",
                f.line()
            );
        }
        assert!(!has_errors(&findings));
        // Not relaxed: a GA version, or the CRD as a whole.
        let ga = crd(vec![version("v1", true, true, spec())]);
        let ga_changed = crd(vec![version("v1", true, true, json!({"type": "object"}))]);
        assert!(has_errors(&compare(&ga, &ga_changed, &policy).unwrap()));
        let mut scoped = a.clone();
        scoped["spec"]["scope"] = json!("Cluster");
        assert!(has_errors(&compare(&a, &scoped, &policy).unwrap()));
    }
    // A check switched off is off, on alpha versions too.
    let off = Policy::from_settings(
        &json!({"alpha": "warn", "checks": {"existingFieldRemoval": "off"}}),
        "[T]",
    )
    .unwrap();
    assert_eq!(compare(&a, &b, &off).unwrap(), []);
    // `error` is the default.
    assert_eq!(
        Policy::from_settings(&json!({"alpha": "error"}), "[T]")
            .unwrap()
            .alpha,
        Policy::default().alpha
    );
}

#[test]
fn whole_numbers_written_as_floats_show_as_integers() {
    let a = crd(vec![version("v1", true, true, spec())]);
    let mut b = a.clone();
    b["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]
        ["maximum"] = json!(5.0);
    let findings = compare(&a, &b, &Policy::default()).unwrap();
    assert_eq!(findings[0].old.as_deref(), Some("10"));
    assert_eq!(findings[0].new.as_deref(), Some("5"));
    assert!(
        findings[0]
            .message
            .starts_with("maximum decreased: 10 → 5;")
    );
    // The same number either way is no change.
    let mut c = a.clone();
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]
        ["maximum"] = json!(10.0);
    assert_eq!(compare(&a, &c, &Policy::default()).unwrap(), []);
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
            "T `alpha`: must be \"error\", \"warn\" or \"off\", found \"yes\"",
        ),
        (
            json!({"alpha": "exempt"}),
            "T `alpha`: must be \"error\", \"warn\" or \"off\", found \"exempt\" (write \"off\"",
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
