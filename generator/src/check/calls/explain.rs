//! `explain`'s part of the call check: each permission the code's calls need, the calls that
//! need it beside the attributes that grant it.

use super::compare::NeededCall;
use super::{resource_text, scope_text};
use kube_markers_rbac::authorize::{RequestAttributes, rule_allows};
use kube_markers_rbac::policy_rule;
use kube_markers_registry::RbacEntry;
use std::collections::BTreeMap;

/// The permissions the calls need, each with its calls and its granting attributes (or
/// `granted by: no attribute`).
pub fn render(needed: &[NeededCall], entries: &[&RbacEntry]) -> String {
    let mut by_permission: BTreeMap<(String, String, &str), Vec<&NeededCall>> = BTreeMap::new();
    for n in needed {
        for verb in &n.verbs {
            by_permission
                .entry((n.group.clone(), n.resource.clone(), verb))
                .or_default()
                .push(n);
        }
    }
    if by_permission.is_empty() {
        return String::new();
    }
    let rules: Vec<_> = entries.iter().map(|e| policy_rule(&e.marker)).collect();
    let mut out = String::from(
        "The kube calls of the linked crates: each permission they need, the calls that need it \
         and the attributes that grant it\n",
    );
    for ((group, resource, verb), calls) in by_permission {
        out.push_str(&format!(
            "  {verb} on {}\n",
            resource_text(&group, &resource)
        ));
        for c in calls {
            let function = c
                .function
                .as_ref()
                .map_or(String::new(), |(name, _)| format!(" ({name})"));
            out.push_str(&format!(
                "    needed by {}:{}:{}{function}: `{}`, {}\n",
                c.file,
                c.line,
                c.column,
                c.call,
                scope_text(&c.scope)
            ));
        }
        let (base, sub) = resource.split_once('/').unwrap_or((&resource, ""));
        let request = RequestAttributes::resource(verb, &group, base).with_subresource(sub);
        let granting: Vec<String> = entries
            .iter()
            .zip(&rules)
            .filter(|(_, rule)| rule_allows(&request, rule))
            .map(|(e, _)| {
                let s = &e.source;
                let ns = e
                    .marker
                    .namespace
                    .as_deref()
                    .map_or(String::new(), |ns| format!(" in namespace {ns:?}"));
                format!("{}:{}:{} ({}){ns}", s.file, s.line, s.column, s.item)
            })
            .collect();
        if granting.is_empty() {
            out.push_str("    granted by: no attribute\n");
        }
        for g in granting {
            out.push_str(&format!("    granted by {g}\n"));
        }
    }
    out
}
