//! `#[k8s(...)]`: controller-gen's schema markers, on the fields and types of CRD structs.
//!
//! The attribute macros `#[kube_markers::crd]` (on a `CustomResource` spec struct) and
//! `#[kube_markers::schema]` (on the types it uses) read every `#[k8s(...)]` of the item,
//! check it, and replace it with a schemars transform that applies a [`Patch`] to the schema
//! schemars and kube-derive generate. Nothing is written by hand into the schema, so the
//! vocabulary composes with everything schemars and kube already do right.
//!
//! ```text
//! #[k8s(minimum = 1, maximum = 10)]                         numbers
//! #[k8s(exclusive_minimum, multiple_of = 2)]
//! #[k8s(min_length = 1, max_length = 63, pattern = "^[a-z]+$", format = "hostname")]
//! #[k8s(min_items = 1, max_items = 5, items(pattern = "^[a-z]+$", enum = ["a", "b"]))]
//! #[k8s(min_properties = 1, max_properties = 3)]
//! #[k8s(enum = ["Allow", "Forbid"])]
//! #[k8s(nullable, preserve_unknown_fields, embedded_resource, int_or_string, schemaless)]
//! #[k8s(required)] / #[k8s(optional)]
//! #[k8s(list_type = "map", list_map_keys = ["type"])]      topology
//! #[k8s(map_type = "atomic")] / #[k8s(struct_type = "atomic")]
//! #[k8s(immutable)]
//! #[k8s(validation(rule = "self.a < self.b", message = "...", message_expression = "...",
//!                  reason = "FieldValueForbidden", field_path = ".a", optional_old_self))]
//! #[k8s(at_most_one_of = ["a", "b"])] / exactly_one_of / at_least_one_of   (on types)
//! ```

pub mod allow;
mod crd_args;
mod expand;
mod patch;
mod record;
mod rules;
pub mod satisfiable;
mod shape;
mod vocabulary;

pub use crd_args::CRD_ALLOWANCES;
pub use expand::{expand_crd, expand_schema};
pub use patch::Patch;
pub use shape::{Shape, shape_of};
