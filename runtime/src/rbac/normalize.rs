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

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

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

/// What a rule carries through the merge besides its lists: nothing for `role.yaml` (`()`),
/// the attributes behind each value for `codegen explain` ([`Origins`]). One merge algorithm
/// serves both, so what `explain` reports is what `role.yaml` was made from.
pub trait Provenance: Sized {
    /// What identifies one input rule (its attribute).
    type Tag;
    /// The provenance of one input rule, once its lists are normalized.
    fn of(rule: &Rule, tag: Self::Tag) -> Self;
    /// Takes in the provenance of a rule merged into this one.
    fn absorb(&mut self, other: Self);
}

impl Provenance for () {
    type Tag = ();
    fn of(_: &Rule, _: ()) {}
    fn absorb(&mut self, _: ()) {}
}

/// Which attributes (by index into the aggregation's input) produced each value of a
/// normalized rule, list by list. A verb that `*` made redundant keeps its attributes here,
/// though the rule's verbs are only `["*"]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins {
    /// `apiGroups` value → attributes.
    pub groups: BTreeMap<String, BTreeSet<usize>>,
    /// `resources` value → attributes.
    pub resources: BTreeMap<String, BTreeSet<usize>>,
    /// `resourceNames` value → attributes.
    pub resource_names: BTreeMap<String, BTreeSet<usize>>,
    /// `nonResourceURLs` value → attributes.
    pub urls: BTreeMap<String, BTreeSet<usize>>,
    /// `verbs` value → attributes.
    pub verbs: BTreeMap<String, BTreeSet<usize>>,
}

impl Origins {
    /// Every attribute behind the rule.
    pub fn attributes(&self) -> BTreeSet<usize> {
        [
            &self.groups,
            &self.resources,
            &self.resource_names,
            &self.urls,
            &self.verbs,
        ]
        .into_iter()
        .flat_map(|map| map.values().flatten().copied())
        .collect()
    }
}

impl Provenance for Origins {
    type Tag = usize;

    fn of(rule: &Rule, tag: usize) -> Self {
        let map = |list: &Vec<String>| {
            list.iter()
                .map(|v| (v.clone(), BTreeSet::from([tag])))
                .collect()
        };
        Origins {
            groups: map(&rule.groups),
            resources: map(&rule.resources),
            resource_names: map(&rule.resource_names),
            urls: map(&rule.urls),
            verbs: map(&rule.verbs),
        }
    }

    fn absorb(&mut self, other: Self) {
        for (mine, theirs) in [
            (&mut self.groups, other.groups),
            (&mut self.resources, other.resources),
            (&mut self.resource_names, other.resource_names),
            (&mut self.urls, other.urls),
            (&mut self.verbs, other.verbs),
        ] {
            for (value, tags) in theirs {
                mine.entry(value).or_default().extend(tags);
            }
        }
    }
}

/// Inserts `rule` under its key; on a collision the verbs are united (see the module docs).
/// Returns whether it collided.
fn insert<P: Provenance>(
    map: &mut BTreeMap<RuleKey, (Rule, P)>,
    (rule, origin): (Rule, P),
) -> bool {
    match map.entry(rule.key()) {
        Entry::Vacant(slot) => {
            slot.insert((rule, origin));
            false
        }
        Entry::Occupied(mut slot) => {
            let (kept, kept_origin) = slot.get_mut();
            kept.add_verbs(&rule.verbs);
            kept_origin.absorb(origin);
            true
        }
    }
}

/// One merge pass; counts the collisions controller-gen would resolve by dropping a rule.
fn merge_pass<P: Provenance>(
    rules: BTreeMap<RuleKey, (Rule, P)>,
    field: Field,
    collisions: &mut usize,
) -> BTreeMap<RuleKey, (Rule, P)> {
    let mut groups: BTreeMap<RuleKey, (Rule, P)> = BTreeMap::new();
    for (_, (mut rule, origin)) in rules {
        match groups.entry(field.merge_key(&rule)) {
            Entry::Vacant(slot) => {
                slot.insert((rule, origin));
            }
            Entry::Occupied(mut slot) => {
                let (merged, merged_origin) = slot.get_mut();
                let extra = std::mem::take(field.list(&mut rule));
                field.list(merged).extend(extra);
                merged_origin.absorb(origin);
            }
        }
    }
    let mut out = BTreeMap::new();
    for (_, (mut rule, origin)) in groups {
        rule.normalize_lists();
        if insert(&mut out, (rule, origin)) {
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
    let (rules, collisions) = normalize_with::<()>(rules.into_iter().map(|r| (r, ())));
    (
        rules.into_iter().map(|(rule, ())| rule).collect(),
        collisions,
    )
}

/// [`normalize_counting`], carrying each input rule's [`Provenance`] through every merge.
pub fn normalize_with<P: Provenance>(
    rules: impl IntoIterator<Item = (Rule, P::Tag)>,
) -> (Vec<(Rule, P)>, usize) {
    let mut collisions = 0;
    let mut by_key = BTreeMap::new();
    for (mut rule, tag) in rules {
        for group in &mut rule.groups {
            if group == "core" {
                group.clear();
            }
        }
        rule.normalize_lists();
        let origin = P::of(&rule, tag);
        insert(&mut by_key, (rule, origin));
    }
    for field in [Field::Resources, Field::Groups, Field::Urls] {
        by_key = merge_pass(by_key, field, &mut collisions);
    }
    let mut rules: Vec<(String, (Rule, P))> = by_key
        .into_values()
        .map(|(mut rule, origin)| {
            if rule.verbs.iter().any(|v| v == "*") {
                rule.verbs = vec!["*".to_string()];
            }
            (rule.sort_key(), (rule, origin))
        })
        .collect();
    rules.sort_by(|a, b| a.0.cmp(&b.0));
    (
        rules.into_iter().map(|(_, rule)| rule).collect(),
        collisions,
    )
}
