//! Letting go of the `caBundle`s the webhook server wrote, once a kind no longer converts.
//!
//! The server writes a CRD's `spec.conversion.webhook.clientConfig.caBundle` under its own
//! field manager ([`FIELD_MANAGER`]), so server-side apply counts the field as the server's.
//! When a release drops the kind's last conversion, its generated CRD has no
//! `spec.conversion.webhook` any more, but `kubectl apply --server-side` removes only the
//! fields its own manager set: the `caBundle` would stay without the rest, and the API server
//! refuses that (`spec.conversion.webhookClientConfig: Forbidden: should not be set when
//! strategy is not set to Webhook`). [`release_ca_bundle`], called by that release's operator
//! at start, removes the bundles the server wrote and nobody else owns, so that the apply
//! goes through.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams};

pub use super::ca_bundle::FIELD_MANAGER;

/// What [`release_ca_bundle`] did with one CRD.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Released {
    /// Its `caBundle`, written by the webhook server alone, is removed.
    Removed,
    /// It has no `caBundle`: nothing to let go of.
    NoBundle,
    /// Its `caBundle` is owned by these field managers (besides the server, or instead of
    /// it): it is theirs, and left as it is (cert-manager's cainjector, say, or a `kubectl
    /// apply` that set it).
    Owned(Vec<String>),
    /// The CRD does not exist.
    Absent,
}

/// Why a CRD's `caBundle` could not be released.
#[derive(Debug, thiserror::Error)]
#[error("CRD {crd}: its conversion webhook caBundle cannot be released: {why}")]
#[non_exhaustive]
pub struct ReleaseError {
    /// The CRD's name.
    pub crd: String,
    /// What the API server said.
    pub why: String,
}

/// Removes the `caBundle` the webhook server wrote into each of `crds`, where the server's
/// field manager alone owns it: call it at start in the release that drops the kinds' last
/// conversion, before their CRDs are applied server-side (docs/conversions.md, release 4).
/// It needs `get` and `patch` on `customresourcedefinitions` with these `resourceNames`:
///
/// ```ignore
/// #[kube_markers::rbac(groups = "apiextensions.k8s.io", resources = "customresourcedefinitions",
///                      resourceNames = "widgets.example.com", verbs = "get;patch")]
/// async fn release(client: kube::Client) -> Result<(), kube_markers::conversion::ReleaseError> {
///     kube_markers::conversion::release_ca_bundle(client, ["widgets.example.com"]).await?;
///     Ok(())
/// }
/// ```
///
/// A CRD that does not exist, has no bundle, or whose bundle another field manager owns too is
/// left as it is, and said so in its [`Released`]. The removal is conditional on the CRD's
/// `resourceVersion`, and tried again (three times) when the CRD changed meanwhile.
pub async fn release_ca_bundle<I, S>(
    client: kube::Client,
    crds: I,
) -> Result<Vec<(String, Released)>, ReleaseError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let api: Api<CustomResourceDefinition> = Api::all(client);
    let mut out = Vec::new();
    for crd in crds {
        let crd = crd.into();
        let released = release_one(&api, &crd).await?;
        out.push((crd, released));
    }
    Ok(out)
}

async fn release_one(
    api: &Api<CustomResourceDefinition>,
    name: &str,
) -> Result<Released, ReleaseError> {
    let error = |why: String| ReleaseError {
        crd: name.to_string(),
        why,
    };
    let mut attempts = 0;
    loop {
        let crd = match api.get(name).await {
            Ok(crd) => crd,
            Err(kube::Error::Api(e)) if e.code == 404 => return Ok(Released::Absent),
            Err(e) => return Err(error(format!("it cannot be read: {e}"))),
        };
        let has_bundle = crd
            .spec
            .conversion
            .as_ref()
            .and_then(|c| c.webhook.as_ref())
            .and_then(|w| w.client_config.as_ref())
            .is_some_and(|c| c.ca_bundle.is_some());
        if !has_bundle {
            return Ok(Released::NoBundle);
        }
        let owners = bundle_owners(&crd);
        if owners != [FIELD_MANAGER] {
            return Ok(Released::Owned(owners));
        }
        // A merge patch's null removes the field; its resourceVersion makes it conditional.
        let patch = serde_json::json!({
            "metadata": {"resourceVersion": crd.metadata.resource_version},
            "spec": {"conversion": {"webhook": {"clientConfig": {"caBundle": null}}}},
        });
        let params = PatchParams {
            field_manager: Some(FIELD_MANAGER.into()),
            ..PatchParams::default()
        };
        match api.patch(name, &params, &Patch::Merge(&patch)).await {
            Ok(_) => return Ok(Released::Removed),
            // The CRD changed since it was read.
            Err(kube::Error::Api(e)) if e.code == 409 && attempts < 2 => {
                attempts += 1;
            }
            Err(e) => return Err(error(format!("the patch was refused: {e}"))),
        }
    }
}

/// The field managers whose managed fields hold the `caBundle`, sorted.
fn bundle_owners(crd: &CustomResourceDefinition) -> Vec<String> {
    let mut owners: Vec<String> = crd
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|entry| {
            entry.fields_v1.as_ref().is_some_and(|fields| {
                [
                    "f:spec",
                    "f:conversion",
                    "f:webhook",
                    "f:clientConfig",
                    "f:caBundle",
                ]
                .iter()
                .try_fold(&fields.0, |at, key| at.get(key))
                .is_some()
            })
        })
        .filter_map(|entry| entry.manager.clone())
        .collect();
    owners.sort();
    owners.dedup();
    owners
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry};

    fn entry(manager: &str, fields: serde_json::Value) -> ManagedFieldsEntry {
        ManagedFieldsEntry {
            manager: Some(manager.into()),
            fields_v1: Some(FieldsV1(fields)),
            ..ManagedFieldsEntry::default()
        }
    }

    #[test]
    fn the_owners_of_the_bundle_are_the_managers_whose_fields_reach_it() {
        let bundle = serde_json::json!({"f:spec": {"f:conversion": {"f:webhook": {
            "f:clientConfig": {"f:caBundle": {}}}}}});
        let service = serde_json::json!({"f:spec": {"f:conversion": {"f:webhook": {
            "f:clientConfig": {"f:service": {}}}}}});
        let mut crd = CustomResourceDefinition::default();
        crd.metadata.managed_fields = Some(vec![
            entry("kubectl", service),
            entry(FIELD_MANAGER, bundle.clone()),
        ]);
        assert_eq!(bundle_owners(&crd), [FIELD_MANAGER]);
        crd.metadata
            .managed_fields
            .as_mut()
            .unwrap()
            .push(entry("cainjector", bundle));
        assert_eq!(bundle_owners(&crd), ["cainjector", FIELD_MANAGER]);
        crd.metadata.managed_fields = None;
        assert!(bundle_owners(&crd).is_empty());
    }
}
