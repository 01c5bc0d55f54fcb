//! Check: what a run refuses or warns about before anything is generated or written. The
//! registry against the sources ([`crosscheck`]), each `#[rbac]` against least privilege
//! ([`lints`]), the CRD types against the API conventions ([`schema_lints`]), each CRD against
//! the API server's own rules ([`crd`], the crate `kube-markers-crdcheck`) and against the
//! CRD it replaces ([`upgrade`]), and the attributes against the kube calls of the code
//! ([`calls`]).

pub mod calls;
/// The API server's checks of CRD files, in their own crate.
pub use kube_markers_crdcheck as crd;
pub mod crosscheck;
pub mod lints;
pub mod schema_lints;
pub mod upgrade;
