//! CRD versions that evolve: [`migrate`] rewrites a kind's stored objects at its storage version
//! (feature `migrate`).

#[cfg(feature = "migrate")]
#[cfg_attr(docsrs, doc(cfg(feature = "migrate")))]
pub mod migrate;

#[cfg(feature = "migrate")]
pub use migrate::{Migrated, Migration, MigrationError, Progress, migrate};
