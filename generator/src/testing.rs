//! Registry entries for the unit tests, built as the macros would register them.

use kube_markers_core::model::{
    Attribute, RbacMarker, Source, Text, WebhookConfigurationMarker, WebhookMarker,
};
use kube_markers_registry::{RbacEntry, WebhookConfigurationEntry, WebhookEntry};

/// A list of the model's strings.
pub(crate) fn texts(list: &[&'static str]) -> Vec<Text> {
    list.iter().map(|s| Text::Borrowed(*s)).collect()
}

/// `#[rbac(groups = ..., resources = ..., verbs = ...)]`.
pub(crate) fn marker(
    groups: &[&'static str],
    resources: &[&'static str],
    verbs: &[&'static str],
) -> RbacMarker {
    RbacMarker {
        groups: texts(groups),
        resources: texts(resources),
        verbs: texts(verbs),
        ..RbacMarker::default()
    }
}

/// The attribute `marker` at `source`, without the arguments' text (the cross-check then
/// compares parsed markers).
pub(crate) fn rbac(marker: RbacMarker, source: Source) -> RbacEntry {
    Attribute::new(marker, source, "")
}

/// [`rbac`], living as long as the registry's entries do.
pub(crate) fn leaked(marker: RbacMarker, source: Source) -> &'static RbacEntry {
    Box::leak(Box::new(rbac(marker, source)))
}

/// A `#[webhook]` without a handler.
pub(crate) fn webhook(marker: WebhookMarker, source: Source) -> WebhookEntry {
    WebhookEntry::new(Attribute::new(marker, source, ""), None)
}

/// A `#[webhook_configuration]`.
pub(crate) fn webhook_configuration(
    mutating: bool,
    name: Option<&'static str>,
    source: Source,
) -> WebhookConfigurationEntry {
    let marker = WebhookConfigurationMarker {
        mutating,
        name: name.map(Text::Borrowed),
    };
    Attribute::new(marker, source, "")
}
