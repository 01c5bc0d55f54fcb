//! What a run found worth a look without stopping: each warning typed by where it comes from.

use crate::check::crosscheck::Finding;
use crate::generate::GenerateWarning;
use crate::generate::bundle::BundleWarning;
use crate::generate::webhooks::WebhookWarning;
use crate::input::workspace::GeneratorOutside;
use crate::output::FileWarning;

/// A warning of a run ([`crate::Report::warnings`]); `--deny-warnings` refuses the run with
/// any.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// The sources and the registry: an attribute the build leaves out, on purpose.
    #[error(transparent)]
    CrossCheck(Finding),
    /// Rule merges where controller-gen would keep one of the colliding rules at random.
    #[error(
        "{count} rule merge(s) collided: controller-gen would keep only one of the colliding \
         rules (at random) for these attributes, so its output would differ from this one, \
         which keeps the verbs of both"
    )]
    Collisions {
        /// How many merges collided.
        count: usize,
    },
    /// A CRD's `allow(unconverted-versions, ...)` that accepts nothing.
    #[error(transparent)]
    UnneededAllow(kube_markers_registry::crd::UnneededAllow),
    /// What the API server accepts in a CRD but `check-crds` warns of (its own warnings too).
    #[error(transparent)]
    Crd(crate::generate::crds::CrdWarning),
    /// The webhook configurations.
    #[error(transparent)]
    Webhook(WebhookWarning),
    /// The deploy bundle.
    #[error(transparent)]
    Bundle(BundleWarning),
    /// `--rbac-from-source` left a CRD or webhook file as it is, though the last build
    /// generates it otherwise.
    #[error(transparent)]
    LeftAsItIs(crate::input::from_source::LeftAsItIs),
    /// A CRD changes the one written before in a way its policy makes a warning.
    #[error("{0}")]
    Upgrade(crate::check::upgrade::UpgradeFinding),
    /// The files of earlier runs and their ledgers.
    #[error(transparent)]
    Files(FileWarning),
    /// The generator's package is not a member of the workspace it scans: its own
    /// `[package.metadata.kube-markers.bundle]` is not read.
    #[error(
        "the generator's package `{package}` ({}) is not a member of the workspace it scans \
         ({}): its [package.metadata.kube-markers.bundle] is not read, and a bundle an earlier \
         run wrote is kept as it is; declare the bundle in \
         [workspace.metadata.kube-markers.bundle] of {}, or with --operator-name",
        ours.display(),
        workspace.display(),
        workspace.display()
    )]
    GeneratorOutsideWorkspace {
        /// The generator's package name.
        package: String,
        /// The `Cargo.toml` it was built from.
        ours: std::path::PathBuf,
        /// The scanned workspace's `Cargo.toml`.
        workspace: std::path::PathBuf,
    },
    /// A kube call of the code that no `#[rbac]` grants.
    #[error(transparent)]
    Call(crate::check::calls::CallWarning),
}

impl From<GenerateWarning> for Warning {
    fn from(w: GenerateWarning) -> Warning {
        match w {
            GenerateWarning::Collisions { count } => Warning::Collisions { count },
            GenerateWarning::UnneededAllow(w) => Warning::UnneededAllow(w),
            GenerateWarning::Crd(w) => Warning::Crd(w),
            GenerateWarning::Webhook(w) => Warning::Webhook(w),
            GenerateWarning::Bundle(w) => Warning::Bundle(w),
        }
    }
}

impl From<GeneratorOutside> for Warning {
    fn from(w: GeneratorOutside) -> Warning {
        let GeneratorOutside {
            package,
            ours,
            workspace,
        } = w;
        Warning::GeneratorOutsideWorkspace {
            package,
            ours,
            workspace,
        }
    }
}
