//! One pass over a request body before any handler decodes it: its `apiVersion` and `kind`,
//! the `request`'s `uid` and `dryRun`, and what decoding the whole body as JSON values would
//! cost.
//!
//! A handler of [`DynamicObject`](kube::core::DynamicObject)s decodes every field into
//! `serde_json::Value`s: 32 bytes a value plus the maps' nodes and the strings, so an 8 MiB
//! review of one long array of small numbers took 352 MB. The estimate counts those bytes as
//! serde_json allocates them (BTreeMap nodes, vectors grown by doubling, strings), twice
//! (serde's buffer of a flattened struct's content is alive with them), without allocating
//! them; a body over the server's decode limit is refused before any handler sees it.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The `apiVersion` and `kind` a route's bodies must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReviewType {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
}

/// What the API server sends an admission webhook (the server answers in this version).
pub(crate) const ADMISSION_REVIEW: ReviewType = ReviewType {
    api_version: "admission.k8s.io/v1",
    kind: "AdmissionReview",
};

/// What the API server sends a conversion webhook.
pub(crate) const CONVERSION_REVIEW: ReviewType = ReviewType {
    api_version: crate::conversion::REVIEW_API_VERSION,
    kind: crate::conversion::REVIEW_KIND,
};

impl fmt::Display for ReviewType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.api_version, self.kind)
    }
}

/// The parts of a review the server reads itself.
#[derive(Debug, Default)]
pub(crate) struct Envelope {
    pub(crate) api_version: Option<String>,
    pub(crate) kind: Option<String>,
    /// The `request`'s `uid` and `dryRun`, when there is a `request` object.
    pub(crate) request: Option<RequestProbe>,
    /// About how many bytes decoding the body as a `DynamicObject` handler does allocates at
    /// its peak.
    pub(crate) decoded_size: u64,
}

#[derive(Debug, Default)]
pub(crate) struct RequestProbe {
    pub(crate) uid: Option<String>,
    pub(crate) dry_run: bool,
}

impl Envelope {
    /// Reads `body`; an error when it is not a JSON object.
    pub(crate) fn read(body: &[u8]) -> serde_json::Result<Envelope> {
        let mut deserializer = serde_json::Deserializer::from_slice(body);
        let mut envelope = EnvelopeVisitor.visit(&mut deserializer)?;
        deserializer.end()?;
        // `DynamicObject` flattens its fields: serde buffers each object's whole content
        // before the values are built from it, and both are alive at the peak (measured:
        // 63 MiB for a review of a million numbers, whose values take 32).
        envelope.decoded_size *= 2;
        Ok(envelope)
    }

    /// Why the body is not a `expected`, if it is not.
    pub(crate) fn mismatch(&self, expected: ReviewType) -> Option<String> {
        if self.api_version.as_deref() == Some(expected.api_version)
            && self.kind.as_deref() == Some(expected.kind)
        {
            return None;
        }
        let shown = |v: &Option<String>| v.as_deref().map_or("no".into(), |v| format!("{v:?}"));
        Some(format!(
            "the request body is not an {expected}: its apiVersion is {} and its kind {}",
            shown(&self.api_version),
            shown(&self.kind)
        ))
    }
}

struct EnvelopeVisitor;

impl EnvelopeVisitor {
    fn visit<'de, D: Deserializer<'de>>(self, d: D) -> Result<Envelope, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a review object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope, A::Error> {
        let mut envelope = Envelope::default();
        let mut entries = 0;
        while let Some(key) = map.next_key::<String>()? {
            entries += 1;
            envelope.decoded_size += string(key.len());
            match key.as_str() {
                "apiVersion" | "kind" => {
                    let value: Option<String> = map.next_value()?;
                    envelope.decoded_size += value.as_ref().map_or(0, |v| string(v.len()));
                    *if key == "kind" {
                        &mut envelope.kind
                    } else {
                        &mut envelope.api_version
                    } = value;
                }
                "request" => {
                    let (request, size) = map.next_value_seed(RequestSeed)?;
                    envelope.request = request;
                    envelope.decoded_size += size;
                }
                _ => envelope.decoded_size += map.next_value_seed(Cost)?,
            }
        }
        envelope.decoded_size += map_nodes(entries) + VALUE;
        Ok(envelope)
    }
}

/// The `request`: its `uid` and `dryRun` read, everything costed.
struct RequestSeed;

impl<'de> DeserializeSeed<'de> for RequestSeed {
    type Value = (Option<RequestProbe>, u64);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RequestSeed {
    type Value = (Option<RequestProbe>, u64);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an admission request object")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok((None, 0))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut probe = RequestProbe::default();
        let (mut size, mut entries) = (0, 0);
        while let Some(key) = map.next_key::<String>()? {
            entries += 1;
            size += string(key.len());
            match key.as_str() {
                "uid" => {
                    let uid: Option<String> = map.next_value()?;
                    size += uid.as_ref().map_or(0, |v| string(v.len()));
                    probe.uid = uid;
                }
                "dryRun" => probe.dry_run = map.next_value::<Option<bool>>()?.unwrap_or(false),
                _ => size += map.next_value_seed(Cost)?,
            }
        }
        Ok((Some(probe), size + map_nodes(entries)))
    }
}

/// The size of a JSON value `serde_json::Value`.
const VALUE: u64 = std::mem::size_of::<serde_json::Value>() as u64;

/// What a heap block of `n` bytes takes from a malloc (its header, 16-byte rounding).
fn block(n: u64) -> u64 {
    (n + 8).div_ceil(16).max(2) * 16
}

fn string(len: usize) -> u64 {
    if len == 0 { 0 } else { block(len as u64) }
}

/// The nodes of a `BTreeMap<String, Value>` of `entries` (11 a node, about half full when
/// built in order).
fn map_nodes(entries: u64) -> u64 {
    const NODE: u64 = 11 * (24 + VALUE) + 16;
    let nodes = match entries {
        0 => 0,
        1..=11 => 1,
        n => n.div_ceil(6),
    };
    nodes * block(NODE)
}

/// A vector of `elements` values, grown by doubling from 4.
fn array(elements: u64) -> u64 {
    if elements == 0 {
        0
    } else {
        block(elements.next_power_of_two().max(4) * VALUE)
    }
}

/// The heap bytes of one JSON value as a `serde_json::Value` (its own 32 bytes are its
/// container's).
struct Cost;

impl<'de> DeserializeSeed<'de> for Cost {
    type Value = u64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Cost {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_i64<E>(self, _: i64) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_u64<E>(self, _: u64) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_f64<E>(self, _: f64) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_unit<E>(self) -> Result<u64, E> {
        Ok(0)
    }
    fn visit_str<E>(self, v: &str) -> Result<u64, E> {
        Ok(string(v.len()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let (mut size, mut elements) = (0, 0);
        while let Some(element) = seq.next_element_seed(Cost)? {
            size += element;
            elements += 1;
        }
        Ok(size + array(elements))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let (mut size, mut entries) = (0, 0);
        while let Some(key) = map.next_key_seed(Cost)? {
            size += key + map.next_value_seed(Cost)?;
            entries += 1;
        }
        Ok(size + map_nodes(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_is_read_and_checked() {
        let body = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
            "request":{"uid":"u-1","dryRun":true,"object":{"a":[1,2]}}}"#;
        let envelope = Envelope::read(body).unwrap();
        assert_eq!(envelope.mismatch(ADMISSION_REVIEW), None);
        let request = envelope.request.unwrap();
        assert_eq!(request.uid.as_deref(), Some("u-1"));
        assert!(request.dry_run);

        let pod = Envelope::read(br#"{"apiVersion":"v1","kind":"Pod"}"#).unwrap();
        assert_eq!(
            pod.mismatch(ADMISSION_REVIEW).unwrap(),
            "the request body is not an admission.k8s.io/v1 AdmissionReview: \
             its apiVersion is \"v1\" and its kind \"Pod\""
        );
        let bare = Envelope::read(b"{}").unwrap();
        assert_eq!(
            bare.mismatch(ADMISSION_REVIEW).unwrap(),
            "the request body is not an admission.k8s.io/v1 AdmissionReview: \
             its apiVersion is no and its kind no"
        );
        assert!(Envelope::read(b"[1]").is_err());
        assert!(Envelope::read(b"{} x").is_err());
        assert!(Envelope::read(b"{\"request\": 3}").is_err());
    }

    /// An update of the largest object the API server stores (etcd's default limit is
    /// 1.5 MiB; its body limit 3 MiB), object and old object, as a ConfigMap of entries of
    /// about 24 bytes: well under the default decode limit.
    #[test]
    fn the_largest_objects_the_api_server_stores_fit_the_default_limit() {
        let data: serde_json::Map<String, serde_json::Value> = (0..65_000)
            .map(|i| (format!("key-{i:06}"), format!("value-{i:06}").into()))
            .collect();
        let object = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "big", "namespace": "ns"}, "data": data});
        let body = serde_json::to_vec(&serde_json::json!({
            "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "u", "object": object, "oldObject": object}}))
        .unwrap();
        assert!(body.len() > 3 << 20, "{}", body.len());
        let size = Envelope::read(&body).unwrap().decoded_size;
        assert!(
            size < 48 << 20,
            "{} MiB for {} bytes",
            size >> 20,
            body.len()
        );
    }

    /// A body with `n` small numbers in an unknown field costs about 64 bytes a number (a
    /// value, and serde's buffer of it), not the 2 bytes each takes in the body.
    #[test]
    fn numeric_arrays_cost_a_value_per_number() {
        let n = 100_000;
        let numbers = vec!["1"; n].join(",");
        let body = format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"object":{{"x":[{numbers}]}}}}}}"#
        );
        let size = Envelope::read(body.as_bytes()).unwrap().decoded_size;
        assert!(size >= 2 * 32 * n as u64, "{size}");
        assert!(size <= 4 * 32 * n as u64, "{size}");
        assert!(
            size > 10 * body.len() as u64,
            "{size} for {} bytes",
            body.len()
        );
    }
}
