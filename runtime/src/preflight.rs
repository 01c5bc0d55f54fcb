//! Startup preflight: asks the API server whether the running identity has every registered
//! permission (feature `audit`).

use futures::StreamExt;
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};
use kube_markers_core::model::{Text, api_group};
use kube_markers_rbac::{DEFAULT_ROLE_NAME, generate_roles};
use kube_markers_registry::{RbacEntry, Source};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;

/// How many access reviews are in flight at once.
const CONCURRENT_REVIEWS: usize = 8;

/// One permission of the generated roles: a verb on one group and resource (in a namespace, for
/// a Role), or on a non-resource URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Needed {
    /// The namespace of a Role's permission; `""` for the ClusterRole (cluster-wide).
    pub namespace: String,
    /// The verb.
    pub verb: String,
    /// The API group (`""`: core).
    pub group: String,
    /// The resource, `resource/subresource` as in a rule.
    pub resource: String,
    /// One object name of `resource_names`, or `""`.
    pub name: String,
    /// A non-resource URL (then group and resource are empty).
    pub url: String,
}

impl fmt::Display for Needed {
    /// `list deployments.apps cluster-wide`, `patch configmaps "dir" in namespace "ns"`,
    /// `get /metrics`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.url.is_empty() {
            return write!(f, "{} {}", self.verb, self.url);
        }
        let (resource, sub) = match self.resource.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (self.resource.as_str(), None),
        };
        write!(f, "{} {resource}", self.verb)?;
        if !self.group.is_empty() {
            write!(f, ".{}", self.group)?;
        }
        if let Some(sub) = sub {
            write!(f, "/{sub}")?;
        }
        if !self.name.is_empty() {
            write!(f, " {:?}", self.name)?;
        }
        if self.namespace.is_empty() {
            f.write_str(" cluster-wide")
        } else {
            write!(f, " in namespace {:?}", self.namespace)
        }
    }
}

/// A registered permission the API server says the identity lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Missing {
    /// The permission.
    pub permission: Needed,
    /// The attributes that declare it: `file:line (item)`.
    pub declared_by: Vec<String>,
    /// The API server's reason or evaluation error, if it gave one.
    pub reason: String,
}

/// What [`preflight`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Preflight {
    /// How many permissions were checked.
    pub checked: usize,
    /// The ones not granted, in the generated roles' order.
    pub missing: Vec<Missing>,
}

impl Preflight {
    /// Whether every registered permission is granted. `false` when nothing was checked: no
    /// `#[rbac]` attribute is linked into the binary, so the check proved nothing.
    pub fn is_complete(&self) -> bool {
        self.checked > 0 && self.missing.is_empty()
    }
}

impl fmt::Display for Preflight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.checked == 0 {
            // "all 0 granted" would read as a pass; an operator with nothing registered has
            // most likely not linked the crate that carries its attributes.
            return write!(
                f,
                "preflight: no #[rbac] attribute is linked into this binary, so no permission \
                 was checked"
            );
        }
        if self.missing.is_empty() {
            return write!(
                f,
                "preflight: all {} registered permissions are granted",
                self.checked
            );
        }
        writeln!(
            f,
            "preflight: {} of {} registered permissions are not granted:",
            self.missing.len(),
            self.checked
        )?;
        for m in &self.missing {
            write!(
                f,
                "  {} — declared at {}",
                m.permission,
                m.declared_by.join(", ")
            )?;
            if !m.reason.is_empty() {
                write!(f, " ({})", m.reason)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Asks the API server, with one SelfSubjectAccessReview per permission (namespaced for a
/// Role's), whether the client's identity has every permission the linked `#[rbac]` attributes
/// declare; returns the missing ones with the attributes' `file:line`. Reviews run
/// concurrently, at most 8 at a time. Errors only when a review cannot be made.
///
/// ```no_run
/// # async fn doc(client: kube::Client) -> Result<(), kube::Error> {
/// let preflight = kube_markers::preflight(&client).await?;
/// if !preflight.is_complete() {
///     eprintln!("{preflight}");
///     std::process::exit(1);
/// }
/// # Ok(()) }
/// ```
pub async fn preflight(client: &kube::Client) -> Result<Preflight, kube::Error> {
    preflight_for(client, &kube_markers_registry::rbac_entries()).await
}

/// [`preflight`] for these attributes (a subset of the registry).
pub async fn preflight_for(
    client: &kube::Client,
    entries: &[&RbacEntry],
) -> Result<Preflight, kube::Error> {
    let needed = needed(entries);
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let answers: Vec<Result<(Needed, bool, String), kube::Error>> =
        futures::stream::iter(needed.iter().cloned())
            .map(|permission| {
                let api = api.clone();
                async move {
                    let review = api
                        .create(&PostParams::default(), &review_of(&permission))
                        .await?;
                    let status = review.status.unwrap_or_default();
                    let reason = match (status.reason, status.evaluation_error) {
                        (Some(r), _) if !r.is_empty() => r,
                        (_, Some(e)) => e,
                        _ => String::new(),
                    };
                    Ok((permission, status.allowed, reason))
                }
            })
            .buffered(CONCURRENT_REVIEWS)
            .collect()
            .await;
    let mut missing = Vec::new();
    for answer in answers {
        let (permission, allowed, reason) = answer?;
        if !allowed {
            missing.push(Missing {
                declared_by: declared_by(&permission, entries)
                    .iter()
                    .map(Source::to_string)
                    .collect(),
                permission,
                reason,
            });
        }
    }
    Ok(Preflight {
        checked: needed.len(),
        missing,
    })
}

/// Every permission of the aggregated roles, one per verb × group × resource × name (or verb ×
/// URL), deduplicated, in the roles' order.
fn needed(entries: &[&RbacEntry]) -> Vec<Needed> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut push = |n: Needed| {
        if seen.insert(n.clone()) {
            out.push(n);
        }
    };
    for role in generate_roles(entries.iter().map(|e| &e.marker), DEFAULT_ROLE_NAME) {
        let namespace = role.key.namespace.clone();
        for rule in &role.rules {
            for verb in &rule.verbs {
                for url in &rule.urls {
                    push(Needed {
                        verb: verb.clone(),
                        url: url.clone(),
                        ..Needed::default()
                    });
                }
                for group in &rule.groups {
                    for resource in &rule.resources {
                        let names: Vec<&str> = if rule.resource_names.is_empty() {
                            vec![""]
                        } else {
                            rule.resource_names.iter().map(String::as_str).collect()
                        };
                        for name in names {
                            push(Needed {
                                namespace: namespace.clone(),
                                verb: verb.clone(),
                                group: group.clone(),
                                resource: resource.clone(),
                                name: name.to_string(),
                                url: String::new(),
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

fn review_of(permission: &Needed) -> SelfSubjectAccessReview {
    let spec = if permission.url.is_empty() {
        let (resource, subresource) = match permission.resource.split_once('/') {
            Some((r, s)) => (r, Some(s.to_string())),
            None => (permission.resource.as_str(), None),
        };
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                namespace: some(&permission.namespace),
                verb: Some(permission.verb.clone()),
                group: Some(permission.group.clone()),
                resource: Some(resource.to_string()),
                subresource,
                name: some(&permission.name),
                ..ResourceAttributes::default()
            }),
            ..SelfSubjectAccessReviewSpec::default()
        }
    } else {
        SelfSubjectAccessReviewSpec {
            non_resource_attributes: Some(NonResourceAttributes {
                path: Some(permission.url.clone()),
                verb: Some(permission.verb.clone()),
            }),
            ..SelfSubjectAccessReviewSpec::default()
        }
    };
    SelfSubjectAccessReview {
        spec,
        ..SelfSubjectAccessReview::default()
    }
}

/// The attributes a permission comes from: same role namespace, and the verb, group,
/// resource (and name) or URL among theirs.
fn declared_by(permission: &Needed, entries: &[&RbacEntry]) -> Vec<Source> {
    let mut sources: Vec<Source> = entries
        .iter()
        .filter(|e| {
            let m = &e.marker;
            let has = |list: &[Text], value: &str| list.iter().any(|v| v == value);
            m.namespace.as_deref().unwrap_or_default() == permission.namespace
                && has(&m.verbs, &permission.verb)
                && if permission.url.is_empty() {
                    m.groups.iter().any(|g| api_group(g) == permission.group)
                        && has(&m.resources, &permission.resource)
                        && (permission.name.is_empty() || has(&m.resource_names, &permission.name))
                } else {
                    has(&m.urls, &permission.url)
                }
        })
        .map(|e| e.source.clone())
        .collect();
    sources.sort();
    sources.dedup();
    sources
}

#[cfg(test)]
mod tests;
