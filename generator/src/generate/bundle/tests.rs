use super::*;
use crate::testing::{marker, rbac};
use crate::{FileStatus, run_with};
use kube_markers_core::model::RbacMarker;
use kube_markers_rbac::generate_roles;
use kube_markers_registry::Source;
use serde_json::json;

fn entry(
    namespace: Option<&'static str>,
    role_name: Option<&'static str>,
    resources: &'static [&'static str],
    line: u32,
) -> RbacEntry {
    let marker = RbacMarker {
        namespace: namespace.map(Into::into),
        role_name: role_name.map(Into::into),
        ..marker(&["example.com"], resources, &["get", "patch"])
    };
    rbac(
        marker,
        Source::__new("src/lib.rs", line, 1, "op", "reconcile"),
    )
}

fn roles_of(entries: &[RbacEntry]) -> Vec<GeneratedRole> {
    generate_roles(entries.iter().map(|e| &e.marker), "manager-role")
}

fn crd(group: &str, kind: &str, plural: &str, scope: &str, status: bool) -> GeneratedCrd {
    let mut version = json!({
        "name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object"}},
    });
    if status {
        version["subresources"] = json!({"status": {}});
    }
    let crd = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "listKind": format!("{kind}List")},
            "scope": scope,
            "versions": [version],
        },
    }))
    .unwrap();
    GeneratedCrd {
        crd,
        file_name: crate::generate::crds::file_name(group, plural),
        sources: Vec::new(),
    }
}

fn identity(all_options: bool) -> Identity {
    let mut id = Identity::with_defaults("shop-operator");
    if all_options {
        id.image = "registry.example.com/shop-operator:1.2.3".into();
        id.args = vec![
            "--leader-elect".into(),
            "--metrics-bind-address=:8443".into(),
        ];
        id.leader_election = true;
        id.metrics_auth = true;
        id.aggregate_to_default_roles = true;
    }
    id
}

/// An operator with a ClusterRole, a named ClusterRole, a Role in its own namespace and Roles
/// in two tenant namespaces (one of them named like the ClusterRole), and two CRDs.
fn shop() -> (Vec<RbacEntry>, Vec<GeneratedCrd>) {
    let entries = vec![
        entry(None, None, &["carts"], 10),
        entry(None, Some("reports"), &["reports"], 20),
        entry(
            Some("shop-operator-system"),
            Some("own-secrets"),
            &["secrets"],
            30,
        ),
        entry(Some("tenant-b"), Some("tenant"), &["configmaps"], 40),
        entry(Some("tenant-a"), None, &["configmaps"], 50),
    ];
    let crds = vec![
        crd("shop.example.com", "Cart", "carts", "Namespaced", true),
        crd("shop.example.com", "Catalog", "catalogs", "Cluster", false),
    ];
    (entries, crds)
}

/// The problems as the generator prints them.
fn texts(problems: Vec<BundleProblem>) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}

fn generate_for(
    id: &Identity,
    entries: &[RbacEntry],
    crds: &[GeneratedCrd],
) -> Result<Vec<File>, Vec<BundleProblem>> {
    let roles = roles_of(entries);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let mut listed = vec![PathBuf::from("role.yaml")];
    listed.extend(crds.iter().map(|c| Path::new("crd").join(&c.file_name)));
    generate(
        id,
        &Input {
            roles: &roles,
            entries: &refs,
            default_role_name: "manager-role",
            crds,
            listed_files: &listed,
            header: "",
            webhook_configurations: &[],
            webhook_file: None,
        },
    )
}

fn file<'a>(files: &'a [File], path: &str) -> &'a str {
    &files
        .iter()
        .find(|(p, _)| p == Path::new(path))
        .unwrap_or_else(|| panic!("{path} not generated: {:?}", paths(files)))
        .1
}

fn paths(files: &[File]) -> Vec<String> {
    files.iter().map(|(p, _)| p.display().to_string()).collect()
}

// ---- snapshots: every file, as written ----

#[test]
fn every_file_with_every_option() {
    let (entries, crds) = shop();
    let files = generate_for(&identity(true), &entries, &crds).unwrap();
    assert_eq!(
        paths(&files),
        [
            "service_account.yaml",
            "role_binding.yaml",
            "leader_election_role.yaml",
            "leader_election_role_binding.yaml",
            "metrics_auth_role.yaml",
            "metrics_auth_role_binding.yaml",
            "metrics_reader_role.yaml",
            "cart_admin_role.yaml",
            "cart_editor_role.yaml",
            "cart_viewer_role.yaml",
            "catalog_admin_role.yaml",
            "catalog_editor_role.yaml",
            "catalog_viewer_role.yaml",
            "manager.yaml",
            "pinned-namespaces/kustomization.yaml",
            "pinned-namespaces/transformers.yaml",
            "kustomization.yaml",
        ]
    );
    for (path, text) in &files {
        insta::assert_snapshot!(format!("all_options__{}", path.display()), text);
    }
}

#[test]
fn defaults_without_options() {
    let (entries, crds) = shop();
    let files = generate_for(&identity(false), &entries, &crds).unwrap();
    // No leader-election or metrics files, no aggregation labels.
    assert!(
        !paths(&files)
            .iter()
            .any(|p| p.contains("leader") || p.contains("metrics"))
    );
    assert!(!files.iter().any(|(_, t)| t.contains("aggregate-to")));
    for path in [
        "kustomization.yaml",
        "manager.yaml",
        "cart_viewer_role.yaml",
    ] {
        insta::assert_snapshot!(format!("defaults__{path}"), file(&files, path));
    }
}

#[test]
fn the_header_starts_every_file_and_the_kustomization_is_marked() {
    let (entries, crds) = shop();
    let roles = roles_of(&entries);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let files = generate(
        &identity(true),
        &Input {
            roles: &roles,
            entries: &refs,
            default_role_name: "manager-role",
            crds: &crds,
            listed_files: &[],
            header: "# Copyright 2026 Shop Authors.\n",
            webhook_configurations: &[],
            webhook_file: None,
        },
    )
    .unwrap();
    for (path, text) in &files {
        assert!(
            text.starts_with("# Copyright 2026 Shop Authors.\n"),
            "{}",
            path.display()
        );
    }
    assert!(file(&files, "kustomization.yaml").contains(kustomize::MARKER));
}

// ---- bindings follow `namespace =` and `role_name` ----

#[test]
fn a_binding_for_every_role_in_the_roles_namespace() {
    let (entries, _) = shop();
    let roles = roles_of(&entries);
    let bindings = bindings_for(&roles);
    let summary: Vec<(String, String, String)> = bindings
        .iter()
        .map(|b| {
            assert_eq!(b.role.namespace, b.key.namespace);
            (
                b.key.namespace.clone(),
                b.key.name.clone(),
                b.role.name.clone(),
            )
        })
        .collect();
    let own =
        |ns: &str, name: &str, role: &str| (ns.to_string(), name.to_string(), role.to_string());
    assert_eq!(
        summary,
        [
            own("", "manager-rolebinding", "manager-role"),
            own("", "reports-rolebinding", "reports"),
            own(
                "shop-operator-system",
                "own-secrets-rolebinding",
                "own-secrets"
            ),
            own("tenant-a", "manager-rolebinding", "manager-role"),
            own("tenant-b", "tenant-rolebinding", "tenant"),
        ]
    );
    // The objects: a ClusterRoleBinding to the ClusterRole, RoleBindings to the Roles, each
    // with the operator's ServiceAccount as its only subject.
    let sa = ("shop-operator-system", "controller-manager");
    let cluster = bindings[0].to_value(sa, &BTreeMap::new());
    assert_eq!(cluster["kind"], "ClusterRoleBinding");
    assert!(cluster["metadata"].get("namespace").is_none());
    assert_eq!(
        cluster["roleRef"],
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "manager-role"})
    );
    assert_eq!(
        cluster["subjects"],
        json!([{"kind": "ServiceAccount", "name": "controller-manager", "namespace": "shop-operator-system"}])
    );
    let tenant = bindings[4].to_value(sa, &BTreeMap::new());
    assert_eq!(tenant["kind"], "RoleBinding");
    assert_eq!(tenant["metadata"]["namespace"], "tenant-b");
    assert_eq!(tenant["roleRef"]["kind"], "Role");
    assert_eq!(tenant["roleRef"]["name"], "tenant");
    assert_eq!(tenant["subjects"][0]["namespace"], "shop-operator-system");
}

#[test]
fn a_role_that_disappears_takes_its_binding_with_it() {
    let (entries, crds) = shop();
    let before = generate_for(&identity(false), &entries, &crds).unwrap();
    let fewer: Vec<RbacEntry> = entries
        .iter()
        .filter(|e| e.marker.namespace.as_deref() != Some("tenant-b"))
        .cloned()
        .collect();
    let after = generate_for(&identity(false), &fewer, &crds).unwrap();
    assert!(file(&before, "role_binding.yaml").contains("name: tenant-rolebinding"));
    assert!(!file(&after, "role_binding.yaml").contains("tenant-rolebinding"));
    assert!(!file(&after, "role_binding.yaml").contains("tenant-b"));
    // Its namespace is no longer pinned either.
    assert!(file(&before, "pinned-namespaces/transformers.yaml").contains("tenant-b"));
    assert!(!file(&after, "pinned-namespaces/transformers.yaml").contains("tenant-b"));
    // Without any role there is no role_binding.yaml.
    let none = generate_for(&identity(false), &[], &crds).unwrap();
    assert!(!paths(&none).contains(&"role_binding.yaml".to_string()));
    assert!(!paths(&none).iter().any(|p| p.starts_with(PINNED_DIR)));
}

#[test]
fn binding_names_follow_kubebuilder() {
    assert_eq!(binding_name("manager-role"), "manager-rolebinding");
    assert_eq!(
        binding_name("leader-election-role"),
        "leader-election-rolebinding"
    );
    assert_eq!(
        binding_name("mydatabase-tenant"),
        "mydatabase-tenant-rolebinding"
    );
    assert_eq!(binding_name("role"), "role-rolebinding");
}

#[test]
fn roles_in_the_operators_namespace_are_not_pinned() {
    let (entries, crds) = shop();
    let files = generate_for(&identity(false), &entries, &crds).unwrap();
    let transformers = file(&files, "pinned-namespaces/transformers.yaml");
    assert!(transformers.contains("name: pin-tenant-a"));
    assert!(transformers.contains("name: pin-tenant-b"));
    assert!(!transformers.contains("pin-shop-operator-system"));
}

// ---- names that would clash, or are not names ----

fn errors_for(id: &Identity, entries: &[RbacEntry], crds: &[GeneratedCrd]) -> Vec<String> {
    texts(generate_for(id, entries, crds).unwrap_err())
}

#[test]
fn a_role_name_that_clashes_with_a_generated_role_names_both() {
    let id = identity(true);
    let errors = errors_for(
        &id,
        &[
            entry(
                Some("shop-operator-system"),
                Some("leader-election-role"),
                &["pods"],
                7,
            ),
            entry(None, Some("metrics-reader"), &["pods"], 8),
            entry(None, Some("cart-viewer-role"), &["pods"], 9),
        ],
        &[crd("shop.example.com", "Cart", "carts", "Namespaced", true)],
    );
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert!(
        errors[0].contains("the Role `leader-election-role` in namespace `shop-operator-system` would be generated twice")
            && errors[0].contains("`role_name = \"leader-election-role\"` of the #[rbac] at src/lib.rs:7 (reconcile)")
            && errors[0].contains("`leader-election = true`"),
        "{errors:#?}"
    );
    // Its binding clashes with the leader-election binding too.
    assert!(
        errors[1].contains("RoleBinding `leader-election-rolebinding`"),
        "{errors:#?}"
    );
    assert!(
        errors[2].contains("ClusterRole `metrics-reader`") && errors[2].contains("src/lib.rs:8"),
        "{errors:#?}"
    );
    assert!(
        errors[3].contains("ClusterRole `cart-viewer-role`")
            && errors[3].contains("src/lib.rs:9")
            && errors[3].contains("the CRD carts.shop.example.com"),
        "{errors:#?}"
    );
}

#[test]
fn two_roles_whose_bindings_would_share_a_name_are_an_error() {
    let errors = errors_for(
        &identity(false),
        &[
            entry(None, Some("audit"), &["pods"], 1),
            entry(None, Some("audit-role"), &["pods"], 2),
        ],
        &[],
    );
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].contains("ClusterRoleBinding `audit-rolebinding` would be generated twice")
            && errors[0].contains("src/lib.rs:1")
            && errors[0].contains("src/lib.rs:2"),
        "{errors:#?}"
    );
}

#[test]
fn a_clash_with_the_default_role_name_names_the_flag() {
    let entries = [entry(None, None, &["pods"], 3)];
    let roles = generate_roles(entries.iter().map(|e| &e.marker), "metrics-reader");
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let errors = generate(
        &identity(true),
        &Input {
            roles: &roles,
            entries: &refs,
            default_role_name: "metrics-reader",
            crds: &[],
            listed_files: &[],
            header: "",
            webhook_configurations: &[],
            webhook_file: None,
        },
    )
    .unwrap_err();
    let errors = texts(errors);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].contains(
            "the default role name `metrics-reader` (--role-name) of the #[rbac] at src/lib.rs:3"
        ),
        "{errors:#?}"
    );
}

#[test]
fn names_too_long_with_the_prefix_are_named() {
    let mut id = identity(false);
    id.name_prefix = format!("{}-", "p".repeat(240));
    let errors = errors_for(&id, &[entry(None, Some("reports"), &["pods"], 4)], &[]);
    assert!(
        errors.iter().any(|e| e.contains("ClusterRoleBinding")
            && e.contains("more than 253")
            && e.contains("src/lib.rs:4")),
        "{errors:#?}"
    );
}

#[test]
fn kinds_two_groups_share_get_group_qualified_role_names() {
    let files = generate_for(
        &identity(false),
        &[],
        &[
            crd("a.example.com", "Widget", "widgets", "Namespaced", false),
            crd("b.example.com", "Widget", "widgets", "Namespaced", false),
        ],
    )
    .unwrap();
    assert!(
        file(&files, "a_example_com_widget_viewer_role.yaml")
            .contains("name: a-example-com-widget-viewer-role")
    );
    assert!(file(&files, "b_example_com_widget_viewer_role.yaml").contains("- b.example.com"));
}

#[test]
fn a_crd_without_status_gets_no_status_rule() {
    let files = generate_for(
        &identity(false),
        &[],
        &[crd(
            "shop.example.com",
            "Catalog",
            "catalogs",
            "Cluster",
            false,
        )],
    )
    .unwrap();
    assert!(!file(&files, "catalog_editor_role.yaml").contains("status"));
}

// ---- the identity: sources, defaults, precedence, bad input ----

fn metadata(workspace: Value, generator: Value) -> cargo_metadata::Metadata {
    crate::input::workspace::metadata_for_tests(json!({
        "workspace_root": "/ws",
        "metadata": {"kube-markers": {"bundle": workspace}},
        "packages": [
            {"name": "op", "manifest_path": "/ws/op/Cargo.toml", "metadata": null,
             "targets": [{"name": "op", "kind": ["lib"]}]},
            {"name": "codegen", "manifest_path": "/ws/codegen/Cargo.toml",
             "metadata": {"kube-markers": {"bundle": generator}},
             "targets": [{"name": "codegen", "kind": ["bin"]}]},
        ],
    }))
}

fn resolve_with(
    flags: &BundleFlags,
    meta: &cargo_metadata::Metadata,
    linked: &[&str],
) -> Result<Option<Identity>, Vec<String>> {
    resolve(flags, Some(meta), Some("codegen"), linked).map_err(texts)
}

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
        format!("{place}: `namespace = \"kube-system\"` is a namespace Kubernetes owns"),
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

// ---- the generator: writing, nothing written on bad input, the previous bundle ----

fn run_entries() -> Vec<RbacEntry> {
    vec![
        entry(None, None, &["carts"], 1),
        entry(Some("tenant-a"), Some("tenant"), &["configmaps"], 2),
    ]
}

fn run_in(
    dir: &Path,
    entries: &[RbacEntry],
    bundle: BundleFlags,
    check: bool,
) -> Result<crate::Report, Error> {
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let opts = Options {
        no_scan: true,
        out_dir: dir.to_path_buf(),
        check,
        bundle,
        ..Options::default()
    };
    run_with(&refs, &[], &[], &opts)
}

fn named(name: &str) -> BundleFlags {
    BundleFlags {
        name: Some(name.into()),
        ..BundleFlags::default()
    }
}

/// The files under `dir`, without the generator's ledgers (`.kube-markers-*.sha256`).
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let ledger = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(".kube-markers-"))
    };
    for entry in walk(dir).into_iter().filter(|p| !ledger(p)) {
        out.push(entry.strip_prefix(dir).unwrap().display().to_string());
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_generator_writes_the_bundle_and_check_covers_it() {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    assert_eq!(
        listing(dir.path()),
        [
            "kustomization.yaml",
            "manager.yaml",
            "pinned-namespaces/kustomization.yaml",
            "pinned-namespaces/transformers.yaml",
            "role.yaml",
            "role_binding.yaml",
            "service_account.yaml",
        ]
    );
    let report = run_in(dir.path(), &run_entries(), named("shop"), true).unwrap();
    assert!(!report.is_stale());
    // A hand edit of a bundle file is stale.
    std::fs::write(dir.path().join("manager.yaml"), "edited\n").unwrap();
    let report = run_in(dir.path(), &run_entries(), named("shop"), true).unwrap();
    assert!(report.is_stale());
    assert!(
        report
            .files
            .iter()
            .any(|(p, s)| p.ends_with("manager.yaml") && matches!(s, FileStatus::Stale(_)))
    );
}

#[test]
fn bad_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let clashing = [
        entry(None, Some("audit"), &["pods"], 1),
        entry(None, Some("audit-role"), &["pods"], 2),
    ];
    let err = run_in(dir.path(), &clashing, named("shop"), false).unwrap_err();
    assert!(
        matches!(&err, Error::Bundle(e) if matches!(
            e.as_slice(),
            [BundleProblem::Duplicate { kind: "ClusterRoleBinding", name, .. }]
                if name == "audit-rolebinding"
        )),
        "{err}"
    );
    assert!(
        err.to_string().starts_with(
            "1 problem(s) with the deploy bundle:\n  - the ClusterRoleBinding `audit-rolebinding`"
        ),
        "{err}"
    );
    let err = run_in(dir.path(), &run_entries(), named("Shop"), false).unwrap_err();
    assert!(
        err.to_string()
            .contains("`--operator-name`: `name = \"Shop\"`"),
        "{err}"
    );
    assert_eq!(listing(dir.path()), Vec::<String>::new());
}

#[test]
fn files_of_the_previous_bundle_that_are_no_longer_generated_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    // The tenant Role goes: its namespace is no longer pinned.
    let fewer = &run_entries()[..1];
    let report = run_in(dir.path(), fewer, named("shop"), true).unwrap();
    let orphaned: Vec<String> = report
        .files
        .iter()
        .filter(|(_, s)| matches!(s, FileStatus::Orphaned(_)))
        .map(|(p, _)| p.strip_prefix(dir.path()).unwrap().display().to_string())
        // (The emptied directory's ledger goes too.)
        .filter(|p| !p.contains("/.kube-markers-"))
        .collect();
    assert_eq!(
        orphaned,
        [
            "pinned-namespaces/kustomization.yaml",
            "pinned-namespaces/transformers.yaml"
        ]
    );
    run_in(dir.path(), fewer, named("shop"), false).unwrap();
    assert!(!dir.path().join(PINNED_DIR).join(KUSTOMIZATION).exists());
    // Switching the bundle off removes the rest of it, and nothing else.
    std::fs::write(dir.path().join("notes.yaml"), "mine\n").unwrap();
    let off = BundleFlags {
        off: true,
        ..BundleFlags::default()
    };
    let report = run_in(dir.path(), fewer, off, false).unwrap();
    let removed = report
        .files
        .iter()
        .filter(|(_, s)| matches!(s, FileStatus::Removed(_)))
        .count();
    assert_eq!(removed, 4, "{:#?}", report.files);
    assert_eq!(listing(dir.path()), ["notes.yaml", "role.yaml"]);
}

#[test]
fn with_no_scan_and_no_flags_an_existing_bundle_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    let before = listing(dir.path());
    let report = run_in(dir.path(), &run_entries(), BundleFlags::default(), false).unwrap();
    assert_eq!(listing(dir.path()), before);
    assert!(
        report.warnings.iter().any(|w| matches!(w,
            crate::Warning::Bundle(BundleWarning::KeptWithoutScan { kustomization })
                if *kustomization == dir.path().join(KUSTOMIZATION))
            && w.to_string()
                .contains("with --no-scan the operator's identity in Cargo.toml is not read")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn the_previous_bundle_is_read_from_our_kustomization_only() {
    let dir = tempfile::tempdir().unwrap();
    assert!(kustomize::previous_files(dir.path()).is_empty());
    // A kustomization someone else wrote is not ours to clean up after.
    std::fs::write(dir.path().join(KUSTOMIZATION), "resources:\n- a.yaml\n").unwrap();
    assert!(kustomize::previous_files(dir.path()).is_empty());
    run_in(dir.path(), &run_entries(), named("shop"), false).unwrap();
    let previous: Vec<String> = kustomize::previous_files(dir.path())
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(
        previous,
        [
            "kustomization.yaml",
            "role.yaml",
            "service_account.yaml",
            "role_binding.yaml",
            "manager.yaml",
            "pinned-namespaces/kustomization.yaml",
            "pinned-namespaces/transformers.yaml",
        ]
    );
}

#[test]
fn the_command_line_sets_the_bundle_flags() {
    use crate::Command;
    let Command::Run(opts) = Command::parse([
        "--operator-name",
        "shop",
        "--operator-namespace=ops",
        "--image",
        "img:1",
    ])
    .unwrap() else {
        panic!()
    };
    assert_eq!(
        opts.bundle,
        BundleFlags {
            off: false,
            name: Some("shop".into()),
            namespace: Some("ops".into()),
            image: Some("img:1".into()),
        }
    );
    let Command::Run(opts) = Command::parse(["--no-bundle"]).unwrap() else {
        panic!()
    };
    assert!(opts.bundle.off);
    let err = Command::parse(["--no-bundle", "--image", "x"]).unwrap_err();
    assert!(err.to_string().contains("`--no-bundle` conflicts"), "{err}");
    let err = Command::parse(["--operater-name", "x"]).unwrap_err();
    assert!(
        err.to_string().contains("did you mean `--operator-name`?"),
        "{err}"
    );
}

// ---- webhooks (`webhooks = true`, `cert-manager = true`) ----

/// Two configurations as controller-gen writes them: the default Service, and a second
/// Service with its own port for one webhook.
fn webhook_configurations() -> Vec<Value> {
    let webhook = |name: &str, service: Value| {
        json!({
            "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": service},
            "failurePolicy": "Fail",
            "name": name,
            "sideEffects": "None",
        })
    };
    vec![
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "mutating-webhook-configuration"},
            "webhooks": [webhook("mcart.shop.example.com", json!({
                "name": "webhook-service", "namespace": "system", "path": "/mutate-cart",
            }))],
        }),
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "validating-webhook-configuration"},
            "webhooks": [
                webhook("vcart.shop.example.com", json!({
                    "name": "webhook-service", "namespace": "system", "path": "/validate-cart",
                })),
                webhook("vcatalog.shop.example.com", json!({
                    "name": "audit-service", "namespace": "system", "path": "/validate-catalog",
                    "port": 8443,
                })),
            ],
        }),
    ]
}

fn generate_with_webhooks(
    id: &Identity,
    configurations: &[Value],
    webhook_file: Option<&Path>,
) -> Result<Vec<File>, Vec<BundleProblem>> {
    let (entries, crds) = shop();
    let roles = roles_of(&entries);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    generate(
        id,
        &Input {
            roles: &roles,
            entries: &refs,
            default_role_name: "manager-role",
            crds: &crds,
            listed_files: &[PathBuf::from("role.yaml")],
            header: "",
            webhook_configurations: configurations,
            webhook_file,
        },
    )
}

#[test]
fn webhooks_with_cert_manager_add_the_service_port_certificate_and_ca_injection() {
    let mut id = identity(false);
    id.webhooks = true;
    id.cert_manager = true;
    let files = generate_with_webhooks(
        &id,
        &webhook_configurations(),
        Some(Path::new("webhook/manifests.yaml")),
    )
    .unwrap();
    let listed = paths(&files);
    for new in ["webhook_service.yaml", "certmanager_certificate.yaml"] {
        assert!(listed.iter().any(|p| p == new), "{listed:?}");
    }
    let kustomization = file(&files, "kustomization.yaml");
    assert!(kustomization.contains("- webhook/manifests.yaml\n"));
    assert!(kustomization.contains("- webhook_service.yaml\n"));
    assert!(kustomization.contains("- certmanager_certificate.yaml\n"));
    assert!(kustomization.contains(
        "cert-manager.io/inject-ca-from: shop-operator-system/shop-operator-serving-cert"
    ));
    let manager = file(&files, "manager.yaml");
    assert!(manager.contains("containerPort: 9443"));
    assert!(manager.contains("mountPath: /tmp/k8s-webhook-server/serving-certs"));
    assert!(manager.contains("secretName: webhook-server-cert"));
    assert!(kustomization.contains("configurations:\n- webhook_kustomizeconfig.yaml\n"));
    for path in [
        "webhook_kustomizeconfig.yaml",
        "webhook_service.yaml",
        "certmanager_certificate.yaml",
        "manager.yaml",
        "kustomization.yaml",
    ] {
        insta::assert_snapshot!(format!("webhooks__{path}"), file(&files, path));
    }
}

#[test]
fn webhooks_without_cert_manager_leave_the_certificate_to_the_user() {
    let mut id = identity(false);
    id.webhooks = true;
    let files = generate_with_webhooks(
        &id,
        &webhook_configurations(),
        Some(Path::new("webhook/manifests.yaml")),
    )
    .unwrap();
    assert!(
        !paths(&files)
            .iter()
            .any(|p| p == "certmanager_certificate.yaml")
    );
    let kustomization = file(&files, "kustomization.yaml");
    assert!(kustomization.contains("- webhook/manifests.yaml\n"));
    assert!(!kustomization.contains("inject-ca-from"));
    assert!(file(&files, "manager.yaml").contains("secretName: webhook-server-cert"));
}

#[test]
fn without_the_option_the_webhooks_are_not_installed() {
    let files = generate_with_webhooks(
        &identity(true),
        &webhook_configurations(),
        Some(Path::new("webhook/manifests.yaml")),
    )
    .unwrap();
    let listed = paths(&files);
    assert!(
        !listed
            .iter()
            .any(|p| p.contains("webhook") || p.contains("cert"))
    );
    assert!(!file(&files, "kustomization.yaml").contains("webhook"));
    assert!(!file(&files, "manager.yaml").contains("9443"));
}

#[test]
fn webhooks_on_without_webhooks_or_outside_the_bundle_are_errors() {
    let meta = metadata(
        Value::Null,
        json!({"name": "shop-operator", "webhooks": true}),
    );
    let id = resolve_with(&BundleFlags::default(), &meta, &[])
        .unwrap()
        .unwrap();
    let place = "[package.metadata.kube-markers.bundle] in /ws/codegen/Cargo.toml";
    let origin = Origin::Package("/ws/codegen/Cargo.toml".into());
    let errors = generate_with_webhooks(&id, &[], None).unwrap_err();
    assert_eq!(
        errors,
        [BundleProblem::NoWebhooks {
            origin: origin.clone()
        }]
    );
    assert_eq!(
        texts(errors),
        [format!(
            "{place}: `webhooks = true`, but no #[webhook] is linked into this generator: there \
             are no webhook configurations to install"
        )]
    );
    let errors = generate_with_webhooks(&id, &webhook_configurations(), None).unwrap_err();
    assert_eq!(errors, [BundleProblem::WebhooksOutsideOutput { origin }]);
    assert_eq!(
        texts(errors),
        [format!(
            "{place}: `webhooks = true`, but the webhook manifests are written outside the \
             output directory (--webhook-out), where kustomize cannot load them"
        )]
    );
}

#[test]
fn cert_manager_needs_webhooks_and_both_are_booleans() {
    let meta = metadata(
        Value::Null,
        json!({"name": "shop-operator", "cert-manager": true}),
    );
    let errors = resolve_with(&BundleFlags::default(), &meta, &[]).unwrap_err();
    assert_eq!(
        errors,
        [
            "[package.metadata.kube-markers.bundle] in /ws/codegen/Cargo.toml: `cert-manager = \
          true` issues the webhooks' certificate, but the webhooks are not installed: set \
          `webhooks = true` too"
        ]
    );
    let meta = metadata(
        Value::Null,
        json!({"name": "shop-operator", "webhooks": "yes"}),
    );
    let errors = resolve_with(&BundleFlags::default(), &meta, &[]).unwrap_err();
    assert!(errors[0].ends_with("`webhooks` must be true or false, not the string \"yes\""));
}

#[test]
fn the_previous_bundles_webhook_files_are_read_from_its_kustomization() {
    let mut id = identity(false);
    id.webhooks = true;
    id.cert_manager = true;
    let files = generate_with_webhooks(
        &id,
        &webhook_configurations(),
        Some(Path::new("webhook/manifests.yaml")),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(KUSTOMIZATION),
        file(&files, "kustomization.yaml"),
    )
    .unwrap();
    let previous = kustomize::previous_files(dir.path());
    for path in [
        "webhook/manifests.yaml",
        "webhook_service.yaml",
        "certmanager_certificate.yaml",
        // Listed under `configurations:`, not `resources:`.
        "webhook_kustomizeconfig.yaml",
    ] {
        assert!(
            previous.contains(&PathBuf::from(path)),
            "{path} in {previous:?}"
        );
    }
    // The patches' lines are not files.
    assert!(
        !previous.iter().any(|p| p.to_string_lossy().contains("op:")),
        "{previous:?}"
    );
}
