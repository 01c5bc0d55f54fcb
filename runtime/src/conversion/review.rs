//! The registered conversions as one table, and the answer to a `ConversionReview`
//! (apiextensions.k8s.io/v1), as kube-apiserver's webhook converter checks it: the request's
//! `uid` echoed, one converted object per object in request order, each at the desired
//! `apiVersion` with the kind it had, and its `metadata` as it came except `labels` and
//! `annotations` (the API server restores the rest, and refuses a changed name, namespace or
//! uid). Any object that cannot be converted fails the whole review, with a message naming it.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use kube_markers_registry::{ConversionEntry, ConvertFn};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Where the webhook server serves the conversions, and where the generated CRDs'
/// `spec.conversion.webhook.clientConfig` points (kubebuilder's path).
pub const CONVERSION_PATH: &str = "/convert";

/// The `apiVersion` of the reviews answered (the API server sends the first of the CRD's
/// `conversionReviewVersions` it knows; the generator writes `[v1]`).
pub const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";
/// The `kind` of the reviews answered.
pub const REVIEW_KIND: &str = "ConversionReview";

/// A registered conversion that cannot be served, named by its attribute's place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConversionSetupError {
    /// The spoke and the hub are not versions of one group and kind.
    #[error(
        "{origin}: {spoke_type} is {spoke} and {hub_type} is {hub}: a conversion is between two versions of one group and kind"
    )]
    DifferentKinds {
        /// The attribute's place.
        origin: String,
        /// The spoke type as written.
        spoke_type: String,
        /// Its group, version and kind.
        spoke: String,
        /// The hub type as written.
        hub_type: String,
        /// Its group, version and kind.
        hub: String,
    },
    /// The spoke and the hub are the same version.
    #[error(
        "{origin}: {spoke_type} and {hub_type} are both {version}: a conversion is between two versions"
    )]
    SameVersion {
        /// The attribute's place.
        origin: String,
        /// The spoke type as written.
        spoke_type: String,
        /// The hub type as written.
        hub_type: String,
        /// The group, version and kind of both.
        version: String,
    },
    /// Two conversions of one kind name different hubs.
    #[error(
        "{kind}: {first} converts to the hub {first_hub} and {second} to the hub {second_hub}: a kind has one hub, which every other version converts to and from"
    )]
    TwoHubs {
        /// The group and kind.
        kind: String,
        /// The first attribute's place.
        first: String,
        /// Its hub version.
        first_hub: String,
        /// The second attribute's place.
        second: String,
        /// Its hub version.
        second_hub: String,
    },
    /// Two conversions of one spoke version.
    #[error("{kind} {version}: converted by both {first} and {second}")]
    TwoConversions {
        /// The group and kind.
        kind: String,
        /// The spoke version.
        version: String,
        /// The first attribute's place.
        first: String,
        /// The second attribute's place.
        second: String,
    },
}

/// A request body that is not a `ConversionReview` with a request: the server answers 400.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// Not the JSON of a `ConversionReview`.
    #[error("the request body is not an apiextensions.k8s.io/v1 ConversionReview: {0}")]
    Decode(#[source] serde_json::Error),
    /// Another `apiVersion` or `kind`.
    #[error(
        "the request body is not an apiextensions.k8s.io/v1 ConversionReview: its apiVersion is {api_version:?} and its kind {kind:?}"
    )]
    NotAReview {
        /// The body's `apiVersion`.
        api_version: String,
        /// The body's `kind`.
        kind: String,
    },
    /// The review has no `request`.
    #[error("the ConversionReview has no request")]
    NoRequest,
}

/// One kind's conversions: its hub version and each spoke's.
#[derive(Debug, Clone)]
struct KindConversions {
    /// The CRD's name (`<plural>.<group>`).
    crd: String,
    group: String,
    kind: String,
    hub: String,
    spokes: BTreeMap<String, ConversionEntry>,
}

/// The registered conversions by group and kind, checked: what a server answers
/// `ConversionReview`s with.
#[derive(Debug, Clone, Default)]
pub struct Conversions {
    kinds: BTreeMap<(String, String), KindConversions>,
}

/// The group, version and kind of a kube-derive type, from its CRD.
fn gvk(
    crd: fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) -> (String, String, String) {
    let crd = crd();
    let version = crd
        .spec
        .versions
        .first()
        .map(|v| v.name.clone())
        .unwrap_or_default();
    (crd.spec.group, version, crd.spec.names.kind)
}

impl Conversions {
    /// Every conversion registered by `#[kube_markers::conversion]` in the linked crates.
    pub fn registered() -> Result<Self, Vec<ConversionSetupError>> {
        Self::new(
            kube_markers_registry::conversion_entries()
                .into_iter()
                .cloned(),
        )
    }

    /// These conversions, or every problem that keeps them from being served.
    pub fn new(
        entries: impl IntoIterator<Item = ConversionEntry>,
    ) -> Result<Self, Vec<ConversionSetupError>> {
        let mut errors = Vec::new();
        let mut kinds: BTreeMap<(String, String), KindConversions> = BTreeMap::new();
        let mut hub_origin: BTreeMap<(String, String), String> = BTreeMap::new();
        for entry in entries {
            let origin = entry.source.to_string();
            let (spoke_group, spoke_version, spoke_kind) = gvk(entry.spoke);
            let (hub_group, hub_version, hub_kind) = gvk(entry.hub);
            if (&spoke_group, &spoke_kind) != (&hub_group, &hub_kind) {
                errors.push(ConversionSetupError::DifferentKinds {
                    origin,
                    spoke_type: entry.spoke_type.into(),
                    spoke: format!("{spoke_group}/{spoke_version} {spoke_kind}"),
                    hub_type: entry.hub_type.into(),
                    hub: format!("{hub_group}/{hub_version} {hub_kind}"),
                });
                continue;
            }
            if spoke_version == hub_version {
                errors.push(ConversionSetupError::SameVersion {
                    origin,
                    spoke_type: entry.spoke_type.into(),
                    hub_type: entry.hub_type.into(),
                    version: format!("{spoke_group}/{spoke_version} {spoke_kind}"),
                });
                continue;
            }
            let key = (spoke_group.clone(), spoke_kind.clone());
            let kind = kinds.entry(key.clone()).or_insert_with(|| KindConversions {
                crd: (entry.hub)().metadata.name.unwrap_or_default(),
                group: spoke_group.clone(),
                kind: spoke_kind.clone(),
                hub: hub_version.clone(),
                spokes: BTreeMap::new(),
            });
            let first_origin = hub_origin.entry(key).or_insert_with(|| origin.clone());
            if kind.hub != hub_version {
                errors.push(ConversionSetupError::TwoHubs {
                    kind: format!("{spoke_group} {spoke_kind}"),
                    first: first_origin.clone(),
                    first_hub: kind.hub.clone(),
                    second: origin,
                    second_hub: hub_version,
                });
                continue;
            }
            if let Some(first) = kind.spokes.get(&spoke_version) {
                errors.push(ConversionSetupError::TwoConversions {
                    kind: format!("{spoke_group} {spoke_kind}"),
                    version: spoke_version,
                    first: first.source.to_string(),
                    second: origin,
                });
                continue;
            }
            kind.spokes.insert(spoke_version, entry);
        }
        if errors.is_empty() {
            Ok(Conversions { kinds })
        } else {
            Err(errors)
        }
    }

    /// Whether there is nothing to convert.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The group and kind of each kind that converts, sorted.
    pub fn kinds(&self) -> impl Iterator<Item = (&str, &str)> {
        self.kinds
            .values()
            .map(|k| (k.group.as_str(), k.kind.as_str()))
    }

    /// The names of the CRDs that convert (`<plural>.<group>`), sorted by group and kind.
    pub fn crd_names(&self) -> Vec<String> {
        self.kinds.values().map(|k| k.crd.clone()).collect()
    }

    /// The answer to a `ConversionReview` request body: a review whose `result` is `Success`
    /// with the converted objects, or `Failure` with the message of the first object that
    /// could not be converted; an error when the body is not a review with a request.
    pub fn review(&self, body: &[u8]) -> Result<Vec<u8>, ReviewError> {
        #[derive(Deserialize)]
        struct Review {
            #[serde(rename = "apiVersion", default)]
            api_version: String,
            #[serde(default)]
            kind: String,
            request: Option<Request>,
        }
        #[derive(Deserialize)]
        struct Request {
            uid: String,
            #[serde(rename = "desiredAPIVersion")]
            desired_api_version: String,
            #[serde(default)]
            objects: Vec<Value>,
        }
        let review: Review = serde_json::from_slice(body).map_err(ReviewError::Decode)?;
        if review.api_version != REVIEW_API_VERSION || review.kind != REVIEW_KIND {
            return Err(ReviewError::NotAReview {
                api_version: review.api_version,
                kind: review.kind,
            });
        }
        let request = review.request.ok_or(ReviewError::NoRequest)?;
        let converted: Result<Vec<Value>, String> = request
            .objects
            .into_iter()
            .enumerate()
            .map(|(i, object)| self.convert(object, &request.desired_api_version, i))
            .collect();
        let response = match converted {
            Ok(objects) => json!({
                "uid": request.uid,
                "convertedObjects": objects,
                "result": {"status": "Success", "metadata": {}},
            }),
            Err(message) => json!({
                "uid": request.uid,
                "convertedObjects": [],
                "result": {"status": "Failure", "message": message, "metadata": {}},
            }),
        };
        let review = json!({
            "apiVersion": REVIEW_API_VERSION,
            "kind": REVIEW_KIND,
            "response": response,
        });
        Ok(serde_json::to_vec(&review).expect("JSON values always serialize"))
    }

    /// One object of a review (the `index`th) at `desired` (`group/version`), or why not.
    pub fn convert(&self, mut object: Value, desired: &str, index: usize) -> Result<Value, String> {
        let Some(fields) = object.as_object_mut() else {
            return Err(format!(
                "object {index} of the ConversionReview is not an object"
            ));
        };
        let described = Described::of(fields, index);
        let (group, from) = split_api_version(&described.api_version);
        let (desired_group, to) = split_api_version(desired);
        let whole = |problem: String| {
            format!(
                "cannot convert {} from {} to {desired}: {problem}",
                described.object, described.api_version
            )
        };
        if described.kind.is_empty() || from.is_empty() {
            // Not `whole`: "from  to" would name nothing.
            let missing = match (described.api_version.is_empty(), described.kind.is_empty()) {
                (true, true) => "no apiVersion and no kind".to_string(),
                (true, false) => "no apiVersion".to_string(),
                (false, true) => format!("the apiVersion {:?} and no kind", described.api_version),
                (false, false) => format!(
                    "the apiVersion {:?}, without a version",
                    described.api_version
                ),
            };
            return Err(format!(
                "cannot convert {} to {desired}: the object has {missing} (a string each)",
                described.object
            ));
        }
        if group != desired_group {
            return Err(whole(format!(
                "the groups differ ({group:?} and {desired_group:?}); a conversion stays within its group"
            )));
        }
        let Some(kind) = self.kinds.get(&(group.to_string(), described.kind.clone())) else {
            let known: Vec<String> = self.kinds().map(|(g, k)| format!("{g} {k}")).collect();
            return Err(whole(format!(
                "no conversion of kind {} in group {group} is registered (the kinds with \
                 conversions: {})",
                described.kind,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        };
        for version in [from, to] {
            if version != kind.hub && !kind.spokes.contains_key(version) {
                return Err(whole(format!(
                    "{} {} has no conversion for version {version} (hub {}, spokes {})",
                    kind.group,
                    kind.kind,
                    kind.hub,
                    kind.spokes.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
        }
        if from == to {
            return Ok(object);
        }
        let metadata = fields.get("metadata").cloned();
        let mut current = object;
        let mut at = from;
        if from != kind.hub {
            let entry = &kind.spokes[from];
            current = call(entry.to_hub, current, entry).map_err(&whole)?;
            at = &kind.hub;
        }
        if to != at {
            let entry = &kind.spokes[to];
            current = call(entry.from_hub, current, entry).map_err(&whole)?;
        }
        let Some(converted) = current.as_object_mut() else {
            return Err(whole(
                "the conversion returned something other than an object".into(),
            ));
        };
        converted.insert("apiVersion".into(), Value::String(desired.to_string()));
        converted.insert("kind".into(), Value::String(described.kind));
        restore_metadata(converted, metadata);
        Ok(current)
    }
}

/// What messages say of an object: its kind and `namespace/name`, and its `apiVersion`.
struct Described {
    api_version: String,
    kind: String,
    /// `MyDatabase default/db1`, or `object 3` without a name.
    object: String,
}

impl Described {
    fn of(fields: &Map<String, Value>, index: usize) -> Self {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let kind = text(fields.get("kind"));
        let metadata = fields.get("metadata");
        let name = text(metadata.and_then(|m| m.get("name")));
        let namespace = text(metadata.and_then(|m| m.get("namespace")));
        let object = match (namespace.is_empty(), name.is_empty()) {
            (_, true) => format!("{kind} (object {index} of the review)"),
            (true, false) => format!("{kind} {name}"),
            (false, false) => format!("{kind} {namespace}/{name}"),
        };
        Described {
            api_version: text(fields.get("apiVersion")),
            kind,
            object: object.trim_start().to_string(),
        }
    }
}

/// `("db.example.com", "v1")` of `db.example.com/v1`; the core group is `""`.
fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

/// One direction of a registered conversion; a panic is its error, and the server goes on.
fn call(convert: ConvertFn, object: Value, entry: &ConversionEntry) -> Result<Value, String> {
    match catch_unwind(AssertUnwindSafe(|| convert(object))) {
        Ok(result) => result,
        Err(_) => Err(format!(
            "the conversion {} -> {} ({}) panicked; its message is in the operator's log",
            entry.spoke_type, entry.hub_type, entry.source
        )),
    }
}

/// The original `metadata` with the converted object's `labels` and `annotations`: the only
/// fields of `metadata` a conversion may change.
fn restore_metadata(converted: &mut Map<String, Value>, original: Option<Value>) {
    let Some(Value::Object(mut metadata)) = original else {
        return;
    };
    let mut returned = match converted.remove("metadata") {
        Some(Value::Object(returned)) => returned,
        _ => Map::new(),
    };
    for field in ["labels", "annotations"] {
        match returned.remove(field) {
            Some(value) if !is_empty_map(&value) => {
                metadata.insert(field.into(), value);
            }
            _ => {
                metadata.remove(field);
            }
        }
    }
    converted.insert("metadata".into(), Value::Object(metadata));
}

fn is_empty_map(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
