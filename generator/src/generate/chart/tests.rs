use super::*;
use crate::generate::bundle::Input;
use crate::generate::crds::GeneratedCrd;
use crate::testing::{marker, rbac};
use kube_markers_core::model::RbacMarker;
use kube_markers_rbac::{GeneratedRole, generate_roles};
use kube_markers_registry::{RbacEntry, Source};
use std::path::Path;

fn entry(namespace: Option<&'static str>, resources: &'static [&'static str]) -> RbacEntry {
    let marker = RbacMarker {
        namespace: namespace.map(Into::into),
        ..marker(&["example.com"], resources, &["get", "patch"])
    };
    rbac(
        marker,
        Source::__new("src/lib.rs", 10, 1, "op", "reconcile"),
    )
}

/// A CRD whose description holds `{{`, which a template must not read as an action.
fn crd() -> GeneratedCrd {
    let crd = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": "carts.shop.example.com",
            "annotations": {"controller-gen.kubebuilder.io/version": "v0.23.0"},
        },
        "spec": {
            "group": "shop.example.com",
            "names": {"kind": "Cart", "plural": "carts", "listKind": "CartList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": "A cart; its template is {{ .Name }}.",
                }},
                "subresources": {"status": {}},
            }],
        },
    }))
    .unwrap();
    GeneratedCrd {
        crd,
        file_name: "shop.example.com_carts.yaml".into(),
        sources: Vec::new(),
    }
}

fn webhook_configuration() -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "validating-webhook-configuration"},
        "webhooks": [{
            "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {
                "name": "webhook-service", "namespace": "system", "path": "/validate-cart",
            }},
            "name": "vcart.shop.example.com",
            "sideEffects": "None",
        }],
    })
}

fn identity(all_options: bool) -> Identity {
    let mut id = Identity::with_defaults("shop-operator");
    if all_options {
        id.image = "registry.example.com/shop-operator:1.2.3".into();
        id.args = vec!["--metrics-bind-address=:8443".into()];
        id.leader_election = true;
        id.metrics_auth = true;
        id.webhooks = true;
        id.cert_manager = true;
        // Metrics on the port the arguments give, and a liveness probe only.
        id.metrics_port = Some(8443);
        id.readiness_probe_path = None;
    }
    id
}

fn chart(id: &Identity) -> Vec<bundle::File> {
    // A ClusterRole and a Role pinned to a tenant namespace.
    let entries = [
        entry(None, &["carts"]),
        entry(Some("tenant-a"), &["configmaps"]),
    ];
    let roles: Vec<GeneratedRole> =
        generate_roles(entries.iter().map(|e| &e.marker), "manager-role");
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let crds = [crd()];
    let configurations = [webhook_configuration()];
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
            webhook_configurations: &configurations,
            webhook_file: Some(Path::new("webhook/manifests.yaml")),
        },
    )
    .unwrap()
}

fn file<'a>(files: &'a [bundle::File], path: &str) -> &'a str {
    &files
        .iter()
        .find(|(p, _)| p == Path::new(path))
        .unwrap_or_else(|| panic!("{path} not generated"))
        .1
}

// ---- snapshots: every file, as written ----

#[test]
fn all_options() {
    let files = chart(&identity(true));
    for (path, text) in &files {
        let name = path.display().to_string().replace('/', "__");
        insta::assert_snapshot!(format!("all_options__{name}"), text);
    }
}

#[test]
fn defaults() {
    let files = chart(&identity(false));
    for name in ["values.yaml", "templates/manager.yaml", "Chart.yaml"] {
        let text = file(&files, &format!("chart/{name}"));
        insta::assert_snapshot!(format!("defaults__{}", name.replace('/', "__")), text);
    }
    // The webhooks are offered, off as the bundle has them.
    let values = file(&files, "chart/values.yaml");
    assert!(
        values.contains("\nwebhooks:\n  enabled: false\n"),
        "{values}"
    );
    assert!(
        values.contains("\ncertManager:\n  enabled: false\n"),
        "{values}"
    );
    let manifests = file(&files, "chart/templates/webhook/manifests.yaml");
    assert!(
        manifests.contains("{{- if .Values.webhooks.enabled }}\n---\n"),
        "{manifests}"
    );
}

#[test]
fn without_webhook_configurations_no_webhook_is_offered() {
    let id = identity(false);
    let input = Input {
        roles: &[],
        entries: &[],
        default_role_name: "manager-role",
        crds: &[],
        listed_files: &[],
        header: "",
        regenerate: "the generator",
        webhook_configurations: &[],
        webhook_file: None,
    };
    let files = generate(&id, &input).unwrap();
    let values = file(&files, "chart/values.yaml");
    assert!(
        !values.contains("webhooks:") && !values.contains("certManager:"),
        "{values}"
    );
    assert!(!values.contains("crds:"), "{values}");
    let manager = file(&files, "chart/templates/manager.yaml");
    assert!(!manager.contains("webhook"), "{manager}");
    assert!(
        files
            .iter()
            .all(|(p, _)| !p.to_string_lossy().contains("webhook"))
    );
}

// ---- what the templates keep and change ----

#[test]
fn a_literal_action_in_an_object_is_escaped() {
    let files = chart(&identity(false));
    let crd = file(&files, "chart/templates/crd/shop.example.com_carts.yaml");
    assert!(
        crd.contains(r#"its template is {{ "{{" }} .Name }}."#),
        "{crd}"
    );
}

#[test]
fn a_header_with_an_action_is_escaped_in_templates_only() {
    let id = identity(false);
    let input = Input {
        roles: &[],
        entries: &[],
        default_role_name: "manager-role",
        crds: &[],
        listed_files: &[],
        header: "# Copyright {{ the authors }}\n",
        regenerate: "the generator",
        webhook_configurations: &[],
        webhook_file: None,
    };
    let files = generate(&id, &input).unwrap();
    let escaped = "# Copyright {{ \"{{\" }} the authors }}\n";
    assert!(file(&files, "chart/templates/manager.yaml").starts_with(escaped));
    assert!(file(&files, "chart/templates/_helpers.tpl").starts_with(escaped));
    // Chart.yaml and values.yaml are YAML, not templates.
    assert!(file(&files, "chart/values.yaml").starts_with("# Copyright {{ the authors }}\n"));
}

#[test]
fn pinned_roles_keep_their_namespace_and_subjects_follow_the_operator() {
    let files = chart(&identity(false));
    let bindings = file(&files, "chart/templates/role_binding.yaml");
    assert!(bindings.contains("namespace: tenant-a\n"), "{bindings}");
    let subjects = bindings.matches(r#"namespace: {{ include "shop-operator.namespace" . }}"#);
    assert_eq!(subjects.count(), 2, "{bindings}");
    let roles = file(&files, "chart/templates/role.yaml");
    assert!(roles.contains("namespace: tenant-a\n"), "{roles}");
}

#[test]
fn images_split_into_repository_and_tag() {
    assert_eq!(
        split_image("ghcr.io/me/op:1.0.0"),
        ("ghcr.io/me/op".into(), "1.0.0".into())
    );
    assert_eq!(
        split_image("localhost:5000/op"),
        ("localhost:5000/op".into(), String::new())
    );
    assert_eq!(
        split_image("controller:latest"),
        ("controller".into(), "latest".into())
    );
    let digest = "ghcr.io/me/op@sha256:0123";
    assert_eq!(split_image(digest), (digest.into(), String::new()));
}

#[test]
fn the_chart_version_is_the_tag_when_it_is_semver() {
    assert_eq!(chart_version("1.2.3"), "1.2.3");
    assert_eq!(chart_version("v1.2.3-rc.1"), "1.2.3-rc.1");
    assert_eq!(chart_version("latest"), "0.1.0");
    assert_eq!(chart_version("1.2"), "0.1.0");
    assert_eq!(chart_version(""), "0.1.0");
}

/// A converting CRD without admission webhooks: the server is not optional, cert-manager is
/// offered for the CRD's CA, and without it the role that writes the CRD's `caBundle`.
#[test]
fn a_converting_crd_without_webhooks() {
    let mut converting = crd();
    converting.crd.spec.conversion = Some(
        serde_json::from_value(json!({
            "strategy": "Webhook",
            "webhook": {
                "clientConfig": {"service": {
                    "name": "webhook-service", "namespace": "system", "path": "/convert",
                }},
                "conversionReviewVersions": ["v1"],
            },
        }))
        .unwrap(),
    );
    let crds = [converting];
    let files = generate(
        &identity(false),
        &Input {
            roles: &[],
            entries: &[],
            default_role_name: "manager-role",
            crds: &crds,
            listed_files: &[],
            header: "",
            regenerate: "`cargo run -p codegen`",
            webhook_configurations: &[],
            webhook_file: None,
        },
    )
    .unwrap();
    let values = file(&files, "chart/values.yaml");
    assert!(
        values.contains("\ncertManager:\n  enabled: false\n"),
        "{values}"
    );
    assert!(!values.contains("\nwebhooks:"), "{values}");
    for path in [
        "chart/templates/crd/shop.example.com_carts.yaml",
        "chart/templates/webhook_service.yaml",
        "chart/templates/certmanager_certificate.yaml",
        "chart/templates/conversion_ca_bundle_role.yaml",
        "chart/templates/conversion_ca_bundle_role_binding.yaml",
        "chart/templates/manager.yaml",
    ] {
        let name = path.replace('/', "__");
        insta::assert_snapshot!(format!("converting__{name}"), file(&files, path));
    }
}
