//! `#[kube_markers::conversion]`: registers an `impl Spoke<Hub> for SpokeType` (the trait of
//! `kube_markers::conversion`) as the conversion of a served version of a kind (the spoke) to
//! and from its storage version (the hub), for the generator (`spec.conversion`) and the
//! webhook server (`/convert`).
//!
//! ```text
//! #[kube_markers::conversion]
//! impl Spoke<v2::MyDatabase> for v1::MyDatabase {
//!     type Error = ConversionError;
//!     fn to_hub(self) -> Result<v2::MyDatabase, ConversionError> { ... }
//!     fn from_hub(hub: v2::MyDatabase) -> Result<Self, ConversionError> { ... }
//! }
//! ```
//!
//! The data's path: [`parse`] reads the attribute's (empty) arguments and the `impl` into a
//! [`ConversionImpl`], every problem on its own span; [`expand`] emits the `impl` unchanged
//! and one `ConversionEntry` static, or the `impl` and the errors.

mod expand;
mod parse;

pub use expand::expand;
pub use parse::{ConversionImpl, TRAIT, parse};

#[cfg(test)]
mod tests;
