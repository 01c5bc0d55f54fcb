//! The opt-in webhook wiring (`webhooks = true`, `cert-manager = true`): kubebuilder's
//! `config/webhook/service.yaml`, `config/certmanager/` and the CA-injection part of
//! `config/default/`, flattened.
//!
//! The Services are named as the generated configurations' `clientConfig.service` names them,
//! so kustomize's name references (which follow `namePrefix` and `namespace:` into
//! `clientConfig.service`) keep them matched. cert-manager's kinds are unknown to kustomize:
//! the names it would rewrite are written already prefixed, from the identity.

use super::deployment::selector_labels;
use super::identity::Identity;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The port the manager serves its webhooks on (controller-runtime's default).
pub const WEBHOOK_PORT: u16 = 9443;
/// The manager container port's name.
pub const WEBHOOK_PORT_NAME: &str = "webhook-server";
/// The Secret holding the serving certificate (cert-manager's Certificate writes it).
pub const CERT_SECRET: &str = "webhook-server-cert";
/// Where controller-runtime reads the serving certificate from.
pub const CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// The volume of the certificate Secret in the manager Pod.
pub const CERT_VOLUME: &str = "webhook-certs";
/// kubebuilder's self-signed Issuer.
pub const ISSUER: &str = "selfsigned-issuer";
/// kubebuilder's Certificate.
pub const CERTIFICATE: &str = "serving-cert";
/// The kustomize configuration file that teaches kustomize the configurations' references.
pub const KUSTOMIZE_CONFIG: &str = "webhook_kustomizeconfig.yaml";
/// The Service port a `clientConfig.service` without `port` calls.
pub const DEFAULT_SERVICE_PORT: u16 = 443;

/// The Services the configurations call: name → ports, from each webhook's
/// `clientConfig.service` (webhooks with a `url` call no Service).
pub fn services(configurations: &[Value]) -> BTreeMap<String, BTreeSet<u16>> {
    let mut out: BTreeMap<String, BTreeSet<u16>> = BTreeMap::new();
    for configuration in configurations {
        for webhook in configuration["webhooks"].as_array().into_iter().flatten() {
            let service = &webhook["clientConfig"]["service"];
            if let Some(name) = service["name"].as_str() {
                let port = service["port"]
                    .as_u64()
                    .and_then(|p| u16::try_from(p).ok())
                    .unwrap_or(DEFAULT_SERVICE_PORT);
                out.entry(name.to_string()).or_default().insert(port);
            }
        }
    }
    out
}

/// A Service forwarding each of `ports` to the manager's webhook port.
pub fn service(
    id: &Identity,
    labels: &BTreeMap<String, String>,
    name: &str,
    ports: &BTreeSet<u16>,
) -> Value {
    let ports: Vec<Value> = ports
        .iter()
        .map(|port| {
            json!({
                "name": format!("webhook-{port}"),
                "port": port,
                "protocol": "TCP",
                "targetPort": WEBHOOK_PORT,
            })
        })
        .collect();
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": id.namespace, "labels": labels},
        "spec": {"ports": ports, "selector": selector_labels(id)},
    })
}

/// The self-signed Issuer and the Certificate for every Service, its Secret the one the
/// manager mounts.
pub fn cert_manager(
    id: &Identity,
    labels: &BTreeMap<String, String>,
    services: &[String],
) -> Vec<Value> {
    let dns_names: Vec<String> = services
        .iter()
        .flat_map(|service| {
            let host = format!("{}{service}.{}.svc", id.name_prefix, id.namespace);
            [host.clone(), format!("{host}.cluster.local")]
        })
        .collect();
    vec![
        json!({
            "apiVersion": "cert-manager.io/v1",
            "kind": "Issuer",
            "metadata": {"name": ISSUER, "namespace": id.namespace, "labels": labels},
            "spec": {"selfSigned": {}},
        }),
        json!({
            "apiVersion": "cert-manager.io/v1",
            "kind": "Certificate",
            "metadata": {"name": CERTIFICATE, "namespace": id.namespace, "labels": labels},
            "spec": {
                "dnsNames": dns_names,
                "issuerRef": {"kind": "Issuer", "name": format!("{}{ISSUER}", id.name_prefix)},
                "secretName": CERT_SECRET,
            },
        }),
    ]
}

/// The kustomization patches that annotate each configuration kind for cert-manager's CA
/// injector.
pub fn ca_injection_patches(id: &Identity, configurations: &[Value]) -> Vec<Value> {
    let kinds: BTreeSet<&str> = configurations
        .iter()
        .filter_map(|c| c["kind"].as_str())
        .collect();
    let value = format!("{}/{}{CERTIFICATE}", id.namespace, id.name_prefix);
    kinds
        .into_iter()
        .map(|kind| {
            json!({
                "target": {"kind": kind},
                "patch": format!(
                    "- op: add\n  path: /metadata/annotations\n  value:\n    \
                     cert-manager.io/inject-ca-from: {value}\n"
                ),
            })
        })
        .collect()
}

/// kubebuilder's `config/webhook/kustomizeconfig.yaml`: kustomize's `namespace:` and
/// `namePrefix` follow into `clientConfig.service` (its built-in configuration leaves the
/// namespace there as generated, `system`).
pub fn kustomize_config() -> Value {
    let kinds = [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ];
    let field = |path: &str, create: bool| -> Vec<Value> {
        kinds
            .iter()
            .map(|kind| {
                let mut spec = json!({
                    "group": "admissionregistration.k8s.io",
                    "kind": kind,
                    "path": path,
                });
                if create {
                    spec["create"] = json!(true);
                }
                spec
            })
            .collect()
    };
    json!({
        "nameReference": [{
            "kind": "Service",
            "version": "v1",
            "fieldSpecs": field("webhooks/clientConfig/service/name", false),
        }],
        "namespace": field("webhooks/clientConfig/service/namespace", true),
    })
}

/// Adds the webhook port and the certificate volume to the manager Deployment.
pub fn serve_from(deployment: &mut Value) {
    let pod = &mut deployment["spec"]["template"]["spec"];
    let container = &mut pod["containers"][0];
    // After the metrics port, if there is one.
    let port = json!({
        "containerPort": WEBHOOK_PORT,
        "name": WEBHOOK_PORT_NAME,
        "protocol": "TCP",
    });
    match container["ports"].as_array_mut() {
        Some(ports) => ports.push(port),
        None => container["ports"] = json!([port]),
    }
    container["volumeMounts"] = json!([{
        "mountPath": CERT_DIR,
        "name": CERT_VOLUME,
        "readOnly": true,
    }]);
    pod["volumes"] = json!([{
        "name": CERT_VOLUME,
        "secret": {"secretName": CERT_SECRET},
    }]);
}
