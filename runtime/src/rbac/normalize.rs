//! controller-gen's `NormalizeRules`, step for step, with one deliberate difference.
//!
//! controller-gen merges in four passes (same key → union verbs; then same everything-but-
//! resources → union resources; likewise groups; likewise URLs), each pass re-keying a Go map
//! by (groups, resources, resourceNames, URLs). A later pass can produce two rules with the
//! same key but different verbs — e.g. `batch` and `cron` merged into `batch;cron` next to a
//! marker that already said `batch;cron` — and controller-gen then keeps whichever the Go map
//! iteration visited last, silently dropping the other's verbs (and doing so at random).
//! We union the verbs instead: the same permissions as both rules together, deterministic, and
//! byte-identical to controller-gen whenever no such collision occurs.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

/// A policy rule being normalized: every list sorted and deduplicated.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Rule {
    /// API groups (`""` is the core group).
    pub groups: Vec<String>,
    /// Resources.
    pub resources: Vec<String>,
    /// Object names.
    pub resource_names: Vec<String>,
    /// Non-resource URLs.
    pub urls: Vec<String>,
    /// Verbs.
    pub verbs: Vec<String>,
}

fn sort_dedup(list: &mut Vec<String>) {
    list.sort_unstable();
    list.dedup();
}

impl Rule {
    fn normalize_lists(&mut self) {
        sort_dedup(&mut self.groups);
        sort_dedup(&mut self.resources);
        sort_dedup(&mut self.resource_names);
        sort_dedup(&mut self.urls);
        sort_dedup(&mut self.verbs);
    }

    /// controller-gen's `ruleKey`: what the rule applies to, without its verbs.
    fn key(&self) -> RuleKey {
        RuleKey::of([
            &self.groups,
            &self.resources,
            &self.resource_names,
            &self.urls,
        ])
    }

    /// controller-gen's `ruleKey.String()`, the sort key of the output:
    /// `groups + resources + resourceNames + urls`, each list joined with `&`.
    pub fn sort_key(&self) -> String {
        [
            &self.groups,
            &self.resources,
            &self.resource_names,
            &self.urls,
        ]
        .map(|l| l.join("&"))
        .join(" + ")
    }

    fn add_verbs(&mut self, verbs: &[String]) {
        self.verbs.extend_from_slice(verbs);
        sort_dedup(&mut self.verbs);
    }
}

/// Four lists encoded into one string (each list and string length-prefixed, so distinct
/// lists never share an encoding): one allocation and a `memcmp` per comparison, where a
/// `[Vec<String>; 4]` key costs five allocations. Only equality matters; the output order
/// comes from [`Rule::sort_key`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct RuleKey(String);

impl RuleKey {
    fn of(lists: [&Vec<String>; 4]) -> RuleKey {
        use std::fmt::Write;
        let mut key = String::new();
        for list in lists {
            let _ = write!(key, "{}:", list.len());
            for item in list {
                let _ = write!(key, "{}:{item}", item.len());
            }
        }
        RuleKey(key)
    }
}

/// Which list a merge pass unions; the other three and the verbs must be equal.
#[derive(Clone, Copy)]
enum Field {
    Resources,
    Groups,
    Urls,
}

impl Field {
    fn list(self, rule: &mut Rule) -> &mut Vec<String> {
        match self {
            Field::Resources => &mut rule.resources,
            Field::Groups => &mut rule.groups,
            Field::Urls => &mut rule.urls,
        }
    }

    /// The rule's key with this field replaced by its verbs.
    fn merge_key(self, rule: &Rule) -> RuleKey {
        let verbs = &rule.verbs;
        RuleKey::of(match self {
            Field::Groups => [verbs, &rule.resources, &rule.resource_names, &rule.urls],
            Field::Resources => [&rule.groups, verbs, &rule.resource_names, &rule.urls],
            Field::Urls => [&rule.groups, &rule.resources, &rule.resource_names, verbs],
        })
    }
}

/// Inserts `rule` under its key; on a collision the verbs are united (see the module docs).
/// Returns whether it collided.
fn insert(map: &mut BTreeMap<RuleKey, Rule>, rule: Rule) -> bool {
    match map.entry(rule.key()) {
        Entry::Vacant(slot) => {
            slot.insert(rule);
            false
        }
        Entry::Occupied(mut slot) => {
            slot.get_mut().add_verbs(&rule.verbs);
            true
        }
    }
}

/// One merge pass; counts the collisions controller-gen would resolve by dropping a rule.
fn merge_pass(
    rules: BTreeMap<RuleKey, Rule>,
    field: Field,
    collisions: &mut usize,
) -> BTreeMap<RuleKey, Rule> {
    let mut groups: BTreeMap<RuleKey, Rule> = BTreeMap::new();
    for (_, mut rule) in rules {
        match groups.entry(field.merge_key(&rule)) {
            Entry::Vacant(slot) => {
                slot.insert(rule);
            }
            Entry::Occupied(mut slot) => {
                let merged = slot.get_mut();
                let extra = std::mem::take(field.list(&mut rule));
                field.list(merged).extend(extra);
            }
        }
    }
    let mut out = BTreeMap::new();
    for (_, mut rule) in groups {
        rule.normalize_lists();
        if insert(&mut out, rule) {
            *collisions += 1;
        }
    }
    out
}

/// Merges and sorts rules as controller-gen's `NormalizeRules` does: `core` → `""`, union of
/// verbs for identical targets, then of resources, groups and URLs for otherwise identical
/// rules; every list sorted and deduplicated; rules sorted by [`Rule::sort_key`]; verbs
/// containing `*` collapsed to `["*"]`.
pub fn normalize(rules: impl IntoIterator<Item = Rule>) -> Vec<Rule> {
    normalize_counting(rules).0
}

/// [`normalize`], plus how many merges collided with an existing rule: where controller-gen
/// keeps one of the two at random (so its output for these rules is not deterministic) and we
/// unite their verbs.
pub fn normalize_counting(rules: impl IntoIterator<Item = Rule>) -> (Vec<Rule>, usize) {
    let mut collisions = 0;
    let mut by_key = BTreeMap::new();
    for mut rule in rules {
        for group in &mut rule.groups {
            if group == "core" {
                group.clear();
            }
        }
        rule.normalize_lists();
        insert(&mut by_key, rule);
    }
    for field in [Field::Resources, Field::Groups, Field::Urls] {
        by_key = merge_pass(by_key, field, &mut collisions);
    }
    let mut rules: Vec<(String, Rule)> = by_key
        .into_values()
        .map(|mut rule| {
            if rule.verbs.iter().any(|v| v == "*") {
                rule.verbs = vec!["*".to_string()];
            }
            (rule.sort_key(), rule)
        })
        .collect();
    rules.sort_by(|a, b| a.0.cmp(&b.0));
    (
        rules.into_iter().map(|(_, rule)| rule).collect(),
        collisions,
    )
}
