//! Collect: what a run generates from. The registry linked into the generator, the workspace
//! as `cargo metadata` describes it ([`workspace`], kept by its metadata cache), its sources
//! as the token scan reads them file by file ([`scan`]) and walked module tree by module tree
//! ([`sources`]), the `cfg`s its build sets ([`cfg`](mod@cfg)), and the
//! `#[rbac]` attributes read from the sources in place of the registry ([`from_source`]).

pub(crate) mod cargo;
pub mod cfg;
pub mod from_source;
pub(crate) mod metadata_cache;
pub(crate) mod scan_error;
pub use kube_markers_scan as scan;
pub mod sources;
pub mod workspace;

use crate::timings::Timings;
use kube_markers_registry::{
    ConversionEntry, CrdEntry, RbacEntry, WebhookConfigurationEntry, WebhookEntry,
};
use std::fmt;
use std::path::PathBuf;

/// Where an attribute stands: its file (relative to the workspace root when inside it), line
/// and column, as the compiler counts them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub struct Place {
    /// The file, relative to the workspace root when it is inside it.
    pub file: String,
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based), or `None` where only the line is known.
    pub column: Option<usize>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if let Some(column) = self.column {
            write!(f, ":{column}")?;
        }
        Ok(())
    }
}

/// What an input learned while collecting: the workspace's `cargo metadata` (none with
/// `--no-scan`), whether the generator stands outside it, a note for the summary, and the
/// run's clock.
pub(crate) struct Collected {
    pub(crate) metadata: Option<cargo_metadata::Metadata>,
    /// The workspace's root, where the default `--out` goes (none with `--no-scan`: then it is
    /// relative to the current directory).
    pub(crate) workspace_root: Option<PathBuf>,
    /// The generator's package is not a member of the workspace scanned (a warning).
    pub(crate) outside: Option<workspace::GeneratorOutside>,
    pub(crate) note: Option<String>,
    /// The kube calls of the linked crates' sources, read by the scan; held against the
    /// attributes once the CRDs (whose kinds they need) are generated.
    pub(crate) calls: Option<Vec<sources::FoundCalls>>,
    pub(crate) timings: Timings,
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
    /// The deploy bundle's Helm chart.
    Chart,
}

impl Artifact {
    /// Its name, for the run's timings.
    pub fn name(self) -> &'static str {
        match self {
            Artifact::Roles => "roles",
            Artifact::Crds => "CRDs",
            Artifact::Docs => "docs",
            Artifact::Webhooks => "webhooks",
            Artifact::Bundle => "bundle",
            Artifact::Chart => "chart",
        }
    }
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
