//! The deploy bundle: everything besides `role.yaml` and the CRDs that installs the operator
//! with `kubectl apply -k <out>`: its Namespace and ServiceAccount, a binding for every role,
//! the opt-in leader-election and metrics-auth roles, editor/viewer/admin roles per CRD, the
//! manager Deployment, and `kustomization.yaml` (kubebuilder's `config/` layout, flattened).
//!
//! The path of the data: the [`Identity`] (flags, `Cargo.toml` metadata, defaults) and what the
//! generator already made (roles, CRDs) go into [`generate`], a pure function that returns
//! the files or every problem found; [`plan`] adds reading the workspace and the previous run's
//! files, which the next run removes when it no longer generates them.

mod bindings;
mod deployment;
mod identity;
mod kustomize;
mod problem;
mod roles;
mod webhooks;

pub use bindings::{Binding, binding_name, bindings_for};
pub use deployment::{CONTAINER, DEPLOYMENT, NAMESPACE_ENV};
pub use identity::{BundleFlags, Identity, Origin, resolve};
pub use kustomize::{KUSTOMIZATION, PINNED_DIR};
pub use problem::{BundleProblem, BundleWarning};
pub use roles::{BundleRole, LEADER_ELECTION_ROLE, METRICS_AUTH_ROLE, METRICS_READER_ROLE};

use crate::generate::Generated;
use crate::generate::crds::GeneratedCrd;
use crate::output::write::Output;
use crate::{Error, IoAction, Options, Warning};
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
    let labels = common_labels(id);
    let render = |docs: &[Value]| crate::output::yaml::render_documents(input.header, docs);
    let sa = (id.namespace.as_str(), id.service_account.as_str());
    let mut names: Vec<Named> = Vec::new();
    let mut files: Vec<File> = Vec::new();
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
    let mut add = |files: &mut Vec<File>, path: String, docs: &[Value]| {
        listed.push(path.clone());
        files.push((PathBuf::from(path), render(docs)));
    };

    add(
        &mut files,
        "service_account.yaml".into(),
        &[deployment::service_account(id, &labels)],
    );
    names.push(Named {
        kind: "ServiceAccount",
        namespace: id.namespace.clone(),
        name: id.service_account.clone(),
        producer: format!(
            "the operator's ServiceAccount ({})",
            id.origin("service-account")
        ),
        prefixed: true,
    });

    // Bindings of role.yaml's roles.
    let role_bindings = bindings_for(input.roles);
    for (role, binding) in input.roles.iter().zip(&role_bindings) {
        let source = role_source(role, input);
        let (role_kind, binding_kind) = kind_of(role);
        names.push(Named {
            kind: role_kind,
            namespace: role.key.namespace.clone(),
            name: role.key.name.clone(),
            producer: source.clone(),
            prefixed: true,
        });
        names.push(Named {
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
            .map(|b| b.to_value(sa, &labels))
            .collect();
        add(&mut files, "role_binding.yaml".into(), &docs);
    }

    // The bundle's own roles, each in its file, and the bindings of those it binds.
    for extra in roles::bundle_roles(id, input.crds) {
        let (role_kind, binding_kind) = kind_of(&extra.role);
        let mut role_labels = labels.clone();
        role_labels.extend(extra.labels.clone());
        add(
            &mut files,
            extra.file.clone(),
            &[roles::role_value(&extra.role, &role_labels)],
        );
        names.push(Named {
            kind: role_kind,
            namespace: extra.role.key.namespace.clone(),
            name: extra.role.key.name.clone(),
            producer: format!("the {role_kind} for {}", extra.reason),
            prefixed: true,
        });
        if extra.bound {
            let binding = bindings_for([&extra.role]).remove(0);
            let file = extra.file.replace("_role.yaml", "_role_binding.yaml");
            add(&mut files, file, &[binding.to_value(sa, &labels)]);
            names.push(Named {
                kind: binding_kind,
                namespace: binding.key.namespace.clone(),
                name: binding.key.name.clone(),
                producer: format!("the {binding_kind} for {}", extra.reason),
                prefixed: true,
            });
        }
    }

    let mut errors = Vec::new();
    let mut manager = deployment::deployment(id, &labels);
    let mut patches = Vec::new();
    let mut configurations = Vec::new();
    if id.webhooks {
        webhooks::serve_from(&mut manager);
        let services = webhooks::services(input.webhook_configurations);
        match input.webhook_file {
            _ if input.webhook_configurations.is_empty() => {
                errors.push(BundleProblem::NoWebhooks {
                    origin: id.origin("webhooks"),
                })
            }
            None => errors.push(BundleProblem::WebhooksOutsideOutput {
                origin: id.origin("webhooks"),
            }),
            // Listed before the bundle's own files, below.
            Some(_) => {}
        }
        // Not a resource: the kustomization names it under `configurations:`.
        files.push((
            PathBuf::from(webhooks::KUSTOMIZE_CONFIG),
            render(&[webhooks::kustomize_config()]),
        ));
        configurations.push(webhooks::KUSTOMIZE_CONFIG);
        if !services.is_empty() {
            let docs: Vec<Value> = services
                .iter()
                .map(|(name, ports)| webhooks::service(id, &labels, name, ports))
                .collect();
            add(&mut files, "webhook_service.yaml".into(), &docs);
        }
        for name in services.keys() {
            names.push(Named {
                kind: "Service",
                namespace: id.namespace.clone(),
                name: name.clone(),
                producer: "the webhooks' clientConfig.service".into(),
                prefixed: true,
            });
        }
        if id.cert_manager {
            let service_names: Vec<String> = services.keys().cloned().collect();
            add(
                &mut files,
                "certmanager_certificate.yaml".into(),
                &webhooks::cert_manager(id, &labels, &service_names),
            );
            patches = webhooks::ca_injection_patches(id, input.webhook_configurations);
        }
    }
    add(
        &mut files,
        "manager.yaml".into(),
        &[deployment::namespace(id, &labels), manager],
    );
    names.push(Named {
        kind: "Namespace",
        namespace: String::new(),
        name: id.namespace.clone(),
        producer: format!("the operator's namespace ({})", id.origin("namespace")),
        prefixed: false,
    });
    names.push(Named {
        kind: "Deployment",
        namespace: id.namespace.clone(),
        name: DEPLOYMENT.into(),
        producer: "the manager Deployment".into(),
        prefixed: true,
    });

    // Roles in namespaces other than the operator's stay there whatever namespace kustomize
    // gives the operator.
    let pinned: Vec<String> = input
        .roles
        .iter()
        .map(|r| r.key.namespace.clone())
        .filter(|ns| !ns.is_empty() && *ns != id.namespace)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let pinned_files = if pinned.is_empty() {
        Vec::new()
    } else {
        let dir = Path::new(PINNED_DIR);
        vec![
            (
                dir.join(KUSTOMIZATION),
                crate::output::yaml::render_documents(
                    &format!("{}{}", input.header, kustomize::MARKER),
                    &[kustomize::pinned_kustomization()],
                ),
            ),
            (
                dir.join(kustomize::PINNED_TRANSFORMERS),
                render(&kustomize::pinned_transformers(id, &pinned)),
            ),
        ]
    };
    files.extend(pinned_files);
    files.push((
        PathBuf::from(KUSTOMIZATION),
        crate::output::yaml::render_documents(
            &format!("{}{}", input.header, kustomize::MARKER),
            &[kustomize::kustomization(
                id,
                &listed,
                &patches,
                &configurations,
                !pinned.is_empty(),
            )],
        ),
    ));

    errors.extend(check_names(id, &names));
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
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

/// The deploy bundle's files for this run: from the identity (flags, the generator's
/// `Cargo.toml` metadata, defaults) and what the other generators made. Files of an earlier
/// bundle that this one does not generate are removed through the ledger, like every other
/// output; without the workspace's metadata (`--no-scan`) and no identity flags, an earlier
/// bundle's files are kept as they are.
pub fn generate_for_run(
    opts: &Options,
    input: &Input,
    linked_crates: &[&str],
    metadata: Option<&cargo_metadata::Metadata>,
) -> Result<Generated<()>, Error> {
    let mut generated = Generated::default();
    let exe = std::env::current_exe().ok();
    let generator_bin = exe
        .as_deref()
        .and_then(Path::file_stem)
        .and_then(|s| s.to_str());
    let identity =
        resolve(&opts.bundle, metadata, generator_bin, linked_crates).map_err(Error::Bundle)?;
    let previous = kustomize::previous_files(&opts.out_dir);
    let decided = metadata.is_some() || opts.bundle.off || identity.is_some();
    let what = |path: &Path| {
        format!(
            "the deploy bundle's {}",
            path.strip_prefix(&opts.out_dir).unwrap_or(path).display()
        )
    };
    if let Some(id) = &identity {
        if !input.crds.is_empty() && !opts.crd_dir().starts_with(&opts.out_dir) {
            // kustomize only loads files under the kustomization's directory.
            generated
                .warnings
                .push(Warning::Bundle(BundleWarning::CrdsOutsideBundle {
                    crd_dir: opts.crd_dir(),
                    out_dir: opts.out_dir.clone(),
                }));
        }
        for (path, content) in generate(id, input).map_err(Error::Bundle)? {
            let path = opts.out_dir.join(path);
            generated.files.push(Output {
                what: what(&path),
                path,
                content,
                option: "--out",
            });
        }
    } else if !decided && !previous.is_empty() {
        generated
            .warnings
            .push(Warning::Bundle(BundleWarning::KeptWithoutScan {
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
            .map(|p| opts.out_dir.join(p))
            .filter(|p| p.is_file() && !p.starts_with(opts.crd_dir()));
        for path in kept {
            let content = std::fs::read_to_string(&path).map_err(|source| Error::Io {
                action: IoAction::Read,
                path: path.clone(),
                source,
            })?;
            generated.files.push(Output {
                what: what(&path),
                path,
                content,
                option: "--out",
            });
        }
    }
    Ok(generated)
}

#[cfg(test)]
mod tests;
