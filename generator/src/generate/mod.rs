//! Generate: one generator per artifact, each a plain function from what was collected to the
//! files' text: the roles ([`roles`]), the CRDs ([`crds`]) and their reference docs
//! ([`docs`]), the webhook configurations ([`webhooks`]), and the deploy bundle around them
//! ([`bundle`]) with its Helm chart ([`chart`]), which read what the others made. The runner
//! ([`crate::pipeline`]) calls them in that order and only collects.

pub mod bundle;
pub mod chart;
pub mod crds;
pub mod docs;
pub mod roles;
pub mod webhooks;

use crate::Warning;
use crate::output::Output;
use kube_markers_registry::{
    ConversionEntry, CrdEntry, RbacEntry, WebhookConfigurationEntry, WebhookEntry,
};

/// What one generator made: its artifact (for the generators after it), its files, a line for
/// the run's summary, and its warnings.
#[derive(Debug, Default)]
pub struct Generated<T> {
    /// The artifact: the roles, the CRDs, the merged webhook configurations.
    pub artifact: T,
    /// The files, in the order they are reported.
    pub(crate) files: Vec<Output>,
    /// What it made, for the summary line; `None` when it made nothing.
    pub summary: Option<String>,
    /// What is worth a look.
    pub warnings: Vec<Warning>,
}

/// Which generator's files: an input that cannot vouch for an artifact keeps its files as
/// they are on disk (see [`Inputs::kept`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Artifact {
    /// `role.yaml`.
    Roles,
    /// The CRD files.
    Crds,
    /// The CRD reference docs, rendered from the CRDs.
    Docs,
    /// `webhook/manifests.yaml`.
    Webhooks,
    /// The deploy bundle.
    Bundle,
}

/// What a run generates from.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Inputs<'a> {
    /// `#[rbac]` attributes, sorted by source.
    pub rbac: &'a [&'a RbacEntry],
    /// `#[crd]` types.
    pub crds: &'a [&'a CrdEntry],
    /// `#[conversion]`s between their versions (the cross-check also matches them with the
    /// sources).
    pub conversions: &'a [&'a ConversionEntry],
    /// `#[webhook]`s and `#[webhook_configuration]`s.
    pub webhooks: Webhooks<'a>,
    /// The crates named by `kube_markers::link!`.
    pub linked_crates: &'a [&'a str],
    /// The artifacts this input cannot vouch for: their files are kept as they are on disk
    /// (with a warning where this run would write them otherwise). `--rbac-from-source`
    /// reads only the `#[rbac]` attributes from the sources, so it keeps the CRDs and the
    /// webhook manifests that the last build made.
    pub kept: &'a [Artifact],
}

impl<'a> Inputs<'a> {
    /// Inputs that vouch for every artifact.
    pub fn new(
        rbac: &'a [&'a RbacEntry],
        crds: &'a [&'a CrdEntry],
        webhooks: Webhooks<'a>,
        linked_crates: &'a [&'a str],
    ) -> Self {
        Inputs {
            rbac,
            crds,
            conversions: &[],
            webhooks,
            linked_crates,
            kept: &[],
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rbac.is_empty() && self.crds.is_empty() && self.webhooks.is_empty()
    }
}

/// The webhook entries a run generates from.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct Webhooks<'a> {
    /// `#[webhook]`s.
    pub webhooks: &'a [&'a WebhookEntry],
    /// `#[webhook_configuration]`s.
    pub configurations: &'a [&'a WebhookConfigurationEntry],
}

impl<'a> Webhooks<'a> {
    /// Webhooks and configuration names.
    pub fn new(
        webhooks: &'a [&'a WebhookEntry],
        configurations: &'a [&'a WebhookConfigurationEntry],
    ) -> Self {
        Webhooks {
            webhooks,
            configurations,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.webhooks.is_empty() && self.configurations.is_empty()
    }
}
