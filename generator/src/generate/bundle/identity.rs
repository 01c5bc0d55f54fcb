//! The operator's identity: who the bundle installs and how, declared once.
//!
//! Sources, strongest first: the generator's flags; `[package.metadata.kube-markers.bundle]` in
//! the generator's own `Cargo.toml` (the workspace member of the package `kube_markers::link!`
//! recorded, whatever its binary is called); `[workspace.metadata.kube-markers.bundle]`;
//! kubebuilder's defaults. A
//! key set in both tables must say the same thing there (the identity is declared once), and
//! every value is checked, each error naming the key and the file it came from.

use super::BundleProblem;
use crate::options::BundleFlags;
use cargo_metadata::Metadata;
use kube_markers_core::names::{dns1123_label, dns1123_subdomain};
use kube_markers_core::suggest::did_you_mean;
use serde_json::{Map, Value};
use std::fmt;
use std::path::PathBuf;

/// kubebuilder's ServiceAccount (and Deployment) name.
pub const DEFAULT_SERVICE_ACCOUNT: &str = "controller-manager";
/// kubebuilder's placeholder image.
pub const DEFAULT_IMAGE: &str = "controller:latest";
/// controller-runtime's health probe port.
pub const DEFAULT_HEALTH_PROBE_PORT: u16 = 8081;
/// controller-runtime's liveness probe path.
pub const DEFAULT_LIVENESS_PROBE_PATH: &str = "/healthz";
/// controller-runtime's readiness probe path.
pub const DEFAULT_READINESS_PROBE_PATH: &str = "/readyz";
/// Where Prometheus scrapes by default.
pub const DEFAULT_METRICS_PATH: &str = "/metrics";

/// Whether a bundle must not own `namespace`: it creates and deletes its own namespace, and
/// Kubernetes owns `default` and reserves the `kube-` prefix for its system namespaces
/// (`kube-system`, `kube-public`, `kube-node-lease`, and any it adds; the API server refuses
/// to delete `default`, `kube-system` and `kube-public`, not the others).
fn reserved_namespace(namespace: &str) -> bool {
    namespace == "default" || namespace.starts_with("kube-")
}

/// The keys of a `bundle` table.
const KEYS: &[&str] = &[
    "enabled",
    "name",
    "namespace",
    "service-account",
    "image",
    "args",
    "name-prefix",
    "health-probe-port",
    "liveness-probe-path",
    "readiness-probe-path",
    "metrics-port",
    "metrics-path",
    "leader-election",
    "metrics-auth",
    "aggregate-to-default-roles",
    "webhooks",
    "cert-manager",
    "chart",
];

/// Where a setting came from, as error messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// A generator flag.
    Flag(&'static str),
    /// `[workspace.metadata.kube-markers.bundle]` in this `Cargo.toml`.
    Workspace(PathBuf),
    /// `[package.metadata.kube-markers.bundle]` in this `Cargo.toml`.
    Package(PathBuf),
    /// Nothing set it: the default.
    Default,
    /// Derived from the one crate the generator links.
    LinkedCrate(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(flag) => write!(f, "`{flag}`"),
            Origin::Workspace(path) => write!(
                f,
                "[workspace.metadata.kube-markers.bundle] in {}",
                path.display()
            ),
            Origin::Package(path) => write!(
                f,
                "[package.metadata.kube-markers.bundle] in {}",
                path.display()
            ),
            Origin::Default => f.write_str("the default"),
            Origin::LinkedCrate(name) => write!(f, "the linked crate `{name}`"),
        }
    }
}

/// Who the bundle installs, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The operator's name: the `app.kubernetes.io/name` label and the default prefix and
    /// namespace.
    pub name: String,
    /// The namespace the operator runs in (kustomize's `namespace:` can move it at install).
    pub namespace: String,
    /// Its ServiceAccount.
    pub service_account: String,
    /// The manager container's image.
    pub image: String,
    /// The manager container's arguments.
    pub args: Vec<String>,
    /// kustomize's `namePrefix` (default `<name>-`, as kubebuilder's `project-`): keeps the
    /// cluster-scoped names of two operators apart.
    pub name_prefix: String,
    /// Port of the liveness and readiness probes.
    pub health_probe_port: u16,
    /// The liveness probe's path (`/healthz`); `None`: no liveness probe.
    pub liveness_probe_path: Option<String>,
    /// The readiness probe's path (`/readyz`); `None`: no readiness probe.
    pub readiness_probe_path: Option<String>,
    /// The port the operator serves its metrics on, if it serves them: the manager's port
    /// `metrics` and the metrics Service (and the chart's ServiceMonitor).
    pub metrics_port: Option<u16>,
    /// The path Prometheus scrapes on `metrics_port` (`/metrics`).
    pub metrics_path: String,
    /// Generate the leader-election Role and binding.
    pub leader_election: bool,
    /// Generate the metrics-auth ClusterRole and binding and the metrics-reader ClusterRole.
    pub metrics_auth: bool,
    /// Label the per-CRD roles `rbac.authorization.k8s.io/aggregate-to-{view,edit,admin}`.
    pub aggregate_to_default_roles: bool,
    /// Install the webhooks: list `webhook/manifests.yaml`, add their Service, and serve port
    /// 9443 from the manager with the certificate Secret mounted.
    pub webhooks: bool,
    /// Have cert-manager issue the webhooks' certificate and inject its CA (needs `webhooks`).
    pub cert_manager: bool,
    /// Write the Helm chart `<out>/chart/` beside the kustomization (default `true`).
    pub chart: bool,
    /// Where each key's value came from, for error messages.
    pub origins: Vec<(&'static str, Origin)>,
}

impl Identity {
    /// kubebuilder's defaults for an operator called `name`.
    pub fn with_defaults(name: &str) -> Identity {
        Identity {
            name: name.to_string(),
            namespace: format!("{name}-system"),
            service_account: DEFAULT_SERVICE_ACCOUNT.to_string(),
            image: DEFAULT_IMAGE.to_string(),
            args: Vec::new(),
            name_prefix: format!("{name}-"),
            health_probe_port: DEFAULT_HEALTH_PROBE_PORT,
            liveness_probe_path: Some(DEFAULT_LIVENESS_PROBE_PATH.to_string()),
            readiness_probe_path: Some(DEFAULT_READINESS_PROBE_PATH.to_string()),
            metrics_port: None,
            metrics_path: DEFAULT_METRICS_PATH.to_string(),
            leader_election: false,
            metrics_auth: false,
            aggregate_to_default_roles: false,
            webhooks: false,
            cert_manager: false,
            chart: true,
            origins: Vec::new(),
        }
    }

    /// Where `key` was set (`the default` if nowhere).
    pub fn origin(&self, key: &str) -> Origin {
        self.origins
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, o)| o.clone())
            .unwrap_or(Origin::Default)
    }
}

/// One declared `bundle` table.
struct Table<'a> {
    origin: Origin,
    entries: &'a Map<String, Value>,
}

/// The `bundle` tables of the workspace and of the generator's package, from `cargo metadata`.
/// `generator_package` is the generator's package, as `link!` recorded it.
fn tables<'a>(
    metadata: &'a Metadata,
    generator_package: Option<&str>,
    errors: &mut Vec<BundleProblem>,
) -> Vec<Table<'a>> {
    let root = metadata.workspace_root.as_std_path();
    let mut out = Vec::new();
    let mut push = |origin: Origin, value: &'a Value| match value {
        Value::Null => {}
        Value::Object(entries) => out.push(Table { origin, entries }),
        other => errors.push(BundleProblem::NotATable {
            origin,
            found: describe(other),
        }),
    };
    push(
        Origin::Workspace(root.join("Cargo.toml")),
        &metadata.workspace_metadata["kube-markers"]["bundle"],
    );
    let Some(package) = generator_package else {
        return out;
    };
    for pkg in &metadata.packages {
        if pkg.name.as_str() == package {
            push(
                Origin::Package(pkg.manifest_path.as_std_path().to_path_buf()),
                &pkg.metadata["kube-markers"]["bundle"],
            );
        }
    }
    out
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "a table".into(),
    }
}

/// A key's value and where it came from: the flag if given, else the one value the tables
/// agree on. Tables that disagree are an error naming both.
fn pick<'a>(
    key: &'static str,
    flag: Option<(&'static str, &'a Value)>,
    tables: &'a [Table<'a>],
    errors: &mut Vec<BundleProblem>,
) -> Option<(&'a Value, Origin)> {
    let declared: Vec<(&Value, &Origin)> = tables
        .iter()
        .filter_map(|t| t.entries.get(key).map(|v| (v, &t.origin)))
        .collect();
    if let [(first, first_origin), rest @ ..] = declared.as_slice() {
        for (other, other_origin) in rest {
            if other != first {
                errors.push(BundleProblem::Conflict {
                    key,
                    first: first.to_string(),
                    first_origin: (*first_origin).clone(),
                    other: other.to_string(),
                    other_origin: (*other_origin).clone(),
                });
            }
        }
    }
    if let Some((flag, value)) = flag {
        return Some((value, Origin::Flag(flag)));
    }
    declared.first().map(|(v, o)| (*v, (*o).clone()))
}

/// Resolves the identity, or `None` when no bundle is wanted: nothing declares one, or
/// `--no-bundle` / `enabled = false` switch it off.
///
/// `metadata` is the workspace's `cargo metadata` (`None` with `--no-scan`: flags only);
/// `generator_package` the generator's package, whose table is read; `linked_crates` name
/// the default operator when exactly one crate is linked.
pub fn resolve(
    flags: &BundleFlags,
    metadata: Option<&Metadata>,
    generator_package: Option<&str>,
    linked_crates: &[&str],
) -> Result<Option<Identity>, Vec<BundleProblem>> {
    let mut errors = Vec::new();
    let tables = metadata
        .map(|m| tables(m, generator_package, &mut errors))
        .unwrap_or_default();
    let mut keys = Keys {
        tables: &tables,
        flags: [
            ("name", "--operator-name", &flags.name),
            ("namespace", "--operator-namespace", &flags.namespace),
            ("image", "--image", &flags.image),
        ]
        .into_iter()
        .filter_map(|(key, flag, v)| v.clone().map(|v| (key, flag, Value::String(v))))
        .collect(),
        errors,
    };
    keys.unknown_keys();
    if keys.switched_off(flags) || flags.off || (tables.is_empty() && !flags.any_identity()) {
        return if keys.errors.is_empty() {
            Ok(None)
        } else {
            Err(keys.errors)
        };
    }
    // The name first: the other defaults derive from it.
    let Some(name) = keys.name(linked_crates) else {
        return Err(keys.errors);
    };
    let mut id = Identity::with_defaults(&name.0);
    id.origins.push(("name", name.1));
    keys.strings(&mut id);
    keys.switches(&mut id);
    keys.args(&mut id);
    keys.ports_and_paths(&mut id);
    let mut errors = keys.errors;
    validate(&id, &mut errors);
    if errors.is_empty() {
        Ok(Some(id))
    } else {
        Err(errors)
    }
}

/// The identity's keys as the tables and the flags set them, and every problem found.
struct Keys<'a> {
    tables: &'a [Table<'a>],
    /// `(key, flag, value)` of the identity flags given.
    flags: Vec<(&'static str, &'static str, Value)>,
    errors: Vec<BundleProblem>,
}

impl<'a> Keys<'a> {
    /// `key`'s value and where it came from ([`pick`]), its flag first.
    fn pick(&mut self, key: &'static str) -> Option<(&Value, Origin)> {
        let flag = self
            .flags
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, f, v)| (*f, v));
        pick(key, flag, self.tables, &mut self.errors)
    }

    fn wrong_type(
        &mut self,
        origin: Origin,
        key: &'static str,
        expected: &'static str,
        found: &Value,
    ) {
        self.errors.push(BundleProblem::WrongType {
            origin,
            key,
            expected,
            found: describe(found),
        });
    }

    fn unknown_keys(&mut self) {
        for table in self.tables {
            for key in table.entries.keys() {
                if !KEYS.contains(&key.as_str()) {
                    self.errors.push(BundleProblem::UnknownKey {
                        origin: table.origin.clone(),
                        key: key.clone(),
                        suggestion: did_you_mean(key, KEYS),
                        known: KEYS,
                    });
                }
            }
        }
    }

    /// `enabled = false` in a table; with identity flags, that is an error.
    fn switched_off(&mut self, flags: &BundleFlags) -> bool {
        let enabled = self.pick("enabled").map(|(v, o)| (v.clone(), o));
        let switched_off = match &enabled {
            Some((Value::Bool(b), _)) => !b,
            Some((other, origin)) => {
                self.wrong_type(origin.clone(), "enabled", "true or false", other);
                false
            }
            None => false,
        };
        if switched_off && flags.any_identity() {
            let (_, origin) = enabled.expect("switched off by a table");
            self.errors.push(BundleProblem::SwitchedOff {
                flags: self.flags.iter().map(|(_, f, _)| *f).collect(),
                origin,
            });
        }
        switched_off
    }

    /// The operator's name and where it came from: set, else the one linked crate's; `None`
    /// when neither (an error).
    fn name(&mut self, linked_crates: &[&str]) -> Option<(String, Origin)> {
        match self.pick("name").map(|(v, o)| (v.clone(), o)) {
            Some((Value::String(s), origin)) => Some((s, origin)),
            Some((other, origin)) => {
                self.wrong_type(origin.clone(), "name", "a string", &other);
                Some((String::from("operator"), origin))
            }
            None => match linked_crates {
                [one] => Some((one.replace('_', "-"), Origin::LinkedCrate(one.to_string()))),
                _ => {
                    self.errors.push(BundleProblem::NoName {
                        linked: linked_crates.iter().map(|c| c.to_string()).collect(),
                    });
                    None
                }
            },
        }
    }

    fn string(&mut self, key: &'static str, id: &mut Identity) -> Option<String> {
        match self.pick(key).map(|(v, o)| (v.clone(), o)) {
            Some((Value::String(s), origin)) => {
                id.origins.push((key, origin));
                Some(s)
            }
            Some((other, origin)) => {
                self.wrong_type(origin, key, "a string", &other);
                None
            }
            None => None,
        }
    }

    fn strings(&mut self, id: &mut Identity) {
        if let Some(v) = self.string("namespace", id) {
            id.namespace = v;
        }
        if let Some(v) = self.string("service-account", id) {
            id.service_account = v;
        }
        if let Some(v) = self.string("image", id) {
            id.image = v;
        }
        if let Some(v) = self.string("name-prefix", id) {
            id.name_prefix = v;
        }
    }

    fn switches(&mut self, id: &mut Identity) {
        for key in [
            "leader-election",
            "metrics-auth",
            "aggregate-to-default-roles",
            "webhooks",
            "cert-manager",
            "chart",
        ] {
            match self.pick(key).map(|(v, o)| (v.clone(), o)) {
                Some((Value::Bool(b), origin)) => {
                    let slot = match key {
                        "leader-election" => &mut id.leader_election,
                        "metrics-auth" => &mut id.metrics_auth,
                        "aggregate-to-default-roles" => &mut id.aggregate_to_default_roles,
                        "webhooks" => &mut id.webhooks,
                        "cert-manager" => &mut id.cert_manager,
                        _ => &mut id.chart,
                    };
                    *slot = b;
                    id.origins.push((key, origin));
                }
                Some((other, origin)) => self.wrong_type(origin, key, "true or false", &other),
                None => {}
            }
        }
    }

    fn args(&mut self, id: &mut Identity) {
        match self.pick("args").map(|(v, o)| (v.clone(), o)) {
            Some((Value::Array(items), origin)) if items.iter().all(Value::is_string) => {
                id.args = items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect();
                id.origins.push(("args", origin));
            }
            Some((other, origin)) => self.wrong_type(origin, "args", "an array of strings", &other),
            None => {}
        }
    }

    /// A port key: a number from 1 to 65535.
    fn port(&mut self, key: &'static str, id: &mut Identity) -> Option<u16> {
        let (value, origin) = self.pick(key).map(|(v, o)| (v.clone(), o))?;
        id.origins.push((key, origin.clone()));
        match value {
            Value::Number(n) => {
                let port = n
                    .as_u64()
                    .and_then(|p| u16::try_from(p).ok())
                    .filter(|p| *p > 0);
                if port.is_none() {
                    self.errors.push(BundleProblem::NotAPort {
                        origin,
                        key,
                        value: n.to_string(),
                    });
                }
                port
            }
            other => {
                self.wrong_type(origin, key, "a port number (1 to 65535)", &other);
                None
            }
        }
    }

    /// A path key: `Some(Some(path))` for a path, `Some(None)` for `false` when `may_be_off`
    /// (the probe is left out), `None` when unset or wrong (an error).
    fn path(
        &mut self,
        key: &'static str,
        may_be_off: bool,
        id: &mut Identity,
    ) -> Option<Option<String>> {
        let (value, origin) = self.pick(key).map(|(v, o)| (v.clone(), o))?;
        id.origins.push((key, origin.clone()));
        let expected = if may_be_off {
            "a path starting with `/`, or false (no probe)"
        } else {
            "a path starting with `/`"
        };
        match value {
            Value::String(path) => {
                // The kubelet would prepend the `/` itself; a path written without it is
                // more likely a mistake (a host name, a port) than a path.
                let bad = !path.starts_with('/')
                    || path.chars().any(|c| c.is_whitespace() || c.is_control());
                if bad {
                    self.errors.push(BundleProblem::NotAPath {
                        origin,
                        key,
                        value: path,
                    });
                    return None;
                }
                Some(Some(path))
            }
            Value::Bool(false) if may_be_off => Some(None),
            other => {
                self.wrong_type(origin, key, expected, &other);
                None
            }
        }
    }

    /// The probes' port and paths, and the metrics endpoint.
    fn ports_and_paths(&mut self, id: &mut Identity) {
        if let Some(port) = self.port("health-probe-port", id) {
            id.health_probe_port = port;
        }
        if let Some(path) = self.path("liveness-probe-path", true, id) {
            id.liveness_probe_path = path;
        }
        if let Some(path) = self.path("readiness-probe-path", true, id) {
            id.readiness_probe_path = path;
        }
        let metrics_port = self.port("metrics-port", id);
        if let Some(port) = metrics_port {
            id.metrics_port = Some(port);
        }
        if let Some(Some(path)) = self.path("metrics-path", false, id) {
            id.metrics_path = path;
        }
        let declared = |key| id.origin(key) != Origin::Default;
        if declared("metrics-path") && !declared("metrics-port") {
            self.errors.push(BundleProblem::MetricsPathWithoutPort {
                origin: id.origin("metrics-path"),
            });
        }
    }
}

/// Every name of the identity must be one the API server accepts.
fn validate(id: &Identity, errors: &mut Vec<BundleProblem>) {
    // Defaults made from a bad name are bad for the same reason: one error is enough.
    let name_ok = dns1123_label(&id.name).is_ok();
    let mut check = |key: &'static str,
                     value: &str,
                     what: &'static str,
                     rule: fn(&str) -> Result<(), String>| {
        if !name_ok && key != "name" && id.origin(key) == Origin::Default {
            return;
        }
        if let Err(reason) = rule(value) {
            errors.push(BundleProblem::InvalidName {
                origin: id.origin(key),
                key,
                value: value.to_string(),
                what,
                reason,
            });
        }
    };
    // The name is also a label value and part of other names: a DNS label.
    check(
        "name",
        &id.name,
        "operator name (DNS-1123 label)",
        dns1123_label,
    );
    check(
        "namespace",
        &id.namespace,
        "namespace (DNS-1123 label)",
        dns1123_label,
    );
    check(
        "service-account",
        &id.service_account,
        "ServiceAccount name (DNS-1123 subdomain)",
        dns1123_subdomain,
    );
    if reserved_namespace(&id.namespace) {
        errors.push(BundleProblem::SystemNamespace {
            origin: id.origin("namespace"),
            namespace: id.namespace.clone(),
        });
    }
    if id.image.is_empty() || id.image.chars().any(char::is_whitespace) {
        errors.push(BundleProblem::InvalidImage {
            origin: id.origin("image"),
            image: id.image.clone(),
        });
    }
    // The prefix itself is checked on the names it makes (see `super::names`); here only what
    // no name could survive.
    if !id.name_prefix.is_empty() && (name_ok || id.origin("name-prefix") != Origin::Default) {
        let probe = format!("{}x", id.name_prefix);
        if let Err(reason) = dns1123_subdomain(&probe) {
            errors.push(BundleProblem::InvalidNamePrefix {
                origin: id.origin("name-prefix"),
                prefix: id.name_prefix.clone(),
                reason,
            });
        }
    }
}
