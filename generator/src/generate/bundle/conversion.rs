//! The wiring of the CRDs that convert through the webhook server (`spec.conversion` strategy
//! `Webhook`, see [`crate::generate::crds`]): the server's Service, port and certificate as for
//! admission webhooks (whether or not `webhooks = true`), kustomize's name reference into the
//! CRDs' `clientConfig.service`, and the CA bundle: cert-manager's injector with
//! `cert-manager = true`, else the server itself, which patches its CRDs' `caBundle` at start
//! and on rotation and is granted exactly that (its role is with the bundle's other roles, in
//! `roles.rs`).

use super::identity::Identity;
use super::webhooks::CERTIFICATE;
use crate::generate::crds::{GeneratedCrd, converts};
use serde_json::{Value, json};

/// The kustomize configuration that makes `namePrefix` follow into the CRDs'
/// `clientConfig.service.name` (kustomize's built-in configuration already moves its
/// `namespace`, but has no name reference there).
pub const KUSTOMIZE_CONFIG: &str = "crd_kustomizeconfig.yaml";

/// The names of the CRDs that convert through the webhook server, sorted.
pub fn converting(crds: &[GeneratedCrd]) -> Vec<String> {
    let mut names: Vec<String> = crds
        .iter()
        .filter(|c| converts(&c.crd))
        .filter_map(|c| c.crd.metadata.name.clone())
        .collect();
    names.sort();
    names
}

/// kubebuilder's `config/crd/kustomizeconfig.yaml`, less its `namespace` field spec (kustomize
/// has it built in since v5; kubebuilder dropped its copy in v4.11.0).
pub fn kustomize_config() -> Value {
    json!({
        "nameReference": [{
            "kind": "Service",
            "version": "v1",
            "fieldSpecs": [{
                "group": "apiextensions.k8s.io",
                "kind": "CustomResourceDefinition",
                "path": "spec/conversion/webhook/clientConfig/service/name",
            }],
        }],
    })
}

/// With cert-manager: a kustomization patch per converting CRD that adds the CA injector's
/// annotation (beside the CRD's own annotations, which a patch of the whole map would drop).
pub fn ca_injection_patches(id: &Identity, crds: &[String]) -> Vec<Value> {
    let value = format!("{}/{}{CERTIFICATE}", id.namespace, id.name_prefix);
    crds.iter()
        .map(|name| {
            json!({
                "target": {
                    "group": "apiextensions.k8s.io",
                    "kind": "CustomResourceDefinition",
                    "name": name,
                },
                "patch": format!(
                    "- op: add\n  path: /metadata/annotations/cert-manager.io~1inject-ca-from\n  \
                     value: {value}\n"
                ),
            })
        })
        .collect()
}
