//! Every lint's way out, applied exactly as its message writes it (issue 31), in a workspace of
//! a user's own outside this one: each warning points at the attribute, field or type it is
//! about, and the `allow(...)` it suggests, pasted there, compiles and silences it. The RBAC
//! lints take theirs inside the attribute; the API-convention lints above the field or the
//! type. A status type without `#[kube_markers::schema]` has its warnings at the kind, and
//! the message's advice (the attribute on the status type) brings them to the field.

#[allow(dead_code)] // shared with quick_start.rs and the others
mod outside;
use outside::{quick_start_workspace, run_generator, write};
use std::path::Path;
use std::process::Output;

const LIB: &str = r#"use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use kube_markers::rbac;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[rbac(groups = "example.com", resources = "widgets", verbs = "*")]
pub fn wildcard_verbs() {}

#[rbac(groups = "example.com", resources = "*", verbs = "get")]
pub fn wildcard_resources() {}

#[rbac(groups = "*", resources = "widgets", verbs = "get")]
pub fn wildcard_groups() {}

#[rbac(groups = "rbac.authorization.k8s.io", resources = "clusterroles", verbs = "escalate")]
pub fn escalate() {}

#[rbac(groups = "rbac.authorization.k8s.io", resources = "roles", verbs = "bind")]
pub fn bind() {}

#[rbac(groups = "", resources = "serviceaccounts", verbs = "impersonate")]
pub fn impersonate() {}

#[rbac(groups = "rbac.authorization.k8s.io", resources = "rolebindings", verbs = "create")]
pub fn rbac_write() {}

#[rbac(groups = "", resources = "secrets", verbs = "list")]
pub fn cluster_secrets_read() {}

#[rbac(groups = "", resources = "pods/exec", verbs = "create")]
pub fn pods_exec() {}

#[rbac(groups = "", resources = "nodes/proxy", verbs = "get")]
pub fn nodes_proxy() {}

#[rbac(groups = "", resources = "serviceaccounts/token", verbs = "create")]
pub fn token_request() {}

#[rbac(groups = "batch", resources = "jobs", verbs = "create")]
pub fn workload_write() {}

#[rbac(groups = "", resources = "persistentvolumes", verbs = "create")]
pub fn persistent_volume_create() {}

#[rbac(groups = "certificates.k8s.io", resources = "certificatesigningrequests/approval", verbs = "update")]
pub fn csr_approval() {}

#[rbac(groups = "admissionregistration.k8s.io", resources = "mutatingwebhookconfigurations", verbs = "patch")]
pub fn webhook_config_write() {}

#[rbac(groups = "", resources = "namespaces", verbs = "patch")]
pub fn namespace_modify() {}

#[rbac(groups = "example.com", resources = "gadgets", verbs = "get;list")]
#[rbac(groups = "example.com", resources = "gadgets", verbs = "get")]
pub fn redundant_on_one_item() {}

// As the docs advise: each function that publishes events says so. Not redundant.
#[rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
pub fn reconcile() {}

#[rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
pub fn cleanup() {}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Widget", namespaced, status = "WidgetStatus")]
pub struct WidgetSpec {
    pub max_size: i32,
    #[serde(rename = "count")]
    pub count: u32,
    #[serde(rename = "ratio")]
    pub ratio: f64,
    #[serde(rename = "names")]
    pub names: Vec<String>,
    #[serde(rename = "enabled")]
    pub enabled: bool,
    #[serde(rename = "labels")]
    pub labels: BTreeMap<String, i32>,
    #[serde(rename = "createdTimestamp")]
    pub created_timestamp: i64,
    #[serde(rename = "rolloutPhase")]
    pub rollout_phase: i32,
    #[serde(rename = "status")]
    pub status: i32,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct WidgetStatus {
    pub ready: i32,
    pub conditions: Vec<Condition>,
}
"#;

/// The lints of both kinds, by name: each must have fired.
const RBAC_LINTS: [&str; 17] = [
    "wildcard-verbs",
    "wildcard-resources",
    "wildcard-groups",
    "escalate",
    "bind",
    "impersonate",
    "rbac-write",
    "cluster-secrets-read",
    "pods-exec",
    "nodes-proxy",
    "token-request",
    "workload-write",
    "persistent-volume-create",
    "csr-approval",
    "webhook-config-write",
    "namespace-modify",
    "redundant",
];
const SCHEMA_LINTS: [&str; 12] = [
    "jsontags",
    "integers",
    "nofloats",
    "ssatags",
    "conditions",
    "nophase",
    "statusoptional",
    "statussubresource",
    "maxlength",
    "nobools",
    "nomaps",
    "notimestamp",
];

/// One warning as printed.
#[derive(Debug, Clone)]
struct Warned {
    lint: String,
    line: usize,
    item: String,
    text: String,
    /// The way out, as the message writes it.
    suggestion: String,
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The warnings about `my-operator/src/lib.rs`, with the suggestion each makes.
fn warnings(text: &str) -> Vec<Warned> {
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("warning[")?;
            let (lint, rest) = rest.split_once("]: ")?;
            let rest = rest.strip_prefix("my-operator/src/lib.rs:")?;
            let (place, rest) = rest.split_once(" (")?;
            let line = place.split(':').next()?.parse().ok()?;
            let (item, _) = rest.split_once("): ")?;
            let suggestion = if let Some((_, after)) = l.split_once("say why on the attribute: ") {
                after.split(" [").next()?.to_string()
            } else {
                let start = l.rfind("#[k8s(allow(")?;
                let end = l[start..].find("))]")? + start + 3;
                l[start..end].to_string()
            };
            Some(Warned {
                lint: lint.to_string(),
                line,
                item: item.to_string(),
                text: l.to_string(),
                suggestion,
            })
        })
        .collect()
}

/// Each suggestion pasted where its warning points: an RBAC lint's `allow(...)` into the
/// attribute on that line, an API-convention lint's `#[k8s(...)]` on a line of its own above
/// the field or type.
fn apply(lib: &str, warned: &[Warned]) -> String {
    let mut lines: Vec<String> = lib.lines().map(str::to_string).collect();
    let mut above: Vec<(usize, String)> = Vec::new();
    for w in warned {
        let line = &mut lines[w.line - 1];
        if RBAC_LINTS.contains(&w.lint.as_str()) {
            assert!(
                line.trim_start().starts_with("#[rbac("),
                "{}: {line}",
                w.text
            );
            let close = line.rfind(")]").unwrap();
            line.insert_str(close, &format!(", {}", w.suggestion));
        } else {
            let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
            let paste = format!("{indent}{}", w.suggestion);
            if !above.contains(&(w.line, paste.clone())) {
                above.push((w.line, paste));
            }
        }
    }
    above.sort_by_key(|b| std::cmp::Reverse(b.0));
    for (line, paste) in above {
        lines.insert(line - 1, paste);
    }
    lines.join("\n") + "\n"
}

/// The line of `lib` that starts (after indentation) with `start`, 1-based.
fn line_of(lib: &str, start: &str) -> usize {
    lib.lines()
        .position(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("{start}"))
        + 1
}

fn set_lib(ws: &Path, lib: &str) {
    write(&ws.join("my-operator/src/lib.rs"), lib);
}

#[test]
fn every_lints_suggestion_compiles_as_written_and_silences_it() {
    let ws = quick_start_workspace("lint-suggestions", LIB);
    // Every API-convention lint on, the ones off by default too.
    let manifest = ws.join("Cargo.toml");
    let cargo = std::fs::read_to_string(&manifest).unwrap()
        + "\n[workspace.metadata.kube-markers.lints]\nnobools = \"warn\"\nmaxlength = \"warn\"\n\
           nomaps = \"warn\"\nnotimestamp = \"warn\"\n";
    write(&manifest, &cargo);

    let out = run_generator(&ws, &[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    let first = warnings(&text);
    for lint in RBAC_LINTS.iter().chain(&SCHEMA_LINTS) {
        assert!(
            first.iter().any(|w| w.lint == *lint),
            "{lint} never fired:\n{text}"
        );
    }
    // Each points at its attribute, field or type.
    for w in &first {
        let line = LIB.lines().nth(w.line - 1).unwrap();
        let at_item = match w.item.split_once('.') {
            Some((_, field)) => line.trim_start().starts_with(&format!("pub {field}:")),
            None if RBAC_LINTS.contains(&w.lint.as_str()) => {
                line.starts_with("#[rbac(")
                    && LIB.lines().skip(w.line).find(|l| l.starts_with("pub "))
                        == Some(&*format!("pub fn {}() {{}}", w.item))
            }
            None => line.starts_with(&format!("pub struct {} ", w.item)),
        };
        assert!(at_item, "{}\n  points at: {line}", w.text);
    }
    // `redundant` fires on the second grant of one item, not on two functions' own.
    let redundant: Vec<&Warned> = first.iter().filter(|w| w.lint == "redundant").collect();
    assert_eq!(redundant.len(), 1, "{text}");
    assert_eq!(redundant[0].item, "redundant_on_one_item");
    assert_eq!(
        redundant[0].line,
        line_of(LIB, "pub fn redundant_on_one_item") - 1
    );
    // The status type has no #[kube_markers::schema]: at the kind, and the message says why
    // and what brings the warning to the field.
    let status_warning = first.iter().find(|w| w.lint == "statusoptional").unwrap();
    assert_eq!(status_warning.item, "WidgetSpec", "{}", status_warning.text);
    assert!(
        status_warning.text.contains(
            "(`WidgetStatus` has no #[kube_markers::schema], so this warning stands at the \
             kind: put #[kube_markers::schema] above the derive of `WidgetStatus` to have it at \
             its field"
        ),
        "{}",
        status_warning.text
    );

    // Every suggestion, as written: it compiles, and nothing is left to warn about.
    set_lib(&ws, &apply(LIB, &first));
    let out = run_generator(&ws, &["--deny-warnings"]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("warning"), "{text}");

    // The other way: the status type's attribute, as the message says; then its warnings
    // stand at its fields, whose own suggestions silence them.
    let derive = line_of(LIB, "pub struct WidgetStatus") - 1;
    let mut lines: Vec<&str> = LIB.lines().collect();
    lines.insert(derive - 1, "#[kube_markers::schema]");
    let with_schema = lines.join("\n") + "\n";
    set_lib(&ws, &with_schema);
    let out = run_generator(&ws, &[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    let second = warnings(&text);
    for (lint, field) in [
        ("statusoptional", "WidgetStatus.ready"),
        ("statusoptional", "WidgetStatus.conditions"),
        ("conditions", "WidgetStatus.conditions"),
    ] {
        assert!(
            second.iter().any(|w| w.lint == lint && w.item == field),
            "{lint} at {field}:\n{text}"
        );
    }
    assert!(
        !second
            .iter()
            .any(|w| w.item == "WidgetSpec" && w.text.contains(" status.")),
        "{text}"
    );
    set_lib(&ws, &apply(&with_schema, &second));
    let out = run_generator(&ws, &["--deny-warnings"]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("warning"), "{text}");
}
