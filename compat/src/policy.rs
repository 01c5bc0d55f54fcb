//! What each check does (error, warn, off), and the two choices crdify also leaves to its
//! user: whether added enum values count, and whether alpha versions are checked.

use crate::check::{Check, Severity};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// The policy of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Each check's severity where it is not its default.
    severities: BTreeMap<Check, Severity>,
    /// An enum value added is allowed (crdify's `enum` `additionPolicy: Allow`). Default: true:
    /// an old client may not know the value, but nothing stored breaks.
    pub enum_additions_allowed: bool,
    /// Versions whose name contains `alpha` (`v1alpha1`, `v2alpha3`) are not compared: the API
    /// conventions let alpha APIs change incompatibly. Default: true.
    pub alpha_exempt: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            severities: BTreeMap::new(),
            enum_additions_allowed: true,
            alpha_exempt: true,
        }
    }
}

impl Policy {
    /// crdify's own defaults: every check an error, enum additions refused, alpha versions
    /// checked (what the differential test compares with).
    pub fn crdify() -> Policy {
        let mut policy = Policy {
            enum_additions_allowed: false,
            alpha_exempt: false,
            ..Policy::default()
        };
        policy.set(Check::Description, Severity::Error);
        policy
    }

    /// What `check` does.
    pub fn severity(&self, check: Check) -> Severity {
        self.severities
            .get(&check)
            .copied()
            .unwrap_or(check.default_severity())
    }

    /// Makes `check` do `severity`.
    pub fn set(&mut self, check: Check, severity: Severity) {
        if severity == check.default_severity() {
            self.severities.remove(&check);
        } else {
            self.severities.insert(check, severity);
        }
    }

    /// Reads a settings table (`[workspace.metadata.kube-markers.upgrade]` as JSON):
    ///
    /// ```toml
    /// checks = { description = "warn", maximum = "off" }   # any check: error, warn or off
    /// enum-additions = "allow"                              # or "disallow"
    /// alpha = "exempt"                                      # or "checked"
    /// ```
    ///
    /// `where_` names the table in errors (`[workspace.metadata.kube-markers.upgrade] in
    /// Cargo.toml`).
    pub fn from_settings(settings: &Value, where_: &str) -> Result<Policy, PolicyError> {
        let mut policy = Policy::default();
        let err = |key: String, message: String| PolicyError {
            place: where_.to_string(),
            key,
            message,
        };
        let Some(table) = settings.as_object() else {
            return match settings {
                Value::Null => Ok(policy),
                other => Err(err(
                    String::new(),
                    format!("must be a table, found {other}"),
                )),
            };
        };
        for (key, value) in table {
            match key.as_str() {
                "checks" => {
                    let Some(checks) = value.as_object() else {
                        return Err(err(key.clone(), format!("must be a table, found {value}")));
                    };
                    for (name, severity) in checks {
                        let at = format!("checks.{name}");
                        let check = Check::from_name(name).ok_or_else(|| {
                            err(
                                at.clone(),
                                format!("no check is named `{name}`; the checks: {}", names()),
                            )
                        })?;
                        let severity = severity.as_str().and_then(Severity::from_name).ok_or_else(
                            || {
                                err(
                                    at.clone(),
                                    format!(
                                        "must be \"error\", \"warn\" or \"off\", found {severity}"
                                    ),
                                )
                            },
                        )?;
                        policy.set(check, severity);
                    }
                }
                "enum-additions" => {
                    policy.enum_additions_allowed = match value.as_str() {
                        Some("allow") => true,
                        Some("disallow") => false,
                        _ => {
                            return Err(err(
                                key.clone(),
                                format!("must be \"allow\" or \"disallow\", found {value}"),
                            ));
                        }
                    }
                }
                "alpha" => {
                    policy.alpha_exempt = match value.as_str() {
                        Some("exempt") => true,
                        Some("checked") => false,
                        _ => {
                            return Err(err(
                                key.clone(),
                                format!("must be \"exempt\" or \"checked\", found {value}"),
                            ));
                        }
                    }
                }
                _ => {
                    return Err(err(
                        key.clone(),
                        "unknown setting; the settings: checks, enum-additions, alpha".into(),
                    ));
                }
            }
        }
        Ok(policy)
    }

    /// Whether versions named `version` are compared.
    pub fn compares_version(&self, version: &str) -> bool {
        !(self.alpha_exempt && is_alpha(version))
    }
}

/// `v1alpha1`, `v2alpha3`: a version the API conventions let change incompatibly.
pub fn is_alpha(version: &str) -> bool {
    version.starts_with('v') && version.contains("alpha")
}

fn names() -> String {
    Check::ALL.map(Check::name).join(", ")
}

/// A setting of a [`Policy`] that does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The table, as the caller named it.
    pub place: String,
    /// The key (`checks.maximum`), empty for the table itself.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.place, self.message)
        } else {
            write!(f, "{} `{}`: {}", self.place, self.key, self.message)
        }
    }
}

impl std::error::Error for PolicyError {}
