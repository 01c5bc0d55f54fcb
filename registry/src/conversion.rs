//! The conversions `#[kube_markers::conversion]` registers (re-exported as
//! `kube_markers::registry::{ConversionEntry, ConvertFn, conversion_entries}`): each converts
//! the objects of one served version of a kind (a spoke) to and from its storage version (the
//! hub), as controller-runtime's hub-and-spoke does. The generator reads them to give a kind's
//! CRD `spec.conversion` (strategy `Webhook`); the webhook server reads them to answer
//! `ConversionReview`s at `/convert`.
//!
//! The functions are type-erased, as admission handlers are ([`crate::webhook::HandlerFn`]):
//! one whole object as JSON in, the converted object out, so a server routes JSON. Restoring
//! the metadata the API server keeps (everything but labels and annotations), the `apiVersion`
//! and the review's order and uid is the server's job, not theirs.

use crate::export::Rendered;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_core::model::Source;
use linkme::distributed_slice;

/// One direction of a conversion: one whole object (JSON) in, the converted object out, or
/// the conversion's error message.
pub type ConvertFn = fn(serde_json::Value) -> Result<serde_json::Value, String>;

/// One `#[kube_markers::conversion]`: a spoke version of a kind, converted to and from the
/// hub, the kind's storage version. Both are `#[kube_markers::crd]` types of one group and
/// kind.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConversionEntry {
    /// kube-derive's `CustomResourceExt::crd` of the spoke: its group, kind and version.
    pub spoke: fn() -> CustomResourceDefinition,
    /// The same of the hub.
    pub hub: fn() -> CustomResourceDefinition,
    /// Spoke → hub.
    pub to_hub: ConvertFn,
    /// Hub → spoke.
    pub from_hub: ConvertFn,
    /// The spoke type as written in the `impl` (`v1::MyDatabase`).
    pub spoke_type: &'static str,
    /// The hub type as written in the `impl`.
    pub hub_type: &'static str,
    /// Where the attribute stands.
    pub source: Source,
    /// The spoke's and the hub's CRDs, for an entry [loaded](crate::export::load) from a
    /// generator binary.
    pub(crate) rendered: Option<(&'static Rendered, &'static Rendered)>,
}

impl ConversionEntry {
    /// The expansions' constructor (see [`Source::__new`]).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __new(
        spoke: fn() -> CustomResourceDefinition,
        hub: fn() -> CustomResourceDefinition,
        to_hub: ConvertFn,
        from_hub: ConvertFn,
        spoke_type: &'static str,
        hub_type: &'static str,
        source: Source,
    ) -> Self {
        ConversionEntry {
            spoke,
            hub,
            to_hub,
            from_hub,
            spoke_type,
            hub_type,
            source,
            rendered: None,
        }
    }

    /// kube-derive's `CustomResourceExt::crd` of the spoke: `(self.spoke)()`, or the CRD a
    /// generator binary rendered for an entry [loaded](crate::export::load) from it.
    pub fn spoke_definition(&self) -> CustomResourceDefinition {
        match self.rendered {
            Some((spoke, _)) => crate::export::definition(spoke),
            None => (self.spoke)(),
        }
    }

    /// The same of the hub.
    pub fn hub_definition(&self) -> CustomResourceDefinition {
        match self.rendered {
            Some((_, hub)) => crate::export::definition(hub),
            None => (self.hub)(),
        }
    }
}

/// Every `#[kube_markers::conversion]` of the linked crates.
#[distributed_slice]
pub static CONVERSION_ENTRIES: [ConversionEntry];

/// The registered conversions, sorted by source location.
pub fn conversion_entries() -> Vec<&'static ConversionEntry> {
    let linked = CONVERSION_ENTRIES.static_slice();
    let mut entries: Vec<&'static ConversionEntry> =
        crate::export::or_loaded(linked, |l| l.conversions)
            .iter()
            .collect();
    entries.sort_by(|a, b| a.source.cmp(&b.source));
    entries
}
