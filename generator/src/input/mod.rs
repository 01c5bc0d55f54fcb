//! Collect: what a run generates from. The registry linked into the generator, the workspace
//! as `cargo metadata` describes it ([`workspace`], kept by its metadata cache), its sources
//! as the token scan reads them file by file ([`scan`]) and walked module tree by module tree
//! ([`sources`]), the `cfg`s its build sets ([`cfg`](mod@cfg)), and the
//! `#[rbac]` attributes read from the sources in place of the registry ([`from_source`]).

pub(crate) mod cargo;
pub mod cfg;
pub mod from_source;
pub(crate) mod metadata_cache;
pub use kube_markers_scan as scan;
pub mod sources;
pub mod workspace;
