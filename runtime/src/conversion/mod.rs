//! Conversions between the versions of a kind: hub and spoke, as controller-runtime does.
//!
//! The **hub** is the version every other served version (a **spoke**) converts to and from:
//! usually the storage version (`#[kube_markers::crd(storage)]`), but a release may serve a new
//! hub while the old version is still stored (docs/conversions.md, "The workflow"). A conversion is an
//! `impl` of [`Spoke`] with [`#[kube_markers::conversion]`](macro@crate::conversion) on it:
//!
//! ```ignore
//! use kube_markers::conversion::Spoke;
//!
//! #[kube_markers::conversion]
//! impl Spoke<v2::MyDatabase> for v1::MyDatabase {
//!     type Error = String;
//!     fn to_hub(self) -> Result<v2::MyDatabase, String> { /* … */ }
//!     fn from_hub(hub: v2::MyDatabase) -> Result<Self, String> { /* … */ }
//! }
//! ```
//!
//! The attribute registers the pair at link time, as `#[rbac]` registers its rules: the
//! generator gives the kind's CRD `spec.conversion` (strategy `Webhook`, path `/convert`), and
//! the webhook server (`kube_markers::webhook::server`, feature `webhook-server`) answers the
//! API server's `ConversionReview`s with it ([`Conversions`]). A spoke converts to another
//! spoke through the hub.
//!
//! Conversions take and return **whole objects**, so that what a version cannot hold in its
//! schema can travel in its labels or annotations. The API server keeps every other field of
//! `metadata` as it was (the server restores them, whatever a conversion returns), so a
//! conversion needs only to carry over `metadata` as a whole and convert `spec` and
//! `status`. A conversion's error fails the whole review; its message reaches the client,
//! after the object's kind, namespace/name and the two versions.
//!
//! Test each conversion with [`check_spoke_round_trip`] and [`check_hub_round_trip`]: they
//! name every field (JSON path) a round trip loses or changes.
//!
//! When the storage version changes, `migrate` (feature `migrate`) rewrites the kind's stored
//! objects at the new storage version, so that the old one can leave `status.storedVersions`.

#[cfg(feature = "conversion-ca-bundle")]
pub(crate) mod ca_bundle;
mod erased;
#[cfg(feature = "migrate")]
#[cfg_attr(docsrs, doc(cfg(feature = "migrate")))]
pub mod migrate;
#[cfg(feature = "conversion-ca-bundle")]
mod release;
mod review;
mod round_trip;
#[cfg(test)]
pub(crate) mod test_kinds;

#[doc(hidden)]
pub use erased::{__from_hub, __to_hub};
#[cfg(feature = "migrate")]
pub use migrate::{Migrated, Migration, MigrationError, Progress, migrate};
#[cfg(feature = "conversion-ca-bundle")]
#[cfg_attr(docsrs, doc(cfg(feature = "conversion-ca-bundle")))]
pub use release::{FIELD_MANAGER, ReleaseError, Released, release_ca_bundle};
pub use review::{
    CONVERSION_PATH, ConversionSetupError, Conversions, REVIEW_API_VERSION, REVIEW_KIND,
    ReviewError,
};
pub use round_trip::{RoundTripError, check_hub_round_trip, check_spoke_round_trip};

/// What a server of these `paths` serves, in the words of its start line.
#[cfg(feature = "webhook-server")]
pub(crate) fn serving(paths: &[&str]) -> &'static str {
    let converts = paths.contains(&CONVERSION_PATH);
    let admits = paths.iter().any(|p| *p != CONVERSION_PATH);
    match (admits, converts) {
        (true, true) => "admission webhooks and conversions",
        (false, true) => "conversions",
        _ => "admission webhooks",
    }
}

#[cfg(all(test, feature = "webhook-server"))]
#[test]
fn the_start_line_says_what_is_served() {
    assert_eq!(serving(&["/convert"]), "conversions");
    assert_eq!(
        serving(&["/convert", "/validate-v1-pod"]),
        "admission webhooks and conversions"
    );
    assert_eq!(serving(&["/validate-v1-pod"]), "admission webhooks");
    assert_eq!(serving(&[]), "admission webhooks");
}

/// A served version of a kind (the spoke, `Self`) that converts to and from the kind's hub
/// (`Hub`), usually its storage version. Implement it with [`#[kube_markers::conversion]`](macro@crate::conversion)
/// on the `impl`, which registers the pair for the generator and the webhook server.
///
/// Both are kube-derive types of one group and kind. The conversions take whole objects:
/// carry `metadata` over, and keep what the other version cannot hold in annotations if it
/// must survive a round trip.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `kube_markers::conversion::Spoke<{Hub}>`",
    label = "#[kube_markers::conversion] stands on `impl kube_markers::conversion::Spoke<{Hub}> for {Self}`"
)]
pub trait Spoke<Hub>: Sized {
    /// Why an object cannot be converted; its `Display` is the message the client sees.
    type Error: std::fmt::Display;

    /// Converts this version's object to the hub's.
    fn to_hub(self) -> Result<Hub, Self::Error>;

    /// Converts a hub object to this version.
    fn from_hub(hub: Hub) -> Result<Self, Self::Error>;
}
