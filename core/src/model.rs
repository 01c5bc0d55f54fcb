//! What an attribute means, as plain data: the one model of an RBAC rule that the parser
//! produces, the scan compares, and the generator aggregates (the registry holds the same
//! fields as statics, and converts to this).

/// A validated `#[rbac]` attribute: the same fields as controller-gen's `rbac.Rule` plus where
/// the rule goes.
///
/// Lists keep the order and spelling the user wrote (`core` stays `core`): normalising is the
/// aggregator's job, so that provenance reports can quote the attribute as written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct RbacMarker {
    /// API groups as written (`core` is mapped to `""` during normalization).
    pub groups: Vec<String>,
    /// Resources, possibly with `/subresource`.
    pub resources: Vec<String>,
    /// Object names the rule is restricted to.
    pub resource_names: Vec<String>,
    /// Verbs.
    pub verbs: Vec<String>,
    /// Non-resource URLs.
    pub urls: Vec<String>,
    /// Namespace of the Role; `None` for the ClusterRole.
    pub namespace: Option<String>,
    /// Name of the (Cluster)Role; `None` for the generator's default.
    pub role_name: Option<String>,
}

/// A validated `#[webhook]` attribute: controller-gen's `+kubebuilder:webhook` `Config`, with
/// its values already in the API's spelling (`Fail`, `CREATE`, `NoneOnDryRun`).
///
/// Lists keep the order the user wrote; `core` in `groups` is mapped to `""` when the webhook
/// object is built, as controller-gen does.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct WebhookMarker {
    /// Name of the webhook (a domain of at least three segments).
    pub name: String,
    /// A `MutatingWebhookConfiguration` webhook (otherwise a validating one).
    pub mutating: bool,
    /// `Fail` or `Ignore`.
    pub failure_policy: String,
    /// `Exact` or `Equivalent`, if given.
    pub match_policy: Option<String>,
    /// `None` or `NoneOnDryRun`, if given (a `patch` may set it instead).
    pub side_effects: Option<String>,
    /// 1..=30, if given.
    pub timeout_seconds: Option<i32>,
    /// API groups of the rule, as written.
    pub groups: Vec<String>,
    /// Resources of the rule.
    pub resources: Vec<String>,
    /// Operations of the rule: `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    pub verbs: Vec<String>,
    /// API versions of the rule.
    pub versions: Vec<String>,
    /// How the API server reaches the webhook.
    pub client: WebhookClient,
    /// Preferred `AdmissionReview` versions, in order.
    pub admission_review_versions: Vec<String>,
    /// `Never` or `IfNeeded`, if given; controller-gen ignores it on validating webhooks.
    pub reinvocation_policy: Option<String>,
    /// A JSON object merged into the webhook after everything else (controller-gen's `patch`).
    pub patch: Option<String>,
}

/// Where a webhook is served: a Service of the cluster (`path`) or a URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WebhookClient {
    /// `path` (with `service_name`, `service_namespace`, `service_port`).
    Service {
        /// Service name; controller-gen's default is `webhook-service`.
        name: Option<String>,
        /// Service namespace; controller-gen's default is `system`.
        namespace: Option<String>,
        /// Service port; the API server's default is 443.
        port: Option<i32>,
        /// The HTTP path the webhook serves on.
        path: String,
    },
    /// `url`: `https://host:port/path`.
    Url(String),
}

impl Default for WebhookClient {
    fn default() -> Self {
        WebhookClient::Service {
            name: None,
            namespace: None,
            port: None,
            path: String::new(),
        }
    }
}

impl WebhookClient {
    /// The path the webhook serves on: the `path`, or the path part of the `url`.
    pub fn path(&self) -> &str {
        match self {
            WebhookClient::Service { path, .. } => path,
            WebhookClient::Url(url) => {
                let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
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
    pub name: Option<String>,
}
