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
        // The probes, and the variable that tells the operator their port, follow it.
        id.health_probe_port = 9440;
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
            regenerate: "`cargo run -p codegen`",
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
            regenerate: "`cargo run -p codegen`",
            webhook_configurations: &[],
            webhook_file: None,
        },
    )
    .unwrap();
    // Every file is the bundle's own (controller-gen writes none of them): after the header,
    // a line saying it is generated and how to regenerate it.
    let generated = "# Generated by kube-markers; do not edit: change the attributes or the \
                     bundle's metadata and run `cargo run -p codegen` instead.\n";
    for (path, text) in &files {
        let second_line = match path.file_name().and_then(|n| n.to_str()) {
            Some("kustomization.yaml") => kustomize::MARKER.to_string(),
            _ => generated.to_string(),
        };
        assert!(
            text.starts_with(&format!("# Copyright 2026 Shop Authors.\n{second_line}")),
            "{}:\n{text}",
            path.display()
        );
    }
    assert!(file(&files, "kustomization.yaml").starts_with(&format!(
        "# Copyright 2026 Shop Authors.\n{}# Change the attributes or the bundle's metadata \
             and run `cargo run -p codegen` instead.\n---\n",
        kustomize::MARKER
    )));
}

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
            regenerate: "`cargo run -p codegen`",
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
    // Whether the server serves anything (webhooks, or CRDs that convert) is the bundle's to
    // say, with the CRDs in hand.
    let meta = metadata(
        Value::Null,
        json!({"name": "shop-operator", "cert-manager": true}),
    );
    let id = resolve_with(&BundleFlags::default(), &meta, &[])
        .unwrap()
        .unwrap();
    let (entries, crds) = shop();
    let errors = generate_for(&id, &entries, &crds).unwrap_err();
    assert_eq!(
        texts(errors),
        [
            "[package.metadata.kube-markers.bundle] in /ws/codegen/Cargo.toml: `cert-manager = \
          true` issues the webhook server's certificate, but it serves nothing: set `webhooks = \
          true` too, or declare a #[kube_markers::conversion]"
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

mod conversion;
mod identity;
mod names;
mod probes;
mod run;
