//! Write: the files a run generated, planned against what is on disk and its ledgers
//! (its plan and ledgers), then written or checked ([`write`](mod@write)), in controller-gen's YAML
//! ([`yaml`]).

pub mod files;
pub(crate) mod ledger;
pub(crate) mod plan;
pub mod write;
pub mod yaml;

pub(crate) use files::{Destination, Output};
pub use files::{FileStatus, FileWarning, Orphan, OutputProblem};
