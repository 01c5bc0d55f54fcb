//! `explain`'s part of the call check: each permission the code's calls need, the calls that
//! need it beside what grants it: the attributes, and the deploy bundle's leader-election Role
//! for the Lease of kube-markers' leader election.

use super::compare::{Analysis, NeededCall};
use super::{resource_text, role_verb_order, scope_text};
use kube_markers_rbac::authorize::{RequestAttributes, rule_allows};
use kube_markers_rbac::policy_rule;
use kube_markers_registry::RbacEntry;
use std::collections::BTreeMap;

/// How the deploy bundle's grant reads beside a call it grants.
const BUNDLE_GRANT: &str = "the deploy bundle's `leader-election = true` (its leader-election \
                                Role, in the operator's namespace)";

/// The permissions the calls need, each with its calls and what grants it: the attributes, the
/// deploy bundle (for [`Analysis::bundle_granted`]'s calls), or `granted by: no attribute`.
pub fn render(analysis: &Analysis, entries: &[&RbacEntry]) -> String {
    // Each resource's calls, each with whether the bundle grants it.
    type Calls<'a> = Vec<(&'a NeededCall, bool)>;
    let mut by_resource: BTreeMap<(&str, &str), Calls> = BTreeMap::new();
    let calls = (analysis.needed.iter().map(|n| (n, false)))
        .chain(analysis.bundle_granted.iter().map(|n| (n, true)));
    for (n, by_bundle) in calls {
        by_resource
            .entry((&n.group, &n.resource))
            .or_default()
            .push((n, by_bundle));
    }
    if by_resource.is_empty() {
        return String::new();
    }
    // Each permission (resource, then verb in the order the attributes print them), its calls.
    let by_permission = by_resource.iter().flat_map(|(&(group, resource), calls)| {
        let verbs = role_verb_order(calls.iter().flat_map(|(n, _)| n.verbs.iter().copied()));
        verbs.into_iter().map(move |verb| {
            let calls: Calls = calls
                .iter()
                .filter(|(n, _)| n.verbs.contains(&verb))
                .copied()
                .collect();
            ((group, resource, verb), calls)
        })
    });
    let rules: Vec<_> = entries.iter().map(|e| policy_rule(&e.marker)).collect();
    let mut out = String::from(
        "The kube calls of the linked crates: each permission they need, the calls that need it \
         and the attributes that grant it\n",
    );
    for ((group, resource, verb), mut calls) in by_permission {
        calls.sort_by(|(a, _), (b, _)| {
            (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column))
        });
        out.push_str(&format!("  {verb} on {}\n", resource_text(group, resource)));
        for (c, _) in &calls {
            let function = c
                .function
                .as_ref()
                .map_or(String::new(), |(name, _)| format!(" ({name})"));
            // As its warning says it: where the bundle's Role would be.
            let scope = if c.call == super::LEADER_ELECTION_CALL {
                "in the operator's namespace".to_string()
            } else {
                scope_text(&c.scope)
            };
            out.push_str(&format!(
                "    needed by {}:{}:{}{function}: `{}`, {scope}\n",
                c.file, c.line, c.column, c.call,
            ));
        }
        let (base, sub) = resource.split_once('/').unwrap_or((resource, ""));
        let request = RequestAttributes::resource(verb, group, base).with_subresource(sub);
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
        let by_bundle = calls.iter().any(|(_, by_bundle)| *by_bundle);
        let others = calls.iter().any(|(_, by_bundle)| !by_bundle);
        if by_bundle {
            // Beside other calls, it says which it grants.
            let only = if others {
                format!(", for `{}`", super::LEADER_ELECTION_CALL)
            } else {
                String::new()
            };
            out.push_str(&format!("    granted by {BUNDLE_GRANT}{only}\n"));
        }
        // The bundle's Role is for the leader election's call alone.
        if granting.is_empty() && others {
            out.push_str(if by_bundle {
                "    granted by: no attribute, for the other calls\n"
            } else {
                "    granted by: no attribute\n"
            });
        }
        for g in granting {
            out.push_str(&format!("    granted by {g}\n"));
        }
    }
    out
}
