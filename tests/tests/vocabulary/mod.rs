//! The `Vocabulary` CRD and its objects (see `types.rs`). Its types reach the tests through
//! the registry, by kind.

mod objects;
mod types;
pub use objects::{valid, with};
