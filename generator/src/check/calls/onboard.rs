//! Onboarding: the attributes a crate's code needs, placed at the functions that make the
//! calls, for a crate that has none yet (or to compare with those it has).

use super::compare::NeededCall;
use super::rbac_attribute;
use crate::input::scan::calls::Scope;
use std::collections::BTreeMap;

/// The attributes each function needs, as text: per file and function, `file:line: fn name`
/// then one `#[kube_markers::rbac(...)]` per (group, resource, namespace), its verbs merged, in
/// a role's order (alphabetical); then the calls outside any function.
pub fn render(needed: &[NeededCall]) -> String {
    // (file, line, function) → (group, resource, namespace) → verbs.
    type Function = (String, usize, String);
    type Rule = (String, String, Option<String>);
    let mut by_fn: BTreeMap<Function, BTreeMap<Rule, Vec<&'static str>>> = BTreeMap::new();
    for n in needed {
        let (name, line) = n
            .function
            .clone()
            .unwrap_or_else(|| ("(outside any function)".to_string(), n.line));
        let ns = match &n.scope {
            Scope::Namespace(ns) => Some(ns.clone()),
            _ => None,
        };
        let verbs = by_fn
            .entry((n.file.clone(), line, name))
            .or_default()
            .entry((n.group.clone(), n.resource.clone(), ns))
            .or_default();
        verbs.extend(n.verbs.iter().copied());
    }
    let mut out = String::new();
    for ((file, line, name), rules) in by_fn {
        out.push_str(&format!("{file}:{line}: fn {name}\n"));
        for ((group, resource, ns), verbs) in rules {
            out.push_str(&rbac_attribute(&group, &resource, &verbs, ns.as_deref()));
            out.push('\n');
        }
    }
    out
}
