//! The operator's Namespace, ServiceAccount and manager Deployment (kubebuilder's
//! `config/manager/manager.yaml` and `config/rbac/service_account.yaml`), the Deployment's Pod
//! hardened to pass Pod Security "restricted".
//!
//! Written as JSON rather than k8s-openapi types: their shapes differ between the Kubernetes
//! versions a user's build may select (`Deployment.spec` stopped being optional in 1.37).

use super::identity::Identity;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// kubebuilder's Deployment name.
pub const DEPLOYMENT: &str = "controller-manager";
/// The manager container's name.
pub const CONTAINER: &str = "manager";
/// The environment variable that tells the operator its namespace (for its Lease, say): it
/// may be chosen only at install time.
pub const NAMESPACE_ENV: &str = "POD_NAMESPACE";
/// The environment variable that tells the operator its ServiceAccount's name, as kustomize's
/// `namePrefix` and overlays left it (`kube_markers::audit` names it in its denials). The
/// downward API gives it to environment variables only, not to volumes.
pub const SERVICE_ACCOUNT_ENV: &str = "POD_SERVICE_ACCOUNT";
/// The environment variable that tells the operator the port of its `/healthz` and `/readyz`
/// probes (`kube_markers::health` listens on it), so that `health-probe-port` is set once.
pub const HEALTH_PROBE_PORT_ENV: &str = "HEALTH_PROBE_PORT";

/// The manager container port of the metrics, which the metrics Service targets.
pub const METRICS_PORT_NAME: &str = "metrics";
/// kubebuilder's metrics Service.
pub const METRICS_SERVICE: &str = "controller-manager-metrics-service";

/// The operator's Namespace.
pub fn namespace(id: &Identity, labels: &BTreeMap<String, String>) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": id.namespace, "labels": labels},
    })
}

/// The operator's ServiceAccount.
pub fn service_account(id: &Identity, labels: &BTreeMap<String, String>) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": id.service_account, "namespace": id.namespace, "labels": labels},
    })
}

/// The labels the Deployment selects its Pods by.
pub fn selector_labels(id: &Identity) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("app.kubernetes.io/name".to_string(), id.name.clone()),
        ("control-plane".to_string(), DEPLOYMENT.to_string()),
    ])
}

/// An HTTP probe; its `timeoutSeconds` is the kubelet's default, 1 s, said explicitly:
/// `kube_markers::health` gives a client 1 s to send its request, and answers at once.
fn http_probe(path: &str, port: u16, initial_delay: u32, period: u32) -> Value {
    json!({
        "httpGet": {"path": path, "port": port},
        "initialDelaySeconds": initial_delay,
        "periodSeconds": period,
        "timeoutSeconds": 1,
    })
}

/// The manager Deployment: one replica of the image, running as the ServiceAccount.
///
/// Every field Pod Security "restricted" checks is set (runAsNonRoot, seccomp RuntimeDefault,
/// no privilege escalation, all capabilities dropped), and the root filesystem is read-only,
/// which "restricted" does not require but costs a Rust operator nothing.
pub fn deployment(id: &Identity, labels: &BTreeMap<String, String>) -> Value {
    let mut object_labels = labels.clone();
    object_labels.extend(selector_labels(id));
    let mut container = json!({
        "name": CONTAINER,
        "image": id.image,
        "env": [
            {
                "name": NAMESPACE_ENV,
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
            },
            {
                "name": SERVICE_ACCOUNT_ENV,
                "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}},
            },
            {"name": HEALTH_PROBE_PORT_ENV, "value": id.health_probe_port.to_string()},
        ],
        // kubebuilder's defaults.
        "resources": {
            "limits": {"cpu": "500m", "memory": "128Mi"},
            "requests": {"cpu": "10m", "memory": "64Mi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": false,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": true,
        },
    });
    if let Some(path) = &id.liveness_probe_path {
        container["livenessProbe"] = http_probe(path, id.health_probe_port, 15, 20);
    }
    if let Some(path) = &id.readiness_probe_path {
        container["readinessProbe"] = http_probe(path, id.health_probe_port, 5, 10);
    }
    if let Some(port) = id.metrics_port {
        container["ports"] = json!([{
            "containerPort": port,
            "name": METRICS_PORT_NAME,
            "protocol": "TCP",
        }]);
    }
    if !id.args.is_empty() {
        container["args"] = json!(id.args);
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": DEPLOYMENT, "namespace": id.namespace, "labels": object_labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": selector_labels(id)},
            "template": {
                "metadata": {
                    "annotations": {"kubectl.kubernetes.io/default-container": CONTAINER},
                    "labels": selector_labels(id),
                },
                "spec": {
                    "containers": [container],
                    "securityContext": {
                        "runAsNonRoot": true,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "serviceAccountName": id.service_account,
                    "terminationGracePeriodSeconds": 10,
                },
            },
        },
    })
}

/// The labels of the metrics Service: the ServiceMonitor selects it by them.
pub fn metrics_service_labels(
    id: &Identity,
    labels: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut out = labels.clone();
    out.insert("app.kubernetes.io/name".into(), id.name.clone());
    out.insert("app.kubernetes.io/component".into(), "metrics".into());
    out
}

/// The Service in front of the manager's metrics port (kubebuilder's
/// `config/default/metrics_service.yaml`), when the operator declares one.
pub fn metrics_service(id: &Identity, labels: &BTreeMap<String, String>) -> Option<Value> {
    let port = id.metrics_port?;
    Some(json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": METRICS_SERVICE,
            "namespace": id.namespace,
            "labels": metrics_service_labels(id, labels),
        },
        "spec": {
            "ports": [{
                "name": METRICS_PORT_NAME,
                "port": port,
                "protocol": "TCP",
                "targetPort": METRICS_PORT_NAME,
            }],
            "selector": selector_labels(id),
        },
    }))
}
