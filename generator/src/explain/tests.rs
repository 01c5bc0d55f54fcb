use super::*;
use crate::cli::explain::ExplainCommand;
use crate::testing::{marker, rbac, texts};
use kube_markers_core::model::Allow;
use kube_markers_rbac::generate_roles;
use kube_markers_registry::Source;

type List = &'static [&'static str];

fn entry(line: u32, groups: List, resources: List, verbs: List) -> RbacEntry {
    rbac(
        marker(groups, resources, verbs),
        Source::__new("src/lib.rs", line, 1, "op", "reconcile"),
    )
}

/// Attributes whose merge exercises every pass: verbs united, resources merged, groups
/// merged, a `*` that subsumes verbs, a namespaced Role and a URL rule.
fn entries() -> Vec<RbacEntry> {
    let mut tenant = entry(7, &["core"], &["configmaps"], &["get"]);
    tenant.marker.namespace = Some("tenants".into());
    tenant.marker.role_name = Some("tenant".into());
    tenant.marker.allow = vec![Allow {
        lint: "redundant".into(),
        reason: "kept for the docs".into(),
    }];
    let mut metrics = entry(8, &[], &[], &["get"]);
    metrics.marker.urls = texts(&["/metrics"]);
    vec![
        entry(1, &["apps"], &["deployments"], &["get", "list"]),
        entry(2, &["apps"], &["deployments"], &["watch"]),
        entry(3, &["apps"], &["statefulsets"], &["get", "list"]),
        entry(4, &["batch"], &["jobs"], &["*"]),
        entry(5, &["batch"], &["jobs"], &["create"]),
        entry(6, &["extra.example.com"], &["widgets"], &["watch"]),
        tenant,
        metrics,
    ]
}

fn explained() -> Explanation {
    let entries = entries();
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    explain_all(&refs, "manager-role")
}

#[test]
fn the_rules_are_role_yamls_rules() {
    let entries = entries();
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let plain = generate_roles(refs.iter().map(|e| &e.marker), "manager-role");
    let explanation = explain_all(&refs, "manager-role");
    assert_eq!(explanation.roles.len(), plain.len());
    for (role, plain) in explanation.roles.iter().zip(&plain) {
        assert_eq!(role.name, plain.key.name);
        let rules: Vec<Rule> = plain.rules.clone();
        let explained: Vec<Rule> = role.rules.iter().map(|r| r.rule.clone()).collect();
        assert_eq!(explained, rules);
    }
}

#[test]
fn every_value_names_the_attributes_that_wrote_it() {
    let e = explained();
    let manager = &e.roles[0];
    let ids = |v: &[usize]| v.iter().copied().collect::<BTreeSet<usize>>();
    // Lines 1 and 2 united their verbs; line 3's statefulsets have other verbs, so stay apart.
    let deployments = manager
        .rules
        .iter()
        .find(|r| r.rule.resources == ["deployments"])
        .unwrap();
    assert_eq!(deployments.rule.verbs, ["get", "list", "watch"]);
    assert_eq!(deployments.origins.verbs["get"], ids(&[0]));
    assert_eq!(deployments.origins.verbs["watch"], ids(&[1]));
    assert_eq!(deployments.origins.api_groups["apps"], ids(&[0, 1]));
    assert_eq!(deployments.attributes, ids(&[0, 1]));
    // `*` subsumes line 5's create, which stays listed as covered.
    let jobs = manager
        .rules
        .iter()
        .find(|r| r.rule.resources == ["jobs"])
        .unwrap();
    assert_eq!(jobs.rule.verbs, ["*"]);
    assert_eq!(jobs.origins.verbs["*"], ids(&[3]));
    assert_eq!(jobs.origins.verbs["create"], ids(&[4]));
    // The URL rule and the Role.
    let metrics = manager
        .rules
        .iter()
        .find(|r| !r.rule.urls.is_empty())
        .unwrap();
    assert_eq!(metrics.origins.non_resource_urls["/metrics"], ids(&[7]));
    let tenant = &e.roles[1];
    assert_eq!(
        (tenant.kind, tenant.namespace.as_deref()),
        ("Role", Some("tenants"))
    );
    assert_eq!(tenant.rules[0].origins.api_groups[""], ids(&[6]));
}

#[test]
fn text() {
    insta::assert_snapshot!(explained().to_text());
}

#[test]
fn json_field_names_are_stable() {
    let value = serde_json::to_value(explained()).unwrap();
    let jobs = &value["roles"][0]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"]["resources"] == serde_json::json!(["jobs"]))
        .unwrap()
        .clone();
    assert_eq!(jobs["rule"]["apiGroups"], serde_json::json!(["batch"]));
    assert_eq!(jobs["rule"]["verbs"], serde_json::json!(["*"]));
    assert_eq!(
        jobs["origins"]["verbs"],
        serde_json::json!({"*": [3], "create": [4]})
    );
    assert_eq!(jobs["attributes"], serde_json::json!([3, 4]));
    assert!(jobs["index"].is_u64());
    let tenant = &value["attributes"][6];
    assert_eq!(
        *tenant,
        serde_json::json!({
            "id": 6, "file": "src/lib.rs", "line": 7, "column": 1, "module": "op",
            "item": "reconcile",
            "rule": {"apiGroups": ["core"], "resources": ["configmaps"], "verbs": ["get"]},
            "namespace": "tenants", "roleName": "tenant",
            "allow": [{"lint": "redundant", "reason": "kept for the docs"}]
        })
    );
    assert_eq!(
        value["roles"][1],
        serde_json::json!({
            "kind": "Role", "name": "tenant", "namespace": "tenants",
            "rules": [{
                "index": 0,
                "rule": {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
                "origins": {"apiGroups": {"": [6]}, "resources": {"configmaps": [6]}, "verbs": {"get": [6]}},
                "attributes": [6]
            }]
        })
    );
}

fn ask(args: &[&str]) -> Answer {
    let entries = entries();
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let Ok(ExplainCommand::Explain(opts)) = ExplainCommand::parse(args.iter().copied()) else {
        panic!("{args:?}");
    };
    explain_question(&refs, "manager-role", &opts.question.unwrap())
}

#[test]
fn questions_name_the_granting_attributes() {
    let watch = ask(&["watch", "deployments.apps"]);
    assert!(watch.allowed);
    assert_eq!(watch.grants.len(), 1);
    assert_eq!(watch.grants[0].attributes, BTreeSet::from([1]));
    assert_eq!(watch.attributes[0].line, 2);
    // `*` grants delete on jobs; line 5's create does not.
    let delete = ask(&["delete", "jobs.batch/nightly", "-n", "ops"]);
    assert_eq!(delete.grants[0].attributes, BTreeSet::from([3]));
    // A Role answers in its namespace only.
    assert!(ask(&["get", "configmaps", "-n", "tenants"]).allowed);
    let elsewhere = ask(&["get", "configmaps", "-n", "other"]);
    assert!(!elsewhere.allowed);
    assert_eq!(
        elsewhere.suggestion.as_deref(),
        Some(r#"#[kube_markers::rbac(groups = "", resources = "configmaps", verbs = "get")]"#)
    );
    assert!(ask(&["get", "/metrics"]).allowed);
    insta::assert_snapshot!(
        [
            ask(&["get", "configmaps", "-n", "tenants"]).to_text(),
            elsewhere.to_text()
        ]
        .join("\n")
    );
}

#[test]
fn questions_resolve_type_as_can_i_does() {
    let entries = entries();
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let memcached = crate::can_i::KnownResource {
        group: "cache.example.com".into(),
        plural: "memcacheds".into(),
        singular: "memcached".into(),
        kind: "Memcached".into(),
        short_names: vec!["mc".into()],
        namespaced: true,
        from: crate::can_i::ResourceSource::Registry("Memcached".into()),
    };
    let run_text = |args: &[&str]| {
        let Ok(ExplainCommand::Explain(opts)) = ExplainCommand::parse(args.iter().copied()) else {
            panic!("{args:?}");
        };
        run(&opts, &refs, || vec![memcached.clone()])
    };
    // deployments are the apps group's: allowed by line 2's attribute.
    let (text, warnings, code) = run_text(&["watch", "deployments"]);
    assert_eq!(code, ExitCode::SUCCESS, "{text}");
    assert!(
        text.contains("request: \"watch\" resource \"deployments.apps\""),
        "{text}"
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let (text, _, _) = run_text(&["create", "deploy", "-n", "x"]);
    assert!(
        text.contains("request: \"create\" resource \"deployments.apps\""),
        "{text}"
    );
    // A linked CRD, by plural, short name and kind: the hint names its group.
    for name in ["memcacheds", "mc", "Memcached"] {
        let (text, warnings, code) = run_text(&["list", name, "-n", "x"]);
        assert_eq!(code, ExitCode::FAILURE, "{text}");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(
            text.contains("request: \"list\" resource \"memcacheds.cache.example.com\""),
            "{text}"
        );
        assert!(text.ends_with("to allow it: #[kube_markers::rbac(groups = \"cache.example.com\", resources = \"memcacheds\", verbs = \"list\")]\n"), "{text}");
    }
    // Unknown: asked as typed, with can-i's warning.
    let (_, warnings, _) = run_text(&["list", "widgets"]);
    assert!(
        warnings[0].contains("`widgets` is neither a resource"),
        "{warnings:?}"
    );
}
