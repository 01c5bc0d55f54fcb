//! Round trips for users' tests: spoke → hub → spoke and hub → spoke → hub must give back what
//! they started from, as the API server's reads and writes at either version will. Each check
//! names every field (JSON path) the trip lost, changed or added.
//!
//! `metadata` is compared on `labels` and `annotations` only: the API server restores every
//! other field of it after a conversion, whatever the conversion returned; an empty map of
//! either is the same as none.

use super::Spoke;
use serde::Serialize;
use serde_json::Value;

/// A round trip that did not give back what it started from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RoundTripError {
    /// A conversion of the trip failed.
    #[error("{trip}: the conversion to {step} failed: {message}")]
    Failed {
        /// `v1::MyDatabase -> v2::MyDatabase -> v1::MyDatabase`.
        trip: String,
        /// The version it converted to.
        step: String,
        /// The conversion's message.
        message: String,
    },
    /// The object came back different.
    #[error("{trip} {}", differences(.lost, .changed, .added))]
    Differs {
        /// `v1::MyDatabase -> v2::MyDatabase -> v1::MyDatabase`.
        trip: String,
        /// The fields that were there and are gone (JSON paths: `.spec.replicas`).
        lost: Vec<String>,
        /// The fields whose value is not the one they had.
        changed: Vec<String>,
        /// The fields that were not there.
        added: Vec<String>,
    },
}

fn differences(lost: &[String], changed: &[String], added: &[String]) -> String {
    let mut parts = Vec::new();
    for (what, paths) in [("lost", lost), ("changed", changed), ("added", added)] {
        if !paths.is_empty() {
            parts.push(format!("{what} {}", paths.join(", ")));
        }
    }
    parts.join("; ")
}

/// Spoke → hub → spoke: `Ok` when `spoke` comes back as it was.
pub fn check_spoke_round_trip<S, H>(spoke: &S) -> Result<(), RoundTripError>
where
    S: Spoke<H> + Clone + Serialize,
{
    let trip = format!("{s} -> {h} -> {s}", s = short::<S>(), h = short::<H>());
    let failed = |step: String, e: S::Error| RoundTripError::Failed {
        trip: trip.clone(),
        step,
        message: e.to_string(),
    };
    let hub = spoke
        .clone()
        .to_hub()
        .map_err(|e| failed(short::<H>(), e))?;
    let back = S::from_hub(hub).map_err(|e| failed(short::<S>(), e))?;
    compare(&trip, spoke, &back)
}

/// Hub → spoke → hub: `Ok` when `hub` comes back as it was.
pub fn check_hub_round_trip<S, H>(hub: &H) -> Result<(), RoundTripError>
where
    S: Spoke<H>,
    H: Clone + Serialize,
{
    let trip = format!("{h} -> {s} -> {h}", s = short::<S>(), h = short::<H>());
    let failed = |step: String, e: S::Error| RoundTripError::Failed {
        trip: trip.clone(),
        step,
        message: e.to_string(),
    };
    let spoke = S::from_hub(hub.clone()).map_err(|e| failed(short::<S>(), e))?;
    let back = spoke.to_hub().map_err(|e| failed(short::<H>(), e))?;
    compare(&trip, hub, &back)
}

fn compare<T: Serialize>(trip: &str, before: &T, after: &T) -> Result<(), RoundTripError> {
    let comparable = |object: &T| {
        let mut value = serde_json::to_value(object).unwrap_or(Value::Null);
        if let Some(Value::Object(metadata)) = value.get_mut("metadata") {
            // An empty map is no map to the API server (Go's `omitempty`).
            metadata.retain(|k, v| {
                (k == "labels" || k == "annotations")
                    && v.as_object().is_some_and(|m| !m.is_empty())
            });
        }
        value
    };
    let (mut lost, mut changed, mut added) = (Vec::new(), Vec::new(), Vec::new());
    diff(
        "",
        &comparable(before),
        &comparable(after),
        &mut lost,
        &mut changed,
        &mut added,
    );
    if lost.is_empty() && changed.is_empty() && added.is_empty() {
        return Ok(());
    }
    Err(RoundTripError::Differs {
        trip: trip.to_string(),
        lost,
        changed,
        added,
    })
}

/// The paths where `after` differs from `before`. A `null` field and a missing one are the
/// same (serde writes `None` either way, and the API server prunes neither).
fn diff(
    path: &str,
    before: &Value,
    after: &Value,
    lost: &mut Vec<String>,
    changed: &mut Vec<String>,
    added: &mut Vec<String>,
) {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (key, value) in b {
                let at = child(path, key);
                match a.get(key) {
                    Some(other) => diff(&at, value, other, lost, changed, added),
                    None if value.is_null() => {}
                    None => lost.push(at),
                }
            }
            for (key, value) in a {
                if !b.contains_key(key) && !value.is_null() {
                    added.push(child(path, key));
                }
            }
        }
        (Value::Array(b), Value::Array(a)) if b.len() == a.len() => {
            for (i, (value, other)) in b.iter().zip(a).enumerate() {
                diff(&format!("{path}[{i}]"), value, other, lost, changed, added);
            }
        }
        (b, a) if b == a => {}
        _ => changed.push(if path.is_empty() {
            ".".into()
        } else {
            path.into()
        }),
    }
}

/// The JSON path of `key` in the object at `path`: `.key` when the key is an identifier,
/// `["db.example.com/key"]` otherwise.
fn child(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{key:?}]")
    }
}

fn short<T>() -> String {
    let full = std::any::type_name::<T>();
    let mut segments: Vec<&str> = full.rsplitn(3, "::").collect();
    segments.truncate(2);
    segments.reverse();
    segments.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversion::test_kinds::{v1, v1alpha1, v2};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn meta() -> ObjectMeta {
        ObjectMeta {
            name: Some("w".into()),
            namespace: Some("ns".into()),
            resource_version: Some("3".into()),
            ..ObjectMeta::default()
        }
    }

    fn hub(name: &str, tag: &str) -> v2::Widget {
        v2::Widget {
            metadata: meta(),
            spec: v2::WidgetSpec {
                size: 2,
                image: v2::Image {
                    name: name.into(),
                    tag: tag.into(),
                },
            },
        }
    }

    #[test]
    fn a_lossless_pair_passes_both_ways() {
        let mut spoke = v1::Widget::new(
            "w",
            v1::WidgetSpec {
                replicas: 2,
                image: "nginx:1.27".into(),
            },
        );
        spoke.metadata.labels = Some([("converted".into(), "true".into())].into());
        spoke.metadata.annotations =
            Some([("test.kube-markers.dev/tag".into(), "1.27".into())].into());
        check_spoke_round_trip::<_, v2::Widget>(&spoke).unwrap();
        // The hub keeps no trace of v1's label: its round trip adds it.
        let err = check_hub_round_trip::<v1::Widget, _>(&hub("nginx", "1.27")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "v2::Widget -> v1::Widget -> v2::Widget added .metadata.labels"
        );
    }

    #[test]
    fn every_lost_changed_or_added_field_is_named_by_its_path() {
        let spoke = v1::Widget::new(
            "w",
            v1::WidgetSpec {
                replicas: 2,
                image: "nginx".into(),
            },
        );
        let err = check_spoke_round_trip::<_, v2::Widget>(&spoke).unwrap_err();
        assert_eq!(
            err,
            RoundTripError::Differs {
                trip: "v1::Widget -> v2::Widget -> v1::Widget".into(),
                lost: vec![],
                changed: vec![".spec.image".into()],
                added: vec![".metadata.annotations".into(), ".metadata.labels".into()],
            }
        );
        let err = check_hub_round_trip::<v1alpha1::Widget, _>(&hub("nginx", "1")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "v2::Widget -> v1alpha1::Widget -> v2::Widget changed .spec.image.name, .spec.image.tag"
        );
    }

    #[test]
    fn a_failed_conversion_names_the_step() {
        let spoke = v1::Widget::new(
            "w",
            v1::WidgetSpec {
                replicas: -2,
                image: "nginx".into(),
            },
        );
        assert_eq!(
            check_spoke_round_trip::<_, v2::Widget>(&spoke)
                .unwrap_err()
                .to_string(),
            "v1::Widget -> v2::Widget -> v1::Widget: the conversion to v2::Widget failed: \
             replicas must not be negative, not -2"
        );
    }

    #[test]
    fn paths_quote_keys_that_are_not_identifiers_and_index_arrays() {
        let (mut lost, mut changed, mut added) = (Vec::new(), Vec::new(), Vec::new());
        diff(
            "",
            &serde_json::json!({"a": {"x.y/z": 1, "n": null}, "l": [1, 2], "m": [1]}),
            &serde_json::json!({"a": {}, "l": [1, 3], "m": [1, 2], "new": {"k": 1}, "nil": null}),
            &mut lost,
            &mut changed,
            &mut added,
        );
        assert_eq!(lost, [r#".a["x.y/z"]"#]);
        assert_eq!(changed, [".l[1]", ".m"]);
        assert_eq!(added, [".new"]);
    }
}
