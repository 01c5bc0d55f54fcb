//! CRDs that convert through the webhook server: the server is wired (Service, port,
//! certificate) whether or not `webhooks = true`, kustomize's name reference follows into
//! `clientConfig.service`, and the CA bundle comes from cert-manager or from the server.

use super::*;

/// The shop's CRDs, `Cart` converting.
fn converting_shop() -> (Vec<RbacEntry>, Vec<GeneratedCrd>) {
    let (entries, mut crds) = shop();
    crds[0].crd.spec.conversion = Some(
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
    (entries, crds)
}

#[test]
fn conversions_alone_serve_and_grant_the_ca_bundle_of_exactly_the_converting_crds() {
    let (entries, crds) = converting_shop();
    let id = identity(false);
    assert!(!id.webhooks && !id.cert_manager);
    let files = generate_for(&id, &entries, &crds).unwrap();
    let listed = paths(&files);
    for new in [
        "webhook_service.yaml",
        "crd_kustomizeconfig.yaml",
        "conversion_ca_bundle_role.yaml",
        "conversion_ca_bundle_role_binding.yaml",
    ] {
        assert!(listed.iter().any(|p| p == new), "{listed:?}");
    }
    assert!(!listed.iter().any(|p| p.contains("certmanager")));
    let role = file(&files, "conversion_ca_bundle_role.yaml");
    assert!(
        role.contains(
            "rules:\n- apiGroups:\n  - apiextensions.k8s.io\n  resourceNames:\n  - \
             carts.shop.example.com\n  resources:\n  - customresourcedefinitions\n  verbs:\n  \
             - get\n  - patch\n"
        ),
        "{role}"
    );
    let kustomization = file(&files, "kustomization.yaml");
    assert!(kustomization.contains("configurations:\n- crd_kustomizeconfig.yaml\n"));
    assert!(!kustomization.contains("webhook_kustomizeconfig"));
    let manager = file(&files, "manager.yaml");
    assert!(manager.contains("containerPort: 9443"));
    assert!(manager.contains("secretName: webhook-server-cert"));
    for path in [
        "webhook_service.yaml",
        "crd_kustomizeconfig.yaml",
        "conversion_ca_bundle_role.yaml",
        "kustomization.yaml",
    ] {
        insta::assert_snapshot!(format!("conversion__{path}"), file(&files, path));
    }
}

#[test]
fn with_cert_manager_the_injector_annotates_the_converting_crds() {
    let (entries, crds) = converting_shop();
    let mut id = identity(false);
    id.cert_manager = true;
    let files = generate_for(&id, &entries, &crds).unwrap();
    let listed = paths(&files);
    assert!(
        !listed.iter().any(|p| p.contains("conversion_ca_bundle")),
        "{listed:?}"
    );
    let certificate = file(&files, "certmanager_certificate.yaml");
    assert!(certificate.contains("- shop-operator-webhook-service.shop-operator-system.svc\n"));
    let kustomization = file(&files, "kustomization.yaml");
    assert!(
        kustomization.contains(
            "      path: /metadata/annotations/cert-manager.io~1inject-ca-from\n      value: \
             shop-operator-system/shop-operator-serving-cert\n"
        ),
        "{kustomization}"
    );
    assert!(kustomization.contains("    name: carts.shop.example.com\n"));
    insta::assert_snapshot!("conversion_cert_manager__kustomization.yaml", kustomization);
}

#[test]
fn with_admission_webhooks_one_service_serves_both() {
    let (entries, crds) = converting_shop();
    let roles = roles_of(&entries);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let mut id = identity(false);
    id.webhooks = true;
    let configurations = webhook_configurations();
    let files = generate(
        &id,
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
    .unwrap();
    let service = file(&files, "webhook_service.yaml");
    assert_eq!(
        service.matches("kind: Service").count(),
        services_in(&configurations)
    );
    assert!(service.contains("name: webhook-service\n"));
    let kustomization = file(&files, "kustomization.yaml");
    assert!(
        kustomization.contains(
            "configurations:\n- webhook_kustomizeconfig.yaml\n- crd_kustomizeconfig.yaml\n"
        )
    );
}

/// The Services of the admission webhooks, and `webhook-service` for the conversions.
fn services_in(configurations: &[Value]) -> usize {
    let mut names: Vec<String> = webhooks::services(configurations).into_keys().collect();
    names.push("webhook-service".into());
    names.sort();
    names.dedup();
    names.len()
}
