//! The deploy bundle: everything besides `role.yaml` and the CRDs that installs the operator
//! with `kubectl apply -k <out>`: its Namespace and ServiceAccount, a binding for every role,
//! the opt-in leader-election and metrics-auth roles, editor/viewer/admin roles per CRD, the
//! manager Deployment, and `kustomization.yaml` (kubebuilder's `config/` layout, flattened).
//!
//! The path of the data: the [`Identity`] (flags, `Cargo.toml` metadata, defaults) and what the
//! generator already made (roles, CRDs) go into [`generate`], a pure function that returns
//! the files or every problem found; [`generate_for_run`] adds reading the workspace and the previous run's
//! files, which the next run removes when it no longer generates them.

mod bindings;
mod conversion;
mod deployment;
mod identity;
mod kustomize;
mod problem;
mod roles;
mod webhooks;

pub use bindings::{Binding, binding_name, bindings_for};
pub use conversion::converting as converting_crds;
pub use deployment::{
    CONTAINER, DEPLOYMENT, HEALTH_PROBE_PORT_ENV, METRICS_PORT_NAME, METRICS_SERVICE,
    NAMESPACE_ENV, SERVICE_ACCOUNT_ENV, metrics_service_labels, selector_labels,
};

/// The file of the metrics Service.
pub const METRICS_SERVICE_FILE: &str = "metrics_service.yaml";
pub use crate::options::BundleFlags;
pub use identity::{Identity, Origin, resolve};
pub use kustomize::{KUSTOMIZATION, PINNED_DIR, generated_line};
pub use problem::{BundleProblem, BundleWarning};
pub use roles::{
    BundleRole, CA_BUNDLE_ROLE, CA_BUNDLE_ROLE_FILE, LEADER_ELECTION_ROLE, METRICS_AUTH_ROLE,
    METRICS_READER_ROLE,
};
pub use webhooks::{CERTIFICATE, ISSUER, WEBHOOK_PORT_NAME};

use crate::generate::crds::GeneratedCrd;
use crate::generate::{Artifact, Artifacts, Context, GenerateError, GenerateWarning, Generated};
use crate::options::Options;
use crate::output::Output;
use crate::output::files::{IoAction, IoFailure};
use kube_markers_core::names::dns1123_subdomain;
use kube_markers_rbac::GeneratedRole;
use kube_markers_registry::RbacEntry;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What the generator made before the bundle, which the bundle binds and lists.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// `role.yaml`'s roles.
    pub roles: &'a [GeneratedRole],
    /// The attributes they came from (to name the source of a clashing role).
    pub entries: &'a [&'a RbacEntry],
    /// `--role-name`: the name of roles whose attributes give none.
    pub default_role_name: &'a str,
    /// The generated CRDs.
    pub crds: &'a [GeneratedCrd],
    /// Files the kustomization lists besides the bundle's own (the role file and the CRDs),
    /// relative to the output directory.
    pub listed_files: &'a [PathBuf],
    /// Text put before every file (`--header-file`).
    pub header: &'a str,
    /// How to regenerate the files, named in their "do not edit" line: `` `cargo run -p
    /// codegen` ``.
    pub regenerate: &'a str,
    /// The webhook configurations `webhook/manifests.yaml` holds.
    pub webhook_configurations: &'a [Value],
    /// That file relative to the output directory; `None` when it is written elsewhere
    /// (`--webhook-out`), where kustomize cannot load it.
    pub webhook_file: Option<&'a Path>,
}

/// One file of the bundle: path relative to the output directory, and text.
pub type File = (PathBuf, String);

fn common_labels(id: &Identity) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "app.kubernetes.io/managed-by".to_string(),
            "kustomize".to_string(),
        ),
        ("app.kubernetes.io/name".to_string(), id.name.clone()),
    ])
}

/// Who made an object: for messages about names that clash or are too long.
struct Named {
    kind: &'static str,
    namespace: String,
    name: String,
    producer: String,
    /// kustomize's `namePrefix` applies (not to Namespaces).
    prefixed: bool,
}

/// The source of the role `key` of `role.yaml`: its first attribute.
fn role_source(role: &GeneratedRole, input: &Input) -> String {
    let entry = input.entries.iter().find(|e| {
        e.marker.namespace.as_deref().unwrap_or_default() == role.key.namespace
            && e.marker
                .role_name
                .as_deref()
                .unwrap_or(input.default_role_name)
                == role.key.name
    });
    let given = match entry.and_then(|e| e.marker.role_name.as_deref()) {
        Some(name) => format!("`role_name = {name:?}`"),
        None => format!(
            "the default role name `{}` (--role-name)",
            input.default_role_name
        ),
    };
    match entry {
        Some(e) => format!(
            "{given} of the #[rbac] at {}:{} ({})",
            e.source.file, e.source.line, e.source.item
        ),
        None => given,
    }
}

fn kind_of(role: &GeneratedRole) -> (&'static str, &'static str) {
    if role.is_cluster_role() {
        ("ClusterRole", "ClusterRoleBinding")
    } else {
        ("Role", "RoleBinding")
    }
}

/// The bundle's files for this identity, or every problem with its names.
pub fn generate(id: &Identity, input: &Input) -> Result<Vec<File>, Vec<BundleProblem>> {
    build(id, input).map(|(files, _)| files)
}

/// The objects of the bundle's own resource files (not the role file, the CRDs nor the webhook
/// manifests), by file in the kustomization's order, as they are before kustomize transforms
/// them: what the Helm chart templates.
pub fn own_resources(
    id: &Identity,
    input: &Input,
) -> Result<Vec<(String, Vec<Value>)>, Vec<BundleProblem>> {
    build(id, input).map(|(_, resources)| resources)
}

type Resources = Vec<(String, Vec<Value>)>;

fn build(id: &Identity, input: &Input) -> Result<(Vec<File>, Resources), Vec<BundleProblem>> {
    let mut bundle = Builder::new(id, input);
    bundle.service_account();
    bundle.role_bindings();
    bundle.own_roles();
    let mut manager = deployment::deployment(id, &bundle.labels);
    let (patches, configurations) = bundle.webhooks(&mut manager);
    bundle.manager(manager);
    bundle.metrics_service();
    let pinned = bundle.pinned_namespaces();
    bundle.kustomization(&patches, &configurations, pinned);
    bundle.finish()
}

/// A bundle as it is made: its files, what the kustomization lists, and every name it gives an
/// object (checked together at the end).
struct Builder<'a> {
    id: &'a Identity,
    input: &'a Input<'a>,
    labels: BTreeMap<String, String>,
    files: Vec<File>,
    /// The objects of each file [`Builder::add`] listed.
    resources: Resources,
    listed: Vec<String>,
    names: Vec<Named>,
    errors: Vec<BundleProblem>,
}

impl<'a> Builder<'a> {
    fn new(id: &'a Identity, input: &'a Input<'a>) -> Self {
        let mut listed: Vec<String> = input
            .listed_files
            .iter()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        if let (true, Some(file), false) = (
            id.webhooks,
            input.webhook_file,
            input.webhook_configurations.is_empty(),
        ) {
            listed.push(file.to_string_lossy().replace('\\', "/"));
        }
        Builder {
            id,
            input,
            labels: common_labels(id),
            files: Vec::new(),
            resources: Vec::new(),
            listed,
            names: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// A file of the bundle's own (no controller-gen counterpart whose bytes it must match):
    /// the header, then a line saying it is generated and how to regenerate it.
    fn render(&self, docs: &[Value]) -> String {
        let header = format!(
            "{}{}",
            self.input.header,
            kustomize::generated_line(self.input.regenerate)
        );
        crate::output::yaml::render_documents(&header, docs)
    }

    /// A kustomization: the header, [`kustomize::MARKER`] and how to regenerate it.
    fn render_kustomization(&self, kustomization: Value) -> String {
        let header = format!(
            "{}{}{}",
            self.input.header,
            kustomize::MARKER,
            kustomize::regenerate_line(self.input.regenerate)
        );
        crate::output::yaml::render_documents(&header, &[kustomization])
    }

    /// A file the kustomization lists as a resource.
    fn add(&mut self, path: impl Into<String>, docs: &[Value]) {
        let path = path.into();
        let text = self.render(docs);
        self.listed.push(path.clone());
        self.resources.push((path.clone(), docs.to_vec()));
        self.files.push((PathBuf::from(path), text));
    }

    /// The subject every binding binds: the operator's ServiceAccount.
    fn subject(&self) -> (&'a str, &'a str) {
        (&self.id.namespace, &self.id.service_account)
    }

    fn service_account(&mut self) {
        let id = self.id;
        self.add(
            "service_account.yaml",
            &[deployment::service_account(id, &self.labels)],
        );
        self.names.push(Named {
            kind: "ServiceAccount",
            namespace: id.namespace.clone(),
            name: id.service_account.clone(),
            producer: format!(
                "the operator's ServiceAccount ({})",
                id.origin("service-account")
            ),
            prefixed: true,
        });
    }

    /// The bindings of `role.yaml`'s roles.
    fn role_bindings(&mut self) {
        let input = self.input;
        let role_bindings = bindings_for(input.roles);
        for (role, binding) in input.roles.iter().zip(&role_bindings) {
            let source = role_source(role, input);
            let (role_kind, binding_kind) = kind_of(role);
            self.names.push(Named {
                kind: role_kind,
                namespace: role.key.namespace.clone(),
                name: role.key.name.clone(),
                producer: source.clone(),
                prefixed: true,
            });
            self.names.push(Named {
                kind: binding_kind,
                namespace: binding.key.namespace.clone(),
                name: binding.key.name.clone(),
                producer: format!("the binding of {source}"),
                prefixed: true,
            });
        }
        if !role_bindings.is_empty() {
            let docs: Vec<Value> = role_bindings
                .iter()
                .map(|b| b.to_value(self.subject(), &self.labels))
                .collect();
            self.add("role_binding.yaml", &docs);
        }
    }

    /// The bundle's own roles, each in its file, and the bindings of those it binds.
    fn own_roles(&mut self) {
        for extra in roles::bundle_roles(self.id, self.input.crds) {
            let (role_kind, binding_kind) = kind_of(&extra.role);
            let mut role_labels = self.labels.clone();
            role_labels.extend(extra.labels.clone());
            self.add(
                extra.file.clone(),
                &[roles::role_value(&extra.role, &role_labels)],
            );
            self.names.push(Named {
                kind: role_kind,
                namespace: extra.role.key.namespace.clone(),
                name: extra.role.key.name.clone(),
                producer: format!("the {role_kind} for {}", extra.reason),
                prefixed: true,
            });
            if extra.bound {
                let binding = bindings_for([&extra.role]).remove(0);
                let file = extra.file.replace("_role.yaml", "_role_binding.yaml");
                self.add(file, &[binding.to_value(self.subject(), &self.labels)]);
                self.names.push(Named {
                    kind: binding_kind,
                    namespace: binding.key.namespace.clone(),
                    name: binding.key.name.clone(),
                    producer: format!("the {binding_kind} for {}", extra.reason),
                    prefixed: true,
                });
            }
        }
    }

    /// With `webhooks = true`, or CRDs that convert: the manager serves them, their Services
    /// and (with cert-manager) certificate. Returns the kustomization's patches and
    /// configurations.
    fn webhooks(&mut self, manager: &mut Value) -> (Vec<Value>, Vec<&'static str>) {
        let (id, input) = (self.id, self.input);
        let mut patches = Vec::new();
        let mut configurations = Vec::new();
        let converting = conversion::converting(input.crds);
        if !id.webhooks && converting.is_empty() {
            if id.cert_manager {
                self.errors.push(BundleProblem::CertManagerWithoutWebhooks {
                    origin: id.origin("cert-manager"),
                });
            }
            return (patches, configurations);
        }
        webhooks::serve_from(manager);
        let reason = if id.webhooks {
            "`webhooks = true`"
        } else {
            "a CRD converts through it"
        };
        let ports = [
            ("health-probe-port", Some(id.health_probe_port)),
            ("metrics-port", id.metrics_port),
        ];
        for (key, port) in ports {
            if port == Some(webhooks::WEBHOOK_PORT) {
                self.errors.push(BundleProblem::PortTaken {
                    origin: id.origin(key),
                    key,
                    port: webhooks::WEBHOOK_PORT,
                    reason,
                });
            }
        }
        let mut services = BTreeMap::new();
        if id.webhooks {
            services = webhooks::services(input.webhook_configurations);
            match input.webhook_file {
                // Conversions alone are something to serve.
                _ if input.webhook_configurations.is_empty() => {
                    if converting.is_empty() {
                        self.errors.push(BundleProblem::NoWebhooks {
                            origin: id.origin("webhooks"),
                        })
                    }
                }
                None => self.errors.push(BundleProblem::WebhooksOutsideOutput {
                    origin: id.origin("webhooks"),
                }),
                // Listed before the bundle's own files, in `new`.
                Some(_) => {}
            }
            // Not a resource: the kustomization names it under `configurations:`.
            let config = self.render(&[webhooks::kustomize_config()]);
            self.files
                .push((PathBuf::from(webhooks::KUSTOMIZE_CONFIG), config));
            configurations.push(webhooks::KUSTOMIZE_CONFIG);
        }
        if !converting.is_empty() {
            services
                .entry(crate::generate::crds::CONVERSION_SERVICE.to_string())
                .or_default()
                .insert(webhooks::DEFAULT_SERVICE_PORT);
            let config = self.render(&[conversion::kustomize_config()]);
            self.files
                .push((PathBuf::from(conversion::KUSTOMIZE_CONFIG), config));
            configurations.push(conversion::KUSTOMIZE_CONFIG);
        }
        if !services.is_empty() {
            let docs: Vec<Value> = services
                .iter()
                .map(|(name, ports)| webhooks::service(id, &self.labels, name, ports))
                .collect();
            self.add("webhook_service.yaml", &docs);
        }
        for name in services.keys() {
            self.names.push(Named {
                kind: "Service",
                namespace: id.namespace.clone(),
                name: name.clone(),
                producer: "the webhooks' clientConfig.service".into(),
                prefixed: true,
            });
        }
        if id.cert_manager {
            let service_names: Vec<String> = services.keys().cloned().collect();
            let docs = webhooks::cert_manager(id, &self.labels, &service_names);
            self.add("certmanager_certificate.yaml", &docs);
            if id.webhooks {
                patches = webhooks::ca_injection_patches(id, input.webhook_configurations);
            }
            patches.extend(conversion::ca_injection_patches(id, &converting));
        }
        (patches, configurations)
    }

    /// The operator's Namespace and the manager Deployment.
    fn manager(&mut self, manager: Value) {
        let id = self.id;
        self.add(
            "manager.yaml",
            &[deployment::namespace(id, &self.labels), manager],
        );
        self.names.push(Named {
            kind: "Namespace",
            namespace: String::new(),
            name: id.namespace.clone(),
            producer: format!("the operator's namespace ({})", id.origin("namespace")),
            prefixed: false,
        });
        self.names.push(Named {
            kind: "Deployment",
            namespace: id.namespace.clone(),
            name: DEPLOYMENT.into(),
            producer: "the manager Deployment".into(),
            prefixed: true,
        });
    }

    /// The metrics Service, when the operator declares a metrics port.
    fn metrics_service(&mut self) {
        let Some(service) = deployment::metrics_service(self.id, &self.labels) else {
            return;
        };
        self.add(METRICS_SERVICE_FILE, &[service]);
        self.names.push(Named {
            kind: "Service",
            namespace: self.id.namespace.clone(),
            name: deployment::METRICS_SERVICE.into(),
            producer: format!("the metrics Service ({})", self.id.origin("metrics-port")),
            prefixed: true,
        });
    }

    /// Roles in namespaces other than the operator's stay there whatever namespace kustomize
    /// gives the operator: their own kustomization of transformers. Whether there are any.
    fn pinned_namespaces(&mut self) -> bool {
        let pinned: Vec<String> = self
            .input
            .roles
            .iter()
            .map(|r| r.key.namespace.clone())
            .filter(|ns| !ns.is_empty() && *ns != self.id.namespace)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if pinned.is_empty() {
            return false;
        }
        let dir = Path::new(PINNED_DIR);
        let kustomization = self.render_kustomization(kustomize::pinned_kustomization());
        let transformers = self.render(&kustomize::pinned_transformers(self.id, &pinned));
        self.files.push((dir.join(KUSTOMIZATION), kustomization));
        self.files
            .push((dir.join(kustomize::PINNED_TRANSFORMERS), transformers));
        true
    }

    fn kustomization(&mut self, patches: &[Value], configurations: &[&str], pinned: bool) {
        let text = self.render_kustomization(kustomize::kustomization(
            self.id,
            &self.listed,
            patches,
            configurations,
            pinned,
        ));
        self.files.push((PathBuf::from(KUSTOMIZATION), text));
    }

    fn finish(mut self) -> Result<(Vec<File>, Resources), Vec<BundleProblem>> {
        self.errors.extend(check_names(self.id, &self.names));
        if self.errors.is_empty() {
            Ok((self.files, self.resources))
        } else {
            Err(self.errors)
        }
    }
}

/// Two objects of one kind, namespace and name would be one object: an error naming both
/// producers. Every name, with kustomize's prefix, must be one the API server accepts.
fn check_names(id: &Identity, names: &[Named]) -> Vec<BundleProblem> {
    let mut errors = Vec::new();
    let mut seen: BTreeMap<(&str, &str, &str), &Named> = BTreeMap::new();
    for named in names {
        let key = (named.kind, named.namespace.as_str(), named.name.as_str());
        match seen.get(&key) {
            Some(first) => errors.push(BundleProblem::Duplicate {
                kind: named.kind,
                namespace: named.namespace.clone(),
                name: named.name.clone(),
                first: first.producer.clone(),
                second: named.producer.clone(),
            }),
            None => {
                seen.insert(key, named);
            }
        }
        if named.prefixed {
            let full = format!("{}{}", id.name_prefix, named.name);
            if let Err(reason) = dns1123_subdomain(&full) {
                errors.push(BundleProblem::InvalidPrefixedName {
                    kind: named.kind,
                    name: full,
                    prefix: id.name_prefix.clone(),
                    prefix_origin: id.origin("name-prefix"),
                    producer: named.producer.clone(),
                    reason,
                });
            }
        }
    }
    errors
}

/// Whether the run makes a deploy bundle, as its identity decides: what the chart reads.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum Decided {
    /// No bundle: switched off, or no earlier one to keep.
    #[default]
    None,
    /// The bundle of this identity.
    Made(Box<Identity>),
    /// The run cannot tell whether a bundle is wanted (`--no-scan` without identity flags):
    /// an earlier bundle's files are kept as they are.
    Kept,
}

/// The deploy bundle's files for this run: from the identity (flags, the generator's
/// `Cargo.toml` metadata, defaults) and what the other generators made. Files of an earlier
/// bundle that this one does not generate are removed through the ledger, like every other
/// output; without the workspace's metadata (`--no-scan`) and no identity flags, an earlier
/// bundle's files are kept as they are.
pub fn generate_for_run(ctx: &Context, made: &mut Artifacts) -> Result<Generated, GenerateError> {
    let (opts, metadata) = (ctx.opts, ctx.metadata);
    let mut generated = Generated::default();
    // The generator's package, as `link!` recorded it: its name, not the binary's, finds its
    // table. Outside the workspace scanned, its table is not in the metadata.
    let outside = metadata.is_some_and(|m| {
        matches!(
            opts.invocation.in_workspace(m),
            crate::invocation::PackageInWorkspace::Outside { .. }
        )
    });
    let package = opts.invocation.package.as_deref().filter(|_| !outside);
    let identity = resolve(&opts.bundle, metadata, package, ctx.inputs.linked_crates)
        .map_err(GenerateError::Bundle)?;
    let previous = kustomize::previous_files(&opts.out_dir);
    let decided = (metadata.is_some() && !outside) || opts.bundle.off || identity.is_some();
    let (listed, webhook_file) = listed(ctx, made);
    let input = run_input(ctx, made, &listed, webhook_file.as_deref());
    let decision = if let Some(id) = identity {
        if !input.crds.is_empty() && !opts.crd_dir().starts_with(&opts.out_dir) {
            // kustomize only loads files under the kustomization's directory.
            generated
                .warnings
                .push(GenerateWarning::Bundle(BundleWarning::CrdsOutsideBundle {
                    crd_dir: opts.crd_dir(),
                    out_dir: opts.out_dir.clone(),
                }));
        }
        for (path, content) in generate(&id, &input).map_err(GenerateError::Bundle)? {
            generated.files.push(output(opts, path, content));
        }
        Decided::Made(Box::new(id))
    } else if !decided && !previous.is_empty() {
        generated
            .warnings
            .push(GenerateWarning::Bundle(BundleWarning::KeptWithoutScan {
                kustomization: opts.out_dir.join(KUSTOMIZATION),
            }));
        // What the other generators write is theirs, not a bundle file to keep.
        let theirs = |p: &Path| {
            input.listed_files.iter().any(|l| l == p)
                || (!input.webhook_configurations.is_empty() && input.webhook_file == Some(p))
        };
        let kept = previous
            .iter()
            .filter(|p| !theirs(p))
            .map(|p| opts.out_dir.join(p));
        for path in kept {
            generated.files.extend(kept_file(opts, path)?);
        }
        Decided::Kept
    } else {
        Decided::None
    };
    made.bundle = decision;
    Ok(generated)
}

/// What the bundle (and its chart) list besides their own files: the role file and the CRDs,
/// and the webhook manifests' file when it is under `--out`; relative to `--out`.
pub(crate) fn listed(ctx: &Context, made: &Artifacts) -> (Vec<PathBuf>, Option<PathBuf>) {
    let opts = ctx.opts;
    let listed = made.files_of(&[Artifact::Roles, Artifact::Crds], &opts.out_dir);
    let webhook_file = opts
        .webhook_dir()
        .join(crate::generate::webhooks::FILE_NAME)
        .strip_prefix(&opts.out_dir)
        .ok()
        .map(PathBuf::from);
    (listed, webhook_file)
}

/// The bundle's input in a run: what the generators before it made.
pub(crate) fn run_input<'a>(
    ctx: &'a Context,
    made: &'a Artifacts,
    listed: &'a [PathBuf],
    webhook_file: Option<&'a Path>,
) -> Input<'a> {
    Input {
        roles: &made.roles,
        entries: ctx.inputs.rbac,
        default_role_name: &ctx.opts.role_name,
        crds: &made.crds,
        listed_files: listed,
        header: ctx.header,
        regenerate: ctx.regenerate,
        webhook_configurations: &made.webhooks.documents,
        webhook_file,
    }
}

/// A file of the bundle (or its chart), relative to `--out`, as the run writes it.
pub(crate) fn output(opts: &Options, path: PathBuf, content: String) -> Output {
    let path = opts.out_dir.join(path);
    Output {
        what: what(opts, &path),
        path,
        content,
        option: "--out",
    }
}

/// A file of an earlier bundle (or chart), kept as it is on disk; none when it is gone or
/// is a CRD's (whose generator decides it).
pub(crate) fn kept_file(opts: &Options, path: PathBuf) -> Result<Option<Output>, IoFailure> {
    if !path.is_file() || path.starts_with(opts.crd_dir()) {
        return Ok(None);
    }
    let content = std::fs::read_to_string(&path).map_err(IoFailure::of(IoAction::Read, &path))?;
    Ok(Some(Output {
        what: what(opts, &path),
        path,
        content,
        option: "--out",
    }))
}

fn what(opts: &Options, path: &Path) -> String {
    format!(
        "the deploy bundle's {}",
        path.strip_prefix(&opts.out_dir).unwrap_or(path).display()
    )
}

#[cfg(test)]
mod tests;
