//! Two CRDs compared as crdify compares them: the CRD's own fields, each version with the
//! same-named old one, and every pair of served versions (lower priority → higher) of the new
//! CRD less what the old CRD's pairs already showed, where no webhook converts between them;
//! plus the served versions and the conversion strategy.

use crate::check::{Check, Severity};
use crate::policy::Policy;
use crate::property::{self, Change};
use crate::ratchet::Ratcheting;
use crate::schema::{self, Flat};
use crate::{Finding, InputError, version};
use serde_json::Value;

/// A CRD as compared: its name, scope, versions, stored versions and conversion strategy.
pub(crate) struct Crd<'a> {
    pub name: &'a str,
    scope: Option<&'a str>,
    versions: Vec<Version<'a>>,
    /// `status.storedVersions`: `None` where the CRD has none (a file, not the cluster's).
    stored: Option<Vec<&'a str>>,
    conversion: &'a str,
}

struct Version<'a> {
    name: &'a str,
    served: bool,
    storage: bool,
    schema: Option<&'a Value>,
}

impl<'a> Crd<'a> {
    /// Reads the fields compared; what cannot be read is an error naming the JSON path.
    pub(crate) fn read(crd: &'a Value) -> Result<Crd<'a>, InputError> {
        let name = crd["metadata"]["name"].as_str().unwrap_or("");
        let err = |path: String, message: &str| InputError {
            crd: name.to_string(),
            path,
            message: message.to_string(),
        };
        if crd.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            return Err(err("kind".into(), "not a CustomResourceDefinition"));
        }
        if name.is_empty() {
            return Err(err("metadata.name".into(), "missing or not a string"));
        }
        let Some(list) = crd["spec"]["versions"].as_array() else {
            return Err(err("spec.versions".into(), "missing or not a list"));
        };
        let mut versions = Vec::new();
        for (i, v) in list.iter().enumerate() {
            let Some(version) = v["name"].as_str() else {
                return Err(err(
                    format!("spec.versions[{i}].name"),
                    "missing or not a string",
                ));
            };
            let schema = match &v["schema"]["openAPIV3Schema"] {
                Value::Null => None,
                s @ Value::Object(_) => Some(s),
                _ => {
                    return Err(err(
                        format!("spec.versions[{i}].schema.openAPIV3Schema"),
                        "not an object",
                    ));
                }
            };
            versions.push(Version {
                name: version,
                served: v["served"] == Value::Bool(true),
                storage: v["storage"] == Value::Bool(true),
                schema,
            });
        }
        let stored = match &crd["status"]["storedVersions"] {
            Value::Null => None,
            Value::Array(list) => Some(list.iter().filter_map(Value::as_str).collect()),
            _ => return Err(err("status.storedVersions".into(), "not a list")),
        };
        Ok(Crd {
            name,
            scope: crd["spec"]["scope"].as_str(),
            versions,
            stored,
            conversion: crd["spec"]["conversion"]["strategy"]
                .as_str()
                .unwrap_or("None"),
        })
    }

    fn version(&self, name: &str) -> Option<&Version<'a>> {
        self.versions.iter().find(|v| v.name == name)
    }
}

/// Collects findings of one CRD, dropping what the policy turns off.
pub(crate) struct Findings<'p> {
    crd: String,
    policy: &'p Policy,
    pub(crate) out: Vec<Finding>,
}

impl<'p> Findings<'p> {
    pub(crate) fn new(crd: &str, policy: &'p Policy) -> Findings<'p> {
        Findings {
            crd: crd.to_string(),
            policy,
            out: Vec::new(),
        }
    }

    fn push(&mut self, version: &str, path: &str, change: Change) {
        let severity = self.policy.severity(change.check);
        self.push_at(version, path, change, severity);
    }

    /// Pushes `change` at `severity` (or less, where the policy relaxes alpha versions).
    fn push_at(&mut self, version: &str, path: &str, change: Change, mut severity: Severity) {
        if severity == Severity::Off {
            return;
        }
        let mut message = match change.ratcheting.note() {
            Some(note) => format!("{}; {note}", change.message),
            None => change.message,
        };
        let relaxable = !matches!(
            change.check,
            Check::Scope | Check::StoredVersionRemoval | Check::Conversion
        );
        let relaxed_by = relaxable
            .then(|| self.policy.relaxed_by(version, severity))
            .flatten();
        if let Some(setting) = &relaxed_by {
            severity = Severity::Warn;
            message.push_str(&format!(
                " (a warning, not an error: {setting} relaxes alpha versions)"
            ));
        }
        self.out.push(Finding {
            check: change.check,
            crd: self.crd.clone(),
            version: version.to_string(),
            path: path.to_string(),
            severity,
            message,
            old: change.old,
            new: change.new,
            ratcheting: change.ratcheting,
            relaxed_by,
        });
    }

    fn crd_wide(&mut self, check: Check, version: &str, message: String, at_most: Severity) {
        let change = Change {
            check,
            message,
            old: None,
            new: None,
            ratcheting: Ratcheting::Unknown,
        };
        let severity = self.policy.severity(check).min(at_most);
        self.push_at(version, "", change, severity);
    }
}

/// Every finding of `old` → `new`.
pub(crate) fn compare(old: &Crd, new: &Crd, findings: &mut Findings) {
    let policy = findings.policy;
    if old.scope != new.scope {
        let change = Change {
            check: Check::Scope,
            message: format!(
                "scope changed: {} → {} (the API server refuses this once the CRD is established)",
                old.scope.unwrap_or("absent"),
                new.scope.unwrap_or("absent")
            ),
            old: old.scope.map(str::to_string),
            new: new.scope.map(str::to_string),
            ratcheting: Ratcheting::Unknown,
        };
        findings.push("", "", change);
    }
    let stored = old.stored.as_deref().unwrap_or_default();
    let gone: Vec<&str> = stored
        .iter()
        .copied()
        .filter(|v| new.version(v).is_none())
        .collect();
    if !gone.is_empty() {
        findings.crd_wide(
            Check::StoredVersionRemoval,
            &gone.join(", "),
            format!(
                "stored versions removed: {} (objects may still be stored at them; the API \
                 server refuses this until a storage migration has rewritten them and \
                 status.storedVersions no longer lists them)",
                gone.join(", ")
            ),
            Severity::Error,
        );
    }
    for v in old.versions.iter().filter(|v| v.served) {
        let now = new.version(v.name);
        if !now.is_none_or(|n| !n.served) || gone.contains(&v.name) {
            continue;
        }
        let what = if now.is_none() {
            "removed"
        } else {
            "no longer served"
        };
        // Offline nothing says whether objects are stored at it; the cluster's
        // storedVersions does.
        let (stored_note, at_most) = match &old.stored {
            None => (
                " Objects may still be stored at it: once a storage migration has rewritten \
                 them (and status.storedVersions no longer lists it), `check-crds --previous \
                 cluster` shows whether any are."
                    .to_string(),
                Severity::Error,
            ),
            Some(list) if list.contains(&v.name) => (
                " Objects are stored at it (status.storedVersions lists it).".to_string(),
                Severity::Error,
            ),
            Some(list) => (
                format!(
                    " No object is stored at it (status.storedVersions: {}).",
                    list.join(", ")
                ),
                Severity::Warn,
            ),
        };
        let storage = if v.storage {
            " It was the storage version."
        } else {
            ""
        };
        findings.crd_wide(
            Check::ServedVersionRemoval,
            v.name,
            format!(
                "served version {} {what}: clients that use it get 404.{storage}{stored_note}",
                v.name
            ),
            at_most,
        );
    }
    // With one version left there is nothing to convert.
    if old.conversion == "Webhook" && new.conversion != "Webhook" && new.versions.len() > 1 {
        findings.crd_wide(
            Check::Conversion,
            "",
            format!(
                "conversion strategy changed: Webhook → {}: the API server then converts only \
                 apiVersion between the {} versions left, and fields that differ between \
                 versions are lost or refused",
                new.conversion,
                new.versions.len()
            ),
            Severity::Error,
        );
    }
    // Each version with its old self.
    for v in &new.versions {
        let Some(was) = old.version(v.name) else {
            continue;
        };
        let (a, b) = (schema::flatten(was.schema), schema::flatten(v.schema));
        for (path, change) in diff(&a, &b, policy, Check::ExistingFieldRemoval) {
            findings.push(v.name, &path, change);
        }
    }
    // Every pair of served versions of the new CRD, less what the old one's pairs showed; none
    // where a webhook converts between them.
    let before = served_pairs(old, policy);
    for (pair, path, change) in served_pairs(new, policy) {
        let known = before.iter().any(|(p, at, c)| {
            *p == pair && *at == path && c.check == change.check && c.message == change.message
        });
        if !known {
            findings.push(&pair, &path, change);
        }
    }
}

/// The changes of each path of `a` in `b`; a path gone is one change of `gone`.
fn diff(a: &Flat, b: &Flat, policy: &Policy, gone: Check) -> Vec<(String, Change)> {
    let mut out = Vec::new();
    for (path, old) in a {
        match b.get(path) {
            Some(new) => {
                for change in property::compare(old, new, policy.enum_additions_allowed) {
                    out.push((path.clone(), change));
                }
            }
            // A path under a removed one is reported once, at the top.
            None if !has_removed_ancestor(path, a, b) => out.push((
                path.clone(),
                Change {
                    check: gone,
                    message: format!(
                        "field removed: {} (stored values of it are pruned on the next write; \
                         clients that set it are refused or lose it)",
                        schema::short(path)
                    ),
                    old: Some(schema::shown(old.get("type"))),
                    new: None,
                    ratcheting: Ratcheting::Unknown,
                },
            )),
            None => {}
        }
    }
    out
}

fn has_removed_ancestor(path: &str, a: &Flat, b: &Flat) -> bool {
    a.keys()
        .filter(|p| p.len() < path.len() && is_ancestor(p, path))
        .any(|p| !b.contains_key(p))
}

fn is_ancestor(ancestor: &str, path: &str) -> bool {
    path.strip_prefix(ancestor)
        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// The changes between every pair `vi -> vj` of served versions, `vi` of lower priority; none
/// where a webhook converts between them (unless the policy compares them anyway).
fn served_pairs(crd: &Crd, policy: &Policy) -> Vec<(String, String, Change)> {
    if crd.conversion == "Webhook" && !policy.compare_converted_versions {
        return Vec::new();
    }
    let mut served: Vec<&Version> = crd.versions.iter().filter(|v| v.served).collect();
    served.sort_by(|a, b| version::compare(a.name, b.name));
    let flat: Vec<Flat> = served.iter().map(|v| schema::flatten(v.schema)).collect();
    let mut out = Vec::new();
    for i in 0..served.len() {
        for j in i + 1..served.len() {
            let pair = format!("{} -> {}", served[i].name, served[j].name);
            for (path, change) in diff(&flat[i], &flat[j], policy, Check::ExistingFieldRemoval) {
                out.push((pair.clone(), path, change));
            }
        }
    }
    out
}
