//! Every `#[kube_markers::crd]` and `#[kube_markers::schema]` item of the linked crates: its
//! fields, their JSON names and places, and their `#[k8s(allow(...))]`s, for the generator's
//! API-convention lints and compatibility checks.

use linkme::distributed_slice;
use std::sync::OnceLock;

pub use kube_markers_core::schema_types::{
    COMPAT_CHECKS, SchemaAllow, SchemaField, SchemaLint, SchemaType, SchemaTypeKind,
};

/// What a `#[kube_markers::crd]` or `#[kube_markers::schema]` expands to, beside the item:
/// its `data` is `SchemaType::encode` of the item.
#[doc(hidden)]
pub type SchemaTypeRecord = crate::header::Record;

/// Every such item of the linked crates; [`schema_types`] reads them.
#[doc(hidden)]
#[distributed_slice]
pub static SCHEMA_TYPE_RECORDS: [SchemaTypeRecord];

const _: fn() -> [&'static linkme::DistributedSlice<[SchemaTypeRecord]>; 1] =
    || [&SCHEMA_TYPE_RECORDS];

/// The registered CRD types and the types of their schemas, sorted by source location.
pub fn schema_types() -> Vec<&'static SchemaType> {
    static TYPES: OnceLock<Vec<SchemaType>> = OnceLock::new();
    let all = TYPES.get_or_init(|| {
        let linked = SCHEMA_TYPE_RECORDS.static_slice();
        let mut all: Vec<SchemaType> = crate::export::or_loaded(linked, |l| l.schema_types)
            .iter()
            .map(|r| {
                SchemaType::decode(r.data, r.file, r.module_path)
                    .unwrap_or_else(|| r.foreign("kube_markers::schema"))
            })
            .collect();
        all.sort_by(|a, b| a.source.cmp(&b.source));
        all
    });
    all.iter().collect()
}
