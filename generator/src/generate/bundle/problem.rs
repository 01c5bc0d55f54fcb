//! Why the deploy bundle cannot be made: its identity is declared wrong, or its objects' names
//! clash or are invalid. Each problem names the key and where it was set, or the objects and
//! what made them.

use super::identity::Origin;
use std::path::PathBuf;

/// `a, b, c`.
fn joined(items: &[String]) -> String {
    items.join(", ")
}

/// One problem with the deploy bundle; nothing is written while there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BundleProblem {
    /// `bundle` in `[*.metadata.kube-markers]` is not a table.
    #[error("{origin}: `bundle` must be a table, not {found}")]
    NotATable {
        /// Where it is declared.
        origin: Origin,
        /// What it is instead (`the string "x"`, `an array`, ...).
        found: String,
    },
    /// A `bundle` table has a key the bundle does not know.
    #[error(
        "{origin}: unknown key `{key}`{}; known keys: {}",
        suggestion.map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default(),
        known.join(", ")
    )]
    UnknownKey {
        /// The table.
        origin: Origin,
        /// The key.
        key: String,
        /// The known key it is closest to, if any.
        suggestion: Option<&'static str>,
        /// Every known key.
        known: &'static [&'static str],
    },
    /// The workspace's and the generator's tables set a key to different values.
    #[error(
        "conflicting identities: `{key}` is {first} in {first_origin} but {other} in \
         {other_origin}; declare it in one place"
    )]
    Conflict {
        /// The key.
        key: &'static str,
        /// Its first value, as TOML-ish JSON.
        first: String,
        /// Where that is.
        first_origin: Origin,
        /// The other value.
        other: String,
        /// Where that is.
        other_origin: Origin,
    },
    /// A key's value has the wrong type.
    #[error("{origin}: `{key}` must be {expected}, not {found}")]
    WrongType {
        /// Where it is set.
        origin: Origin,
        /// The key.
        key: &'static str,
        /// What it must be (`true or false`, `a string`, ...).
        expected: &'static str,
        /// What it is (`the number 3`, ...).
        found: String,
    },
    /// Flags set an identity that `enabled = false` switches off.
    #[error(
        "conflicting identities: {} set(s) the operator's identity, but the bundle is switched \
         off by `enabled = false` in {origin}", flags.join(", ")
    )]
    SwitchedOff {
        /// The identity flags given.
        flags: Vec<&'static str>,
        /// The table that switches the bundle off.
        origin: Origin,
    },
    /// Nothing names the operator, and not exactly one crate is linked to name it after.
    #[error(
        "the bundle needs the operator's name ({}): set `name = \"...\"` in \
         [package.metadata.kube-markers.bundle] of the generator's Cargo.toml, or pass \
         --operator-name; or switch the bundle off with `enabled = false` / --no-bundle",
        if linked.is_empty() { "no crate is linked".to_string() }
        else { format!("{} crates are linked: {}", linked.len(), joined(linked)) }
    )]
    NoName {
        /// The crates linked into the generator.
        linked: Vec<String>,
    },
    /// A port key (`health-probe-port`, `metrics-port`) is not a port.
    #[error("{origin}: `{key} = {value}` is not a port (1 to 65535)")]
    NotAPort {
        /// Where it is set.
        origin: Origin,
        /// The key.
        key: &'static str,
        /// The number given.
        value: String,
    },
    /// A path key (`liveness-probe-path`, `readiness-probe-path`, `metrics-path`) is not an
    /// HTTP path.
    #[error(
        "{origin}: `{key} = {value:?}` is not an HTTP path: it must start with `/` and hold no \
         white space (\"/healthz\", say)"
    )]
    NotAPath {
        /// Where it is set.
        origin: Origin,
        /// The key.
        key: &'static str,
        /// The path given.
        value: String,
    },
    /// `metrics-path` without `metrics-port`: nothing says the operator serves metrics.
    #[error(
        "{origin}: `metrics-path` is set, but not `metrics-port`: set the port the operator \
         serves its metrics on too"
    )]
    MetricsPathWithoutPort {
        /// Where `metrics-path` is set.
        origin: Origin,
    },
    /// A port of the identity is the webhook server's, which the manager also serves.
    #[error(
        "{origin}: `{key} = {port}` is the port the manager's webhook server listens on \
         ({reason}): choose another"
    )]
    PortTaken {
        /// Where it is set.
        origin: Origin,
        /// The key.
        key: &'static str,
        /// The port.
        port: u16,
        /// Why the webhook server runs (`webhooks = true`, a CRD that converts).
        reason: &'static str,
    },
    /// A name of the identity is not one the API server accepts.
    #[error("{origin}: `{key} = {value:?}` is not a valid {what}: {reason}")]
    InvalidName {
        /// Where it is set.
        origin: Origin,
        /// The key (`name`, `namespace`, `service-account`).
        key: &'static str,
        /// The value.
        value: String,
        /// What it names (`namespace (DNS-1123 label)`, ...).
        what: &'static str,
        /// Why it is invalid.
        reason: String,
    },
    /// The namespace is `default` or has the `kube-` prefix Kubernetes reserves.
    #[error(
        "{origin}: `namespace = {namespace:?}` is {}; Kubernetes owns `default` and reserves the \
         `kube-` prefix, and the bundle creates and deletes its own namespace: choose the \
         operator's own (default `<name>-system`)",
        if namespace == "default" { "every cluster's `default` namespace" }
        else { "in the `kube-` prefix Kubernetes reserves for its system namespaces" }
    )]
    SystemNamespace {
        /// Where it is set.
        origin: Origin,
        /// The namespace.
        namespace: String,
    },
    /// The image is empty or has white space.
    #[error("{origin}: `image = {image:?}` is not an image reference (empty or with white space)")]
    InvalidImage {
        /// Where it is set.
        origin: Origin,
        /// The image.
        image: String,
    },
    /// `cert-manager = true`, but the server serves nothing: neither `webhooks = true` nor a
    /// CRD that converts.
    #[error(
        "{origin}: `cert-manager = true` issues the webhook server's certificate, but it serves \
         nothing: set `webhooks = true` too, or declare a #[kube_markers::conversion]"
    )]
    CertManagerWithoutWebhooks {
        /// Where `cert-manager` is set.
        origin: Origin,
    },
    /// `name-prefix` cannot start any valid name.
    #[error("{origin}: `name-prefix = {prefix:?}` cannot start a valid name: {reason}")]
    InvalidNamePrefix {
        /// Where it is set.
        origin: Origin,
        /// The prefix.
        prefix: String,
        /// Why.
        reason: String,
    },
    /// `webhooks = true`, but no `#[webhook]` is linked.
    #[error(
        "{origin}: `webhooks = true`, but no #[webhook] is linked into this generator: there \
         are no webhook configurations to install"
    )]
    NoWebhooks {
        /// Where `webhooks` is set.
        origin: Origin,
    },
    /// `webhooks = true`, but `--webhook-out` puts the manifests where kustomize cannot load
    /// them.
    #[error(
        "{origin}: `webhooks = true`, but the webhook manifests are written outside the output \
         directory (--webhook-out), where kustomize cannot load them"
    )]
    WebhooksOutsideOutput {
        /// Where `webhooks` is set.
        origin: Origin,
    },
    /// Two producers make an object of the same kind, namespace and name.
    #[error(
        "the {kind} `{name}`{} would be generated twice, by {first} and by {second}; rename one \
         of them",
        if namespace.is_empty() { String::new() } else { format!(" in namespace `{namespace}`") }
    )]
    Duplicate {
        /// The object's kind.
        kind: &'static str,
        /// Its namespace (empty for cluster-scoped objects).
        namespace: String,
        /// Its name.
        name: String,
        /// What makes it first (an `#[rbac]` attribute, the bundle's own roles, ...).
        first: String,
        /// What makes it again.
        second: String,
    },
    /// An object's name, with kustomize's `namePrefix`, is not one the API server accepts.
    #[error(
        "the {kind} `{name}` (name prefix `{prefix}` from {prefix_origin}) made for {producer} \
         is not a valid name: {reason}"
    )]
    InvalidPrefixedName {
        /// The object's kind.
        kind: &'static str,
        /// The full name, prefix included.
        name: String,
        /// The prefix.
        prefix: String,
        /// Where the prefix is set.
        prefix_origin: Origin,
        /// What makes the object.
        producer: String,
        /// Why the name is invalid.
        reason: String,
    },
}

/// What the deploy bundle leaves undone, without stopping the run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BundleWarning {
    /// `--crd-out` is outside `--out`, where kustomize cannot list the CRDs.
    #[error(
        "the CRDs are written to {}, outside {}: kustomization.yaml does not list them, so \
         `kubectl apply -k` does not install them",
        crd_dir.display(),
        out_dir.display()
    )]
    CrdsOutsideBundle {
        /// `--crd-out`.
        crd_dir: PathBuf,
        /// `--out`.
        out_dir: PathBuf,
    },
    /// With `--no-scan` and no identity flags, an earlier bundle is left as it is.
    #[error(
        "{} holds a deploy bundle, but with --no-scan the operator's identity in Cargo.toml is \
         not read: the bundle's files are left as they are (pass --operator-name, or \
         --no-bundle to remove them)",
        kustomization.display()
    )]
    KeptWithoutScan {
        /// The earlier bundle's `kustomization.yaml`.
        kustomization: PathBuf,
    },
}
