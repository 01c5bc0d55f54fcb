//! The bundle as `kubectl kustomize` renders it, no API server: every name kustomize rewrites
//! meets its reference, and an overlay moves only the operator.

use super::*;

#[test]
fn kubectl_kustomize_renders_the_bundle() {
    let docs = rendered();
    let (sa_ns, sa_name) = service_account(&docs);
    assert_eq!(
        (sa_ns.as_str(), sa_name.as_str()),
        (OPERATOR_NS, "example-operator-controller-manager")
    );
    let kinds = |kind: &str| of_kind(&docs, kind).len();
    assert_eq!(kinds("Namespace"), 1);
    assert_eq!(kinds("CustomResourceDefinition"), 2);
    assert_eq!(kinds("Deployment"), 1);
    // role.yaml's ClusterRole, leader election, metrics auth and reader, 3 per CRD, and the
    // one for the caBundle of the converting CRD.
    assert_eq!(kinds("ClusterRole"), 1 + 2 + 2 * 3 + 1);
    assert_eq!(kinds("Role"), 2);
    for doc in &docs {
        let kind = doc["kind"].as_str().unwrap();
        // kustomize prefixes everything but Namespaces and CRDs.
        if !matches!(kind, "Namespace" | "CustomResourceDefinition") {
            assert!(name(doc).starts_with(PREFIX), "{kind} {}", name(doc));
        }
        // Everything namespaced is the operator's, but the Role of `namespace = "db-tenants"`
        // and its binding, which stay where the attribute put them.
        let ns = namespace_of(doc);
        if name(doc).starts_with("example-operator-mydatabase-tenant") {
            assert_eq!(ns, TENANT_NS, "{kind} {}", name(doc));
        } else if !ns.is_empty() {
            assert_eq!(ns, OPERATOR_NS, "{kind} {}", name(doc));
        }
    }
    // Every binding binds the ServiceAccount, and exactly the roles the operator uses are bound.
    let mut bound: Vec<String> = Vec::new();
    for binding in of_kind(&docs, "ClusterRoleBinding")
        .into_iter()
        .chain(of_kind(&docs, "RoleBinding"))
    {
        assert_eq!(
            binding["subjects"],
            json!([{"kind": "ServiceAccount", "name": sa_name, "namespace": sa_ns}]),
            "{}",
            name(binding)
        );
        bound.push(binding["roleRef"]["name"].as_str().unwrap().to_string());
    }
    bound.sort();
    assert_eq!(
        bound,
        [
            "example-operator-conversion-ca-bundle-role",
            "example-operator-leader-election-role",
            "example-operator-manager-role",
            "example-operator-metrics-auth-role",
            "example-operator-mydatabase-tenant",
        ]
    );
    let deployment = of_kind(&docs, "Deployment")[0];
    assert_eq!(
        deployment["spec"]["template"]["spec"]["serviceAccountName"],
        sa_name
    );
}

/// The opt-in webhook wiring (`webhooks = true`, `cert-manager = true`) around the example's
/// real `webhook/manifests.yaml`, as kustomize renders it: every name kustomize rewrites
/// (prefix, namespace) still meets its reference.
#[test]
fn kubectl_kustomize_wires_the_webhooks_to_their_service_and_certificate() {
    use kube_markers::codegen::bundle::{Identity, Input, generate};
    let dir = tempfile::Builder::new()
        .prefix("bundle-webhooks-")
        .tempdir_in(root().join("target"))
        .unwrap();
    let manifests =
        std::fs::read_to_string(root().join("rbac-out/webhook/manifests.yaml")).unwrap();
    let configurations = kube_markers_envtest::parse_manifests(&manifests).unwrap();
    let mut id = Identity::with_defaults("example-operator");
    id.webhooks = true;
    id.cert_manager = true;
    let webhook_file = std::path::Path::new("webhook/manifests.yaml");
    let files = generate(
        &id,
        &Input {
            roles: &[],
            entries: &[],
            default_role_name: "manager-role",
            crds: &[],
            listed_files: &[],
            header: "",
            regenerate: "`cargo run -p codegen`",
            webhook_configurations: &configurations,
            webhook_file: Some(webhook_file),
        },
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("webhook")).unwrap();
    std::fs::write(dir.path().join(webhook_file), &manifests).unwrap();
    for (path, text) in &files {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    let docs = kustomize(dir.path());

    let certificate = of_kind(&docs, "Certificate")[0];
    let issuer = of_kind(&docs, "Issuer")[0];
    assert_eq!(
        certificate["spec"]["issuerRef"]["name"],
        issuer["metadata"]["name"]
    );
    assert_eq!(namespace_of(issuer), OPERATOR_NS);
    let inject = format!("{}/{}", namespace_of(certificate), name(certificate));
    assert_eq!(inject, format!("{OPERATOR_NS}/{PREFIX}serving-cert"));
    let dns_names = certificate["spec"]["dnsNames"].as_array().unwrap();

    let deployment = of_kind(&docs, "Deployment")[0];
    let pod = &deployment["spec"]["template"];
    let container = &pod["spec"]["containers"][0];
    assert_eq!(
        container["ports"][0],
        json!({"containerPort": 9443, "name": "webhook-server", "protocol": "TCP"})
    );
    assert_eq!(
        pod["spec"]["volumes"][0]["secret"]["secretName"],
        certificate["spec"]["secretName"]
    );
    assert_eq!(
        container["volumeMounts"][0]["mountPath"],
        "/tmp/k8s-webhook-server/serving-certs"
    );

    let configurations: Vec<&Value> = docs
        .iter()
        .filter(|d| {
            d["kind"]
                .as_str()
                .unwrap()
                .ends_with("WebhookConfiguration")
        })
        .collect();
    assert_eq!(configurations.len(), 2);
    for configuration in configurations {
        assert_eq!(
            configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            inject.as_str()
        );
        for webhook in configuration["webhooks"].as_array().unwrap() {
            let called = &webhook["clientConfig"]["service"];
            assert_eq!(called["namespace"], OPERATOR_NS);
            let service = named(&docs, "Service", called["name"].as_str().unwrap());
            assert_eq!(namespace_of(service), OPERATOR_NS);
            assert_eq!(
                service["spec"]["ports"][0]["targetPort"],
                container["ports"][0]["containerPort"]
            );
            for (key, value) in service["spec"]["selector"].as_object().unwrap() {
                assert_eq!(&pod["metadata"]["labels"][key], value);
            }
            let host = format!("{}.{OPERATOR_NS}.svc", name(service));
            assert!(dns_names.contains(&json!(host)), "{host} in {dns_names:?}");
            assert!(dns_names.contains(&json!(format!("{host}.cluster.local"))));
        }
    }
}

/// An overlay in a temporary directory next to `rbac-out/` (kustomize wants relative paths).
fn overlay(kustomization: &str) -> Vec<Value> {
    let dir = tempfile::Builder::new()
        .prefix("bundle-overlay-")
        .tempdir_in(root().join("target"))
        .unwrap();
    std::fs::write(dir.path().join("kustomization.yaml"), kustomization).unwrap();
    kustomize(dir.path())
}

#[test]
fn an_overlay_with_its_own_namespace_moves_the_operator_and_keeps_the_tenant_roles() {
    let docs = overlay(
        "namespace: prod-ops\nresources: [../../rbac-out]\ntransformers: [../../rbac-out/pinned-namespaces]\n",
    );
    assert_eq!(name(of_kind(&docs, "Namespace")[0]), "prod-ops");
    for doc in &docs {
        let ns = namespace_of(doc);
        if name(doc).starts_with("example-operator-mydatabase-tenant") {
            assert_eq!(ns, TENANT_NS, "{}", name(doc));
        } else if !ns.is_empty() {
            assert_eq!(ns, "prod-ops", "{} {}", doc["kind"], name(doc));
        }
        // Every ServiceAccount subject follows the ServiceAccount, in tenant bindings too.
        for subject in doc["subjects"].as_array().into_iter().flatten() {
            assert_eq!(subject["namespace"], "prod-ops", "{}", name(doc));
        }
    }
    // Without the pinned-namespaces transformers kustomize's `namespace:` would move the
    // tenant Role into the operator's namespace, where it grants nothing the operator needs.
    let docs = overlay("namespace: prod-ops\nresources: [../../rbac-out]\n");
    let tenant = named(&docs, "Role", "example-operator-mydatabase-tenant");
    assert_eq!(namespace_of(tenant), "prod-ops");
}
