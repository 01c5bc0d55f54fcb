//! One schema node compared with its previous self: each check takes the keywords it
//! handles off both copies, as crdify's comparators do, and whatever still differs is
//! `unhandled`.

use crate::check::Check;
use crate::ratchet::Ratcheting;
use crate::schema::shown;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// One change a check found on a node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub check: Check,
    pub message: String,
    pub old: Option<String>,
    pub new: Option<String>,
    pub ratcheting: Ratcheting,
}

impl Change {
    fn new(check: Check, message: String, ratcheting: Ratcheting) -> Change {
        Change {
            check,
            message,
            old: None,
            new: None,
            ratcheting,
        }
    }

    fn old_new(mut self, old: Option<&Value>, new: Option<&Value>) -> Change {
        self.old = Some(shown(old));
        self.new = Some(shown(new));
        self
    }
}

/// The changes from `old` to `new`, two nodes at one path. `enum_additions_allowed`: an added
/// enum value is no change.
pub(crate) fn compare(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    enum_additions_allowed: bool,
) -> Vec<Change> {
    let (mut old, mut new) = (old.clone(), new.clone());
    let mut changes = Vec::new();
    let mut take = |key: &str| (old.remove(key), new.remove(key));

    let (a, b) = take("type");
    if a != b {
        changes.push(
            Change::new(
                Check::Type,
                format!(
                    "type changed: {} → {}",
                    shown(a.as_ref()),
                    shown(b.as_ref())
                ),
                Ratcheting::None,
            )
            .old_new(a.as_ref(), b.as_ref()),
        );
    }
    let (a, b) = take("description");
    if a != b {
        changes.push(
            Change::new(
                Check::Description,
                "description changed".into(),
                Ratcheting::NotAValidation,
            )
            .old_new(a.as_ref(), b.as_ref()),
        );
    }
    let (a, b) = take("enum");
    changes.extend(enum_change(a.as_ref(), b.as_ref(), enum_additions_allowed));
    let (a, b) = take("default");
    if a != b {
        let message = match (&a, &b) {
            (None, Some(v)) => format!("default added: {v}"),
            (Some(v), None) => format!("default removed: {v}"),
            _ => format!(
                "default changed: {} → {}",
                shown(a.as_ref()),
                shown(b.as_ref())
            ),
        };
        changes.push(
            Change::new(Check::Default, message, Ratcheting::Defaulting)
                .old_new(a.as_ref(), b.as_ref()),
        );
    }
    for (key, check, tighter) in BOUNDS {
        let (a, b) = take(key);
        let (x, y) = (
            a.as_ref().and_then(Value::as_f64),
            b.as_ref().and_then(Value::as_f64),
        );
        let message = match (x, y) {
            (None, Some(_)) => Some(format!("{key} added: {}", shown(b.as_ref()))),
            (Some(x), Some(y)) if tighter.is_tighter(x, y) => Some(format!(
                "{key} {}: {} → {}",
                tighter.verb(),
                shown(a.as_ref()),
                shown(b.as_ref())
            )),
            _ => None,
        };
        if let Some(message) = message {
            changes.push(
                Change::new(check, message, Ratcheting::Softens).old_new(a.as_ref(), b.as_ref()),
            );
        }
    }
    let (a, b) = take("required");
    let before = strings(a.as_ref());
    let added: Vec<&str> = strings(b.as_ref()).difference(&before).copied().collect();
    if !added.is_empty() {
        changes.push(
            Change::new(
                Check::Required,
                format!("newly required: {}", added.join(", ")),
                Ratcheting::Required,
            )
            .old_new(a.as_ref(), b.as_ref()),
        );
    }
    let (a, b) = take("pattern");
    if a != b {
        let (message, ratcheting) = match (&a, &b) {
            (None, Some(p)) => (format!("pattern added: {p}"), Ratcheting::Softens),
            (Some(p), None) => (
                format!(
                    "pattern removed: {p} (clients of the old schema may now receive values it refused)"
                ),
                Ratcheting::Loosens,
            ),
            _ => (
                format!(
                    "pattern changed: {} → {}",
                    shown(a.as_ref()),
                    shown(b.as_ref())
                ),
                Ratcheting::Softens,
            ),
        };
        changes
            .push(Change::new(Check::Pattern, message, ratcheting).old_new(a.as_ref(), b.as_ref()));
    }
    let (a, b) = take("nullable");
    let (x, y) = (a == Some(Value::Bool(true)), b == Some(Value::Bool(true)));
    if x != y {
        let (message, ratcheting) = if y {
            (
                "nullable added (clients of the old schema may now receive null)".to_string(),
                Ratcheting::Loosens,
            )
        } else {
            (
                "nullable removed: null is refused".to_string(),
                Ratcheting::Softens,
            )
        };
        changes.push(
            Change::new(Check::Nullable, message, ratcheting).old_new(a.as_ref(), b.as_ref()),
        );
    }
    let (a, b) = take("x-kubernetes-validations");
    changes.extend(rule_changes(a.as_ref(), b.as_ref()));
    // What server-side apply assumes when the keyword is absent: a list is atomic, a map
    // (an object) granular, a list has no keys. Spelling out the default changes nothing.
    for (key, check, implied) in [
        (
            "x-kubernetes-list-type",
            Check::ListType,
            Value::from("atomic"),
        ),
        (
            "x-kubernetes-list-map-keys",
            Check::ListMapKeys,
            Value::Array(Vec::new()),
        ),
        (
            "x-kubernetes-map-type",
            Check::MapType,
            Value::from("granular"),
        ),
    ] {
        let (a, b) = take(key);
        let topology = |v: &Option<Value>| v.clone().unwrap_or_else(|| implied.clone());
        if topology(&a) != topology(&b) {
            changes.push(
                Change::new(
                    check,
                    format!(
                        "{key} changed: {} → {} (server-side apply merges it differently: \
                         ownership of its entries changes for every field manager)",
                        shown(a.as_ref()),
                        shown(b.as_ref())
                    ),
                    Ratcheting::Topology,
                )
                .old_new(a.as_ref(), b.as_ref()),
            );
        }
    }
    let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let rest: Vec<String> = keys
        .into_iter()
        .filter(|k| old.get(*k) != new.get(*k))
        .map(|k| format!("{k} {} → {}", shown(old.get(k)), shown(new.get(k))))
        .collect();
    if !rest.is_empty() {
        changes.push(Change::new(
            Check::Unhandled,
            format!(
                "changed, and no check knows whether it is safe: {}",
                rest.join(", ")
            ),
            Ratcheting::Unknown,
        ));
    }
    changes
}

#[derive(Clone, Copy)]
enum Tighter {
    Lower,
    Higher,
}

impl Tighter {
    fn is_tighter(self, old: f64, new: f64) -> bool {
        match self {
            Tighter::Lower => new < old,
            Tighter::Higher => new > old,
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Tighter::Lower => "decreased",
            Tighter::Higher => "increased",
        }
    }
}

const BOUNDS: [(&str, Check, Tighter); 8] = [
    ("maximum", Check::Maximum, Tighter::Lower),
    ("maxLength", Check::MaxLength, Tighter::Lower),
    ("maxItems", Check::MaxItems, Tighter::Lower),
    ("maxProperties", Check::MaxProperties, Tighter::Lower),
    ("minimum", Check::Minimum, Tighter::Higher),
    ("minLength", Check::MinLength, Tighter::Higher),
    ("minItems", Check::MinItems, Tighter::Higher),
    ("minProperties", Check::MinProperties, Tighter::Higher),
];

fn strings(list: Option<&Value>) -> BTreeSet<&str> {
    list.and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn values(list: Option<&Value>) -> BTreeSet<String> {
    list.and_then(Value::as_array)
        .map(|l| l.iter().map(Value::to_string).collect())
        .unwrap_or_default()
}

fn enum_change(
    old: Option<&Value>,
    new: Option<&Value>,
    additions_allowed: bool,
) -> Option<Change> {
    let (before, after) = (values(old), values(new));
    let removed: Vec<&str> = before.difference(&after).map(String::as_str).collect();
    let added: Vec<&str> = after.difference(&before).map(String::as_str).collect();
    let (message, ratcheting) = if before.is_empty() && !after.is_empty() {
        (
            format!("enum added where there was none: {}", added.join(", ")),
            Ratcheting::Softens,
        )
    } else if after.is_empty() && !before.is_empty() {
        // The constraint dropped: any value goes, as with added values (crdify reports the
        // values as removed).
        if additions_allowed {
            return None;
        }
        (
            format!(
                "enum constraint removed: any value is accepted, not only {} (clients of the \
                 old schema may not know them)",
                removed.join(", ")
            ),
            Ratcheting::Loosens,
        )
    } else if !removed.is_empty() {
        (
            format!("enum values removed: {}", removed.join(", ")),
            Ratcheting::Softens,
        )
    } else if !added.is_empty() && !additions_allowed {
        (
            format!(
                "enum values added: {} (clients of the old schema may not know them)",
                added.join(", ")
            ),
            Ratcheting::Loosens,
        )
    } else {
        return None;
    };
    Some(Change::new(Check::Enum, message, ratcheting).old_new(old, new))
}

/// A CEL rule, as compared: its expression, and whether it reads `oldSelf`.
fn rules(list: Option<&Value>) -> Vec<(&str, bool)> {
    list.and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(|r| r["rule"].as_str())
                .map(|rule| (rule, reads_old_self(rule)))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a rule is a transition rule: it names `oldSelf` (an identifier, not part of one).
fn reads_old_self(rule: &str) -> bool {
    rule.match_indices("oldSelf").any(|(at, _)| {
        let before = rule[..at].chars().next_back();
        let after = rule[at + "oldSelf".len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// Rules added (a new constraint) or whose expression changed. A rule removed, or only its
/// message changed, loosens nothing: not a change.
fn rule_changes(old: Option<&Value>, new: Option<&Value>) -> Vec<Change> {
    let before = rules(old);
    let mut changes = Vec::new();
    for (rule, transition) in rules(new) {
        if before.iter().any(|(r, _)| *r == rule) {
            continue;
        }
        let (what, ratcheting) = if transition {
            ("transition rule added", Ratcheting::TransitionRule)
        } else {
            ("rule added", Ratcheting::Softens)
        };
        let mut change = Change::new(
            Check::ValidationRules,
            format!("{what}: {rule}"),
            ratcheting,
        );
        change.new = Some(rule.to_string());
        changes.push(change);
    }
    changes
}

#[cfg(test)]
#[path = "property_tests.rs"]
mod tests;
