//! Generate: one generator per artifact, each a plain function from what was collected to the
//! files' text: the roles ([`roles`]), the CRDs ([`crds`]), the webhook configurations
//! ([`webhooks`]), and the deploy bundle around them ([`bundle`]), which reads what the
//! others made. The runner ([`crate::pipeline`]) calls them in that order and only collects.

pub mod bundle;
pub mod crds;
pub mod roles;
pub mod webhooks;

use crate::Warning;
use crate::output::Output;

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
/// they are on disk (see [`crate::pipeline::Inputs::kept`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Artifact {
    /// `role.yaml`.
    Roles,
    /// The CRD files.
    Crds,
    /// `webhook/manifests.yaml`.
    Webhooks,
    /// The deploy bundle.
    Bundle,
}
