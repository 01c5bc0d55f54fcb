//! Which API-convention lints run: their defaults, changed by
//! `[workspace.metadata.kube-markers.lints]` in the workspace's `Cargo.toml`
//! (`maxlength = "warn"`, `nobools = "warn"`, `jsontags = "off"`).

use kube_markers_core::schema_types::SchemaLint;
use serde_json::Value;

/// The lints that run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintLevels {
    on: Vec<SchemaLint>,
}

impl Default for LintLevels {
    /// Each lint's default ([`SchemaLint::on_by_default`]).
    fn default() -> Self {
        LintLevels {
            on: SchemaLint::ALL
                .into_iter()
                .filter(|l| l.on_by_default())
                .collect(),
        }
    }
}

/// A `[workspace.metadata.kube-markers.lints]` that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[workspace.metadata.kube-markers.lints] in {manifest}: {problem}")]
pub struct ConfigError {
    /// The workspace's `Cargo.toml`.
    pub manifest: String,
    /// What is wrong.
    pub problem: String,
}

impl LintLevels {
    /// Whether `lint` runs.
    pub fn is_on(&self, lint: SchemaLint) -> bool {
        self.on.contains(&lint)
    }

    /// Every lint on (for tests and for users who want all of kube-api-linter's checks).
    pub fn all() -> Self {
        LintLevels {
            on: SchemaLint::ALL.to_vec(),
        }
    }

    /// The defaults with `table` (the `lints` table of the workspace's kube-markers
    /// metadata, `Value::Null` when absent) applied; `manifest` names the file in errors.
    pub fn from_metadata(table: &Value, manifest: &str) -> Result<Self, ConfigError> {
        let mut levels = LintLevels::default();
        let problem = |problem: String| ConfigError {
            manifest: manifest.to_string(),
            problem,
        };
        let table = match table {
            Value::Null => return Ok(levels),
            Value::Object(table) => table,
            _ => {
                return Err(problem(
                    "must be a table of lint names to \"warn\" or \"off\"".into(),
                ));
            }
        };
        for (name, level) in table {
            let Some(lint) = SchemaLint::from_name(name) else {
                let names: Vec<&str> = SchemaLint::ALL.iter().map(|l| l.name()).collect();
                let hint = kube_markers_core::suggest::did_you_mean(name, &names)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                return Err(problem(format!(
                    "unknown lint `{name}`{hint} (the lints: {})",
                    names.join(", ")
                )));
            };
            match level.as_str() {
                Some("warn") => {
                    if !levels.on.contains(&lint) {
                        levels.on.push(lint);
                    }
                }
                Some("off") => levels.on.retain(|l| *l != lint),
                _ => {
                    return Err(problem(format!(
                        "`{name} = {level}`: a level is \"warn\" or \"off\""
                    )));
                }
            }
        }
        levels.on.sort();
        Ok(levels)
    }
}
