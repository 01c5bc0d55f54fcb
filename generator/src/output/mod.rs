//! Write: the files a run generated, planned against what is on disk and its ledgers, then
//! written or checked ([`write`], [`ledger`]), in controller-gen's YAML ([`yaml`]).

pub(crate) mod ledger;
pub mod write;
pub mod yaml;
