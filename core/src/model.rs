//! What an attribute means, as plain data: one model from the macro's parser through the
//! link-time registry and the generator's source scan to the aggregation.
//!
//! An [`Attribute`] is what one attribute says (its marker: [`RbacMarker`], [`WebhookMarker`],
//! [`WebhookConfigurationMarker`]), where it stands ([`Source`]) and its arguments' text. Its
//! strings are [`Text`]: borrowed from the registry's records in a generator (no copy per
//! attribute), owned where they were parsed from tokens (the macros, the scan).

use std::borrow::Cow;
use std::fmt;

/// A string of the model: `'static` text of the registry, or text parsed at run time.
pub type Text = Cow<'static, str>;

/// One attribute as written: what it says, where it stands, and its arguments' text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Attribute<M> {
    /// What it says, validated.
    pub marker: M,
    /// Where it stands.
    pub source: Source,
    /// The arguments as the macro received them, tokens joined by one space
    /// (`call_site::normalized_tokens`): the generator's cross-check compares it with the
    /// source's text before parsing anything. Empty when unknown.
    pub args: Text,
}

impl<M> Attribute<M> {
    /// The attribute `marker` at `source`, written as `args`.
    pub fn new(marker: M, source: Source, args: impl Into<Text>) -> Self {
        Attribute {
            marker,
            source,
            args: args.into(),
        }
    }
}

/// Where an attribute stands in the source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub struct Source {
    /// `file!()` at the attribute: relative to the workspace root for workspace members.
    pub file: Text,
    /// Line of the attribute (1-based).
    pub line: u32,
    /// Column of the attribute (1-based).
    pub column: u32,
    /// `module_path!()` at the attribute; its first segment is the crate name.
    pub module_path: Text,
    /// The annotated item: a function or method name, a type name, or `impl Trait for Type`.
    pub item: Text,
}

impl Source {
    /// Where an attribute stands.
    pub fn new(
        file: impl Into<Text>,
        line: u32,
        column: u32,
        module_path: impl Into<Text>,
        item: impl Into<Text>,
    ) -> Self {
        Source {
            file: file.into(),
            line,
            column,
            module_path: module_path.into(),
            item: item.into(),
        }
    }

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
            file: Cow::Borrowed(file),
            line,
            column,
            module_path: Cow::Borrowed(module_path),
            item: Cow::Borrowed(item),
        }
    }

    /// The crate the attribute was compiled in (with `_` for `-`).
    pub fn crate_name(&self) -> &str {
        let path: &str = &self.module_path;
        path.split("::").next().unwrap_or(path)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.item)
    }
}

/// The API group a group is written as: controller-gen (and the API server's RBAC) read `core`
/// as the core group, `""`. The one place this spelling is decided.
pub fn api_group(written: &str) -> &str {
    if written == "core" { "" } else { written }
}

/// The `#[rbac]` attribute a message suggests for one rule, as every such message writes it
/// (`Display`): by its full path, which compiles where it is pasted with no `use
/// kube_markers::rbac;` in the file, its fields in one order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SuggestedRbac<'a> {
    /// A non-resource URL (`urls = ".."`), in place of the group and resource.
    pub url: Option<&'a str>,
    /// The API group (`""` for the core group).
    pub group: &'a str,
    /// `resource[/subresource]`.
    pub resource: &'a str,
    /// The verbs, `;`-separated.
    pub verbs: &'a str,
    /// One object's name (`resource_names = ".."`).
    pub resource_name: Option<&'a str>,
    /// A Role's namespace (`namespace = ".."`).
    pub namespace: Option<&'a str>,
}

impl std::fmt::Display for SuggestedRbac<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("#[kube_markers::rbac(")?;
        match self.url {
            Some(url) => write!(f, "urls = {url:?}")?,
            None => write!(
                f,
                "groups = {:?}, resources = {:?}",
                self.group, self.resource
            )?,
        }
        write!(f, ", verbs = {:?}", self.verbs)?;
        if let Some(name) = self.resource_name {
            write!(f, ", resource_names = {name:?}")?;
        }
        if let Some(namespace) = self.namespace {
            write!(f, ", namespace = {namespace:?}")?;
        }
        f.write_str(")]")
    }
}

/// A validated `#[rbac]` attribute: the same fields as controller-gen's `rbac.Rule` plus where
/// the rule goes.
///
/// Lists keep the order and spelling the user wrote (`core` stays `core`): normalising is the
/// aggregator's job, so that provenance reports can quote the attribute as written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct RbacMarker {
    /// API groups as written (`core` is read as `""`, [`api_group`], when rules are made).
    pub groups: Vec<Text>,
    /// Resources, possibly with `/subresource`.
    pub resources: Vec<Text>,
    /// Object names the rule is restricted to.
    pub resource_names: Vec<Text>,
    /// Verbs.
    pub verbs: Vec<Text>,
    /// Non-resource URLs.
    pub urls: Vec<Text>,
    /// Namespace of the Role; `None` for the ClusterRole.
    pub namespace: Option<Text>,
    /// Name of the (Cluster)Role; `None` for the generator's default.
    pub role_name: Option<Text>,
    /// `allow(lint, ..., reason = "...")`: the generator's lints this attribute accepts, one
    /// entry per lint, in the order written.
    pub allow: Vec<Allow>,
}

/// One lint an attribute accepts, and why.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Allow {
    /// The lint's kebab-case name (one of [`crate::lints::Lint::ALL`]).
    pub lint: Text,
    /// The reason the attribute states (never empty).
    pub reason: Text,
}

/// A validated `#[webhook]` attribute: controller-gen's `+kubebuilder:webhook` `Config`, with
/// its values already in the API's spelling (`Fail`, `CREATE`, `NoneOnDryRun`).
///
/// Lists keep the order the user wrote; `core` in `groups` is mapped to `""` when the webhook
/// object is built, as controller-gen does.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct WebhookMarker {
    /// Name of the webhook (a domain of at least three segments).
    pub name: Text,
    /// A `MutatingWebhookConfiguration` webhook (otherwise a validating one).
    pub mutating: bool,
    /// `Fail` or `Ignore`.
    pub failure_policy: Text,
    /// `Exact` or `Equivalent`, if given.
    pub match_policy: Option<Text>,
    /// `None` or `NoneOnDryRun`, if given (a `patch` may set it instead).
    pub side_effects: Option<Text>,
    /// 1..=30, if given.
    pub timeout_seconds: Option<i32>,
    /// API groups of the rule, as written.
    pub groups: Vec<Text>,
    /// Resources of the rule.
    pub resources: Vec<Text>,
    /// Operations of the rule: `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    pub verbs: Vec<Text>,
    /// API versions of the rule.
    pub versions: Vec<Text>,
    /// How the API server reaches the webhook.
    pub client: WebhookClient,
    /// Preferred `AdmissionReview` versions, in order.
    pub admission_review_versions: Vec<Text>,
    /// `Never` or `IfNeeded`, if given; controller-gen ignores it on validating webhooks.
    pub reinvocation_policy: Option<Text>,
    /// A JSON object merged into the webhook after everything else (controller-gen's `patch`).
    pub patch: Option<Text>,
}

/// Where a webhook is served: a Service of the cluster (`path`) or a URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WebhookClient {
    /// `path` (with `service_name`, `service_namespace`, `service_port`).
    Service {
        /// Service name; controller-gen's default is `webhook-service`.
        name: Option<Text>,
        /// Service namespace; controller-gen's default is `system`.
        namespace: Option<Text>,
        /// Service port; the API server's default is 443.
        port: Option<i32>,
        /// The HTTP path the webhook serves on.
        path: Text,
    },
    /// `url`: `https://host:port/path`.
    Url(Text),
}

impl Default for WebhookClient {
    fn default() -> Self {
        WebhookClient::Service {
            name: None,
            namespace: None,
            port: None,
            path: Text::Borrowed(""),
        }
    }
}

impl WebhookClient {
    /// The path the webhook serves on: the `path`, or the path part of the `url`.
    pub fn path(&self) -> &str {
        match self {
            WebhookClient::Service { path, .. } => path,
            WebhookClient::Url(url) => {
                let rest = url.split_once("://").map_or(url.as_ref(), |(_, r)| r);
                rest.find('/').map_or("/", |i| &rest[i..])
            }
        }
    }
}

/// A validated `#[webhook_configuration]`: the name of the mutating or validating
/// configuration object (controller-gen's `+kubebuilder:webhookconfiguration`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct WebhookConfigurationMarker {
    /// Names the `MutatingWebhookConfiguration` (otherwise the validating one).
    pub mutating: bool,
    /// The object's name; `None` keeps controller-gen's default.
    pub name: Option<Text>,
}

/// Which kube-markers attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttrKind {
    /// `#[rbac]`
    Rbac,
    /// `#[crd]`
    Crd,
    /// `#[webhook]`
    Webhook,
    /// `#[webhook_configuration]`
    WebhookConfiguration,
    /// `#[conversion]`
    Conversion,
}

impl AttrKind {
    /// The attribute's name.
    pub fn name(self) -> &'static str {
        match self {
            AttrKind::Rbac => "rbac",
            AttrKind::Crd => "crd",
            AttrKind::Webhook => "webhook",
            AttrKind::WebhookConfiguration => "webhook_configuration",
            AttrKind::Conversion => "conversion",
        }
    }
}
