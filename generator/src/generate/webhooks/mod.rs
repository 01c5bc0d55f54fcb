//! The webhooks generator: the `#[webhook]` attributes → the
//! `{Mutating,Validating}WebhookConfiguration`s → `manifests.yaml`, as controller-gen's webhook
//! generator writes it: merge ([`configurations`]) → render ([`render`]).

use crate::generate::{Artifacts, Context, GenerateError, GenerateWarning, Generated};
use crate::output::Output;
pub use kube_markers_core::model::{WebhookClient, WebhookConfigurationMarker, WebhookMarker};
pub use kube_markers_core::webhook::ObjectProblem;
use kube_markers_registry::{Attribute, Source, WebhookConfigurationEntry};
use serde_json::{Value, json};

/// The file controller-gen writes for admissionregistration/v1 configurations.
pub const FILE_NAME: &str = "manifests.yaml";

/// The configuration kind of mutating or validating webhooks.
fn configuration_kind(mutating: bool) -> &'static str {
    if mutating {
        "MutatingWebhookConfiguration"
    } else {
        "ValidatingWebhookConfiguration"
    }
}

/// Why the webhooks cannot be merged into their configurations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookProblem {
    /// Two `#[webhook_configuration]`s name the configuration of one kind.
    #[error(
        "two #[webhook_configuration(mutating = {mutating})] name the one {}: {first} and \
         {second}; keep one", configuration_kind(*mutating)
    )]
    ConfigurationNamedTwice {
        /// Which configuration: mutating or validating.
        mutating: bool,
        /// The first attribute.
        first: Source,
        /// The second.
        second: Source,
    },
    /// A `#[webhook]` does not make a webhook the API server accepts.
    #[error("{at}: #[webhook] {name:?}: {problem}")]
    Webhook {
        /// Where the attribute stands.
        at: Source,
        /// The webhook's name.
        name: String,
        /// What is wrong with it.
        problem: ObjectProblem,
    },
}

/// What merging found.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Merged {
    /// The configuration objects: the mutating one, then the validating one, each only when
    /// it has webhooks.
    pub documents: Vec<Value>,
    /// Things the API server would refuse or that do nothing, which controller-gen writes
    /// anyway.
    pub warnings: Vec<WebhookWarning>,
}

/// Webhook configurations that controller-gen writes, but that do nothing or that the API
/// server refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookWarning {
    /// A `#[webhook_configuration]` names a configuration that has no webhooks.
    #[error(
        "{at}: #[webhook_configuration(mutating = {mutating})] names a {}, but no #[webhook] is \
         {}: nothing is generated for it",
        configuration_kind(*mutating),
        if *mutating { "mutating" } else { "validating" }
    )]
    UnusedName {
        /// Where the attribute stands.
        at: Source,
        /// Which configuration it names.
        mutating: bool,
    },
    /// Two webhooks of one configuration share a name.
    #[error(
        "two webhooks of the {} are named {name:?}: the API server refuses duplicate webhook \
         names in one configuration",
        configuration_kind(*mutating)
    )]
    DuplicateName {
        /// Which configuration.
        mutating: bool,
        /// The name.
        name: String,
    },
}

/// Merge: webhooks into their configuration, sorted by name (stable, so equal names keep
/// source order); configuration names from `#[webhook_configuration]`.
pub fn configurations(
    webhooks: &[&Attribute<WebhookMarker>],
    names: &[&WebhookConfigurationEntry],
) -> Result<Merged, Vec<WebhookProblem>> {
    let mut errors = Vec::new();
    let mut merged = Merged::default();
    for mutating in [true, false] {
        let kind = configuration_kind(mutating);
        let named: Vec<&&WebhookConfigurationEntry> = names
            .iter()
            .filter(|n| n.marker.mutating == mutating)
            .collect();
        if let [first, second, ..] = named.as_slice() {
            errors.push(WebhookProblem::ConfigurationNamedTwice {
                mutating,
                first: first.source.clone(),
                second: second.source.clone(),
            });
            continue;
        }
        let mut objects = Vec::new();
        for webhook in webhooks.iter().filter(|w| w.marker.mutating == mutating) {
            match kube_markers_core::webhook::webhook_object(&webhook.marker) {
                Ok(object) => objects.push(object),
                Err(problems) => {
                    errors.extend(problems.into_iter().map(|problem| WebhookProblem::Webhook {
                        at: webhook.source.clone(),
                        name: webhook.marker.name.to_string(),
                        problem,
                    }));
                }
            }
        }
        if objects.is_empty() {
            if let Some(n) = named.first() {
                merged.warnings.push(WebhookWarning::UnusedName {
                    at: n.source.clone(),
                    mutating,
                });
            }
            continue;
        }
        let name_of = |o: &Value| o["name"].as_str().unwrap_or_default().to_string();
        objects.sort_by_key(name_of);
        for pair in objects.windows(2) {
            if name_of(&pair[0]) == name_of(&pair[1]) {
                merged.warnings.push(WebhookWarning::DuplicateName {
                    mutating,
                    name: name_of(&pair[0]),
                });
            }
        }
        let default_name = if mutating {
            "mutating-webhook-configuration"
        } else {
            "validating-webhook-configuration"
        };
        let name = named
            .first()
            .and_then(|n| n.marker.name.as_deref())
            .unwrap_or(default_name);
        merged.documents.push(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind,
            "metadata": { "name": name },
            "webhooks": objects,
        }));
    }
    if errors.is_empty() {
        Ok(merged)
    } else {
        Err(errors)
    }
}

/// `manifests.yaml` of the webhooks (`--webhook-out`): controller-gen writes no file when there
/// are none.
pub fn generate(ctx: &Context, made: &mut Artifacts) -> Result<Generated, GenerateError> {
    let (inputs, opts) = (ctx.inputs, ctx.opts);
    let webhooks: Vec<&Attribute<WebhookMarker>> = inputs
        .webhooks
        .webhooks
        .iter()
        .map(|w| &w.attribute)
        .collect();
    let merged = configurations(&webhooks, inputs.webhooks.configurations)
        .map_err(GenerateError::Webhook)?;
    let warnings = merged
        .warnings
        .iter()
        .cloned()
        .map(GenerateWarning::Webhook)
        .collect();
    let mut generated = Generated {
        warnings,
        ..Generated::default()
    };
    if !merged.documents.is_empty() {
        generated.summary = Some(format!(
            "{} webhook(s) in {} configuration(s)",
            webhooks.len(),
            merged.documents.len()
        ));
        generated.files.push(Output {
            path: opts.webhook_dir().join(FILE_NAME),
            content: render(&merged, ctx.header),
            what: "the webhook manifests".into(),
            option: "--webhook-out",
        });
    }
    made.webhooks = merged;
    Ok(generated)
}

/// Render: the header, then one `---` document per configuration.
pub fn render(merged: &Merged, header: &str) -> String {
    crate::output::yaml::render_documents(header, &merged.documents)
}

#[cfg(test)]
mod tests;
