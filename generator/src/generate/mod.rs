//! Generate: one generator per artifact, each a plain function from what was collected to the
//! files' text. The roles ([`roles`]), the CRDs ([`crds`]), the webhook configurations
//! ([`webhooks`]) and the deploy bundle around them ([`bundle`]).

pub mod bundle;
pub mod crds;
pub mod roles;
pub mod webhooks;
