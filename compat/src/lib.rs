//! Upgrade safety for CRDs: a new `CustomResourceDefinition` compared with the one it
//! replaces.
//!
//! [`compare`] runs [crdify](https://github.com/kubernetes-sigs/crdify)'s checks, under
//! crdify's names ([`Check`]), on two CRD objects as JSON (a k8s-openapi
//! `CustomResourceDefinition` through `serde_json::to_value`):
//!
//! - the CRD's `scope`, its `status.storedVersions` kept in `spec.versions`;
//! - each version's schema against the same-named old version's, node by node (paths as crdify
//!   writes them: `^.spec.ports[*].name`): fields removed, `type`, `enum`, `default`, the
//!   bounds, `required`, `pattern`, `nullable`, `description`;
//! - every pair of served versions of the new CRD, lower priority first (`v1beta1 -> v1`),
//!   less the findings the old CRD's pairs already had, where the API server would not convert
//!   between them (strategy `None`; with a `Webhook` the versions differ on purpose);
//!
//! and what crdify calls "unhandled": CEL rules added or changed (`validationRules`, transition
//! rules named as such), `listType`, `listMapKeys`, `mapType`, a served version removed
//! (`servedVersionRemoval`: a warning only where the old CRD's `status.storedVersions` shows
//! no object stored at it), the `Webhook` conversion strategy dropped while more than one
//! version is left (`conversion`); any other changed keyword is `unhandled`, as in crdify. Each tightening's message says what
//! validation ratcheting (GA in Kubernetes 1.33) does for objects already stored
//! ([`Ratcheting`]).
//!
//! What each check does is the [`Policy`]'s: by default crdify's (an error), except that a
//! description change is off and added enum values are allowed. Alpha versions are checked
//! as all others; a policy that relaxes them still reports each finding, as a warning.

mod check;
mod crd;
mod policy;
mod property;
mod ratchet;
mod schema;
mod version;

pub use check::{Check, Severity};
pub use policy::{Policy, PolicyError, is_alpha};
pub use ratchet::Ratcheting;
pub use schema::short as short_path;

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// One incompatibility (or, at `warn`, one change worth a look).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// The check that found it.
    pub check: Check,
    /// The CRD's `metadata.name`.
    pub crd: String,
    /// The version (`v1`), a pair of served versions (`v1beta1 -> v1`), the stored versions
    /// removed, or empty for the CRD as a whole.
    pub version: String,
    /// The schema node, as crdify writes it (`^.spec.size`); empty for the CRD as a whole.
    pub path: String,
    /// What the policy makes it.
    pub severity: Severity,
    /// What changed, old → new, and what ratcheting does about it.
    pub message: String,
    /// The old value, as JSON, where one value changed (`absent` if there was none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// The new value, likewise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// What validation ratcheting does for objects already stored.
    pub ratcheting: Ratcheting,
    /// The policy setting that made it a warning instead of what its check makes it
    /// (`alpha = "warn" in [workspace.metadata.kube-markers.upgrade]`); the message says so too.
    #[serde(rename = "relaxedBy", skip_serializing_if = "Option::is_none")]
    pub relaxed_by: Option<String>,
}

impl Finding {
    /// `severity[check]: crd version path: message`, one line.
    pub fn line(&self) -> String {
        let mut place = self.crd.clone();
        if !self.version.is_empty() {
            place.push(' ');
            place.push_str(&self.version);
        }
        if !self.path.is_empty() {
            place.push(' ');
            place.push_str(short_path(&self.path));
        }
        format!(
            "{}[{}]: {place}: {}",
            self.severity, self.check, self.message
        )
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line())
    }
}

/// A CRD that cannot be compared: not a CRD, or a field of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// Its `metadata.name`, if it has one.
    pub crd: String,
    /// The JSON path of the field (`spec.versions[1].name`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let crd = if self.crd.is_empty() {
            "a CRD"
        } else {
            &self.crd
        };
        write!(f, "{crd}: {}: {}", self.path, self.message)
    }
}

impl std::error::Error for InputError {}

/// The findings of `old` → `new`, two versions of one CRD, sorted by version, path and check.
pub fn compare(old: &Value, new: &Value, policy: &Policy) -> Result<Vec<Finding>, InputError> {
    let (a, b) = (crd::Crd::read(old)?, crd::Crd::read(new)?);
    let mut findings = crd::Findings::new(b.name, policy);
    crd::compare(&a, &b, &mut findings);
    let mut out = findings.out;
    sort(&mut out);
    Ok(out)
}

/// The findings of two sets of CRDs, matched by name. A CRD of `old` that `new` lacks loses
/// every served version (`servedVersionRemoval`) and its stored ones; a CRD only in `new` is
/// new, and nothing to compare.
pub fn compare_sets(
    old: &[Value],
    new: &[Value],
    policy: &Policy,
) -> Result<Vec<Finding>, Vec<InputError>> {
    let mut errors = Vec::new();
    let (before, after) = (by_name(old, &mut errors), by_name(new, &mut errors));
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut out = Vec::new();
    for (name, was) in &before {
        match after.get(name) {
            Some(now) => out.extend(compare(was, now, policy).map_err(|e| vec![e])?),
            None => {
                let mut gone = (*was).clone();
                gone["spec"]["versions"] = Value::Array(Vec::new());
                gone["spec"]["conversion"] = was["spec"]["conversion"].clone();
                let mut findings = compare(was, &gone, policy).map_err(|e| vec![e])?;
                findings.retain(|f| {
                    matches!(
                        f.check,
                        Check::ServedVersionRemoval | Check::StoredVersionRemoval
                    )
                });
                out.extend(findings);
            }
        }
    }
    sort(&mut out);
    Ok(out)
}

fn by_name<'a>(set: &'a [Value], errors: &mut Vec<InputError>) -> BTreeMap<String, &'a Value> {
    let mut by_name = BTreeMap::new();
    for v in set {
        match crd::Crd::read(v) {
            Ok(c) => {
                by_name.insert(c.name.to_string(), v);
            }
            Err(e) => errors.push(e),
        }
    }
    by_name
}

fn sort(findings: &mut [Finding]) {
    let order = |c: Check| Check::ALL.iter().position(|x| *x == c);
    findings.sort_by(|a, b| {
        (&a.crd, &a.version, &a.path, order(a.check), &a.message).cmp(&(
            &b.crd,
            &b.version,
            &b.path,
            order(b.check),
            &b.message,
        ))
    });
}

/// Whether any finding is an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}
