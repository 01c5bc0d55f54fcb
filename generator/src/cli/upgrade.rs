//! `check-crds --previous OLD PATH...`: the CRDs of PATH compared with the ones they replace
//! (files, directories, or the cluster's), by kube-markers-compat (docs/upgrades.md).
//! Kept apart from `check_crds.rs`, which only hands over to it; [`from_cluster`] is public
//! for the end-to-end test on a real API server.

use super::format::Output;
use crate::usage::UsageError;
use kube_markers_compat::{Finding, Policy, Severity};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Checks one `--policy` word's shape (`NAME=VALUE`); names and values are the policy's.
pub(crate) fn policy_entry(entry: &str) -> Result<(&str, &str), UsageError> {
    entry
        .split_once('=')
        .filter(|(name, value)| !name.is_empty() && !value.is_empty())
        .ok_or_else(|| {
            super::flags::invalid(
                "--policy",
                entry.to_string(),
                "is not CHECK=LEVEL (`maximum=warn`, `description=error`, `alpha=warn`)".into(),
            )
        })
}

/// The `[workspace.metadata.kube-markers]` table of the workspace around the current
/// directory, read from its root `Cargo.toml` as cargo finds it (the nearest manifest with a
/// `[workspace]`, or the one its `package.workspace` names), as JSON: `Null` where there is
/// none. Comparing files needs no more of the workspace than this table: nothing is resolved,
/// so a workspace whose members or dependencies do not resolve still has its policy read.
/// A manifest that is not TOML is named in a warning, and the default policy applies.
fn workspace_settings() -> Result<Value, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let mut dir = Some(cwd.as_path());
    while let Some(at) = dir {
        let manifest = at.join("Cargo.toml");
        dir = at.parent();
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let table = match text.parse::<toml::Table>() {
            Ok(table) => table,
            Err(e) => {
                eprintln!(
                    "warning: {}: not TOML ({}): its [workspace.metadata.kube-markers.upgrade], \
                     if it has one, is not applied; the default upgrade policy is",
                    manifest.display(),
                    e.message()
                );
                return Ok(Value::Null);
            }
        };
        if let Some(workspace) = table.get("workspace") {
            return Ok(kube_markers_table(workspace));
        }
        if let Some(root) = table
            .get("package")
            .and_then(|p| p.get("workspace"))
            .and_then(toml::Value::as_str)
        {
            let root = at.join(root).join("Cargo.toml");
            let text = std::fs::read_to_string(&root).map_err(|e| {
                format!(
                    "{}: package.workspace names {}, which cannot be read: {e}",
                    manifest.display(),
                    root.display()
                )
            })?;
            let table = text
                .parse::<toml::Table>()
                .map_err(|e| format!("{}: not TOML: {}", root.display(), e.message()))?;
            return Ok(table
                .get("workspace")
                .map(kube_markers_table)
                .unwrap_or(Value::Null));
        }
    }
    Ok(Value::Null)
}

/// `metadata.kube-markers` of a `[workspace]` table, as JSON.
fn kube_markers_table(workspace: &toml::Value) -> Value {
    workspace
        .get("metadata")
        .and_then(|m| m.get("kube-markers"))
        .and_then(|t| serde_json::to_value(t).ok())
        .unwrap_or(Value::Null)
}

/// The policy of the workspace's `[workspace.metadata.kube-markers.upgrade]` (`workspace`: the
/// `kube-markers` table), as the generator's, with the `--policy` words over it: each
/// `CHECK=LEVEL`, or one of the policy's own settings.
pub(crate) fn policy(entries: &[String], workspace: &Value) -> Result<Policy, String> {
    let from_workspace = crate::check::upgrade::policy(workspace).map_err(|e| e.to_string())?;
    if entries.is_empty() {
        return Ok(from_workspace);
    }
    let mut settings = workspace["upgrade"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut checks: Map<String, Value> = settings
        .get("checks")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for entry in entries {
        let (name, value) = policy_entry(entry).map_err(|e| e.to_string())?;
        match name {
            "alpha" | "enum-additions" => settings.insert(name.into(), value.into()),
            _ => checks.insert(name.into(), value.into()),
        };
    }
    settings.insert("checks".into(), Value::Object(checks));
    let mut policy =
        Policy::from_settings(&Value::Object(settings), "--policy").map_err(|e| e.to_string())?;
    // Where the alpha setting came from, as a relaxed finding names it.
    if !entries.iter().any(|e| e.starts_with("alpha=")) {
        policy.alpha_set_in = from_workspace.alpha_set_in;
    }
    Ok(policy)
}

/// `check-crds --previous OLD PATH...`.
pub(crate) fn main(
    previous: &str,
    paths: &[PathBuf],
    entries: &[String],
    output: Output,
) -> ExitCode {
    let bad = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let policy = match workspace_settings().and_then(|settings| policy(entries, &settings)) {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let old = match previous {
        "cluster" => from_cluster(None),
        path => read(&[PathBuf::from(path)]),
    };
    let old = match old {
        Ok(crds) => crds,
        Err(e) => return bad(format!("--previous {previous}: {e}")),
    };
    let new = match read(paths) {
        Ok(crds) => crds,
        Err(e) => return bad(e),
    };
    // A cluster holds other operators' CRDs too: only those PATH defines are compared.
    let mut old = old;
    if previous == "cluster" {
        let names: Vec<&Value> = new.iter().map(|c| &c["metadata"]["name"]).collect();
        old.retain(|c| names.contains(&&c["metadata"]["name"]));
    }
    let findings = match kube_markers_compat::compare_sets(&old, &new, &policy) {
        Ok(mut f) if previous == "cluster" => {
            f.extend(conversion_left_behind(&old, &new));
            f
        }
        Ok(f) => f,
        Err(errors) => {
            let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return bad(all.join("\nerror: "));
        }
    };
    match output {
        Output::Json => {
            let json = serde_json::to_string_pretty(&findings).expect("findings serialize");
            super::print_out(&format!("{json}\n"));
        }
        Output::Text => super::print_out(&render(&findings)),
        Output::Github => super::print_out(&render_github(&findings, paths)),
    }
    eprintln!("{}", summary(&findings, old.len(), new.len()));
    if kube_markers_compat::has_errors(&findings) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// One line per finding.
pub(crate) fn render(findings: &[Finding]) -> String {
    findings.iter().map(|f| format!("{}\n", f.line())).collect()
}

/// Each finding as a GitHub Actions workflow command, where the check places it in the files
/// of PATH ([`kube_markers_crdcheck::upgrade::locate_in`]: the line and column of the node
/// changed, else of its version's entry or its CRD).
fn render_github(findings: &[Finding], paths: &[PathBuf]) -> String {
    use super::github::{Level, Place, annotation, file_name};
    let changes = kube_markers_crdcheck::upgrade::locate_in(findings.to_vec(), paths)
        .unwrap_or_else(|_| {
            // PATH was read for the comparison: unplaced only if it changed since.
            findings
                .iter()
                .map(|f| kube_markers_crdcheck::upgrade::Change::unplaced(f.clone()))
                .collect()
        });
    let mut out = String::new();
    for change in changes {
        let f = &change.finding;
        let place = if change.file.is_empty() {
            Place::default()
        } else {
            Place {
                file: Some(file_name(&change.file)),
                line: Some(change.line),
                col: change.column,
            }
        };
        let level = match f.severity {
            Severity::Error => Level::Error,
            _ => Level::Warning,
        };
        let title = format!("{}: {}", f.check, f.crd);
        out.push_str(&annotation(level, &place, &title, &f.line()));
    }
    out
}

fn summary(findings: &[Finding], old: usize, new: usize) -> String {
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    format!(
        "{old} previous CRD(s), {new} CRD(s): {errors} breaking change(s), {} warning(s)",
        findings.len() - errors
    )
}

/// Every CRD of the files under `paths` (a `List`'s items too); a file given by name without
/// one is an error, files found in a directory without one are skipped.
pub(crate) fn read(paths: &[PathBuf]) -> Result<Vec<Value>, String> {
    kube_markers_crdcheck::upgrade::read_crds(paths)
}

/// The CRDs installed in the current context of `kubeconfig` (kubectl's own choice when
/// `None`), with their status, as kubectl (`$KUBECTL`, else `kubectl`) lists them.
pub fn from_cluster(kubeconfig: Option<&Path>) -> Result<Vec<Value>, String> {
    let kubectl = std::env::var("KUBECTL").unwrap_or_else(|_| "kubectl".into());
    let mut command = Command::new(&kubectl);
    command.args([
        "get",
        "customresourcedefinitions.apiextensions.k8s.io",
        "-o",
        "json",
        // Who owns each field: [`conversion_left_behind`] reads it.
        "--show-managed-fields",
    ]);
    if let Some(file) = kubeconfig {
        command.arg("--kubeconfig").arg(file);
    }
    let out = command
        .output()
        .map_err(|e| format!("cannot run `{kubectl}`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{kubectl} get customresourcedefinitions -o json --show-managed-fields` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let list: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!("`{kubectl} get customresourcedefinitions -o json --show-managed-fields`: {e}")
    })?;
    Ok(list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            // kubectl's list items carry no kind.
            let mut crd = item.clone();
            crd["kind"] = "CustomResourceDefinition".into();
            crd["apiVersion"] = "apiextensions.k8s.io/v1".into();
            crd
        })
        .collect())
}

/// The field manager of `kubectl apply --server-side`.
const KUBECTL_APPLY: &str = "kubectl";

/// Each new CRD that no longer converts through a webhook while the installed one has a
/// `caBundle` another field manager owns (the webhook server's patches, cert-manager's
/// injector): a server-side apply removes only what its own field manager set, so the
/// `caBundle` would stay without the rest of `spec.conversion`, and the API server refuses
/// that (`spec.conversion.strategy: Required value`, `webhookClientConfig: Forbidden: should
/// not be set when strategy is not set to Webhook`).
pub fn conversion_left_behind(old: &[Value], new: &[Value]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for crd in new {
        if crd["spec"]["conversion"]["strategy"] == "Webhook" {
            continue;
        }
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        let Some(installed) = old.iter().find(|o| o["metadata"]["name"] == name) else {
            continue;
        };
        if installed["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"].is_null() {
            continue;
        }
        let owners: Vec<String> = installed["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| {
                let owned = &m["fieldsV1"]["f:spec"]["f:conversion"]["f:webhook"]["f:clientConfig"]
                    ["f:caBundle"];
                let applier = m["manager"] == KUBECTL_APPLY && m["operation"] == "Apply";
                !owned.is_null() && !applier
            })
            .map(|m| {
                format!(
                    "{} ({})",
                    m["manager"].as_str().unwrap_or("?"),
                    m["operation"].as_str().unwrap_or("?")
                )
            })
            .collect();
        if owners.is_empty() {
            continue;
        }
        findings.push(Finding {
            check: kube_markers_compat::Check::Conversion,
            crd: name.to_string(),
            version: String::new(),
            path: String::new(),
            severity: Severity::Error,
            message: format!(
                "the installed CRD converts through a webhook and field manager {} owns its \
                 spec.conversion.webhook.clientConfig.caBundle; this one does not convert, and \
                 `kubectl apply --server-side` removes only what it set itself, so the API \
                 server would refuse it (\"should not be set when strategy is not set to \
                 Webhook\"). Once no running operator writes that caBundle, let go of it: the \
                 release without the conversion calls kube_markers::conversion::release_ca_bundle \
                 at start (docs/conversions.md); or remove it, then apply: kubectl patch crd {name} \
                 --type=json -p '[{{\"op\":\"remove\",\"path\":\"/spec/conversion/webhook/clientConfig/caBundle\"}}]'",
                owners.join(", ")
            ),
            old: Some("\"Webhook\"".into()),
            new: Some(
                crd["spec"]["conversion"]["strategy"]
                    .as_str()
                    .map_or("absent".into(), |s| format!("{s:?}")),
            ),
            ratcheting: kube_markers_compat::Ratcheting::Unknown,
            relaxed_by: None,
        });
    }
    findings
}
