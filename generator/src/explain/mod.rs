//! `codegen explain`: where every generated permission comes from.
//!
//! The roles are aggregated by [`generate_roles_explained`], the very merge that writes
//! `role.yaml` carrying, for each value of each rule, the attributes that produced it. Without
//! a question, every rule of every role is listed with those attributes; with `VERB TYPE`
//! (`can-i`'s grammar), the rules that allow the request and the attributes that grant it.
//!
//! `--format json` prints [`Explanation`] or [`Answer`]; their field names are stable.

use crate::can_i::Target;
use crate::can_i::suggestions;
use kube_markers_core::model::Text;
/// A rule as `role.yaml` holds it (or an attribute as written): the rbac crate's one rule type.
pub use kube_markers_rbac::Rule;
use kube_markers_rbac::authorize::{RequestAttributes, rule_allows};
use kube_markers_rbac::{ExplainedRole, Origins, generate_roles_explained, policy_rule};
use kube_markers_registry::RbacEntry;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::process::ExitCode;

/// How to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Format {
    /// For people.
    #[default]
    Text,
    /// For tools: [`crate::explain::Explanation`] or [`crate::explain::Answer`] as JSON.
    Json,
}

/// A question: which attributes give this permission?
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Question {
    /// The verb.
    pub verb: String,
    /// The resource or URL.
    pub target: Target,
    /// `-n/--namespace`; `None` asks cluster-wide.
    pub namespace: Option<String>,
    /// `--subresource`.
    pub subresource: Option<String>,
}

/// What `explain` is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExplainOptions {
    /// `None`: every rule of every role.
    pub question: Option<Question>,
    /// `--format`.
    pub format: Format,
    /// `--role-name`: the generator's default role name (default `manager-role`).
    pub role_name: String,
}

impl Default for ExplainOptions {
    /// Every rule, as text, with the generator's default role name: `explain` without
    /// arguments.
    fn default() -> Self {
        ExplainOptions {
            question: None,
            format: Format::Text,
            role_name: kube_markers_rbac::DEFAULT_ROLE_NAME.to_string(),
        }
    }
}

/// One `#[rbac]` attribute, as `explain` shows it. `id` is its index in
/// [`Explanation::attributes`], which rules refer to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Attribute {
    /// Index in the attribute list (attributes sorted by file, line and column).
    pub id: usize,
    /// `file!()` of the attribute.
    pub file: String,
    /// Line (1-based).
    pub line: u32,
    /// Column (1-based).
    pub column: u32,
    /// `module_path!()`.
    pub module: String,
    /// The annotated item.
    pub item: String,
    /// Its rule, as written (`core` stays `core`).
    pub rule: Rule,
    /// `namespace = "..."`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `role_name = "..."`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_name: Option<String>,
    /// The lints it accepts, with its reasons.
    pub allow: Vec<AllowedLint>,
}

/// A lint an attribute accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct AllowedLint {
    /// Kebab-case lint name.
    pub lint: String,
    /// The stated reason.
    pub reason: String,
}

/// For each list of a rule, each value → the ids of the attributes that wrote it. A verb that
/// `*` subsumed is still listed under `verbs`, though the rule's verbs are only `["*"]`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RuleOrigins {
    /// `apiGroups` value → attribute ids.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub api_groups: BTreeMap<String, BTreeSet<usize>>,
    /// `resources` value → attribute ids.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, BTreeSet<usize>>,
    /// `resourceNames` value → attribute ids.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_names: BTreeMap<String, BTreeSet<usize>>,
    /// `nonResourceURLs` value → attribute ids.
    #[serde(rename = "nonResourceURLs", skip_serializing_if = "BTreeMap::is_empty")]
    pub non_resource_urls: BTreeMap<String, BTreeSet<usize>>,
    /// `verbs` value → attribute ids.
    pub verbs: BTreeMap<String, BTreeSet<usize>>,
}

/// One generated rule and where its values come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ExplainedRule {
    /// Its index in the role's `rules` (as in `role.yaml`).
    pub index: usize,
    /// The rule, as in `role.yaml`.
    pub rule: Rule,
    /// Which attributes wrote each value.
    pub origins: RuleOrigins,
    /// Every attribute behind the rule (ids).
    pub attributes: BTreeSet<usize>,
}

/// One generated ClusterRole or Role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RoleExplained {
    /// `ClusterRole` or `Role`.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// Its namespace (Roles only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Its rules, in `role.yaml`'s order.
    pub rules: Vec<ExplainedRule>,
}

/// `explain` without a question: every role, rule and attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Explanation {
    /// The generated roles, in `role.yaml`'s order.
    pub roles: Vec<RoleExplained>,
    /// Every `#[rbac]` attribute, by id.
    pub attributes: Vec<Attribute>,
}

/// A rule that allows the question's request, and the attributes that grant it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Grant {
    /// `ClusterRole` or `Role`.
    pub kind: &'static str,
    /// The role's name.
    pub name: String,
    /// The role's namespace (Roles only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The rule's index in the role.
    pub rule_index: usize,
    /// The rule.
    pub rule: Rule,
    /// The attributes of the rule whose own rule allows the request (ids).
    pub attributes: BTreeSet<usize>,
}

/// `explain VERB TYPE`: which attributes give this permission.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Answer {
    /// The request, in kube-apiserver's words (`"create" resource "deployments.apps" in
    /// namespace "web"`).
    pub request: String,
    /// Whether a generated role allows it.
    pub allowed: bool,
    /// Each rule that allows it.
    pub grants: Vec<Grant>,
    /// Without grants: the attribute that would allow it, ready to paste.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// The attributes the grants refer to, by id.
    pub attributes: Vec<Attribute>,
}

fn attribute(id: usize, entry: &RbacEntry) -> Attribute {
    let s = &entry.source;
    let marker = &entry.marker;
    let strings = |list: &[Text]| list.iter().map(|s| s.to_string()).collect();
    Attribute {
        id,
        file: s.file.to_string(),
        line: s.line,
        column: s.column,
        module: s.module_path.to_string(),
        item: s.item.to_string(),
        rule: Rule {
            groups: strings(&marker.groups),
            resources: strings(&marker.resources),
            resource_names: strings(&marker.resource_names),
            urls: strings(&marker.urls),
            verbs: strings(&marker.verbs),
        },
        namespace: marker.namespace.as_deref().map(str::to_string),
        role_name: marker.role_name.as_deref().map(str::to_string),
        allow: marker
            .allow
            .iter()
            .map(|a| AllowedLint {
                lint: a.lint.to_string(),
                reason: a.reason.to_string(),
            })
            .collect(),
    }
}

fn role_kind(role: &ExplainedRole) -> (&'static str, Option<String>) {
    if role.role.is_cluster_role() {
        ("ClusterRole", None)
    } else {
        ("Role", Some(role.role.key.namespace.clone()))
    }
}

fn origins(o: &Origins) -> RuleOrigins {
    RuleOrigins {
        api_groups: o.groups.clone(),
        resources: o.resources.clone(),
        resource_names: o.resource_names.clone(),
        non_resource_urls: o.urls.clone(),
        verbs: o.verbs.clone(),
    }
}

/// Every generated rule with the attributes behind each of its values.
pub fn explain_all(entries: &[&RbacEntry], default_role_name: &str) -> Explanation {
    let roles = generate_roles_explained(entries.iter().map(|e| &e.marker), default_role_name)
        .iter()
        .map(|role| {
            let (kind, namespace) = role_kind(role);
            RoleExplained {
                kind,
                name: role.role.key.name.clone(),
                namespace,
                rules: role
                    .role
                    .rules
                    .iter()
                    .zip(&role.origins)
                    .enumerate()
                    .map(|(index, (rule, o))| ExplainedRule {
                        index,
                        rule: rule.clone(),
                        origins: origins(o),
                        attributes: o.attributes(),
                    })
                    .collect(),
            }
        })
        .collect();
    Explanation {
        roles,
        attributes: entries
            .iter()
            .enumerate()
            .map(|(id, e)| attribute(id, e))
            .collect(),
    }
}

/// Resolves the question's `TYPE` as `can-i` does (one resolver,
/// `can_i::resolve_type`): a plural, singular, short name or kind, among the built-in
/// resources and the CRDs `crds` gives (the linked ones, `KnownResource::from_registry`).
/// Returns kubectl's kind of warning for a name nothing knows.
pub fn resolve_question(
    question: &mut Question,
    crds: impl FnOnce() -> Vec<crate::can_i::KnownResource>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    question.target = crate::can_i::resolve_type(&question.target, crds, &mut warnings).0;
    warnings
}

/// The request a question asks about.
pub fn request(question: &Question) -> RequestAttributes {
    crate::can_i::attributes_of(
        &question.verb,
        &question.target,
        question.namespace.as_deref(),
        question.subresource.as_deref(),
    )
}

/// Which generated rules allow the question's request, and which of their attributes grant
/// it. A ClusterRole answers everywhere; a Role only in its namespace (the deploy bundle binds
/// each ClusterRole with a ClusterRoleBinding and each Role with a RoleBinding in its
/// namespace).
pub fn explain_question(
    entries: &[&RbacEntry],
    default_role_name: &str,
    question: &Question,
) -> Answer {
    let request = request(question);
    let mut grants = Vec::new();
    for role in generate_roles_explained(entries.iter().map(|e| &e.marker), default_role_name) {
        let (kind, namespace) = role_kind(&role);
        if namespace
            .as_ref()
            .is_some_and(|ns| *ns != request.namespace)
        {
            continue;
        }
        let policy = role.role.policy_rules();
        for (index, (rule, o)) in policy.iter().zip(&role.origins).enumerate() {
            if !rule_allows(&request, rule) {
                continue;
            }
            let attributes = o
                .attributes()
                .into_iter()
                .filter(|&id| rule_allows(&request, &policy_rule(&entries[id].marker)))
                .collect();
            grants.push(Grant {
                kind,
                name: role.role.key.name.clone(),
                namespace: namespace.clone(),
                rule_index: index,
                rule: role.role.rules[index].clone(),
                attributes,
            });
        }
    }
    let used: BTreeSet<usize> = grants
        .iter()
        .flat_map(|g| g.attributes.iter().copied())
        .collect();
    Answer {
        request: request.to_string(),
        allowed: !grants.is_empty(),
        suggestion: grants.is_empty().then(|| suggestions(&request).0),
        grants,
        attributes: used
            .into_iter()
            .map(|id| attribute(id, entries[id]))
            .collect(),
    }
}

fn role_title(kind: &str, name: &str, namespace: &Option<String>) -> String {
    match namespace {
        Some(ns) => format!("{kind} {name:?} in namespace {ns:?}"),
        None => format!("{kind} {name:?}"),
    }
}

/// `file:line:column (item)`, then the attribute's allows.
fn attribute_line(a: &Attribute) -> String {
    let mut line = format!("{}:{}:{} ({})", a.file, a.line, a.column, a.item);
    for allow in &a.allow {
        let _ = write!(line, "; allows {}: {:?}", allow.lint, allow.reason);
    }
    line
}

/// `"apps" [1, 2]`: a value and the rule-local numbers of its attributes.
fn numbered(value: &str, ids: &BTreeSet<usize>, local: &BTreeMap<usize, usize>) -> String {
    let numbers: Vec<String> = ids.iter().map(|id| local[id].to_string()).collect();
    format!("{value:?} [{}]", numbers.join(", "))
}

impl Explanation {
    /// The text `explain` prints: per role, per rule, the rule, its attributes numbered
    /// `[1]`, `[2]`, ..., and each value of each list with the numbers of its attributes.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for role in &self.roles {
            let _ = writeln!(
                out,
                "{}: {} rule(s)",
                role_title(role.kind, &role.name, &role.namespace),
                role.rules.len()
            );
            for rule in &role.rules {
                let _ = writeln!(out, "  rules[{}]: {}", rule.index, rule.rule.describe());
                let local: BTreeMap<usize, usize> = rule
                    .attributes
                    .iter()
                    .enumerate()
                    .map(|(n, id)| (*id, n + 1))
                    .collect();
                for (id, n) in &local {
                    let _ = writeln!(out, "    [{n}] {}", attribute_line(&self.attributes[*id]));
                }
                let o = &rule.origins;
                for (key, map, shown) in [
                    ("apiGroups", &o.api_groups, &rule.rule.groups),
                    ("resources", &o.resources, &rule.rule.resources),
                    (
                        "resourceNames",
                        &o.resource_names,
                        &rule.rule.resource_names,
                    ),
                    ("nonResourceURLs", &o.non_resource_urls, &rule.rule.urls),
                    ("verbs", &o.verbs, &rule.rule.verbs),
                ] {
                    if map.is_empty() {
                        continue;
                    }
                    let (kept, subsumed): (Vec<_>, Vec<_>) =
                        map.iter().partition(|(value, _)| shown.contains(value));
                    let mut text: Vec<String> = kept
                        .iter()
                        .map(|(value, ids)| numbered(value, ids, &local))
                        .collect();
                    if !subsumed.is_empty() {
                        let also: Vec<String> = subsumed
                            .iter()
                            .map(|(value, ids)| numbered(value, ids, &local))
                            .collect();
                        text.push(format!("(covered by \"*\": {})", also.join(", ")));
                    }
                    let _ = writeln!(out, "    {key:<16}{}", text.join(", "));
                }
            }
        }
        out
    }
}

impl Answer {
    /// The text `explain VERB TYPE` prints: `yes` or `no`, then the rules and attributes.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let by_id: BTreeMap<usize, &Attribute> =
            self.attributes.iter().map(|a| (a.id, a)).collect();
        let _ = writeln!(out, "{}", if self.allowed { "yes" } else { "no" });
        let _ = writeln!(out, "request: {}", self.request);
        if self.grants.is_empty() {
            let _ = writeln!(out, "no generated role allows it");
        }
        for g in &self.grants {
            let _ = writeln!(
                out,
                "rules[{}] of {}: {}",
                g.rule_index,
                role_title(g.kind, &g.name, &g.namespace),
                g.rule.describe()
            );
            if g.attributes.is_empty() {
                let _ = writeln!(
                    out,
                    "  no attribute grants it on its own: the merge combined several"
                );
            }
            for id in &g.attributes {
                let _ = writeln!(out, "  {}", attribute_line(by_id[id]));
            }
        }
        if let Some(s) = &self.suggestion {
            let _ = writeln!(out, "to allow it: {s}");
        }
        out
    }
}

fn json<T: Serialize>(value: &T) -> String {
    // Plain data with string keys: serializing cannot fail.
    let mut text = serde_json::to_string_pretty(value).expect("explain output serializes");
    text.push('\n');
    text
}

/// What `explain` prints for these attributes, and its exit code.
pub fn run(
    opts: &ExplainOptions,
    entries: &[&RbacEntry],
    crds: impl FnOnce() -> Vec<crate::can_i::KnownResource>,
) -> (String, Vec<String>, ExitCode) {
    let mut warnings = Vec::new();
    let (text, code) = match &opts.question {
        None => {
            let explanation = explain_all(entries, &opts.role_name);
            let text = match opts.format {
                Format::Text => explanation.to_text(),
                Format::Json => json(&explanation),
            };
            (text, ExitCode::SUCCESS)
        }
        Some(question) => {
            let mut question = question.clone();
            warnings = resolve_question(&mut question, crds);
            let answer = explain_question(entries, &opts.role_name, &question);
            let text = match opts.format {
                Format::Text => answer.to_text(),
                Format::Json => json(&answer),
            };
            let code = if answer.allowed {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
            (text, code)
        }
    };
    (text, warnings, code)
}

#[cfg(test)]
mod tests;
