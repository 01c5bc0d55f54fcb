//! The link-time registry of kube-markers' attributes, re-exported as `kube_markers::registry`
//! (depend on `kube-markers`, not on this crate).
//!
//! Every `#[rbac]` in every linked crate is one plain-data record (the validated attribute as
//! one string, and where it stands) in a linkme distributed slice, read as an [`RbacEntry`] by
//! [`rbac_entries`]; `#[crd]`, `#[webhook]` and `#[webhook_configuration]` register their
//! entries the same way. Records are plain statics in a link section, so nothing runs before
//! `main`, and an unsupported target is a compile error rather than an empty registry.
//!
//! A crate that nothing in the final binary names is never linked, and its entries vanish
//! without a trace. `kube_markers::link!` names crates; the generator's workspace scan catches
//! the ones still missing.
//!
//! The registry sits below both the operator library and the generator, which reads it: the
//! operator library re-exports the generator, so the registry cannot live in either.

pub mod conversion;
pub mod crd;
pub mod export;
mod header;
pub mod schema_types;
pub mod webhook;

pub use header::Record;

use kube_markers_core::record::RbacRecordData;
use linkme::distributed_slice;
use std::sync::OnceLock;

pub use kube_markers_core::model::{
    Allow, Attribute, RbacMarker, Source, Text, WebhookClient, WebhookConfigurationMarker,
    WebhookMarker,
};
use kube_markers_core::record;

pub use conversion::{CONVERSION_ENTRIES, ConversionEntry, ConvertFn, conversion_entries};
pub use schema_types::{SCHEMA_TYPE_RECORDS, SchemaTypeRecord, schema_types};

/// One `#[rbac(...)]` attribute, exactly as validated at compile time: its marker, where it
/// stands and its arguments' text.
pub type RbacEntry = Attribute<RbacMarker>;

/// One `#[kube_markers::crd]` type: a custom resource to generate a CRD version from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CrdEntry {
    /// kube-derive's `CustomResourceExt::crd` of the type (schema already patched by `#[k8s]`).
    pub crd: fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    /// `#[kube_markers::crd(storage)]`: the storage version of a multi-version kind.
    pub storage: bool,
    /// Root-level `#[k8s]` patch (rules whose `self` is the whole object), as JSON.
    pub root_patch: &'static str,
    /// The generated type (`MyDatabase`).
    pub type_name: &'static str,
    /// Where the attribute stands.
    pub source: Source,
    /// `allow(NAME, reason = "...")`: what the generator would refuse of the kind and this
    /// type accepts (checked at compile time: known names, a reason, none twice).
    pub allow: &'static [CrdAllow],
    /// The CRD, for an entry [loaded](export::load) from a generator binary.
    rendered: Option<&'static export::Rendered>,
}

/// One name of a `#[kube_markers::crd(allow(...))]` and its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrdAllow {
    /// What is allowed: one of `crd::versions`' names (`unconverted-versions`).
    pub name: &'static str,
    /// Why, as written (never empty).
    pub reason: &'static str,
}

impl CrdAllow {
    /// The expansions' constructor.
    #[doc(hidden)]
    pub const fn __new(name: &'static str, reason: &'static str) -> Self {
        CrdAllow { name, reason }
    }
}

impl CrdEntry {
    /// The expansions' constructor (see [`Source::__new`]).
    #[doc(hidden)]
    pub const fn __new(
        crd: fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
        storage: bool,
        root_patch: &'static str,
        type_name: &'static str,
        source: Source,
    ) -> Self {
        CrdEntry {
            crd,
            storage,
            root_patch,
            type_name,
            source,
            allow: &[],
            rendered: None,
        }
    }

    /// kube-derive's `CustomResourceExt::crd` of the type: `(self.crd)()`, or the CRD a
    /// generator binary rendered for an entry [loaded](export::load) from it.
    pub fn definition(
        &self,
    ) -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition
    {
        match self.rendered {
            Some(rendered) => export::definition(rendered),
            None => (self.crd)(),
        }
    }

    /// The expansions' `allow(...)`, after [`CrdEntry::__new`].
    #[doc(hidden)]
    pub const fn __allow(mut self, allow: &'static [CrdAllow]) -> Self {
        self.allow = allow;
        self
    }

    /// Whether `allow(name, ...)` is on this type.
    pub fn allows(&self, name: &str) -> Option<&'static CrdAllow> {
        self.allow.iter().find(|a| a.name == name)
    }
}

/// Every `#[kube_markers::crd]` type of the linked crates.
#[distributed_slice]
pub static CRD_ENTRIES: [CrdEntry];

/// The registered CRD types, sorted by source location.
pub fn crd_entries() -> Vec<&'static CrdEntry> {
    let linked = CRD_ENTRIES.static_slice();
    let mut entries: Vec<&'static CrdEntry> =
        export::or_loaded(linked, |l| l.crds).iter().collect();
    entries.sort_by(|a, b| a.source.cmp(&b.source));
    entries
}

/// What an `#[rbac]` expands to: its `data` is `RbacRecordData::encode` of the attribute and
/// its item's name.
#[doc(hidden)]
pub type RbacRecord = Record;

/// The `#[rbac]` a record stands for; its strings are the record's own.
fn rbac_entry(record: &'static RbacRecord) -> RbacEntry {
    let data = RbacRecordData::decode(record.data).unwrap_or_else(|| record.foreign("rbac"));
    data.into_attribute(record.file, record.line, record.column, record.module_path)
}

/// Every `#[rbac]` of the linked crates, in link order (which means nothing: the aggregation
/// sorts). [`rbac_entries`] reads them.
#[doc(hidden)]
#[distributed_slice]
pub static RBAC_RECORDS: [RbacRecord];

// The macros emit their statics into these slices' link sections themselves, without linkme's
// type check per element (see `kube_markers_core::rbac::registry_static`): these tie each
// slice to the element type the expansions write.
const _: fn() -> [&'static linkme::DistributedSlice<[RbacRecord]>; 1] = || [&RBAC_RECORDS];
const _: fn() -> [&'static linkme::DistributedSlice<[CrdEntry]>; 1] = || [&CRD_ENTRIES];
const _: fn() -> [&'static linkme::DistributedSlice<[ConversionEntry]>; 1] =
    || [&CONVERSION_ENTRIES];
const _: fn() -> [&'static linkme::DistributedSlice<[WebhookRecord]>; 1] = || [&WEBHOOK_RECORDS];
const _: fn() -> [&'static linkme::DistributedSlice<[WebhookConfigurationRecord]>; 1] =
    || [&WEBHOOK_CONFIGURATION_RECORDS];

/// Fails the build of this crate unless linkme names each slice's Linux link section
/// `linkme_<SLICE>`, the name the expansions write directly there
/// (`kube_markers_core::rbac::registry_static`): a linkme that named it otherwise would leave
/// every element out of its slice, and the registry empty without a word. Each slice's own
/// `macro_rules!` hands its section names to the macro named by `linkme_macro`, which is this
/// one; the `const` item it passes through compares them.
macro_rules! expect_linkme_sections {
    (
        #![linkme_linux_section = $linux:expr]
        #![linkme_macho_section = $macho:expr]
        #![linkme_windows_section = $windows:expr]
        #![linkme_illumos_section = $illumos:expr]
        #![linkme_bsd_section = $bsd:expr]
        $check:item
    ) => {
        const _: () = {
            const LINUX_SECTION: &str = $linux;
            $check
        };
    };
}

/// `a == b` for a `const` (`str`'s `==` is not `const`).
/// Evaluated once per attribute: every call costs the interpreter a frame, so the length is
/// read once.
#[doc(hidden)]
pub const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len();
    if len != b.len() {
        return false;
    }
    let mut i = 0;
    while i < len {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

macro_rules! expect_plain_section {
    ($slice:ident) => {
        $slice! {
            #![linkme_macro = expect_linkme_sections]
            const _: () = assert!(
                same_str(LINUX_SECTION, concat!("linkme_", stringify!($slice))),
                concat!(
                    "linkme no longer names the Linux link section of ",
                    stringify!($slice),
                    " `linkme_",
                    stringify!($slice),
                    "`, which the expansions write directly ",
                    "(kube_markers_core::rbac::registry_static): update them together"
                )
            );
        }
    };
}
expect_plain_section!(RBAC_RECORDS);
expect_plain_section!(CRD_ENTRIES);
expect_plain_section!(CONVERSION_ENTRIES);
expect_plain_section!(WEBHOOK_RECORDS);
expect_plain_section!(WEBHOOK_CONFIGURATION_RECORDS);
expect_plain_section!(SCHEMA_TYPE_RECORDS);

/// The crates named by `kube_markers::link!`, so errors can say which ones are.
#[distributed_slice]
pub static LINKED_CRATES: [&'static str];

/// The registered RBAC entries, sorted by source location so that everything downstream sees
/// the same order whatever the linker did.
pub fn rbac_entries() -> Vec<&'static RbacEntry> {
    static ENTRIES: OnceLock<Vec<RbacEntry>> = OnceLock::new();
    let all = ENTRIES.get_or_init(|| {
        let records = export::or_loaded(RBAC_RECORDS.static_slice(), |l| l.rbac);
        let mut all: Vec<RbacEntry> = records.iter().map(rbac_entry).collect();
        all.sort_by(|a, b| a.source.cmp(&b.source));
        all
    });
    all.iter().collect()
}

/// The package (and binary) whose `main.rs` calls `kube_markers::link!`: the generator, as the
/// user runs it (`cargo run -p <package>`), for its messages.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorRecord {
    /// `CARGO_PKG_NAME` where `link!` stands.
    pub package: &'static str,
    /// `CARGO_BIN_NAME` there: `None` when `link!` stands in a library.
    pub bin: Option<&'static str>,
    /// `CARGO_MANIFEST_DIR` there: the package's directory when it was built, which tells
    /// this generator from another workspace's package of the same name.
    pub manifest_dir: &'static str,
}

/// Where each `kube_markers::link!` stands.
#[doc(hidden)]
#[distributed_slice]
pub static GENERATOR_RECORDS: [GeneratorRecord];

/// The generator's package, binary and package directory, as its `link!` recorded them: a
/// binary's `link!` if one is linked (the first by name), else a library's; `None` without
/// `link!`.
pub fn generator() -> Option<GeneratorRecord> {
    let linked = GENERATOR_RECORDS.static_slice();
    let mut records: Vec<&GeneratorRecord> =
        export::or_loaded(linked, |l| l.generators).iter().collect();
    records.sort_by_key(|r| (r.bin.is_none(), r.package, r.bin));
    records.first().map(|r| **r)
}

/// Names given to `kube_markers::link!`, sorted and deduplicated.
pub fn linked_crates() -> Vec<&'static str> {
    let linked = LINKED_CRATES.static_slice();
    let mut names: Vec<&'static str> = export::or_loaded(linked, |l| l.linked_crates).to_vec();
    names.sort_unstable();
    names.dedup();
    names
}

/// One `#[kube_markers::webhook(...)]`: a webhook of the generated
/// `{Mutating,Validating}WebhookConfiguration`, exactly as validated at compile time, and its
/// handler when the attribute stands on an `async fn`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WebhookEntry {
    /// The attribute: the webhook, where it stands, its arguments' text.
    pub attribute: Attribute<WebhookMarker>,
    /// The handler, for an attribute on an `async fn` (with kube-markers' `webhook` feature).
    pub handler: Option<webhook::HandlerFn>,
}

impl WebhookEntry {
    /// A webhook and its handler, as the registry holds them (for tests and servers that stand
    /// in for the registry).
    pub fn new(attribute: Attribute<WebhookMarker>, handler: Option<webhook::HandlerFn>) -> Self {
        WebhookEntry { attribute, handler }
    }
}

/// One `#[kube_markers::webhook_configuration(...)]`: the name of the mutating or validating
/// configuration object.
pub type WebhookConfigurationEntry = Attribute<WebhookConfigurationMarker>;

/// What a `#[webhook]` expands to: the validated attribute as one string
/// (`kube_markers_core::record::encode_webhook`), where it stands, and its handler.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct WebhookRecord {
    /// The attribute and where it stands.
    pub record: Record,
    /// The type-erased handler of an `async fn`.
    pub handler: Option<webhook::HandlerFn>,
}

/// What a `#[webhook_configuration]` expands to
/// (`kube_markers_core::record::encode_webhook_configuration`).
#[doc(hidden)]
pub type WebhookConfigurationRecord = Record;

/// Every `#[webhook]` of the linked crates; [`webhook_entries`] reads them.
#[doc(hidden)]
#[distributed_slice]
pub static WEBHOOK_RECORDS: [WebhookRecord];

/// Every `#[webhook_configuration]` of the linked crates; [`webhook_configuration_entries`]
/// reads them.
#[doc(hidden)]
#[distributed_slice]
pub static WEBHOOK_CONFIGURATION_RECORDS: [WebhookConfigurationRecord];

/// The registered webhooks, sorted by source location.
pub fn webhook_entries() -> Vec<&'static WebhookEntry> {
    static ENTRIES: OnceLock<Vec<WebhookEntry>> = OnceLock::new();
    let all = ENTRIES.get_or_init(|| {
        let linked = WEBHOOK_RECORDS.static_slice();
        let mut all: Vec<WebhookEntry> = export::or_loaded(linked, |l| l.webhooks)
            .iter()
            .map(|r| {
                let (marker, item, args) = record::decode_webhook(r.record.data)
                    .unwrap_or_else(|| r.record.foreign("webhook"));
                WebhookEntry {
                    attribute: Attribute::new(marker, r.record.source(item), args),
                    handler: r.handler,
                }
            })
            .collect();
        all.sort_by(|a, b| a.attribute.source.cmp(&b.attribute.source));
        all
    });
    all.iter().collect()
}

/// The registered webhook configuration names, sorted by source location.
pub fn webhook_configuration_entries() -> Vec<&'static WebhookConfigurationEntry> {
    static ENTRIES: OnceLock<Vec<WebhookConfigurationEntry>> = OnceLock::new();
    let all = ENTRIES.get_or_init(|| {
        let linked = WEBHOOK_CONFIGURATION_RECORDS.static_slice();
        let mut all: Vec<WebhookConfigurationEntry> =
            export::or_loaded(linked, |l| l.configurations)
                .iter()
                .map(|r| {
                    let (marker, item, args) = record::decode_webhook_configuration(r.data)
                        .unwrap_or_else(|| r.foreign("webhook_configuration"));
                    Attribute::new(marker, r.source(item), args)
                })
                .collect();
        all.sort_by(|a, b| a.source.cmp(&b.source));
        all
    });
    all.iter().collect()
}
