//! The CRDs of the `#[kube_markers::crd]` types linked into this binary, at run time: exactly
//! what the generator writes (one per group and kind, versions merged, root rules applied), to
//! install from code with [`definitions`] and [`definition`].
//!
//! The merge is the registry's (`kube_markers::registry::crd`), shared with the generator; the
//! checks against the API server's rules are the generator's alone (they need a CEL checker
//! and a JSON Schema validator, which operators should not link), so run it in CI: what it
//! accepts, these return unchanged.

mod registered;

pub use kube_markers_registry::crd::{
    CrdProblem, CrdType, SchemaPatch, SchemaProblem, VERSION_ANNOTATION, apply_patch,
};
pub use registered::{DefinitionError, definition, definition_of, definitions};
