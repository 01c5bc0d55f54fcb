//! The chart's own files: `Chart.yaml`, `values.yaml` (each value with what it does),
//! `.helmignore` and the named templates of `templates/_helpers.tpl`.

use super::Parts;
use crate::generate::bundle::Identity;
use crate::output::yaml::render_yaml;
use serde_json::{Value, json};

/// The chart's directory under the output directory.
pub const CHART_DIR: &str = "chart";

/// The image's repository and tag: `repo:tag` → (`repo`, `tag`); an image without a tag, or
/// with a digest, is all repository (the template adds `:tag` only for a tag).
pub fn split_image(image: &str) -> (String, String) {
    if image.contains('@') {
        return (image.to_string(), String::new());
    }
    let name_start = image.rfind('/').map_or(0, |i| i + 1);
    match image[name_start..].rfind(':') {
        Some(i) => (
            image[..name_start + i].to_string(),
            image[name_start + i + 1..].to_string(),
        ),
        None => (image.to_string(), String::new()),
    }
}

/// The chart's version: the image tag when it is a SemVer version (a leading `v` dropped),
/// else `0.1.0` (Helm needs SemVer; `latest` is not).
pub fn chart_version(tag: &str) -> String {
    let version = tag.strip_prefix('v').unwrap_or(tag);
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    let semver = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if semver
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-+".contains(&b))
    {
        version.to_string()
    } else {
        "0.1.0".to_string()
    }
}

fn scalar(value: Value) -> String {
    render_yaml(&value).trim_end().to_string()
}

/// `Chart.yaml`: name from the identity, version and appVersion from the image tag.
pub fn chart_yaml(id: &Identity, header: &str) -> String {
    let (_, tag) = split_image(&id.image);
    let mut out = format!(
        "{header}apiVersion: v2\nname: {}\ndescription: {}\ntype: application\nversion: {}\n",
        scalar(json!(id.name)),
        scalar(json!(format!(
            "The {} operator: its roles, CRDs and manager, as its deploy bundle installs them.",
            id.name
        ))),
        scalar(json!(chart_version(&tag))),
    );
    if !tag.is_empty() {
        // Quoted: Helm reads an unquoted 1.10 as a number.
        out.push_str(&format!(
            "appVersion: {}\n",
            serde_json::to_string(&tag).expect("a string")
        ));
    }
    out
}

/// One top-level entry of `values.yaml` with its comment.
fn value(out: &mut String, comment: &str, key: &str, value: Value) {
    for line in comment.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    out.push_str(&render_yaml(&json!({ key: value })));
}

/// `values.yaml`: the install-time choices, their defaults what the kustomize bundle installs
/// (but the Namespace, which Helm's `--create-namespace` makes).
pub fn values_yaml(id: &Identity, header: &str, parts: Parts, manager: &Value) -> String {
    let pod = &manager["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let (repository, tag) = split_image(&id.image);
    let mut out = header.to_string();
    value(
        &mut out,
        "The namespace the operator runs in; empty: the release's\n\
         (`helm install -n NAMESPACE --create-namespace`).",
        "namespace",
        json!(""),
    );
    value(
        &mut out,
        "Make that namespace a Namespace of the release, as the kustomize bundle does (and\n\
         `helm uninstall` deletes it); Helm's way is `--create-namespace`.",
        "createNamespace",
        json!(false),
    );
    value(
        &mut out,
        "Put before every name but the Namespace's and the CRDs' (kustomize's namePrefix): it\n\
         keeps two operators' cluster-wide names apart.",
        "namePrefix",
        json!(id.name_prefix),
    );
    value(
        &mut out,
        "When set, the prefix is \"<fullnameOverride>-\" instead.",
        "fullnameOverride",
        json!(""),
    );
    value(
        &mut out,
        "The manager's image: repository, then \":tag\" when the tag is set; pullPolicy empty:\n\
         Kubernetes' default (Always for :latest, else IfNotPresent).",
        "image",
        json!({"repository": repository, "tag": tag, "pullPolicy": ""}),
    );
    value(
        &mut out,
        "Secrets of type kubernetes.io/dockerconfigjson in the operator's namespace, to pull\n\
         the image from a private registry: [{name: regcred}].",
        "imagePullSecrets",
        json!([]),
    );
    let replicas = if parts.leader_election {
        "Managers to run; more than one needs leaderElection.enabled."
    } else {
        "Managers to run: one (the bundle declares no leader election)."
    };
    value(&mut out, replicas, "replicas", json!(1));
    if parts.leader_election {
        value(
            &mut out,
            "The Role (and binding) for Leases and Events in the operator's namespace; false also\n\
             drops --leader-elect from the manager's arguments.",
            "leaderElection",
            json!({"enabled": true}),
        );
    }
    value(
        &mut out,
        "The manager's arguments (the bundle's `args`); extraArgs are appended.",
        "args",
        json!(id.args),
    );
    value(&mut out, "", "extraArgs", json!([]));
    value(
        &mut out,
        "Environment variables of the manager, after the bundle's own (POD_NAMESPACE,\n\
         POD_SERVICE_ACCOUNT, HEALTH_PROBE_PORT: don't name them again), as the container's\n\
         env: [{name: RUST_LOG, value: info}], or a valueFrom.",
        "env",
        json!([]),
    );
    value(
        &mut out,
        "The manager container's resources.",
        "resources",
        container["resources"].clone(),
    );
    value(
        &mut out,
        "The manager Pod's securityContext: what Pod Security \"restricted\" checks. The image\n\
         must run as a numeric non-root user; set runAsUser if it names none.",
        "podSecurityContext",
        pod["securityContext"].clone(),
    );
    value(
        &mut out,
        "The manager container's securityContext: \"restricted\", and a read-only root\n\
         filesystem.",
        "securityContext",
        container["securityContext"].clone(),
    );
    value(
        &mut out,
        "Labels and annotations added to the Deployment's.",
        "deploymentLabels",
        json!({}),
    );
    value(&mut out, "", "deploymentAnnotations", json!({}));
    value(
        &mut out,
        "Labels and annotations added to the manager Pods' (not to the Deployment's selector,\n\
         whose labels they must not repeat).",
        "podLabels",
        json!({}),
    );
    value(&mut out, "", "podAnnotations", json!({}));
    value(
        &mut out,
        "Where the manager's Pods may run.",
        "nodeSelector",
        json!({}),
    );
    value(&mut out, "", "tolerations", json!([]));
    value(&mut out, "", "affinity", json!({}));
    value(
        &mut out,
        "The manager Pods' PriorityClass; empty: the cluster's default.",
        "priorityClassName",
        json!(""),
    );
    if id.metrics_port.is_some() {
        value(
            &mut out,
            "The operator's metrics, served on the manager's port `metrics` (metrics-port) and\n\
             behind the Service <prefix>controller-manager-metrics-service. serviceMonitor: a\n\
             prometheus-operator ServiceMonitor for it (its CRDs must be installed), with\n\
             labels (the ones your Prometheus selects), interval and scrapeTimeout (empty:\n\
             Prometheus' defaults), and endpoint, more fields of its endpoint (scheme,\n\
             tlsConfig, authorization, ...).",
            "metrics",
            json!({"serviceMonitor": {
                "enabled": false,
                "labels": {},
                "interval": "",
                "scrapeTimeout": "",
                "endpoint": {},
            }}),
        );
    }
    if parts.crds {
        value(
            &mut out,
            "install: the CRDs are templates of the release, installed and upgraded with it.\n\
             keep: annotate them `helm.sh/resource-policy: keep`, so that `helm uninstall` leaves\n\
             them, and every custom resource, in place.",
            "crds",
            json!({"install": true, "keep": true}),
        );
    }
    if let Some(enabled) = parts.webhooks {
        value(
            &mut out,
            "The admission webhooks: their configurations, Services, and the manager's port 9443\n\
             with the Secret webhook-server-cert mounted (yours to create without cert-manager).",
            "webhooks",
            json!({ "enabled": enabled }),
        );
    }
    if let Some(enabled) = parts.cert_manager {
        let doc = if parts.converting {
            "A self-signed Issuer and a Certificate for the webhook server's Services, and the\n\
             converting CRDs (and webhook configurations) annotated for cert-manager's CA\n\
             injector (cert-manager must be installed). Without it, the server writes the CRDs'\n\
             caBundle itself, with the conversion-ca-bundle-role."
        } else {
            "With webhooks: a self-signed Issuer and a Certificate for the Services, and the\n\
             configurations annotated for cert-manager's CA injector (cert-manager must be\n\
             installed)."
        };
        value(&mut out, doc, "certManager", json!({ "enabled": enabled }));
    }
    out
}

/// Keeps the generator's ledgers and kept edits out of the chart Helm loads.
pub fn helmignore(header: &str) -> String {
    format!("{header}.kube-markers-*.sha256\n*.edited\n*.edited.*\n")
}

/// The named templates: the namespace, the name prefix and Helm's standard labels.
pub fn helpers(id: &Identity, header: &str) -> String {
    let chart = &id.name;
    format!(
        r#"{header}
{{{{- define "{chart}.namespace" -}}}}
{{{{- default .Release.Namespace .Values.namespace -}}}}
{{{{- end -}}}}

{{{{- define "{chart}.namePrefix" -}}}}
{{{{- if .Values.fullnameOverride -}}}}
{{{{- printf "%s-" (trimSuffix "-" .Values.fullnameOverride) -}}}}
{{{{- else -}}}}
{{{{- .Values.namePrefix -}}}}
{{{{- end -}}}}
{{{{- end -}}}}

{{{{- define "{chart}.labels" -}}}}
helm.sh/chart: {{{{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}}}
app.kubernetes.io/name: {{{{ .Chart.Name | quote }}}}
app.kubernetes.io/instance: {{{{ .Release.Name | quote }}}}
{{{{- with .Chart.AppVersion }}}}
app.kubernetes.io/version: {{{{ . | quote }}}}
{{{{- end }}}}
app.kubernetes.io/managed-by: {{{{ .Release.Service }}}}
{{{{- end -}}}}
"#
    )
}

/// The manager template's first lines: more than one manager needs leader election.
pub fn replicas_check(parts: Parts) -> String {
    if parts.leader_election {
        "{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) }}\n\
         {{- fail \"replicas: more than one manager needs leaderElection.enabled\" }}\n\
         {{- end }}\n"
            .to_string()
    } else {
        "{{- if gt (int .Values.replicas) 1 }}\n\
         {{- fail \"replicas: more than one manager needs leader election, which the bundle does not declare (leader-election = true)\" }}\n\
         {{- end }}\n"
            .to_string()
    }
}
