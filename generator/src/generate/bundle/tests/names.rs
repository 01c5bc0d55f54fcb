//! Bindings follow `namespace =` and `role_name`; names that would clash, or are not names.

use super::*;

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
            regenerate: "`cargo run -p codegen`",
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
