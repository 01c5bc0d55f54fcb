//! Request audit: a tower layer for [`kube::Client`] that checks every request against the
//! operator's generated roles, before it leaves the process (feature `audit`).
//!
//! Each request's method and URL become the attributes the API server authorizes
//! ([`request_info`]: `GET …?watch=true` is `watch`, `DELETE` on a collection
//! `deletecollection`, …), which are evaluated with the RBAC authorizer's semantics against
//! [`Permissions`]: the linked `#[rbac]` attributes aggregated as `role.yaml` is, or the roles of
//! a directory of manifests. What the [`Mode`] does with a request no rule covers: record it,
//! also emit a `tracing` warning, or also answer it with the API server's 403 without sending it.
//!
//! The [`Report`] lists every request no rule covers, with the `#[kube_markers::rbac(...)]` that
//! would cover it, and every declared rule with verbs no request used, with the attribute's
//! `file:line`. A server-side apply (or an update) that creates its object (the API server
//! answers `201 Created`) also uses `create`, which the API server checks then.
//!
//! ```
//! # async fn doc() -> Result<(), Box<dyn std::error::Error>> {
//! use kube_markers::audit::{Audit, Mode, Permissions};
//!
//! let audit = Audit::new(Permissions::from_registry(), Mode::Warn);
//! let config = kube::Config::infer().await?;
//! let client = kube::client::ClientBuilder::try_from(config)?
//!     .with_layer(&audit.layer())
//!     .build();
//! // … run the operator with `client` …
//! println!("{}", audit.report());
//! # Ok(()) }
//! ```

mod layer;
mod permissions;
mod report;

pub use layer::{AuditLayer, AuditService, ResponseFuture};
pub use permissions::{
    Declared, ManifestsError, NAMESPACE_ENV, PLACEHOLDER_USER, Permission, Permissions,
    SERVICE_ACCOUNT_ENV, operator_user,
};
pub use report::{Report, Uncovered, Unused};

/// What the audit's API names of kube-apiserver's authorization: a request's attributes, the
/// identity roles are evaluated for, and what reading manifests can find wrong.
pub use kube_markers_rbac::authorize::manifests::ManifestProblem;
pub use kube_markers_rbac::authorize::{RequestAttributes, RequestInfo, UserInfo, request_info};

use k8s_openapi::api::rbac::v1::PolicyRule;
use kube_markers_rbac::authorize::resource_matches;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// What the layer does with a request no rule covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Mode {
    /// Record it in the report, and send it.
    #[default]
    Record,
    /// Record it, emit a `tracing` warning (target `kube_markers::audit`), and send it.
    Warn,
    /// Record it, warn, and answer it in-process as the API server would: HTTP 403 with a
    /// `Status` of reason `Forbidden` (the client returns `kube::Error::Api`). The request is
    /// never sent.
    Deny,
}

/// One request, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Check {
    /// What the API server authorizes.
    pub attributes: RequestAttributes,
    /// Whether the roles allow it. A request the API server rejects before authorizing it
    /// (a malformed URL) counts as allowed: it needs no permission.
    pub allowed: bool,
}

/// An audit: the permissions, the mode and what was seen so far. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct Audit {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    permissions: Permissions,
    mode: Mode,
    seen: Mutex<Seen>,
}

/// What the requests used and missed.
#[derive(Debug, Default)]
struct Seen {
    requests: u64,
    /// Per declared rule, per verb of it: used by a request.
    used: Vec<Vec<bool>>,
    /// Per rule of the roles, per permission of it ([`cells`]): (used by a request, the only
    /// rule allowing one).
    needed: Vec<Vec<(bool, bool)>>,
    /// Uncovered requests by their attributes without the object name.
    uncovered: HashMap<RequestAttributes, usize>,
    uncovered_order: Vec<Uncovered>,
}

impl Audit {
    /// An audit of these permissions.
    pub fn new(permissions: Permissions, mode: Mode) -> Self {
        let used = permissions
            .permissions
            .iter()
            .map(|p| vec![false; p.rule.verbs.len()])
            .collect();
        let needed = permissions
            .rules
            .iter()
            .map(|p| vec![(false, false); cells(&p.rule).len()])
            .collect();
        Audit {
            shared: Arc::new(Shared {
                permissions,
                mode,
                seen: Mutex::new(Seen {
                    used,
                    needed,
                    ..Seen::default()
                }),
            }),
        }
    }

    /// The layer to wrap a client's service with; every layer of one audit records into it.
    pub fn layer(&self) -> AuditLayer {
        AuditLayer {
            audit: self.clone(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.shared.mode
    }

    /// The permissions requests are checked against.
    pub fn permissions(&self) -> &Permissions {
        &self.shared.permissions
    }

    /// Checks and records one request (`url`: path and query, or an absolute URL).
    pub fn check(&self, method: &str, url: &str) -> Check {
        let info = request_info(method, url);
        let attributes = RequestAttributes::from(&info);
        let check = Check {
            allowed: info.error.is_some() || self.shared.permissions.allows(&attributes),
            attributes,
        };
        if info.error.is_some() {
            // Rejected before authorization: counted, but it uses no permission.
            self.lock().requests += 1;
        } else {
            self.record(&check, method, url, true);
        }
        check
    }

    /// Records that a request also needed `create` (the API server answered `201 Created` to
    /// an update or server-side apply, and authorized `create` for it).
    pub(crate) fn created(&self, check: &Check, method: &str, url: &str) {
        let attributes = RequestAttributes {
            verb: "create".into(),
            ..check.attributes.clone()
        };
        let check = Check {
            allowed: self.shared.permissions.allows(&attributes),
            attributes,
        };
        // The same request: counted once.
        self.record(&check, method, url, false);
        if !check.allowed && self.shared.mode != Mode::Record {
            warn(&check, &self.shared.permissions, method, url);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        // What was recorded stays valid if a holder panicked: every update is one assignment.
        self.shared
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn record(&self, check: &Check, method: &str, url: &str, new_request: bool) {
        let permissions = &self.shared.permissions;
        let request = &check.attributes;
        // Matched before taking the lock: the permissions never change.
        let used: Vec<(usize, usize)> = permissions
            .permissions
            .iter()
            .enumerate()
            .filter_map(|(i, p)| verb_allowed(p, request).map(|v| (i, v)))
            .collect();
        let allowing: Vec<(usize, usize)> = permissions
            .rules
            .iter()
            .enumerate()
            .filter_map(|(i, rule)| cell_allowing(rule, request).map(|c| (i, c)))
            .collect();
        // Needed alone: no other rule, and not the cluster's defaults, allows it.
        let alone = allowing.len() == 1 && !permissions.allowed_by_defaults(request);
        let mut seen = self.lock();
        seen.requests += u64::from(new_request);
        for (i, v) in used {
            seen.used[i][v] = true;
        }
        for &(i, c) in &allowing {
            let needed = &mut seen.needed[i][c];
            needed.0 = true;
            needed.1 |= alone;
        }
        if check.allowed {
            return;
        }
        // Requests that differ only in the object they name are one finding.
        let mut key = RequestAttributes {
            name: String::new(),
            ..request.clone()
        };
        if key.resource_request {
            key.path.clear();
        }
        if let Some(&at) = seen.uncovered.get(&key) {
            seen.uncovered_order[at].count += 1;
            return;
        }
        let entry = Uncovered {
            request: key.to_string(),
            method: method.to_string(),
            url: url.to_string(),
            count: 1,
            suggestion: report::suggestion(request, &permissions.permissions),
        };
        let at = seen.uncovered_order.len();
        seen.uncovered_order.push(entry);
        seen.uncovered.insert(key, at);
    }

    /// What was seen so far.
    pub fn report(&self) -> Report {
        let seen = self.lock();
        let permissions = &self.shared.permissions;
        let mut unused = Vec::new();
        // The permissions of the unused attribute verbs, so that a generated rule's never-used
        // permission is reported once, at the attribute, when one explains it.
        let mut unused_verbs = std::collections::HashSet::new();
        for (permission, used) in permissions.permissions.iter().zip(&seen.used) {
            let verbs: Vec<String> = never(&permission.rule.verbs, used, |used| !*used);
            for (group, target, verb) in cells(&permission.rule) {
                if verbs.contains(&verb) {
                    unused_verbs.insert((permission.namespace.clone(), group, target, verb));
                }
            }
            if !verbs.is_empty() {
                unused.push(Unused::new(permission, verbs));
            }
        }
        // A manifest's rules are the declared ones: their never-used verbs are in `unused`.
        let generated = permissions.rules_generated;
        let mut unneeded = Vec::new();
        for (rule, needed) in permissions.rules.iter().zip(&seen.needed) {
            let cells = cells(&rule.rule);
            // One finding per group and resource (or URL) of the rule, with its verbs.
            let mut by_target: Vec<((String, String), Vec<String>)> = Vec::new();
            for ((group, target, verb), (used, alone)) in cells.into_iter().zip(needed) {
                let key = (rule.namespace.clone(), group, target, verb);
                let explained = unused_verbs.contains(&key);
                let (_, group, target, verb) = key;
                if *alone || !(*used || generated) || explained {
                    continue;
                }
                match by_target
                    .iter_mut()
                    .find(|(t, _)| *t == (group.clone(), target.clone()))
                {
                    Some((_, verbs)) => verbs.push(verb),
                    None => by_target.push(((group, target), vec![verb])),
                }
            }
            for ((group, target), verbs) in by_target {
                let mut narrowed = rule.clone();
                narrowed.rule.verbs = verbs.clone();
                if narrowed.rule.non_resource_urls.is_some() {
                    narrowed.rule.non_resource_urls = Some(vec![target]);
                } else {
                    narrowed.rule.api_groups = Some(vec![group]);
                    narrowed.rule.resources = Some(vec![target]);
                }
                unneeded.push(Unused::new(&narrowed, verbs));
            }
        }
        Report {
            requests: seen.requests,
            uncovered: seen.uncovered_order.clone(),
            unused,
            unneeded,
        }
    }
}

/// The verbs whose flags say `pick`.
fn never<T>(verbs: &[String], flags: &[T], pick: impl Fn(&T) -> bool) -> Vec<String> {
    verbs
        .iter()
        .zip(flags)
        .filter(|(_, flag)| pick(flag))
        .map(|(verb, _)| verb.clone())
        .collect()
}

/// A rule's permissions, in order: (group, resource, verb) for each group × resource × verb,
/// or (`""`, URL, verb) for each URL × verb.
fn cells(rule: &PolicyRule) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let list = |l: &Option<Vec<String>>| l.clone().unwrap_or_default();
    let targets: Vec<(String, String)> = match &rule.non_resource_urls {
        Some(urls) => urls.iter().map(|u| (String::new(), u.clone())).collect(),
        None => list(&rule.api_groups)
            .into_iter()
            .flat_map(|g| {
                list(&rule.resources)
                    .into_iter()
                    .map(move |r| (g.clone(), r))
            })
            .collect(),
    };
    for (group, target) in targets {
        for verb in &rule.verbs {
            out.push((group.clone(), target.clone(), verb.clone()));
        }
    }
    out
}

/// If the rule allows the request: the index in [`cells`] of the permission that does.
fn cell_allowing(permission: &Permission, request: &RequestAttributes) -> Option<usize> {
    let verb = verb_allowed(permission, request)?;
    let rule = &permission.rule;
    let verbs = rule.verbs.len();
    if let Some(urls) = &rule.non_resource_urls {
        let url = urls.iter().position(|u| {
            u == "*"
                || *u == request.path
                || (u.ends_with('*') && request.path.starts_with(u.trim_end_matches('*')))
        })?;
        return Some(url * verbs + verb);
    }
    let groups = rule.api_groups.as_deref().unwrap_or_default();
    let resources = rule.resources.as_deref().unwrap_or_default();
    let group = groups
        .iter()
        .position(|g| *g == request.api_group)
        .or_else(|| groups.iter().position(|g| g == "*"))?;
    let one = PolicyRule {
        resources: None,
        ..PolicyRule::default()
    };
    let resource = resources.iter().position(|r| {
        let single = PolicyRule {
            resources: Some(vec![r.clone()]),
            ..one.clone()
        };
        resource_matches(&single, &request.resource, &request.subresource)
    })?;
    Some((group * resources.len() + resource) * verbs + verb)
}

/// If the rule allows the request: the index of the verb that does (the request's, else `*`).
fn verb_allowed(permission: &Permission, request: &RequestAttributes) -> Option<usize> {
    if !permission.allows(request) {
        return None;
    }
    let verbs = &permission.rule.verbs;
    verbs
        .iter()
        .position(|v| *v == request.verb)
        .or_else(|| verbs.iter().position(|v| v == "*"))
}

/// The `tracing` event of an uncovered request.
fn warn(check: &Check, permissions: &Permissions, method: &str, url: &str) {
    let suggestion = report::suggestion(&check.attributes, &permissions.permissions);
    tracing::warn!(
        target: "kube_markers::audit",
        method,
        url,
        suggestion = suggestion.as_deref().unwrap_or("-"),
        "no generated role allows {}",
        check.attributes
    );
}

#[cfg(test)]
mod tests;
