//! What each check does (error, warn, off), and the choices crdify also leaves to its user:
//! whether added enum values count, whether served versions converted by a webhook are
//! compared with each other, and (ours) whether findings on alpha versions are relaxed.

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
    /// What a finding on an alpha version (`v1alpha1`, `v2alpha3`, or a served pair with one)
    /// is at most: `Error` (the default) checks them as all others, as crdify does; `Warn` and
    /// `Off` relax them, and each finding relaxed is still reported, as a warning naming the
    /// setting ([`Finding::relaxed_by`](crate::Finding::relaxed_by)). The CRD-wide checks
    /// (`scope`, `storedVersionRemoval`, `conversion`) are never relaxed.
    pub alpha: Severity,
    /// Where `alpha` was set, as messages name it (`[workspace.metadata.kube-markers.upgrade]`).
    pub alpha_set_in: String,
    /// Served versions of a CRD that converts through a webhook are compared with each other
    /// too (crdify's default, `conversion: None`). Default: false (crdify's `conversion:
    /// Ignore`): the webhook converts between them, so they differ on purpose.
    pub compare_converted_versions: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            severities: BTreeMap::new(),
            enum_additions_allowed: true,
            alpha: Severity::Error,
            alpha_set_in: String::new(),
            compare_converted_versions: false,
        }
    }
}

impl Policy {
    /// crdify's own defaults: every check an error, enum additions refused, alpha versions
    /// checked, served versions compared even where a webhook converts them (what the
    /// differential test compares with).
    pub fn crdify() -> Policy {
        let mut policy = Policy {
            enum_additions_allowed: false,
            compare_converted_versions: true,
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
    /// alpha = "warn"                                        # or "off"; default "error"
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
                    policy.alpha = match value.as_str() {
                        Some(level) if Severity::from_name(level).is_some() => {
                            Severity::from_name(level).unwrap_or(Severity::Error)
                        }
                        // The names of the setting before alpha versions were checked.
                        Some(old @ ("exempt" | "checked")) => {
                            let now = if old == "exempt" { "off" } else { "error" };
                            return Err(err(
                                key.clone(),
                                format!(
                                    "must be \"error\", \"warn\" or \"off\", found \"{old}\" \
                                     (write \"{now}\": alpha versions are checked as all \
                                     others by default, and a relaxed finding is still \
                                     reported, as a warning)"
                                ),
                            ));
                        }
                        _ => {
                            return Err(err(
                                key.clone(),
                                format!("must be \"error\", \"warn\" or \"off\", found {value}"),
                            ));
                        }
                    };
                    policy.alpha_set_in = where_.to_string();
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

    /// The setting that relaxes a finding of `severity` on `version` (a version, or a served
    /// pair `v1alpha1 -> v1`) to a warning, as messages name it: `alpha = "warn" in [...]`;
    /// `None` when nothing relaxes it.
    pub fn relaxed_by(&self, version: &str, severity: Severity) -> Option<String> {
        let alpha = version.split(" -> ").any(is_alpha);
        if !alpha || severity <= self.alpha {
            return None;
        }
        Some(if self.alpha_set_in.is_empty() {
            format!("alpha = \"{}\"", self.alpha)
        } else {
            format!("alpha = \"{}\" in {}", self.alpha, self.alpha_set_in)
        })
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
