//! The chart's ServiceMonitor (prometheus-operator's), behind `metrics.serviceMonitor.enabled`:
//! Prometheus scrapes the metrics Service the bundle makes when the operator declares a
//! `metrics-port`. The kustomize bundle has none (kubebuilder's `config/prometheus` is
//! commented out too): it needs prometheus-operator's CRDs.

use super::template::{Block, NAMESPACE, PREFIX, Template};
use crate::generate::bundle::{self, Identity};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The ServiceMonitor's name, beside kubebuilder's `controller-manager-metrics-service`.
pub const SERVICE_MONITOR: &str = "controller-manager-metrics-monitor";

/// The template file.
pub const FILE: &str = "service_monitor.yaml";

/// The value that turns it on.
pub const ENABLED: &str = ".Values.metrics.serviceMonitor.enabled";

/// The ServiceMonitor of the metrics Service, as a template object; `None` when the operator
/// declares no metrics port.
pub fn service_monitor(t: &mut Template, id: &Identity) -> Option<Value> {
    id.metrics_port?;
    let mut labels = serde_json::Map::new();
    labels.insert(t.block(Block::Include("labels".into())), json!(""));
    labels.insert(
        t.block(Block::Merge(".Values.metrics.serviceMonitor.labels".into())),
        json!(""),
    );
    let mut endpoint = json!({
        "path": id.metrics_path,
        "port": bundle::METRICS_PORT_NAME,
    });
    for (key, expr) in [
        ("interval", ".Values.metrics.serviceMonitor.interval"),
        (
            "scrapeTimeout",
            ".Values.metrics.serviceMonitor.scrapeTimeout",
        ),
    ] {
        endpoint[key] = json!(t.block(Block::With(expr.into())));
    }
    let extra = t.block(Block::Merge(
        ".Values.metrics.serviceMonitor.endpoint".into(),
    ));
    endpoint[extra] = json!("");
    // The Service's own labels but Helm's, which the chart puts in place of the bundle's.
    let selector: BTreeMap<String, String> = bundle::metrics_service_labels(id, &BTreeMap::new());
    Some(json!({
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {
            "name": format!("{PREFIX}{SERVICE_MONITOR}"),
            "namespace": NAMESPACE,
            "labels": labels,
        },
        "spec": {
            "endpoints": [endpoint],
            "selector": {"matchLabels": selector},
        },
    }))
}
