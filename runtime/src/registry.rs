//! The link-time registry: every `#[rbac]` in every linked crate is one [`RbacEntry`] in
//! [`RBAC_ENTRIES`], a linkme distributed slice. Entries are plain statics in a link section,
//! so nothing runs before `main`, and an unsupported target is a compile error rather than an
//! empty registry.
//!
//! A crate that nothing in the final binary names is never linked, and its entries vanish
//! without a trace. [`link!`](crate::link) names crates; the generator's workspace scan
//! (`kube_markers::codegen`) catches the ones still missing.

use linkme::distributed_slice;

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
        }
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

/// Every `#[rbac]` entry of the linked crates, in link order (which means nothing: the
/// aggregation sorts).
#[distributed_slice]
pub static RBAC_ENTRIES: [RbacEntry];

/// The crates named by [`link!`](crate::link), so errors can say which ones are.
#[distributed_slice]
pub static LINKED_CRATES: [&'static str];

/// The registered RBAC entries, sorted by source location so that everything downstream sees
/// the same order whatever the linker did.
pub fn rbac_entries() -> Vec<&'static RbacEntry> {
    let mut entries: Vec<&'static RbacEntry> = RBAC_ENTRIES.iter().collect();
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
