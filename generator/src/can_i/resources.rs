//! Which resource a `TYPE` names, as `kubectl auth can-i` finds it through discovery: a plural,
//! a singular or (if it is no resource's plural or singular) a short name, in the group given or in any group (the core group first, then
//! the API groups in the order kube-apiserver lists them, then the CRDs). The built-in
//! resources are kube-apiserver 1.37.2's (`envtest/tests/can_i_differential.rs` compares the
//! table with a real server's discovery); the CRDs are those linked into the generator and
//! those of `--from`.

use kube_markers_rbac::authorize::manifests::{CrdNames, Origin};
use std::fmt;

/// A resource `can-i` knows the names of.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KnownResource {
    /// API group (`""` for the core group).
    pub group: String,
    /// Plural name: what RBAC rules name.
    pub plural: String,
    /// Singular name.
    pub singular: String,
    /// Kind.
    pub kind: String,
    /// Short names (`po`, `deploy`).
    pub short_names: Vec<String>,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Where its names come from.
    pub from: ResourceSource,
}

/// Where a [`KnownResource`] was learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceSource {
    /// kube-apiserver's built-in API.
    BuiltIn,
    /// A `#[kube_markers::crd]` type linked into the generator (its Rust type's name).
    Registry(String),
    /// A CustomResourceDefinition of `--from`.
    Manifest(Origin),
}

impl fmt::Display for ResourceSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceSource::BuiltIn => write!(f, "a built-in resource of kube-apiserver"),
            ResourceSource::Registry(ty) => write!(f, "the CRD of `{ty}` (#[kube_markers::crd])"),
            ResourceSource::Manifest(origin) => write!(f, "the CRD in {origin}"),
        }
    }
}

impl KnownResource {
    /// A CRD of the manifests.
    pub fn from_manifest(crd: &CrdNames) -> KnownResource {
        KnownResource {
            group: crd.group.clone(),
            plural: crd.plural.clone(),
            singular: crd.singular.clone(),
            kind: crd.kind.clone(),
            short_names: crd.short_names.clone(),
            namespaced: crd.namespaced,
            from: ResourceSource::Manifest(crd.origin.clone()),
        }
    }

    /// The CRDs of the `#[kube_markers::crd]` types linked into this binary.
    pub fn from_registry() -> Vec<KnownResource> {
        kube_markers_registry::crd_entries()
            .into_iter()
            .map(|entry| {
                let crd = entry.definition();
                let names = &crd.spec.names;
                KnownResource {
                    group: crd.spec.group.clone(),
                    plural: names.plural.clone(),
                    singular: names
                        .singular
                        .clone()
                        .filter(|s| !s.is_empty())
                        .unwrap_or_else(|| names.kind.to_lowercase()),
                    kind: names.kind.clone(),
                    short_names: names.short_names.clone().unwrap_or_default(),
                    namespaced: crd.spec.scope == "Namespaced",
                    from: ResourceSource::Registry(entry.type_name.to_string()),
                }
            })
            .collect()
    }
}

fn builtin(
    group: &str,
    plural: &str,
    singular: &str,
    kind: &str,
    namespaced: bool,
    short_names: &[&str],
) -> KnownResource {
    KnownResource {
        group: group.into(),
        plural: plural.into(),
        singular: singular.into(),
        kind: kind.into(),
        short_names: short_names.iter().map(|s| s.to_string()).collect(),
        namespaced,
        from: ResourceSource::BuiltIn,
    }
}

/// kube-apiserver 1.37.2's resources (no subresources), in its discovery's order: the core
/// group, then each API group's preferred version as `/apis` lists them.
pub fn builtin_resources() -> Vec<KnownResource> {
    vec![
        builtin("", "bindings", "binding", "Binding", true, &[]),
        builtin(
            "",
            "componentstatuses",
            "componentstatus",
            "ComponentStatus",
            false,
            &["cs"],
        ),
        builtin("", "configmaps", "configmap", "ConfigMap", true, &["cm"]),
        builtin("", "endpoints", "endpoints", "Endpoints", true, &["ep"]),
        builtin("", "events", "event", "Event", true, &["ev"]),
        builtin(
            "",
            "limitranges",
            "limitrange",
            "LimitRange",
            true,
            &["limits"],
        ),
        builtin("", "namespaces", "namespace", "Namespace", false, &["ns"]),
        builtin("", "nodes", "node", "Node", false, &["no"]),
        builtin(
            "",
            "persistentvolumeclaims",
            "persistentvolumeclaim",
            "PersistentVolumeClaim",
            true,
            &["pvc"],
        ),
        builtin(
            "",
            "persistentvolumes",
            "persistentvolume",
            "PersistentVolume",
            false,
            &["pv"],
        ),
        builtin("", "pods", "pod", "Pod", true, &["po"]),
        builtin("", "podtemplates", "podtemplate", "PodTemplate", true, &[]),
        builtin(
            "",
            "replicationcontrollers",
            "replicationcontroller",
            "ReplicationController",
            true,
            &["rc"],
        ),
        builtin(
            "",
            "resourcequotas",
            "resourcequota",
            "ResourceQuota",
            true,
            &["quota"],
        ),
        builtin("", "secrets", "secret", "Secret", true, &[]),
        builtin(
            "",
            "serviceaccounts",
            "serviceaccount",
            "ServiceAccount",
            true,
            &["sa"],
        ),
        builtin("", "services", "service", "Service", true, &["svc"]),
        builtin(
            "apiregistration.k8s.io",
            "apiservices",
            "apiservice",
            "APIService",
            false,
            &[],
        ),
        builtin(
            "apps",
            "controllerrevisions",
            "controllerrevision",
            "ControllerRevision",
            true,
            &[],
        ),
        builtin(
            "apps",
            "daemonsets",
            "daemonset",
            "DaemonSet",
            true,
            &["ds"],
        ),
        builtin(
            "apps",
            "deployments",
            "deployment",
            "Deployment",
            true,
            &["deploy"],
        ),
        builtin(
            "apps",
            "replicasets",
            "replicaset",
            "ReplicaSet",
            true,
            &["rs"],
        ),
        builtin(
            "apps",
            "statefulsets",
            "statefulset",
            "StatefulSet",
            true,
            &["sts"],
        ),
        builtin("events.k8s.io", "events", "event", "Event", true, &["ev"]),
        builtin(
            "authentication.k8s.io",
            "selfsubjectreviews",
            "selfsubjectreview",
            "SelfSubjectReview",
            false,
            &[],
        ),
        builtin(
            "authentication.k8s.io",
            "tokenreviews",
            "tokenreview",
            "TokenReview",
            false,
            &[],
        ),
        builtin(
            "authorization.k8s.io",
            "localsubjectaccessreviews",
            "localsubjectaccessreview",
            "LocalSubjectAccessReview",
            true,
            &[],
        ),
        builtin(
            "authorization.k8s.io",
            "selfsubjectaccessreviews",
            "selfsubjectaccessreview",
            "SelfSubjectAccessReview",
            false,
            &[],
        ),
        builtin(
            "authorization.k8s.io",
            "selfsubjectrulesreviews",
            "selfsubjectrulesreview",
            "SelfSubjectRulesReview",
            false,
            &[],
        ),
        builtin(
            "authorization.k8s.io",
            "subjectaccessreviews",
            "subjectaccessreview",
            "SubjectAccessReview",
            false,
            &[],
        ),
        builtin(
            "autoscaling",
            "horizontalpodautoscalers",
            "horizontalpodautoscaler",
            "HorizontalPodAutoscaler",
            true,
            &["hpa"],
        ),
        builtin("batch", "cronjobs", "cronjob", "CronJob", true, &["cj"]),
        builtin("batch", "jobs", "job", "Job", true, &[]),
        builtin(
            "certificates.k8s.io",
            "certificatesigningrequests",
            "certificatesigningrequest",
            "CertificateSigningRequest",
            false,
            &["csr"],
        ),
        builtin(
            "certificates.k8s.io",
            "clustertrustbundles",
            "clustertrustbundle",
            "ClusterTrustBundle",
            false,
            &[],
        ),
        builtin(
            "certificates.k8s.io",
            "podcertificaterequests",
            "podcertificaterequest",
            "PodCertificateRequest",
            true,
            &[],
        ),
        builtin(
            "networking.k8s.io",
            "ingressclasses",
            "ingressclass",
            "IngressClass",
            false,
            &[],
        ),
        builtin(
            "networking.k8s.io",
            "ingresses",
            "ingress",
            "Ingress",
            true,
            &["ing"],
        ),
        builtin(
            "networking.k8s.io",
            "ipaddresses",
            "ipaddress",
            "IPAddress",
            false,
            &["ip"],
        ),
        builtin(
            "networking.k8s.io",
            "networkpolicies",
            "networkpolicy",
            "NetworkPolicy",
            true,
            &["netpol"],
        ),
        builtin(
            "networking.k8s.io",
            "servicecidrs",
            "servicecidr",
            "ServiceCIDR",
            false,
            &[],
        ),
        builtin(
            "policy",
            "poddisruptionbudgets",
            "poddisruptionbudget",
            "PodDisruptionBudget",
            true,
            &["pdb"],
        ),
        builtin(
            "rbac.authorization.k8s.io",
            "clusterrolebindings",
            "clusterrolebinding",
            "ClusterRoleBinding",
            false,
            &[],
        ),
        builtin(
            "rbac.authorization.k8s.io",
            "clusterroles",
            "clusterrole",
            "ClusterRole",
            false,
            &[],
        ),
        builtin(
            "rbac.authorization.k8s.io",
            "rolebindings",
            "rolebinding",
            "RoleBinding",
            true,
            &[],
        ),
        builtin(
            "rbac.authorization.k8s.io",
            "roles",
            "role",
            "Role",
            true,
            &[],
        ),
        builtin(
            "storage.k8s.io",
            "csidrivers",
            "csidriver",
            "CSIDriver",
            false,
            &[],
        ),
        builtin(
            "storage.k8s.io",
            "csinodes",
            "csinode",
            "CSINode",
            false,
            &[],
        ),
        builtin(
            "storage.k8s.io",
            "csistoragecapacities",
            "csistoragecapacity",
            "CSIStorageCapacity",
            true,
            &[],
        ),
        builtin(
            "storage.k8s.io",
            "storageclasses",
            "storageclass",
            "StorageClass",
            false,
            &["sc"],
        ),
        builtin(
            "storage.k8s.io",
            "volumeattachments",
            "volumeattachment",
            "VolumeAttachment",
            false,
            &[],
        ),
        builtin(
            "storage.k8s.io",
            "volumeattributesclasses",
            "volumeattributesclass",
            "VolumeAttributesClass",
            false,
            &["vac"],
        ),
        builtin(
            "admissionregistration.k8s.io",
            "mutatingadmissionpolicies",
            "mutatingadmissionpolicy",
            "MutatingAdmissionPolicy",
            false,
            &[],
        ),
        builtin(
            "admissionregistration.k8s.io",
            "mutatingadmissionpolicybindings",
            "mutatingadmissionpolicybinding",
            "MutatingAdmissionPolicyBinding",
            false,
            &[],
        ),
        builtin(
            "admissionregistration.k8s.io",
            "mutatingwebhookconfigurations",
            "mutatingwebhookconfiguration",
            "MutatingWebhookConfiguration",
            false,
            &[],
        ),
        builtin(
            "admissionregistration.k8s.io",
            "validatingadmissionpolicies",
            "validatingadmissionpolicy",
            "ValidatingAdmissionPolicy",
            false,
            &[],
        ),
        builtin(
            "admissionregistration.k8s.io",
            "validatingadmissionpolicybindings",
            "validatingadmissionpolicybinding",
            "ValidatingAdmissionPolicyBinding",
            false,
            &[],
        ),
        builtin(
            "admissionregistration.k8s.io",
            "validatingwebhookconfigurations",
            "validatingwebhookconfiguration",
            "ValidatingWebhookConfiguration",
            false,
            &[],
        ),
        builtin(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            "customresourcedefinition",
            "CustomResourceDefinition",
            false,
            &["crd", "crds"],
        ),
        builtin(
            "scheduling.k8s.io",
            "priorityclasses",
            "priorityclass",
            "PriorityClass",
            false,
            &["pc"],
        ),
        builtin("coordination.k8s.io", "leases", "lease", "Lease", true, &[]),
        builtin(
            "node.k8s.io",
            "runtimeclasses",
            "runtimeclass",
            "RuntimeClass",
            false,
            &[],
        ),
        builtin(
            "discovery.k8s.io",
            "endpointslices",
            "endpointslice",
            "EndpointSlice",
            true,
            &[],
        ),
        builtin(
            "resource.k8s.io",
            "deviceclasses",
            "deviceclass",
            "DeviceClass",
            false,
            &[],
        ),
        builtin(
            "resource.k8s.io",
            "devicetaintrules",
            "devicetaintrule",
            "DeviceTaintRule",
            false,
            &[],
        ),
        builtin(
            "resource.k8s.io",
            "resourceclaims",
            "resourceclaim",
            "ResourceClaim",
            true,
            &[],
        ),
        builtin(
            "resource.k8s.io",
            "resourceclaimtemplates",
            "resourceclaimtemplate",
            "ResourceClaimTemplate",
            true,
            &[],
        ),
        builtin(
            "resource.k8s.io",
            "resourceslices",
            "resourceslice",
            "ResourceSlice",
            false,
            &[],
        ),
        builtin(
            "flowcontrol.apiserver.k8s.io",
            "flowschemas",
            "flowschema",
            "FlowSchema",
            false,
            &[],
        ),
        builtin(
            "flowcontrol.apiserver.k8s.io",
            "prioritylevelconfigurations",
            "prioritylevelconfiguration",
            "PriorityLevelConfiguration",
            false,
            &[],
        ),
        builtin(
            "storagemigration.k8s.io",
            "storageversionmigrations",
            "storageversionmigration",
            "StorageVersionMigration",
            false,
            &[],
        ),
    ]
}

/// Finds the resource `name` (lowercased: a plural, singular or short name) names, in `group`
/// if one is given, among `known` in priority order, as kubectl's
/// `shortcutExpander.expandResourceShortcut` and REST mapper do: a name that is some
/// resource's plural or singular (in `group`, if given) is not expanded and resolves to the
/// first resource with that plural or singular; otherwise the first resource with that short
/// name; for `TYPE.GROUP` a short name also matches a group `GROUP` prefixes (`autoscal`).
pub fn resolve<'k>(
    known: &'k [KnownResource],
    name: &str,
    group: Option<&str>,
) -> Option<&'k KnownResource> {
    let in_group = |r: &&KnownResource| group.is_none_or(|g| r.group == g);
    let short = |r: &&KnownResource| r.short_names.iter().any(|s| s == name);
    known
        .iter()
        .filter(in_group)
        .find(|r| r.plural == name || r.singular == name)
        .or_else(|| known.iter().filter(in_group).find(short))
        .or_else(|| {
            let g = group?;
            known.iter().filter(|r| r.group.starts_with(g)).find(short)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(name: &str, group: Option<&str>) -> Option<(String, String)> {
        let mut known = builtin_resources();
        known.push(KnownResource {
            group: "backup.example.com".into(),
            plural: "backups".into(),
            singular: "backup".into(),
            kind: "Backup".into(),
            short_names: vec!["bk".into()],
            namespaced: true,
            from: ResourceSource::Registry("Backup".into()),
        });
        resolve(&known, name, group).map(|r| (r.plural.clone(), r.group.clone()))
    }

    fn pair(plural: &str, group: &str) -> Option<(String, String)> {
        Some((plural.into(), group.into()))
    }

    #[test]
    fn plurals_singulars_short_names_and_groups() {
        assert_eq!(found("deployments", None), pair("deployments", "apps"));
        assert_eq!(found("deployment", None), pair("deployments", "apps"));
        assert_eq!(found("deploy", None), pair("deployments", "apps"));
        assert_eq!(found("deploy", Some("apps")), pair("deployments", "apps"));
        assert_eq!(found("po", None), pair("pods", ""));
        assert_eq!(found("leases", None), pair("leases", "coordination.k8s.io"));
        assert_eq!(
            found("selfsubjectaccessreviews", None),
            pair("selfsubjectaccessreviews", "authorization.k8s.io")
        );
        // The core group's events first, as kubectl's priority says; the other on request.
        assert_eq!(found("events", None), pair("events", ""));
        assert_eq!(found("ev", None), pair("events", ""));
        assert_eq!(
            found("events", Some("events.k8s.io")),
            pair("events", "events.k8s.io")
        );
        // A CRD: plural, singular (the lowercased kind), short name.
        for name in ["backups", "backup", "bk"] {
            assert_eq!(
                found(name, None),
                pair("backups", "backup.example.com"),
                "{name}"
            );
        }
        // kubectl does not expand a name that is some resource's plural or singular: a
        // built-in's singular wins over a CRD's short name.
        assert_eq!(found("job", None), pair("jobs", "batch"));
        let mut known = builtin_resources();
        known.push(KnownResource {
            short_names: vec!["job".into()],
            ..known.iter().find(|r| r.plural == "pods").unwrap().clone()
        });
        known.last_mut().unwrap().group = "ci.example.com".into();
        let job = resolve(&known, "job", None).unwrap();
        assert_eq!((job.plural.as_str(), job.group.as_str()), ("jobs", "batch"));
        // A short name matches a group its `GROUP` prefixes, as kubectl's does.
        assert_eq!(
            found("hpa", Some("autoscal")),
            pair("horizontalpodautoscalers", "autoscaling")
        );
        // Not there: in another group, or at all.
        assert_eq!(found("deployments", Some("extensions")), None);
        assert_eq!(found("widgets", None), None);
    }
}
