//! The link-time registry: every `#[rbac]` in every linked crate is one plain-data record
//! (the validated attribute as one string, and where it stands) in a linkme distributed
//! slice, read as an [`RbacEntry`] by [`rbac_entries`]. Records are plain statics in a link section, so nothing runs before
//! `main`, and an unsupported target is a compile error rather than an empty registry.
//!
//! A crate that nothing in the final binary names is never linked, and its entries vanish
//! without a trace. [`link!`](crate::link) names crates; the generator's workspace scan
//! (`kube_markers::codegen`) catches the ones still missing.

use kube_markers_core::record::RbacRecordData;
use linkme::distributed_slice;
use std::sync::OnceLock;

/// Where an attribute stands in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub struct Source {
    /// `file!()` at the attribute: relative to the workspace root for workspace members.
    pub file: &'static str,
    /// Line of the attribute (1-based).
    pub line: u32,
    /// Column of the attribute (1-based).
    pub column: u32,
    /// `module_path!()` at the attribute; its first segment is the crate name.
    pub module_path: &'static str,
    /// The annotated item: a function or method name, a type name, or `impl Trait for Type`.
    pub item: &'static str,
}

impl Source {
    /// The expansions' constructor: registry statics are built in the annotated crates, so
    /// they go through this one function and the struct can gain fields.
    #[doc(hidden)]
    pub const fn __new(
        file: &'static str,
        line: u32,
        column: u32,
        module_path: &'static str,
        item: &'static str,
    ) -> Self {
        Source {
            file,
            line,
            column,
            module_path,
            item,
        }
    }

    /// The crate the attribute was compiled in (with `_` for `-`).
    pub fn crate_name(&self) -> &'static str {
        self.module_path
            .split("::")
            .next()
            .unwrap_or(self.module_path)
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.item)
    }
}

/// One `#[rbac(...)]` attribute, exactly as validated at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RbacEntry {
    /// `groups`, as written (`core` not yet mapped to `""`).
    pub groups: &'static [&'static str],
    /// `resources`.
    pub resources: &'static [&'static str],
    /// `resource_names`.
    pub resource_names: &'static [&'static str],
    /// `verbs`.
    pub verbs: &'static [&'static str],
    /// `urls`.
    pub urls: &'static [&'static str],
    /// `namespace`: the rule goes into a Role in this namespace.
    pub namespace: Option<&'static str>,
    /// `role_name`: overrides the generator's role name.
    pub role_name: Option<&'static str>,
    /// `allow(...)`: the generator's lints this attribute accepts, as (kebab-case lint name,
    /// stated reason), checked at compile time.
    pub allow: &'static [(&'static str, &'static str)],
    /// Where the attribute stands.
    pub source: Source,
    /// The attribute's arguments as the macro received them, tokens joined by one space
    /// (`kube_markers_core::scan::normalized_tokens`): the cross-check compares it with the
    /// source's text before parsing anything. Empty when unknown.
    pub args: &'static str,
}

impl RbacEntry {
    /// The expansions' constructor (see [`Source::__new`]).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __new(
        groups: &'static [&'static str],
        resources: &'static [&'static str],
        resource_names: &'static [&'static str],
        verbs: &'static [&'static str],
        urls: &'static [&'static str],
        namespace: Option<&'static str>,
        role_name: Option<&'static str>,
        allow: &'static [(&'static str, &'static str)],
        source: Source,
        args: &'static str,
    ) -> Self {
        RbacEntry {
            groups,
            resources,
            resource_names,
            verbs,
            urls,
            namespace,
            role_name,
            allow,
            source,
            args,
        }
    }

    /// An entry for `marker` at `source`, with its strings leaked, as the macros would have
    /// registered it: for tests and benchmarks that stand in for the registry.
    #[doc(hidden)]
    pub fn __leaked(marker: &crate::rbac::RbacMarker, source: Source) -> &'static RbacEntry {
        fn text(s: &str) -> &'static str {
            Box::leak(s.into())
        }
        fn list(list: &[String]) -> &'static [&'static str] {
            Box::leak(list.iter().map(|s| text(s)).collect::<Box<[_]>>())
        }
        let allow = marker
            .allow
            .iter()
            .map(|a| (text(&a.lint), text(&a.reason)))
            .collect::<Box<[_]>>();
        Box::leak(Box::new(RbacEntry {
            groups: list(&marker.groups),
            resources: list(&marker.resources),
            resource_names: list(&marker.resource_names),
            verbs: list(&marker.verbs),
            urls: list(&marker.urls),
            namespace: marker.namespace.as_deref().map(text),
            role_name: marker.role_name.as_deref().map(text),
            allow: Box::leak(allow),
            source,
            args: "",
        }))
    }
}

/// One `#[kube_markers::crd]` type: a custom resource to generate a CRD version from.
#[derive(Debug, Clone, Copy)]
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
        }
    }
}

/// Every `#[kube_markers::crd]` type of the linked crates.
#[distributed_slice]
pub static CRD_ENTRIES: [CrdEntry];

/// The registered CRD types, sorted by source location.
pub fn crd_entries() -> Vec<&'static CrdEntry> {
    let mut entries: Vec<&'static CrdEntry> = CRD_ENTRIES.iter().collect();
    entries.sort_by_key(|e| e.source);
    entries
}

/// What an `#[rbac]` expands to: the validated attribute as one string (see
/// `kube_markers_core::record`) and where it stands. Plain data, built by a struct literal:
/// the cheapest `static` for the compiler to build, one per attribute.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct RbacRecord {
    /// `RbacRecordData::encode` of the attribute and its item's name.
    pub data: &'static str,
    /// `file!()` at the attribute.
    pub file: &'static str,
    /// `line!()` at the attribute.
    pub line: u32,
    /// `column!()` at the attribute.
    pub column: u32,
    /// `module_path!()` at the attribute.
    pub module_path: &'static str,
}

impl RbacRecord {
    /// The entry this record stands for. Its lists are allocated once per process (they live
    /// as long as the registry); the strings are the record's own.
    fn entry(&'static self) -> RbacEntry {
        let data = RbacRecordData::decode(self.data).unwrap_or_else(|| {
            panic!(
                "the #[rbac] registry record of {}:{} was written by another version of \
                 kube-markers' macros: {:?}",
                self.file, self.line, self.data
            )
        });
        fn leak<T>(items: Vec<T>) -> &'static [T] {
            if items.is_empty() {
                &[]
            } else {
                Box::leak(items.into_boxed_slice())
            }
        }
        RbacEntry {
            groups: leak(data.groups),
            resources: leak(data.resources),
            resource_names: leak(data.resource_names),
            verbs: leak(data.verbs),
            urls: leak(data.urls),
            namespace: data.namespace,
            role_name: data.role_name,
            allow: leak(data.allow),
            source: Source {
                file: self.file,
                line: self.line,
                column: self.column,
                module_path: self.module_path,
                item: data.item,
            },
            args: data.args,
        }
    }
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
const _: fn() -> [&'static linkme::DistributedSlice<[WebhookEntry]>; 1] = || [&WEBHOOK_ENTRIES];
const _: fn() -> [&'static linkme::DistributedSlice<[WebhookConfigurationEntry]>; 1] =
    || [&WEBHOOK_CONFIGURATION_ENTRIES];

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

/// The expansions' call-site check, one function per attribute
/// (`kube_markers_core::scan::check_call_site`): returns `line` when `line!()`, `column!()` and
/// `file!()` at the attribute are where the proc-macro saw it written, and panics at compile
/// time otherwise: the attribute was produced by a `macro_rules!` expansion (there `line!()`
/// names the invocation, not the attribute's own place), which the generator's workspace scan
/// cannot see. Every comparison is in here, so an expansion is one call with plain arguments:
/// its function is built once, and only evaluated per attribute.
macro_rules! written_here {
    ($($check:ident => $attr:literal,)*) => {$(
        #[doc = concat!("The call-site check of `#[", $attr, "]` (see `written_here!`).")]
        #[doc(hidden)]
        pub const fn $check(
            line: u32,
            column: u32,
            file: &str,
            written_line: u32,
            written_column: u32,
            written_file: &str,
        ) -> u32 {
            if line != written_line || column != written_column || !same_str(file, written_file) {
                panic!(concat!(
                    "this #[", $attr, "] is produced by a macro: the generator's workspace scan ",
                    "cannot see attributes inside macro_rules! bodies, so it could silently go ",
                    "missing from the generated manifests; write the attribute directly on the item"
                ));
            }
            line
        }
    )*};
}
written_here! {
    rbac_written_here => "rbac",
    crd_written_here => "crd",
    webhook_written_here => "webhook",
    webhook_configuration_written_here => "webhook_configuration",
}

/// `a == b` for a `const` (`str`'s `==` is not `const`).
/// Evaluated once per attribute: every call costs the interpreter a frame, so the length is
/// read once.
const fn same_str(a: &str, b: &str) -> bool {
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
expect_plain_section!(WEBHOOK_ENTRIES);
expect_plain_section!(WEBHOOK_CONFIGURATION_ENTRIES);

/// The crates named by [`link!`](crate::link), so errors can say which ones are.
#[distributed_slice]
pub static LINKED_CRATES: [&'static str];

/// The registered RBAC entries, sorted by source location so that everything downstream sees
/// the same order whatever the linker did.
pub fn rbac_entries() -> Vec<&'static RbacEntry> {
    static ENTRIES: OnceLock<Vec<RbacEntry>> = OnceLock::new();
    let all = ENTRIES.get_or_init(|| RBAC_RECORDS.iter().map(RbacRecord::entry).collect());
    let mut entries: Vec<&'static RbacEntry> = all.iter().collect();
    entries.sort_by_key(|e| e.source);
    entries
}

/// Names given to [`link!`](crate::link), sorted and deduplicated.
pub fn linked_crates() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = LINKED_CRATES.to_vec();
    names.sort_unstable();
    names.dedup();
    names
}

/// One `#[kube_markers::webhook(...)]`: a webhook of the generated
/// `{Mutating,Validating}WebhookConfiguration`, exactly as validated at compile time, and its
/// handler when the attribute stands on an `async fn`.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct WebhookEntry {
    /// The webhook's name.
    pub name: &'static str,
    /// Mutating (otherwise validating).
    pub mutating: bool,
    /// `Fail` or `Ignore`.
    pub failure_policy: &'static str,
    /// `Exact` or `Equivalent`.
    pub match_policy: Option<&'static str>,
    /// `None` or `NoneOnDryRun` (a `patch` may set it instead).
    pub side_effects: Option<&'static str>,
    /// 1..=30.
    pub timeout_seconds: Option<i32>,
    /// API groups of the rule, as written.
    pub groups: &'static [&'static str],
    /// Resources of the rule.
    pub resources: &'static [&'static str],
    /// Operations of the rule (`CREATE`, …).
    pub verbs: &'static [&'static str],
    /// API versions of the rule.
    pub versions: &'static [&'static str],
    /// The path served behind the webhook Service (exclusive with `url`).
    pub path: Option<&'static str>,
    /// An external URL (exclusive with `path`).
    pub url: Option<&'static str>,
    /// The webhook Service's name (default `webhook-service`).
    pub service_name: Option<&'static str>,
    /// The webhook Service's namespace (default `system`).
    pub service_namespace: Option<&'static str>,
    /// The webhook Service's port (the API server's default is 443).
    pub service_port: Option<i32>,
    /// Preferred `AdmissionReview` versions.
    pub admission_review_versions: &'static [&'static str],
    /// `Never` or `IfNeeded` (mutating webhooks only).
    pub reinvocation_policy: Option<&'static str>,
    /// JSON object merged into the webhook.
    pub patch: Option<&'static str>,
    /// The handler, for an attribute on an `async fn` (feature `webhook`).
    #[cfg(feature = "webhook")]
    pub handler: Option<crate::webhook::HandlerFn>,
    /// Where the attribute stands.
    pub source: Source,
}

impl WebhookEntry {
    /// The expansions' constructor (see [`Source::__new`]).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __new(
        name: &'static str,
        mutating: bool,
        failure_policy: &'static str,
        match_policy: Option<&'static str>,
        side_effects: Option<&'static str>,
        timeout_seconds: Option<i32>,
        groups: &'static [&'static str],
        resources: &'static [&'static str],
        verbs: &'static [&'static str],
        versions: &'static [&'static str],
        path: Option<&'static str>,
        url: Option<&'static str>,
        service_name: Option<&'static str>,
        service_namespace: Option<&'static str>,
        service_port: Option<i32>,
        admission_review_versions: &'static [&'static str],
        reinvocation_policy: Option<&'static str>,
        patch: Option<&'static str>,
        source: Source,
    ) -> Self {
        WebhookEntry {
            name,
            mutating,
            failure_policy,
            match_policy,
            side_effects,
            timeout_seconds,
            groups,
            resources,
            verbs,
            versions,
            path,
            url,
            service_name,
            service_namespace,
            service_port,
            admission_review_versions,
            reinvocation_policy,
            patch,
            #[cfg(feature = "webhook")]
            handler: None,
            source,
        }
    }

    /// The entry with its handler (the expansion on an `async fn`).
    #[doc(hidden)]
    #[cfg(feature = "webhook")]
    pub const fn __with_handler(self, handler: crate::webhook::HandlerFn) -> Self {
        WebhookEntry {
            handler: Some(handler),
            ..self
        }
    }

    /// The path the API server calls: `path`, or the path part of `url`.
    pub fn serving_path(&self) -> &'static str {
        match (self.path, self.url) {
            (Some(path), _) => path,
            (None, Some(url)) => {
                let rest = url.split_once("://").map_or(url, |(_, r)| r);
                rest.find('/').map_or("/", |i| &rest[i..])
            }
            (None, None) => "/",
        }
    }
}

/// One `#[kube_markers::webhook_configuration(...)]`: the name of the mutating or validating
/// configuration object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct WebhookConfigurationEntry {
    /// Names the `MutatingWebhookConfiguration` (otherwise the validating one).
    pub mutating: bool,
    /// The object's name; `None` keeps the default.
    pub name: Option<&'static str>,
    /// Where the attribute stands.
    pub source: Source,
}

impl WebhookConfigurationEntry {
    /// The expansions' constructor (see [`Source::__new`]).
    #[doc(hidden)]
    pub const fn __new(mutating: bool, name: Option<&'static str>, source: Source) -> Self {
        WebhookConfigurationEntry {
            mutating,
            name,
            source,
        }
    }
}

/// Every `#[webhook]` of the linked crates.
#[distributed_slice]
pub static WEBHOOK_ENTRIES: [WebhookEntry];

/// Every `#[webhook_configuration]` of the linked crates.
#[distributed_slice]
pub static WEBHOOK_CONFIGURATION_ENTRIES: [WebhookConfigurationEntry];

/// The registered webhooks, sorted by source location.
pub fn webhook_entries() -> Vec<&'static WebhookEntry> {
    let mut entries: Vec<&'static WebhookEntry> = WEBHOOK_ENTRIES.iter().collect();
    entries.sort_by_key(|e| e.source);
    entries
}

/// The registered webhook configuration names, sorted by source location.
pub fn webhook_configuration_entries() -> Vec<&'static WebhookConfigurationEntry> {
    let mut entries: Vec<&'static WebhookConfigurationEntry> =
        WEBHOOK_CONFIGURATION_ENTRIES.iter().collect();
    entries.sort_by_key(|e| e.source);
    entries
}
