//! The Helm chart, `<out>/chart/`: the deploy bundle's objects as templates that do what the
//! kustomization does (its `namePrefix`, its `namespace:` and name references, the
//! pinned-namespaces transformers, cert-manager's CA injection), with the install-time choices
//! a Helm user expects as values (`values.yaml`).
//!
//! The objects come from the same code as the kustomize bundle's files
//! ([`bundle::own_resources`], the roles, the CRDs, the webhook configurations), so the two
//! cannot drift; what kustomize would change in them is replaced by template actions
//! (`template.rs`). Pinned-namespace Roles keep their namespace as the kustomize
//! transformers keep it; every ServiceAccount subject points at the operator's namespace.

mod files;
mod monitor;
mod template;

use crate::generate::bundle::{self, BundleProblem, CERTIFICATE, Decided, ISSUER, Identity};
use crate::generate::crds::CONVERSION_SERVICE;
use crate::generate::{Artifacts, Context, GenerateError, Generated};
use crate::output::ledger;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use template::{Block, IMAGE, NAMESPACE, PREFIX, REPLICAS, Template, entry};

pub use files::{CHART_DIR, chart_version, split_image};

/// The labels the bundle gives its objects, which the chart's own labels replace.
const BUNDLE_LABELS: &[&str] = &["app.kubernetes.io/managed-by", "app.kubernetes.io/name"];

/// An object and the value that turns it on, if one does.
type Conditional = (Option<String>, Value);

/// The manager's argument that asks for leader election, dropped by the chart when
/// `leaderElection.enabled` is false.
const LEADER_ELECT_ARG: &str = "--leader-elect";

/// Which optional parts the bundle has, and so which values the chart offers.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Parts {
    pub leader_election: bool,
    /// Offered, and then on by default or not.
    pub webhooks: Option<bool>,
    pub cert_manager: Option<bool>,
    pub crds: bool,
    /// A CRD converts through the webhook server: its Service, port and certificate are not
    /// optional, and cert-manager is offered for its CA.
    pub converting: bool,
}

/// The chart of the bundle the run makes (`chart = true`); an earlier chart's files kept as
/// they are when the bundle's are (`--no-scan` without identity flags).
pub fn generate_for_run(ctx: &Context, made: &mut Artifacts) -> Result<Generated, GenerateError> {
    let (opts, made) = (ctx.opts, &*made);
    let mut generated = Generated::default();
    match &made.bundle {
        Decided::Made(id) if id.chart => {
            let (listed, webhook_file) = bundle::listed(ctx, made);
            let input = bundle::run_input(ctx, made, &listed, webhook_file.as_deref());
            for (path, content) in generate(id, &input).map_err(GenerateError::Bundle)? {
                generated.files.push(bundle::output(opts, path, content));
            }
        }
        Decided::Kept => {
            for path in previous_files(&opts.out_dir, &opts.generator_name) {
                generated.files.extend(bundle::kept_file(opts, path)?);
            }
        }
        Decided::Made(_) | Decided::None => {}
    }
    Ok(generated)
}

/// The chart's files for this identity, relative to the output directory.
pub fn generate(
    id: &Identity,
    input: &bundle::Input,
) -> Result<Vec<bundle::File>, Vec<BundleProblem>> {
    // The webhooks (and cert-manager) are offered as values whenever the generator wrote
    // webhook configurations the chart can load: on by default as the bundle declares them.
    let offers_webhooks = !input.webhook_configurations.is_empty() && input.webhook_file.is_some();
    // CRDs that convert need the server whatever the values say; cert-manager is offered for
    // their CA, and without it the server's role to write their `caBundle`.
    let converting = !bundle::converting_crds(input.crds).is_empty();
    let offers_cert_manager = offers_webhooks || converting;
    let offered = Identity {
        webhooks: offers_webhooks,
        cert_manager: offers_cert_manager,
        ..id.clone()
    };
    let mut resources = bundle::own_resources(&offered, input)?;
    if converting {
        let without_cert_manager = Identity {
            cert_manager: false,
            ..offered.clone()
        };
        resources.extend(
            bundle::own_resources(&without_cert_manager, input)?
                .into_iter()
                .filter(|(file, _)| file.starts_with(bundle::CA_BUNDLE_ROLE_FILE)),
        );
    }
    let parts = Parts {
        leader_election: id.leader_election,
        webhooks: offers_webhooks.then_some(id.webhooks),
        cert_manager: offers_cert_manager.then_some(id.cert_manager),
        crds: !input.crds.is_empty(),
        converting,
    };
    let id = &offered;
    // The manager as the bundle makes it: the defaults of the values that replace its fields.
    let manager = resources
        .iter()
        .flat_map(|(_, docs)| docs)
        .find(|doc| doc["kind"] == "Deployment")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let mut t = Template::new(&id.name);
    let mut templates: Vec<(String, Vec<Conditional>)> = Vec::new();
    let roles: Vec<_> = input
        .roles
        .iter()
        .map(|r| {
            (
                None,
                object(&mut t, id, r.to_object().to_value(), converting),
            )
        })
        .collect();
    if !roles.is_empty() {
        templates.push(("role.yaml".into(), roles));
    }
    for crd in input.crds {
        let doc = object(&mut t, id, crd.to_value(), converting);
        templates.push((
            format!("crd/{}", crd.file_name),
            vec![(Some(".Values.crds.install".into()), doc)],
        ));
    }
    if offers_webhooks {
        let docs = input
            .webhook_configurations
            .iter()
            .map(|c| {
                let doc = object(&mut t, id, c.clone(), converting);
                (Some(".Values.webhooks.enabled".into()), doc)
            })
            .collect();
        templates.push(("webhook/manifests.yaml".into(), docs));
    }
    for (file, docs) in resources {
        let docs = docs
            .into_iter()
            .map(|doc| {
                let cond = condition(&file, &doc, converting);
                (cond, object(&mut t, id, doc, converting))
            })
            .collect();
        templates.push((file, docs));
    }
    if let Some(monitor) = monitor::service_monitor(&mut t, id) {
        templates.push((
            monitor::FILE.into(),
            vec![(Some(monitor::ENABLED.into()), monitor)],
        ));
    }

    let header = format!(
        "{}{}",
        input.header,
        bundle::generated_line(input.regenerate)
    );
    // Helm reads the templates' text, header included, as a template.
    let template_header = template::escape(&header);
    let dir = PathBuf::from(CHART_DIR);
    let mut out = vec![
        (dir.join("Chart.yaml"), files::chart_yaml(id, &header)),
        (
            dir.join("values.yaml"),
            files::values_yaml(id, &header, parts, &manager),
        ),
        (dir.join(".helmignore"), files::helmignore(&header)),
        (
            dir.join("templates/_helpers.tpl"),
            files::helpers(id, &template_header),
        ),
    ];
    for (file, docs) in templates {
        let mut text = template_header.clone();
        if file == "manager.yaml" {
            text.push_str(&files::replicas_check(parts));
        }
        out.push((dir.join("templates").join(&file), t.render(&text, &docs)));
    }
    Ok(out)
}

/// The value that turns a bundle object on, when one does. The conversions' Service is always
/// on: the CRDs call it.
fn condition(file: &str, doc: &Value, converting: bool) -> Option<String> {
    match doc["kind"].as_str().unwrap_or_default() {
        "Namespace" => Some(".Values.createNamespace".into()),
        "Service" if converting && doc["metadata"]["name"] == CONVERSION_SERVICE => None,
        "Service" if doc["metadata"]["name"] == bundle::METRICS_SERVICE => None,
        "Service" => Some(".Values.webhooks.enabled".into()),
        "Issuer" | "Certificate" if converting => Some(".Values.certManager.enabled".into()),
        "Issuer" | "Certificate" => {
            Some("and .Values.webhooks.enabled .Values.certManager.enabled".into())
        }
        _ if file.starts_with(bundle::CA_BUNDLE_ROLE_FILE) => {
            Some("not .Values.certManager.enabled".into())
        }
        _ if file.starts_with("leader_election_role") => {
            Some(".Values.leaderElection.enabled".into())
        }
        _ => None,
    }
}

/// The object as the chart writes it: what kustomize's transformations change replaced by
/// placeholders.
fn object(t: &mut Template, id: &Identity, mut doc: Value, converting: bool) -> Value {
    let kind = doc["kind"].as_str().unwrap_or_default().to_string();
    metadata(t, id, &kind, &mut doc["metadata"]);
    match kind.as_str() {
        "RoleBinding" | "ClusterRoleBinding" => {
            prefix(&mut doc["roleRef"]["name"]);
            for subject in doc["subjects"].as_array_mut().into_iter().flatten() {
                if subject["kind"] == "ServiceAccount" {
                    prefix(&mut subject["name"]);
                    subject["namespace"] = json!(NAMESPACE);
                }
            }
        }
        "Deployment" => deployment(t, &mut doc, converting, id.leader_election),
        "Certificate" => {
            // The bundle writes these names prefixed already (kustomize does not know
            // cert-manager's kinds).
            doc["spec"]["issuerRef"]["name"] = json!(format!("{PREFIX}{ISSUER}"));
            let own = format!(".{}.svc", id.namespace);
            for name in doc["spec"]["dnsNames"].as_array_mut().into_iter().flatten() {
                let text = name.as_str().unwrap_or_default();
                let service = text.strip_prefix(&id.name_prefix).unwrap_or(text);
                *name = json!(format!(
                    "{PREFIX}{}",
                    service.replace(&own, &format!(".{NAMESPACE}.svc"))
                ));
            }
        }
        "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => {
            for webhook in doc["webhooks"].as_array_mut().into_iter().flatten() {
                let service = &mut webhook["clientConfig"]["service"];
                if service.is_object() {
                    prefix(&mut service["name"]);
                    service["namespace"] = json!(NAMESPACE);
                }
            }
            // The kustomization's cert-manager patches, as a value.
            let inject = t.block(Block::If {
                cond: ".Values.certManager.enabled".into(),
                body: entry(
                    "annotations",
                    entry(
                        "cert-manager.io/inject-ca-from",
                        json!(format!("{NAMESPACE}/{PREFIX}{CERTIFICATE}")),
                    ),
                ),
            });
            if id.cert_manager {
                doc["metadata"][inject] = json!("");
            }
        }
        "CustomResourceDefinition" => {
            let keep = t.block(Block::If {
                cond: ".Values.crds.keep".into(),
                body: entry("helm.sh/resource-policy", json!("keep")),
            });
            doc["metadata"]["annotations"][keep] = json!("");
            // (`pointer_mut`: indexing would add the path to a CRD without it.)
            if let Some(service) = doc
                .pointer_mut("/spec/conversion/webhook/clientConfig/service")
                .filter(|s| s.is_object())
            {
                prefix(&mut service["name"]);
                service["namespace"] = json!(NAMESPACE);
                let inject = t.block(Block::If {
                    cond: ".Values.certManager.enabled".into(),
                    body: entry(
                        "cert-manager.io/inject-ca-from",
                        json!(format!("{NAMESPACE}/{PREFIX}{CERTIFICATE}")),
                    ),
                });
                doc["metadata"]["annotations"][inject] = json!("");
            }
        }
        _ => {}
    }
    doc
}

/// Name, namespace and labels: the prefix on every name but a Namespace's and a CRD's (as
/// kustomize's `namePrefix`), the operator's namespace a value (pinned ones stay).
fn metadata(t: &mut Template, id: &Identity, kind: &str, metadata: &mut Value) {
    match kind {
        "Namespace" => metadata["name"] = json!(NAMESPACE),
        "CustomResourceDefinition" => {}
        _ => prefix(&mut metadata["name"]),
    }
    if metadata["namespace"] == json!(id.namespace) {
        metadata["namespace"] = json!(NAMESPACE);
    }
    let mut labels = match metadata["labels"].take() {
        Value::Object(labels) => labels,
        _ => Map::new(),
    };
    for label in BUNDLE_LABELS {
        labels.remove(*label);
    }
    labels.insert(t.block(Block::Include("labels".into())), json!(""));
    metadata["labels"] = Value::Object(labels);
}

fn prefix(name: &mut Value) {
    if let Some(text) = name.as_str() {
        *name = json!(format!("{PREFIX}{text}"));
    }
}

/// The manager: replicas, image, resources, arguments, environment, labels, annotations,
/// security contexts and scheduling from the values; the webhook port and certificate only
/// with `webhooks.enabled`, unless a CRD converts.
fn deployment(t: &mut Template, doc: &mut Value, converting: bool, leader_election: bool) {
    doc["spec"]["replicas"] = json!(REPLICAS);
    let labels = t.block(Block::Merge(".Values.deploymentLabels".into()));
    doc["metadata"]["labels"][labels] = json!("");
    doc["metadata"]["annotations"] =
        json!(t.block(Block::With(".Values.deploymentAnnotations".into())));
    let template = &mut doc["spec"]["template"]["metadata"];
    let labels = t.block(Block::Merge(".Values.podLabels".into()));
    template["labels"][labels] = json!("");
    let annotations = t.block(Block::Merge(".Values.podAnnotations".into()));
    template["annotations"][annotations] = json!("");
    let pod = &mut doc["spec"]["template"]["spec"];
    prefix(&mut pod["serviceAccountName"]);
    let webhooks = ".Values.webhooks.enabled".to_string();
    // (`converting` first: the take empties the field.)
    if !converting && let Some(volumes) = pod.get_mut("volumes").map(Value::take) {
        pod["volumes"] = json!(t.block(Block::If {
            cond: webhooks.clone(),
            body: volumes
        }));
    }
    for (key, expr) in [
        ("imagePullSecrets", ".Values.imagePullSecrets"),
        ("securityContext", ".Values.podSecurityContext"),
        ("priorityClassName", ".Values.priorityClassName"),
        ("nodeSelector", ".Values.nodeSelector"),
        ("tolerations", ".Values.tolerations"),
        ("affinity", ".Values.affinity"),
    ] {
        pod[key] = json!(t.block(Block::With(expr.into())));
    }
    let container = &mut pod["containers"][0];
    container["image"] = json!(IMAGE);
    container["imagePullPolicy"] = json!(t.block(Block::With(".Values.image.pullPolicy".into())));
    container["resources"] = json!(t.block(Block::ToYaml(".Values.resources".into())));
    container["securityContext"] = json!(t.block(Block::With(".Values.securityContext".into())));
    // Without its Role the manager must not try to take the Lease: leaderElection.enabled=false
    // drops the flag that asks for it (kubebuilder's, and `kube-markers init`'s).
    let args = if leader_election {
        format!(
            "concat (ternary (without .Values.args \"{LEADER_ELECT_ARG}\") .Values.args \
             (not .Values.leaderElection.enabled)) .Values.extraArgs"
        )
    } else {
        "concat .Values.args .Values.extraArgs".into()
    };
    container["args"] = json!(t.block(Block::With(args)));
    let env = t.block(Block::Merge(".Values.env".into()));
    if let Some(vars) = container["env"].as_array_mut() {
        vars.push(json!(env));
    }
    if converting {
        return;
    }
    // The webhook server's port and certificate, behind `webhooks.enabled`; the metrics port
    // stays.
    if let Some(ports) = container.get_mut("ports").map(Value::take) {
        let (webhook, always): (Vec<Value>, Vec<Value>) = ports
            .as_array()
            .into_iter()
            .flatten()
            .cloned()
            .partition(|p| p["name"] == bundle::WEBHOOK_PORT_NAME);
        let conditional = (!webhook.is_empty()).then(|| Block::If {
            cond: webhooks.clone(),
            body: json!(webhook),
        });
        container["ports"] = match (always.is_empty(), conditional) {
            (true, Some(block)) => json!(t.block(block)),
            (_, None) => json!(always),
            (false, Some(block)) => {
                let mut items = always;
                items.push(json!(t.block(block)));
                json!(items)
            }
        };
    }
    if let Some(mounts) = container.get_mut("volumeMounts").map(Value::take) {
        container["volumeMounts"] = json!(t.block(Block::If {
            cond: webhooks,
            body: mounts
        }));
    }
}

/// The chart's directories that exist under `out_dir` (the chart, its templates and their
/// subdirectories).
pub fn directories(out_dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![out_dir.join(CHART_DIR)];
    while let Some(dir) = todo.pop() {
        if !dir.is_dir() {
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            let mut subdirs: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect();
            subdirs.sort();
            todo.extend(subdirs);
        }
        out.push(dir);
    }
    out.sort();
    out
}

/// The files an earlier run wrote into the chart (those its ledgers list): kept as they are
/// when this run cannot tell whether a bundle is wanted (`--no-scan` without identity flags).
pub fn previous_files(out_dir: &Path, generator: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in directories(out_dir) {
        let Ok(text) = std::fs::read_to_string(dir.join(ledger::file_name(generator))) else {
            continue;
        };
        let (ledger, _) = ledger::Ledger::parse(&text);
        out.extend(ledger.files.keys().map(|name| dir.join(name)));
    }
    out
}

#[cfg(test)]
mod tests;
