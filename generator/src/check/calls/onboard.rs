//! Onboarding: the attributes a crate's code needs, placed at the functions that make the
//! calls, for a crate that has none yet (or to compare with those it has).

use super::compare::NeededCall;
use crate::input::scan::calls::Scope;
use std::collections::BTreeMap;

/// The attributes each function needs, as text: per file and function, `file:line: fn name`
/// then one `#[kube_markers::rbac(...)]` per (group, resource, namespace), its verbs merged, in
/// kube-apiserver's verb order; then the calls outside any function.
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
        for v in &n.verbs {
            if !verbs.contains(v) {
                verbs.push(v);
            }
        }
    }
    let mut out = String::new();
    for ((file, line, name), rules) in by_fn {
        out.push_str(&format!("{file}:{line}: fn {name}\n"));
        for ((group, resource, ns), mut verbs) in rules {
            verbs.sort_by_key(|v| VERB_ORDER.iter().position(|o| o == v));
            let mut attr = format!(
                "#[kube_markers::rbac(groups = {group:?}, resources = {resource:?}, verbs = {:?}",
                verbs.join(";")
            );
            if let Some(ns) = ns {
                attr.push_str(&format!(", namespace = {ns:?}"));
            }
            attr.push_str(")]");
            out.push_str(&attr);
            out.push('\n');
        }
    }
    out
}

const VERB_ORDER: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
];
