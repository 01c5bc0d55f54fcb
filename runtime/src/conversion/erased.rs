//! The two directions of a [`Spoke`] impl, type-erased to JSON in and JSON out: what a
//! `#[kube_markers::conversion]` registers ([`kube_markers_registry::ConvertFn`]).

use super::Spoke;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Spoke → hub, for the registry.
#[doc(hidden)]
pub fn __to_hub<S, H>(object: Value) -> Result<Value, String>
where
    S: Spoke<H> + DeserializeOwned,
    H: Serialize,
{
    let spoke: S = read(object)?;
    let hub = spoke.to_hub().map_err(|e| e.to_string())?;
    write(&hub)
}

/// Hub → spoke, for the registry.
#[doc(hidden)]
pub fn __from_hub<S, H>(object: Value) -> Result<Value, String>
where
    S: Spoke<H> + Serialize,
    H: DeserializeOwned,
{
    let hub: H = read(object)?;
    let spoke = S::from_hub(hub).map_err(|e| e.to_string())?;
    write(&spoke)
}

fn read<T: DeserializeOwned>(object: Value) -> Result<T, String> {
    serde_json::from_value(object).map_err(|e| {
        format!(
            "the object does not fit the type {}: {e}",
            short_type_name::<T>()
        )
    })
}

fn write<T: Serialize>(object: &T) -> Result<Value, String> {
    serde_json::to_value(object).map_err(|e| {
        format!(
            "the converted {} cannot be written as JSON: {e}",
            short_type_name::<T>()
        )
    })
}

/// `v1::MyDatabase` of `my_operator::api::v1::MyDatabase`: enough to tell versions apart.
fn short_type_name<T>() -> String {
    let full = std::any::type_name::<T>();
    let mut segments: Vec<&str> = full.rsplitn(3, "::").collect();
    segments.truncate(2);
    segments.reverse();
    segments.join("::")
}
