//! The roles generator: the merged roles (`kube_markers_rbac::aggregate`) as `role.yaml`'s
//! text, straight to YAML for the strings roles really contain.
//!
//! The general path ([`GeneratedRole::to_object`] → JSON value → [`crate::output::yaml`]) builds a
//! tree, sorts its keys and analyzes every scalar character by character. A role's layout is
//! fixed, and its names, groups, resources, URLs and verbs are nearly always words YAML writes
//! as they are ([`crate::output::yaml::is_plain_word`]), the core group `""` or a wildcard (`*`,
//! `*/scale`), which need fixed quotes. A role whose strings all are one of those is written
//! directly, in the general path's key order, indentation and quoting; any other role takes
//! the general path. Tests compare the two on every role they render.

use crate::generate::{Artifacts, Context, GenerateError, GenerateWarning, Generated};
use crate::output::Output;
use crate::output::yaml::{is_plain_word, is_plain_word_char};
use kube_markers_rbac::{GeneratedRole, generate_roles_counting};

/// The roles of the `#[rbac]` attributes, merged as controller-gen merges them, as `role.yaml`
/// (`--out`, `--file-name`); nothing without attributes.
pub fn generate(ctx: &Context, made: &mut Artifacts) -> Result<Generated, GenerateError> {
    let (inputs, opts) = (ctx.inputs, ctx.opts);
    if inputs.rbac.is_empty() {
        return Ok(Generated::default());
    }
    let (roles, collisions) =
        generate_roles_counting(inputs.rbac.iter().map(|e| &e.marker), &opts.role_name);
    let warnings = if collisions > 0 {
        vec![GenerateWarning::Collisions { count: collisions }]
    } else {
        Vec::new()
    };
    let file = Output {
        path: opts.out_dir.join(&opts.file_name),
        content: render_roles(&roles, ctx.header),
        what: "the RBAC manifest".into(),
        option: "--out",
    };
    let summary = Some(summarize(&roles, inputs.rbac.len()));
    made.roles = roles;
    Ok(Generated {
        summary,
        files: vec![file],
        warnings,
    })
}

/// `1 ClusterRole, 1 Role with 8 rules from 9 #[rbac] attributes`.
fn summarize(roles: &[GeneratedRole], attributes: usize) -> String {
    let cluster = roles.iter().filter(|r| r.is_cluster_role()).count();
    let namespaced = roles.len() - cluster;
    let rules: usize = roles.iter().map(|r| r.rules.len()).sum();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{}, {} with {} from {}",
        plural(cluster, "ClusterRole", "ClusterRoles"),
        plural(namespaced, "Role", "Roles"),
        plural(rules, "rule", "rules"),
        plural(attributes, "#[rbac] attribute", "#[rbac] attributes"),
    )
}

/// Appends the role's YAML document (without `---`) to `out` and returns `true` when every
/// string in it has a direct form; otherwise leaves `out` as it was and returns `false`.
fn write_direct_yaml(role: &GeneratedRole, out: &mut String) -> bool {
    let start = out.len();
    if try_write_direct(role, out).is_none() {
        out.truncate(start);
        return false;
    }
    true
}

fn try_write_direct(role: &GeneratedRole, out: &mut String) -> Option<()> {
    // An object without rules is written `rules: []`, a rule without verbs `verbs: []`:
    // left to the general path.
    if role.rules.is_empty() || role.rules.iter().any(|r| r.verbs.is_empty()) {
        return None;
    }
    out.push_str("apiVersion: rbac.authorization.k8s.io/v1\n");
    out.push_str(if role.is_cluster_role() {
        "kind: ClusterRole\n"
    } else {
        "kind: Role\n"
    });
    out.push_str("metadata:\n  name: ");
    push_scalar(out, &role.key.name)?;
    if !role.is_cluster_role() {
        out.push_str("\n  namespace: ");
        push_scalar(out, &role.key.namespace)?;
    }
    out.push_str("\nrules:\n");
    for rule in &role.rules {
        // Keys in go-yaml's order; empty lists are left out (Go's `omitempty`).
        let mut first = true;
        for (key, list) in [
            ("apiGroups", &rule.groups),
            ("nonResourceURLs", &rule.urls),
            ("resourceNames", &rule.resource_names),
            ("resources", &rule.resources),
            ("verbs", &rule.verbs),
        ] {
            if list.is_empty() {
                continue;
            }
            out.push_str(if first { "- " } else { "  " });
            first = false;
            out.push_str(key);
            out.push_str(":\n");
            for item in list {
                out.push_str("  - ");
                push_scalar(out, item)?;
                out.push('\n');
            }
        }
    }
    Some(())
}

/// Writes `s` as the general writer would, if it is one of the forms written here: a plain
/// word as it is; `""` (YAML would read an empty plain scalar as null) double-quoted; `*`
/// followed by plain-word characters single-quoted (a leading `*` reads as an alias).
fn push_scalar(out: &mut String, s: &str) -> Option<()> {
    if is_plain_word(s) {
        out.push_str(s);
    } else if s.is_empty() {
        out.push_str("\"\"");
    } else if s.starts_with('*') && s.bytes().skip(1).all(is_plain_word_char) {
        out.push('\'');
        out.push_str(s);
        out.push('\'');
    } else {
        return None;
    }
    Some(())
}

/// The text of an RBAC manifest as controller-gen's `WriteYAML` writes it: the header, then
/// each role preceded by `---`, directly where it can be, else by the general writer.
pub fn render_roles(roles: &[GeneratedRole], header: &str) -> String {
    let mut out = String::with_capacity(
        header.len() + roles.iter().map(|r| 64 + 96 * r.rules.len()).sum::<usize>(),
    );
    out.push_str(header);
    for role in roles {
        out.push_str("---\n");
        if !write_direct_yaml(role, &mut out) {
            out.push_str(&crate::output::yaml::render_yaml(
                &role.to_object().to_value(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests;
