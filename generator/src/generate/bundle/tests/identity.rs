//! The identity: sources, defaults, precedence, bad input.

use super::*;

#[test]
fn nothing_declared_means_no_bundle() {
    let meta = metadata(Value::Null, Value::Null);
    assert_eq!(
        resolve_with(&BundleFlags::default(), &meta, &["op"]),
        Ok(None)
    );
    assert_eq!(
        resolve(&BundleFlags::default(), None, None, &["op"]),
        Ok(None)
    );
}

#[test]
fn an_empty_table_gives_kubebuilders_defaults_named_after_the_linked_crate() {
    let meta = metadata(Value::Null, json!({}));
    let id = resolve_with(&BundleFlags::default(), &meta, &["shop_operator"])
        .unwrap()
        .unwrap();
    assert_eq!(id.name, "shop-operator");
    assert_eq!(id.namespace, "shop-operator-system");
    assert_eq!(id.service_account, "controller-manager");
    assert_eq!(id.image, "controller:latest");
    assert_eq!(id.name_prefix, "shop-operator-");
    assert_eq!(id.health_probe_port, 8081);
    assert!(!id.leader_election && !id.metrics_auth && !id.aggregate_to_default_roles);
    assert_eq!(
        id.origin("name"),
        Origin::LinkedCrate("shop_operator".into())
    );
}

#[test]
fn workspace_and_generator_tables_combine_and_flags_override() {
    let meta = metadata(
        json!({"name": "shop", "leader-election": true}),
        json!({"name": "shop", "image": "img:1", "args": ["-v"], "health-probe-port": 9000}),
    );
    let id = resolve_with(&BundleFlags::default(), &meta, &[])
        .unwrap()
        .unwrap();
    assert_eq!((id.name.as_str(), id.image.as_str()), ("shop", "img:1"));
    assert!(id.leader_election);
    assert_eq!(id.args, ["-v"]);
    assert_eq!(id.health_probe_port, 9000);
    assert_eq!(
        id.origin("image"),
        Origin::Package("/ws/codegen/Cargo.toml".into())
    );
    assert_eq!(
        id.origin("leader-election"),
        Origin::Workspace("/ws/Cargo.toml".into())
    );
    let flags = BundleFlags {
        namespace: Some("prod".into()),
        image: Some("img:2".into()),
        ..BundleFlags::default()
    };
    let id = resolve_with(&flags, &meta, &[]).unwrap().unwrap();
    assert_eq!(
        (id.namespace.as_str(), id.image.as_str()),
        ("prod", "img:2")
    );
    assert_eq!(id.origin("image"), Origin::Flag("--image"));
    // Flags alone declare a bundle.
    let flags = BundleFlags {
        name: Some("solo".into()),
        ..BundleFlags::default()
    };
    let id = resolve(&flags, None, None, &[]).unwrap().unwrap();
    assert_eq!(id.namespace, "solo-system");
}

#[test]
fn only_the_generators_own_package_is_read() {
    let meta = metadata(Value::Null, json!({"name": "shop"}));
    // Another binary (a test harness, another generator) does not see codegen's table.
    assert_eq!(
        resolve(&BundleFlags::default(), Some(&meta), Some("other"), &["op"]),
        Ok(None)
    );
}

#[test]
fn conflicting_identities_name_both_places() {
    let meta = metadata(
        json!({"name": "shop", "namespace": "a"}),
        json!({"namespace": "b"}),
    );
    let problems = resolve(&BundleFlags::default(), Some(&meta), Some("codegen"), &[]).unwrap_err();
    assert_eq!(
        problems,
        [BundleProblem::Conflict {
            key: "namespace",
            first: "\"a\"".into(),
            first_origin: Origin::Workspace("/ws/Cargo.toml".into()),
            other: "\"b\"".into(),
            other_origin: Origin::Package("/ws/codegen/Cargo.toml".into()),
        }]
    );
    assert_eq!(
        texts(problems),
        [
            "conflicting identities: `namespace` is \"a\" in [workspace.metadata.kube-markers.bundle] \
          in /ws/Cargo.toml but \"b\" in [package.metadata.kube-markers.bundle] in \
          /ws/codegen/Cargo.toml; declare it in one place"
        ]
    );
    let meta = metadata(json!({"enabled": false}), Value::Null);
    let flags = BundleFlags {
        image: Some("img".into()),
        ..BundleFlags::default()
    };
    let errors = resolve_with(&flags, &meta, &["op"]).unwrap_err();
    assert!(
        errors[0].contains("--image set(s) the operator's identity, but the bundle is switched off by `enabled = false` in [workspace.metadata.kube-markers.bundle] in /ws/Cargo.toml"),
        "{errors:?}"
    );
}

#[test]
fn switched_off_by_table_or_flag() {
    let meta = metadata(Value::Null, json!({"enabled": false, "name": "shop"}));
    assert_eq!(resolve_with(&BundleFlags::default(), &meta, &[]), Ok(None));
    let meta = metadata(Value::Null, json!({"name": "shop"}));
    let off = BundleFlags {
        off: true,
        ..BundleFlags::default()
    };
    assert_eq!(resolve_with(&off, &meta, &[]), Ok(None));
}

#[test]
fn bad_identities_are_named_with_their_source() {
    let meta = metadata(
        Value::Null,
        json!({
            "name": "Shop_Op", "namespace": "kube-system", "service-account": "a..b",
            "image": "has space", "leader-elect": true, "metrics-auth": "yes",
            "args": "--v", "health-probe-port": 70000, "name-prefix": "-x",
        }),
    );
    let errors = resolve_with(&BundleFlags::default(), &meta, &[]).unwrap_err();
    let place = "[package.metadata.kube-markers.bundle] in /ws/codegen/Cargo.toml";
    for expected in [
        format!("{place}: unknown key `leader-elect` (did you mean `leader-election`?)"),
        format!("{place}: `metrics-auth` must be true or false, not the string \"yes\""),
        format!("{place}: `args` must be an array of strings, not the string \"--v\""),
        format!("{place}: `health-probe-port = 70000` is not a port (1 to 65535)"),
        format!(
            "{place}: `name = \"Shop_Op\"` is not a valid operator name (DNS-1123 label): it contains `S`"
        ),
        format!(
            "{place}: `namespace = \"kube-system\"` is in the `kube-` prefix Kubernetes reserves"
        ),
        format!(
            "{place}: `service-account = \"a..b\"` is not a valid ServiceAccount name (DNS-1123 subdomain): it has an empty part between dots"
        ),
        format!("{place}: `image = \"has space\"` is not an image reference"),
        format!("{place}: `name-prefix = \"-x\"` cannot start a valid name"),
    ] {
        assert!(
            errors.iter().any(|e| e.starts_with(&expected)),
            "missing {expected:?} in {errors:#?}"
        );
    }
    assert_eq!(errors.len(), 9, "{errors:#?}");
    // A flag is named as the flag.
    let flags = BundleFlags {
        name: Some("shop".into()),
        namespace: Some("Prod".into()),
        ..BundleFlags::default()
    };
    let errors = texts(resolve(&flags, None, None, &[]).unwrap_err());
    assert!(
        errors[0]
            .starts_with("`--operator-namespace`: `namespace = \"Prod\"` is not a valid namespace"),
        "{errors:?}"
    );
}

#[test]
fn the_bundle_owns_no_default_and_no_kube_prefixed_namespace() {
    // The bundle creates its namespace and `kubectl delete -k` deletes it: `default` and the
    // whole `kube-` prefix Kubernetes reserves are refused, not only today's three.
    for (namespace, why) in [
        ("default", "every cluster's `default` namespace"),
        ("kube-system", "in the `kube-` prefix Kubernetes reserves"),
        (
            "kube-node-lease",
            "in the `kube-` prefix Kubernetes reserves",
        ),
        ("kube-ops", "in the `kube-` prefix Kubernetes reserves"),
    ] {
        let flags = BundleFlags {
            name: Some("shop".into()),
            namespace: Some(namespace.into()),
            ..BundleFlags::default()
        };
        let errors = texts(resolve(&flags, None, None, &[]).unwrap_err());
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert!(
            errors[0].starts_with(&format!(
                "`--operator-namespace`: `namespace = \"{namespace}\"` is {why}"
            )) && errors[0].contains("`kubectl delete -k` would delete it"),
            "{errors:?}"
        );
    }
    // Names that only look alike are the operator's own.
    for namespace in ["kube", "kubernetes-ops", "my-kube-ops", "defaults"] {
        let flags = BundleFlags {
            name: Some("shop".into()),
            namespace: Some(namespace.into()),
            ..BundleFlags::default()
        };
        let id = resolve(&flags, None, None, &[]).unwrap().unwrap();
        assert_eq!(id.namespace, namespace);
    }
}

#[test]
fn a_bad_name_is_one_error_not_one_per_default_made_from_it() {
    let flags = BundleFlags {
        name: Some("My_Op".into()),
        ..BundleFlags::default()
    };
    let errors = texts(resolve(&flags, None, None, &[]).unwrap_err());
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with("`--operator-name`: `name = \"My_Op\"`"),
        "{errors:?}"
    );
    // A default made from a valid but long name is still checked.
    let flags = BundleFlags {
        name: Some("o".repeat(60)),
        ..BundleFlags::default()
    };
    let errors = texts(resolve(&flags, None, None, &[]).unwrap_err());
    assert!(
        errors[0].starts_with("the default: `namespace = \"oooo")
            && errors[0].contains("more than 63"),
        "{errors:?}"
    );
}

#[test]
fn a_bundle_needs_a_name_when_several_crates_are_linked() {
    let meta = metadata(Value::Null, json!({"leader-election": true}));
    let errors = resolve_with(&BundleFlags::default(), &meta, &["a_op", "b_op"]).unwrap_err();
    assert!(
        errors[0]
            .starts_with("the bundle needs the operator's name (2 crates are linked: a_op, b_op)"),
        "{errors:?}"
    );
}

#[test]
fn a_bundle_table_that_is_not_a_table() {
    let meta = metadata(json!("yes"), Value::Null);
    let errors = resolve_with(&BundleFlags::default(), &meta, &[]).unwrap_err();
    assert_eq!(
        errors,
        [
            "[workspace.metadata.kube-markers.bundle] in /ws/Cargo.toml: `bundle` must be a table, not the string \"yes\""
        ]
    );
}

#[test]
fn the_chart_is_on_by_default_and_chart_false_turns_it_off() {
    let on = metadata(Value::Null, json!({"name": "shop"}));
    let id = resolve_with(&BundleFlags::default(), &on, &[])
        .unwrap()
        .unwrap();
    assert!(id.chart);
    let off = metadata(Value::Null, json!({"name": "shop", "chart": false}));
    let id = resolve_with(&BundleFlags::default(), &off, &[])
        .unwrap()
        .unwrap();
    assert!(!id.chart);
    assert_eq!(
        id.origin("chart"),
        Origin::Package("/ws/codegen/Cargo.toml".into())
    );
    let wrong = metadata(Value::Null, json!({"name": "shop", "chart": "no"}));
    let errors = resolve_with(&BundleFlags::default(), &wrong, &[]).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("chart"), "{errors:?}");
}
