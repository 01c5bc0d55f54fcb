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
//!
//! The passes work on interned values: every distinct string gets a number, and every distinct
//! set of strings (a list, sorted and deduplicated) gets a number, so a rule is five numbers,
//! a merge key is four, and comparing or hashing them touches no text and allocates nothing.
//! Only the output is text again, sorted by [`Rule::sort_key`]. Nothing of the output depends
//! on the order a map is visited in (merges are unions; the maps are only looked up, and the
//! rules kept in vectors in input order), so the maps are hash maps.
//!
//! One merge serves `role.yaml` and `codegen explain`: it is generic over what a rule carries
//! besides its lists ([`Provenance`]: nothing, or the attributes behind each value), so what
//! `explain` reports is what `role.yaml` was made from.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use kube_markers_core::model::{Text, api_group};

/// A policy rule of the output: a Kubernetes `PolicyRule`'s lists, each sorted and
/// deduplicated, `core` spelled `""`. The one rule type from the registry to the YAML:
/// `explain` and `can-i` describe it ([`Rule::describe`]) and serialize it (with
/// `PolicyRule`'s field names, empty lists left out); k8s-openapi's `PolicyRule` is only the
/// edge (`From` both ways), the manifests read and written.
///
/// Not a mirror of [`RbacMarker`](super::RbacMarker), the input: an attribute also says which
/// Role it goes to and which lints it accepts, keeps the spelling written (for provenance), and
/// becomes one rule per resource before the merge (controller-gen's split), so a `Rule` is a
/// later stage of the data, with no way back.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// API groups (`""` is the core group).
    #[serde(rename = "apiGroups", skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// Resources.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Object names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resource_names: Vec<String>,
    /// Non-resource URLs.
    #[serde(rename = "nonResourceURLs", skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<String>,
    /// Verbs.
    pub verbs: Vec<String>,
}

impl From<&k8s_openapi::api::rbac::v1::PolicyRule> for Rule {
    /// A rule of a manifest, its lists as they are (a missing list is empty).
    fn from(rule: &k8s_openapi::api::rbac::v1::PolicyRule) -> Self {
        let list = |l: &Option<Vec<String>>| l.clone().unwrap_or_default();
        Rule {
            groups: list(&rule.api_groups),
            resources: list(&rule.resources),
            resource_names: list(&rule.resource_names),
            urls: list(&rule.non_resource_urls),
            verbs: rule.verbs.clone(),
        }
    }
}

impl From<&Rule> for k8s_openapi::api::rbac::v1::PolicyRule {
    /// The manifest's rule: empty lists are left out, as Go's `omitempty`.
    fn from(rule: &Rule) -> Self {
        let opt = |v: &Vec<String>| (!v.is_empty()).then(|| v.clone());
        k8s_openapi::api::rbac::v1::PolicyRule {
            api_groups: opt(&rule.groups),
            non_resource_urls: opt(&rule.urls),
            resource_names: opt(&rule.resource_names),
            resources: opt(&rule.resources),
            verbs: rule.verbs.clone(),
        }
    }
}

impl Rule {
    /// The rule on one line, as `explain` and `can-i` print it: `apiGroups: [""], resources:
    /// ["pods"], verbs: ["get"]` (empty lists left out, the verbs always there).
    pub fn describe(&self) -> String {
        let quoted = |list: &[String]| {
            let items: Vec<String> = list.iter().map(|s| format!("{s:?}")).collect();
            format!("[{}]", items.join(", "))
        };
        let mut parts = Vec::new();
        for (key, list) in [
            ("apiGroups", &self.groups),
            ("resources", &self.resources),
            ("resourceNames", &self.resource_names),
            ("nonResourceURLs", &self.urls),
        ] {
            if !list.is_empty() {
                parts.push(format!("{key}: {}", quoted(list)));
            }
        }
        parts.push(format!("verbs: {}", quoted(&self.verbs)));
        parts.join(", ")
    }

    /// controller-gen's `ruleKey.String()`, the sort key of the output:
    /// `groups + resources + resourceNames + urls`, each list joined with `&`.
    pub fn sort_key(&self) -> String {
        let mut key = String::new();
        write_sort_key(
            &mut key,
            [
                &self.groups,
                &self.resources,
                &self.resource_names,
                &self.urls,
            ]
            .map(|list| list.iter().map(String::as_str)),
        );
        key
    }
}

fn write_sort_key<'a>(out: &mut String, lists: [impl Iterator<Item = &'a str>; 4]) {
    for (i, list) in lists.into_iter().enumerate() {
        if i > 0 {
            out.push_str(" + ");
        }
        for (j, item) in list.enumerate() {
            if j > 0 {
                out.push('&');
            }
            out.push_str(item);
        }
    }
}

/// Which rules of equal [`Rule::sort_key`] come first (possible when a value holds `&` or
/// ` + `, or one rule has no groups where the other has the core group `""`): the order of the target lists encoded length-prefixed, as the merge's map keys were
/// ordered before they were interned, so that such output did not change.
fn tie_key(lists: [&[&str]; 4]) -> String {
    use std::fmt::Write;
    let mut key = String::new();
    for list in lists {
        let _ = write!(key, "{}:", list.len());
        for item in list {
            let _ = write!(key, "{}:{item}", item.len());
        }
    }
    key
}

/// A multiply-rotate hasher (as rustc's): the keys are numbers this module assigns and the
/// strings of the user's own attributes, nothing an adversary chooses, so the standard
/// hasher's resistance to chosen keys buys nothing here and costs most of a lookup.
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for WordHasher {
    /// Eight bytes a word, little-endian, the last word padded with zeros. Written with plain
    /// indexing rather than `chunks_exact` and `try_into`: the generator runs unoptimized
    /// (`cargo run`), where each of those is a function call per word, and hashing the
    /// attributes' strings was most of the aggregation's and the lints' time.
    fn write(&mut self, b: &[u8]) {
        let mut i = 0;
        while i + 8 <= b.len() {
            let word = [
                b[i],
                b[i + 1],
                b[i + 2],
                b[i + 3],
                b[i + 4],
                b[i + 5],
                b[i + 6],
                b[i + 7],
            ];
            self.add(u64::from_le_bytes(word));
            i += 8;
        }
        if i < b.len() {
            let mut word = 0u64;
            let mut shift = 0;
            while i < b.len() {
                word |= (b[i] as u64) << shift;
                shift += 8;
                i += 1;
            }
            self.add(word);
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(n.into());
    }

    fn write_u32(&mut self, n: u32) {
        self.add(n.into());
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    /// The state mixed (murmur3's finalizer): a word's high bits reach only the state's high
    /// bits, and the hash map picks buckets by the low ones (a list id in the high half of a
    /// word would otherwise barely change the bucket: long probe chains).
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// A hash map with [`WordHasher`]: fixed, so runs are reproducible; never iterated.
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// An interned string.
pub(super) type StrId = u32;
/// An interned list: a set of strings.
pub(super) type ListId = u32;

/// The distinct strings and lists of one aggregation. A list is stored sorted by string id
/// (any fixed order makes equal sets equal lists); the output sorts by text.
#[derive(Default)]
pub(super) struct Interner<'s> {
    string_ids: IdMap<&'s str, StrId>,
    strings: Vec<&'s str>,
    list_ids: IdMap<Box<[StrId]>, ListId>,
    lists: Vec<Box<[StrId]>>,
    scratch: Vec<StrId>,
    /// Lists as an attribute spells them (unsorted, maybe repeated) and single strings, so
    /// that a spelling seen before costs one lookup: attributes repeat their verbs and groups.
    spelled: IdMap<Spelled<'s>, ListId>,
    spelled_groups: IdMap<Spelled<'s>, ListId>,
    singles: IdMap<&'s str, ListId>,
}

/// A list as an attribute spells it (unsorted, maybe repeated): its strings are the
/// registry's own in a generator run, read in place (no attribute's text is copied to
/// aggregate).
pub(crate) type Spelled<'s> = &'s [Text];

impl<'s> Interner<'s> {
    fn string(&mut self, s: &'s str) -> StrId {
        match self.string_ids.get(s) {
            Some(&id) => id,
            None => {
                let id = self.strings.len() as StrId;
                self.strings.push(s);
                self.string_ids.insert(s, id);
                id
            }
        }
    }

    /// The list of these strings, as a set.
    pub(super) fn list(&mut self, items: impl IntoIterator<Item = &'s str>) -> ListId {
        let mut ids = std::mem::take(&mut self.scratch);
        ids.clear();
        for s in items {
            let id = self.string(s);
            ids.push(id);
        }
        let list = self.list_of_ids(&mut ids);
        self.scratch = ids;
        list
    }

    /// The list an attribute spells so.
    pub(super) fn spelled(&mut self, list: Spelled<'s>) -> ListId {
        if let Some(&id) = self.spelled.get(&list) {
            return id;
        }
        let id = self.list(list.iter().map(|s| &**s));
        self.spelled.insert(list, id);
        id
    }

    /// The groups an attribute spells so, `core` read as `""`.
    pub(super) fn spelled_groups(&mut self, list: Spelled<'s>) -> ListId {
        if let Some(&id) = self.spelled_groups.get(&list) {
            return id;
        }
        let id = self.list(list.iter().map(|g| api_group(g)));
        self.spelled_groups.insert(list, id);
        id
    }

    /// The list of one string.
    pub(super) fn single(&mut self, s: &'s str) -> ListId {
        if let Some(&id) = self.singles.get(s) {
            return id;
        }
        let id = self.list([s]);
        self.singles.insert(s, id);
        id
    }

    /// The list of these string ids, as a set (`ids` is sorted and deduplicated in place).
    fn list_of_ids(&mut self, ids: &mut Vec<StrId>) -> ListId {
        if ids.len() > 1 {
            ids.sort_unstable();
            ids.dedup();
        }
        if let Some(&id) = self.list_ids.get(&ids[..]) {
            return id;
        }
        let id = self.lists.len() as ListId;
        let items: Box<[StrId]> = ids[..].into();
        self.lists.push(items.clone());
        self.list_ids.insert(items, id);
        id
    }

    /// The union of two lists.
    fn union(&mut self, a: ListId, b: ListId) -> ListId {
        if a == b {
            return a;
        }
        let mut ids = std::mem::take(&mut self.scratch);
        ids.clear();
        ids.extend_from_slice(self.items(a));
        ids.extend_from_slice(self.items(b));
        let list = self.list_of_ids(&mut ids);
        self.scratch = ids;
        list
    }

    fn items(&self, list: ListId) -> &[StrId] {
        &self.lists[list as usize]
    }

    fn text(&self, id: StrId) -> &'s str {
        self.strings[id as usize]
    }

    /// The list's strings, sorted.
    fn sorted_text(&self, list: ListId) -> Vec<&'s str> {
        let mut text: Vec<&'s str> = self.items(list).iter().map(|&id| self.text(id)).collect();
        text.sort_unstable();
        text
    }

    fn contains(&self, list: ListId, s: &str) -> bool {
        self.string_ids
            .get(s)
            .is_some_and(|id| self.items(list).contains(id))
    }
}

/// A rule over interned lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RuleIds {
    /// Groups, resources, resource names, URLs: what the rule applies to, controller-gen's
    /// `ruleKey`.
    pub(super) target: [ListId; 4],
    pub(super) verbs: ListId,
}

const GROUPS: usize = 0;
const RESOURCES: usize = 1;
const URLS: usize = 3;

impl RuleIds {
    /// The key with list `field` replaced by the verbs: rules equal under it merge `field`.
    fn merge_key(&self, field: usize) -> [ListId; 4] {
        let mut key = self.target;
        key[field] = self.verbs;
        key
    }
}

/// What a rule carries through the merge besides its lists: nothing for `role.yaml` (`()`),
/// the attributes behind each value for `codegen explain` ([`Sources`], read out as
/// [`Origins`]).
pub(super) trait Provenance: Sized {
    /// What identifies one input rule (its attribute).
    type Tag: Clone;
    /// What each output rule comes with.
    type Output;
    /// The provenance of one input rule.
    fn of(rule: &RuleIds, strings: &Interner<'_>, tag: Self::Tag) -> Self;
    /// Takes in the provenance of a rule merged into this one.
    fn absorb(&mut self, other: Self);
    /// The provenance in the output's terms.
    fn finish(self, strings: &Interner<'_>) -> Self::Output;
}

impl Provenance for () {
    type Tag = ();
    type Output = ();
    fn of(_: &RuleIds, _: &Interner<'_>, _: ()) {}
    fn absorb(&mut self, _: ()) {}
    fn finish(self, _: &Interner<'_>) {}
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

/// [`Origins`] while merging: (list, value, attribute) triples, appended as rules merge
/// (duplicates and all), grouped once at the end.
#[derive(Debug, Default)]
pub(super) struct Sources(Vec<(u8, StrId, usize)>);

impl Provenance for Sources {
    type Tag = usize;
    type Output = Origins;

    fn of(rule: &RuleIds, strings: &Interner<'_>, tag: usize) -> Self {
        let [g, r, n, u] = rule.target;
        let mut sources = Vec::new();
        for (field, list) in [g, r, n, u, rule.verbs].into_iter().enumerate() {
            sources.extend(strings.items(list).iter().map(|&s| (field as u8, s, tag)));
        }
        Sources(sources)
    }

    fn absorb(&mut self, other: Self) {
        self.0.extend(other.0);
    }

    fn finish(mut self, strings: &Interner<'_>) -> Origins {
        self.0.sort_unstable();
        self.0.dedup();
        let mut origins = Origins::default();
        for (field, value, tag) in self.0 {
            let map = match field {
                0 => &mut origins.groups,
                1 => &mut origins.resources,
                2 => &mut origins.resource_names,
                3 => &mut origins.urls,
                _ => &mut origins.verbs,
            };
            map.entry(strings.text(value).to_string())
                .or_default()
                .insert(tag);
        }
        origins
    }
}

/// Rules by target, in a vector in insertion order that the map points into.
struct RuleSet<P> {
    rules: Vec<(RuleIds, P)>,
    index: IdMap<[ListId; 4], usize>,
}

impl<P: Provenance> RuleSet<P> {
    fn with_capacity(n: usize) -> Self {
        let mut index = IdMap::default();
        index.reserve(n);
        RuleSet {
            rules: Vec::with_capacity(n),
            index,
        }
    }

    /// Inserts `rule` under its target; on a collision the verbs are united (see the module
    /// docs). Returns whether it collided.
    fn insert(&mut self, (rule, origin): (RuleIds, P), strings: &mut Interner<'_>) -> bool {
        match self.index.entry(rule.target) {
            Entry::Vacant(slot) => {
                slot.insert(self.rules.len());
                self.rules.push((rule, origin));
                false
            }
            Entry::Occupied(slot) => {
                let (kept, kept_origin) = &mut self.rules[*slot.get()];
                kept.verbs = strings.union(kept.verbs, rule.verbs);
                kept_origin.absorb(origin);
                true
            }
        }
    }

    /// One merge pass over list `field`; counts the collisions controller-gen would resolve
    /// by dropping a rule.
    fn merge_pass(
        self,
        field: usize,
        strings: &mut Interner<'_>,
        collisions: &mut usize,
    ) -> RuleSet<P> {
        // Rules equal but for `field`, and the union of their `field`s once a second one
        // joins (most groups have one rule: no union, no allocation).
        let mut groups: Vec<(RuleIds, P, Option<Vec<StrId>>)> =
            Vec::with_capacity(self.rules.len());
        let mut group_of: IdMap<[ListId; 4], usize> = IdMap::default();
        group_of.reserve(self.rules.len());
        for (rule, origin) in self.rules {
            match group_of.entry(rule.merge_key(field)) {
                Entry::Vacant(slot) => {
                    slot.insert(groups.len());
                    groups.push((rule, origin, None));
                }
                Entry::Occupied(slot) => {
                    let (kept, kept_origin, union) = &mut groups[*slot.get()];
                    let union =
                        union.get_or_insert_with(|| strings.items(kept.target[field]).to_vec());
                    union.extend_from_slice(strings.items(rule.target[field]));
                    kept_origin.absorb(origin);
                }
            }
        }
        let mut out = RuleSet::with_capacity(groups.len());
        for (mut rule, origin, union) in groups {
            if let Some(mut ids) = union {
                rule.target[field] = strings.list_of_ids(&mut ids);
            }
            if out.insert((rule, origin), strings) {
                *collisions += 1;
            }
        }
        out
    }
}

/// The merge: controller-gen's four passes over interned rules (`core` already read as `""`),
/// then the rules as text, sorted by [`Rule::sort_key`], verbs containing `*` collapsed to
/// `["*"]`. Returns them and the number of collisions (see [`normalize_counting`]).
pub(super) fn normalize_ids<P: Provenance>(
    rules: Vec<(RuleIds, P)>,
    strings: &mut Interner<'_>,
) -> (Vec<(Rule, P::Output)>, usize) {
    let mut collisions = 0;
    let mut set = RuleSet::with_capacity(rules.len());
    for rule in rules {
        set.insert(rule, strings);
    }
    for field in [RESOURCES, GROUPS, URLS] {
        set = set.merge_pass(field, strings, &mut collisions);
    }
    (sorted_text(set.rules, strings), collisions)
}

/// The merged rules as text, in controller-gen's order.
fn sorted_text<P: Provenance>(
    rules: Vec<(RuleIds, P)>,
    strings: &Interner<'_>,
) -> Vec<(Rule, P::Output)> {
    // Every rule's lists sorted, and its sort key, all keys in one buffer.
    let mut keys = String::new();
    let mut texts = Vec::with_capacity(rules.len());
    for (rule, origin) in rules {
        let [g, r, n, u] = rule.target.map(|list| strings.sorted_text(list));
        let start = keys.len();
        write_sort_key(&mut keys, [&g, &r, &n, &u].map(|l| l.iter().copied()));
        texts.push(([g, r, n, u], rule.verbs, start..keys.len(), origin));
    }
    texts.sort_unstable_by(|a, b| {
        keys[a.2.clone()].cmp(&keys[b.2.clone()]).then_with(|| {
            let lists = |t: &[Vec<&str>; 4]| tie_key([&t[0], &t[1], &t[2], &t[3]]);
            lists(&a.0).cmp(&lists(&b.0))
        })
    });
    let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
    texts
        .into_iter()
        .map(|([g, r, n, u], verbs, _, origin)| {
            let verbs = if strings.contains(verbs, "*") {
                vec!["*".to_string()]
            } else {
                owned(&strings.sorted_text(verbs))
            };
            let rule = Rule {
                groups: owned(&g),
                resources: owned(&r),
                resource_names: owned(&n),
                urls: owned(&u),
                verbs,
            };
            (rule, origin.finish(strings))
        })
        .collect()
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
    let rules: Vec<Rule> = rules.into_iter().collect();
    let mut strings = Interner::default();
    let ids = rules
        .iter()
        .map(|r| {
            let rule = RuleIds {
                target: [
                    strings.list(r.groups.iter().map(|g| api_group(g))),
                    strings.list(r.resources.iter().map(String::as_str)),
                    strings.list(r.resource_names.iter().map(String::as_str)),
                    strings.list(r.urls.iter().map(String::as_str)),
                ],
                verbs: strings.list(r.verbs.iter().map(String::as_str)),
            };
            (rule, ())
        })
        .collect();
    let (rules, collisions) = normalize_ids(ids, &mut strings);
    (
        rules.into_iter().map(|(rule, ())| rule).collect(),
        collisions,
    )
}
