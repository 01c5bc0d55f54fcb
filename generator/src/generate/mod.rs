//! Generate: one generator per artifact, each a function of one signature ([`Generator`]) from
//! what was collected ([`Context`]) and what the generators before it made ([`Artifacts`]) to
//! the files' text: the roles ([`roles`]), the CRDs ([`crds`]), the webhook configurations
//! ([`webhooks`]), the CRDs' reference docs ([`docs`]), the deploy bundle around them
//! ([`bundle`]) and its Helm chart ([`chart`]). The runner ([`crate::pipeline`]) loops over
//! [`GENERATORS`] and only collects what they return.

pub mod bundle;
pub mod chart;
pub mod crds;
pub mod docs;
pub mod roles;
pub mod webhooks;

pub use crate::input::{Artifact, Inputs, Webhooks};

use crate::options::Options;
use crate::output::Output;
use crate::output::files::IoFailure;
use kube_markers_rbac::GeneratedRole;
use std::path::PathBuf;

/// What every generator reads of the run: the collected inputs, the options, the text before
/// every manifest, and the command that regenerates the files (for their notices).
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The attributes and entries the run generates from.
    pub inputs: &'a Inputs<'a>,
    /// The run's options, `--out` placed in the workspace.
    pub opts: &'a Options,
    /// `--header-file`'s text.
    pub header: &'a str,
    /// The command that regenerates the files, as their notices name it.
    pub regenerate: &'a str,
    /// The workspace's `cargo metadata` (none with `--no-scan`): the bundle's identity.
    pub metadata: Option<&'a cargo_metadata::Metadata>,
}

/// What the generators made, for the generators after them (and the checks of the CRDs).
#[derive(Debug, Default)]
pub struct Artifacts {
    /// The merged roles.
    pub roles: Vec<GeneratedRole>,
    /// The CRDs.
    pub crds: Vec<crds::GeneratedCrd>,
    /// The merged webhook configurations.
    pub webhooks: webhooks::Merged,
    /// The deploy bundle's identity, when one is generated; what the chart templates.
    pub bundle: bundle::Decided,
    /// Each file so far with the generator that made it.
    pub files: Vec<(Artifact, PathBuf)>,
}

impl Artifacts {
    /// The files `artifacts` made, relative to `out_dir` (those inside it).
    pub fn files_of(&self, artifacts: &[Artifact], out_dir: &std::path::Path) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|(a, _)| artifacts.contains(a))
            .filter_map(|(_, path)| path.strip_prefix(out_dir).ok().map(Into::into))
            .collect()
    }
}

/// What one generator made: its files, a line for the run's summary, and its warnings.
#[derive(Debug, Default)]
pub struct Generated {
    /// The files, in the order they are reported.
    pub(crate) files: Vec<Output>,
    /// What it made, for the summary line; `None` when it made nothing.
    pub summary: Option<String>,
    /// What is worth a look.
    pub warnings: Vec<GenerateWarning>,
}

/// An artifact's generator: reads the run and what the generators before it made, adds its
/// own artifact to `made`, and returns its files.
pub type Generator = fn(&Context, &mut Artifacts) -> Result<Generated, GenerateError>;

/// Every generator, in the order the run calls them and reports their files: the bundle and
/// its chart read what the others made.
pub const GENERATORS: [(Artifact, Generator); 6] = [
    (Artifact::Roles, roles::generate),
    (Artifact::Crds, crds::generate),
    (Artifact::Webhooks, webhooks::generate),
    (Artifact::Docs, docs::generate),
    (Artifact::Bundle, bundle::generate_for_run),
    (Artifact::Chart, chart::generate_for_run),
];

/// Why a generator refuses the run; nothing was written. The runner reports each as the run's
/// error of the same name (`Error::Crd`, ...).
#[derive(Debug)]
#[non_exhaustive]
pub enum GenerateError {
    /// A file of an earlier run, kept as it is, cannot be read.
    Io(IoFailure),
    /// CRDs that cannot be generated, or that the API server would reject.
    Crd(Vec<kube_markers_registry::crd::CrdProblem>),
    /// Webhooks that cannot be merged into their configurations.
    Webhook(Vec<webhooks::WebhookProblem>),
    /// The deploy bundle's identity or names are wrong.
    Bundle(Vec<bundle::BundleProblem>),
}

impl From<IoFailure> for GenerateError {
    fn from(e: IoFailure) -> GenerateError {
        GenerateError::Io(e)
    }
}

/// What a generator found worth a look. The runner reports each as the run's warning of the
/// same name (`Warning::Crd`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenerateWarning {
    /// Rule merges where controller-gen would keep one of the colliding rules at random.
    Collisions {
        /// How many merges collided.
        count: usize,
    },
    /// A CRD's `allow(unconverted-versions, ...)` that accepts nothing.
    UnneededAllow(kube_markers_registry::crd::UnneededAllow),
    /// What the API server accepts in a CRD but `check-crds` warns of.
    Crd(crds::CrdWarning),
    /// The webhook configurations.
    Webhook(webhooks::WebhookWarning),
    /// The deploy bundle.
    Bundle(bundle::BundleWarning),
}
