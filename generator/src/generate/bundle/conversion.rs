//! The wiring of the CRDs that convert through the webhook server (`spec.conversion` strategy
//! `Webhook`, see [`crate::generate::crds`]): the server's Service, port and certificate as for
//! admission webhooks (whether or not `webhooks = true`), kustomize's name reference into the
//! CRDs' `clientConfig.service`, and the CA bundle: cert-manager's injector with
//! `cert-manager = true`, else the server itself, which patches its CRDs' `caBundle` at start
//! and on rotation and is granted exactly that.

use super::identity::Identity;
use super::roles::BundleRole;
use super::webhooks::CERTIFICATE;
use crate::generate::crds::{GeneratedCrd, converts};
use kube_markers_core::model::RbacMarker;
use kube_markers_rbac::{GeneratedRole, generate_roles};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The kustomize configuration that makes `namePrefix` follow into the CRDs'
/// `clientConfig.service.name` (kustomize's built-in configuration already moves its
/// `namespace`, but has no name reference there).
pub const KUSTOMIZE_CONFIG: &str = "crd_kustomizeconfig.yaml";
/// The ClusterRole that lets the server write its CRDs' `caBundle`, without cert-manager.
pub const CA_BUNDLE_ROLE: &str = "conversion-ca-bundle-role";
/// Its file's name, without `.yaml` (its binding's starts the same).
pub const CA_BUNDLE_ROLE_FILE: &str = "conversion_ca_bundle_role";

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

/// Without cert-manager: `get`, `patch` and `watch` on exactly the converting CRDs, for the
/// server to write its CA into their `caBundle` as soon as they are applied (CRDs keep their
/// names under `namePrefix`; a watch by `metadata.name` is authorized by name).
pub fn ca_bundle_role(id: &Identity, crds: &[String]) -> Option<BundleRole> {
    if id.cert_manager || crds.is_empty() {
        return None;
    }
    let marker = RbacMarker {
        groups: vec!["apiextensions.k8s.io".to_string().into()],
        resources: vec!["customresourcedefinitions".to_string().into()],
        resource_names: crds.iter().map(|n| n.clone().into()).collect(),
        verbs: ["get", "patch", "watch"]
            .map(|v| v.to_string().into())
            .to_vec(),
        role_name: Some(CA_BUNDLE_ROLE.to_string().into()),
        ..RbacMarker::default()
    };
    let role: GeneratedRole = generate_roles([&marker], CA_BUNDLE_ROLE)
        .pop()
        .expect("a role with rules");
    Some(BundleRole {
        role,
        labels: BTreeMap::new(),
        file: format!("{CA_BUNDLE_ROLE_FILE}.yaml"),
        bound: true,
        reason: format!(
            "the conversion webhook's caBundle in {} (without `cert-manager`)",
            crds.join(", ")
        ),
    })
}
