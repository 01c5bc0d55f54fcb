use super::*;
use crate::sample::{random_markers, tricky_markers};
use std::collections::BTreeMap;

fn owned<T: From<String>>(list: &[&str]) -> Vec<T> {
    list.iter().map(|s| T::from(s.to_string())).collect()
}

fn strings(list: &[Text]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn marker(groups: &[&str], resources: &[&str], verbs: &[&str]) -> RbacMarker {
    RbacMarker {
        groups: owned(groups),
        resources: owned(resources),
        verbs: owned(verbs),
        ..RbacMarker::default()
    }
}

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Rule {
    Rule {
        groups: owned(groups),
        resources: owned(resources),
        verbs: owned(verbs),
        ..Rule::default()
    }
}

#[test]
fn merges_verbs_then_resources_then_groups() {
    let markers = [
        marker(&["apps"], &["deployments"], &["get"]),
        marker(&["apps"], &["deployments"], &["list", "get"]),
        marker(&["apps"], &["statefulsets"], &["get", "list"]),
        marker(
            &["batch"],
            &["deployments", "statefulsets"],
            &["list", "get"],
        ),
    ];
    let roles = generate_roles(&markers, DEFAULT_ROLE_NAME);
    assert_eq!(roles.len(), 1);
    assert_eq!(
        roles[0].rules,
        [rule(
            &["apps", "batch"],
            &["deployments", "statefulsets"],
            &["get", "list"]
        )]
    );
}

#[test]
fn core_is_the_empty_group_and_wildcard_verbs_collapse() {
    let markers = [
        marker(&["core"], &["pods"], &["get"]),
        marker(&[""], &["pods"], &["*", "list"]),
    ];
    let roles = generate_roles(&markers, DEFAULT_ROLE_NAME);
    assert_eq!(roles[0].rules, [rule(&[""], &["pods"], &["*"])]);
}

#[test]
fn roles_are_keyed_by_namespace_and_name() {
    let mut a = marker(&[""], &["secrets"], &["get"]);
    a.namespace = Some("zoo".into());
    let mut b = a.clone();
    b.role_name = Some("reader".into());
    let c = marker(&[""], &["pods"], &["get"]);
    let mut d = a.clone();
    d.namespace = Some("alpha".into());
    let roles = generate_roles(&[a, b, c, d], "manager");
    let keys: Vec<(&str, &str)> = roles
        .iter()
        .map(|r| (r.key.namespace.as_str(), r.key.name.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("", "manager"),
            ("alpha", "manager"),
            ("zoo", "manager"),
            ("zoo", "reader")
        ]
    );
    assert!(matches!(roles[0].to_object(), RoleObject::ClusterRole(_)));
    let RoleObject::Role(role) = roles[1].to_object() else {
        panic!("expected a Role")
    };
    assert_eq!(role.metadata.namespace.as_deref(), Some("alpha"));
}

/// controller-gen keeps one of two colliding rules at random (Go map order) and loses the
/// other's verbs; we unite them. Here `batch` and `cron` (both `create`) merge into
/// `batch;cron`, which collides with the marker that already said `batch;cron` with `get`.
#[test]
fn colliding_merges_unite_verbs_instead_of_dropping_a_rule() {
    let markers = [
        marker(&["batch"], &["jobs"], &["create"]),
        marker(&["cron"], &["jobs"], &["create"]),
        marker(&["batch", "cron"], &["jobs"], &["get"]),
    ];
    let roles = generate_roles(&markers, DEFAULT_ROLE_NAME);
    assert_eq!(
        roles[0].rules,
        [rule(&["batch", "cron"], &["jobs"], &["create", "get"])]
    );
    assert_eq!(merge_collisions(&markers, DEFAULT_ROLE_NAME), 1);
    assert_eq!(merge_collisions(&markers[..2], DEFAULT_ROLE_NAME), 0);
    // One aggregation gives both.
    assert_eq!(
        generate_roles_counting(&markers, DEFAULT_ROLE_NAME),
        (roles, 1)
    );
}

#[test]
fn url_rules_merge_urls() {
    let url = |u: &'static str, v: &'static str| RbacMarker {
        urls: vec![u.into()],
        verbs: vec![v.into()],
        ..RbacMarker::default()
    };
    let roles = generate_roles(
        &[url("/b", "get"), url("/a", "get"), url("/c", "post")],
        "r",
    );
    let rules = roles[0].policy_rules();
    assert_eq!(rules.len(), 2);
    assert_eq!(
        rules[0].non_resource_urls.as_deref(),
        Some(&["/a".to_string(), "/b".to_string()][..])
    );
    assert_eq!(rules[0].api_groups, None);
    assert_eq!(rules[1].verbs, ["post"]);
}

#[test]
fn output_is_independent_of_input_order() {
    let mut markers: Vec<RbacMarker> = (0..200)
        .map(|i| {
            let mut m = marker(
                &[["", "apps", "batch", "x.io"][i % 4]],
                &[["pods", "jobs", "deployments/status", "a", "b"][i % 5]],
                &[["get", "list", "watch", "*"][i % 7 % 4]],
            );
            if i % 11 == 0 {
                m.namespace = Some(format!("ns{}", i % 3).into());
            }
            if i % 13 == 0 {
                m.resource_names = vec![format!("n{}", i % 2).into()];
            }
            m
        })
        .collect();
    let expected = generate_roles(&markers, "r");
    // A fixed-seed shuffle (xorshift), many times over.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..50 {
        for i in (1..markers.len()).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            markers.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        assert_eq!(generate_roles(&markers, "r"), expected);
    }
}

/// `explain`'s aggregation is `role.yaml`'s: the same rules, and every value of every rule is
/// traced to markers that wrote it (sound), every value of every marker to its rule (complete).
#[test]
fn explained_roles_are_the_generated_roles_with_their_sources() {
    for seed in 1..40u64 {
        let markers = random_markers(seed * 0x9E37_79B9, 30);
        let plain = generate_roles(&markers, "r");
        let explained = generate_roles_explained(&markers, "r");
        let roles: Vec<GeneratedRole> = explained.iter().map(|e| e.role.clone()).collect();
        assert_eq!(roles, plain, "seed {seed}");
        fn core(g: &Text) -> String {
            api_group(g).to_string()
        }
        for e in &explained {
            for (rule, origins) in e.role.rules.iter().zip(&e.origins) {
                for (list, map, of) in [
                    (
                        &rule.groups,
                        &origins.groups,
                        (|m: &RbacMarker| m.groups.iter().map(core).collect())
                            as fn(&RbacMarker) -> Vec<String>,
                    ),
                    (&rule.resources, &origins.resources, |m| {
                        strings(&m.resources)
                    }),
                    (&rule.resource_names, &origins.resource_names, |m| {
                        strings(&m.resource_names)
                    }),
                    (&rule.urls, &origins.urls, |m| strings(&m.urls)),
                ] {
                    let keys: Vec<&String> = map.keys().collect();
                    assert_eq!(keys, list.iter().collect::<Vec<_>>(), "seed {seed}");
                    for (value, ids) in map {
                        assert!(!ids.is_empty());
                        for id in ids {
                            assert!(of(&markers[*id]).contains(value), "seed {seed}: {value}");
                        }
                    }
                }
                for (verb, ids) in &origins.verbs {
                    assert!(
                        rule.verbs.contains(verb) || rule.verbs == ["*"],
                        "seed {seed}"
                    );
                    for id in ids {
                        assert!(markers[*id].verbs.iter().any(|v| v == verb), "seed {seed}");
                    }
                }
            }
        }
        // Complete: each marker's each verb shows up in some rule of its role.
        for (id, m) in markers.iter().enumerate() {
            let role = explained
                .iter()
                .find(|e| e.role.key.namespace == m.namespace.as_deref().unwrap_or_default())
                .unwrap();
            for verb in &m.verbs {
                assert!(
                    role.origins
                        .iter()
                        .any(|o| o.verbs.get(&**verb).is_some_and(|ids| ids.contains(&id))),
                    "seed {seed}: marker {id} verb {verb}"
                );
            }
        }
    }
}

/// The merge as it was before interning, on text, kept as the oracle of the interned one:
/// controller-gen's passes over `BTreeMap`s keyed by the lists themselves, output sorted by
/// [`Rule::sort_key`] and, for equal sort keys, by the target lists length-prefixed.
fn reference_normalize(rules: Vec<Rule>) -> (Vec<Rule>, usize) {
    type Key = [Vec<String>; 4];
    fn set(list: &mut Vec<String>) {
        list.sort();
        list.dedup();
    }
    fn target(r: &Rule) -> Key {
        [
            r.groups.clone(),
            r.resources.clone(),
            r.resource_names.clone(),
            r.urls.clone(),
        ]
    }
    fn insert(map: &mut BTreeMap<Key, Rule>, rule: Rule) -> bool {
        match map.entry(target(&rule)) {
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(rule);
                false
            }
            std::collections::btree_map::Entry::Occupied(mut slot) => {
                let kept = slot.get_mut();
                kept.verbs.extend(rule.verbs);
                set(&mut kept.verbs);
                true
            }
        }
    }
    let mut collisions = 0;
    let mut by_key = BTreeMap::new();
    for mut rule in rules {
        for g in &mut rule.groups {
            if g == "core" {
                g.clear();
            }
        }
        for list in [
            &mut rule.groups,
            &mut rule.resources,
            &mut rule.resource_names,
            &mut rule.urls,
            &mut rule.verbs,
        ] {
            set(list);
        }
        insert(&mut by_key, rule);
    }
    for field in [1, 0, 3] {
        let mut groups: BTreeMap<Key, Rule> = BTreeMap::new();
        for (_, mut rule) in by_key {
            let mut key = target(&rule);
            key[field] = rule.verbs.clone();
            let list = |r: &mut Rule| match field {
                0 => std::mem::take(&mut r.groups),
                1 => std::mem::take(&mut r.resources),
                _ => std::mem::take(&mut r.urls),
            };
            match groups.entry(key) {
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(rule);
                }
                std::collections::btree_map::Entry::Occupied(mut slot) => {
                    let extra = list(&mut rule);
                    let merged = slot.get_mut();
                    let mut all = list(merged);
                    all.extend(extra);
                    set(&mut all);
                    match field {
                        0 => merged.groups = all,
                        1 => merged.resources = all,
                        _ => merged.urls = all,
                    }
                }
            }
        }
        by_key = BTreeMap::new();
        for (_, rule) in groups {
            collisions += usize::from(insert(&mut by_key, rule));
        }
    }
    let tie = |r: &Rule| {
        target(r)
            .iter()
            .map(|list| {
                let items: String = list.iter().map(|i| format!("{}:{i}", i.len())).collect();
                format!("{}:{items}", list.len())
            })
            .collect::<String>()
    };
    let mut out: Vec<Rule> = by_key
        .into_values()
        .map(|mut r| {
            if r.verbs.iter().any(|v| v == "*") {
                r.verbs = vec!["*".into()];
            }
            r
        })
        .collect();
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()).then(tie(a).cmp(&tie(b))));
    (out, collisions)
}

/// The interned merge gives, rule for rule and collision for collision, what the merge on
/// text gave, for `normalize` and per role through `generate_roles_counting`.
#[test]
fn interned_merge_equals_the_merge_on_text() {
    let mut ties = 0;
    for seed in 1..200u64 {
        let markers = tricky_markers(
            seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            5 + seed as usize % 60,
        );
        let (roles, collisions) = generate_roles_counting(&markers, "manager-role");
        let mut expected_collisions = 0;
        let mut keys: Vec<RoleKey> = Vec::new();
        for m in &markers {
            let key = RoleKey {
                namespace: m.namespace.as_deref().unwrap_or_default().to_string(),
                name: m.role_name.as_deref().unwrap_or("manager-role").to_string(),
            };
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys.sort();
        assert_eq!(roles.len(), keys.len(), "seed {seed}");
        for (role, key) in roles.iter().zip(&keys) {
            assert_eq!(&role.key, key, "seed {seed}");
            let rules = markers
                .iter()
                .filter(|m| {
                    m.namespace.clone().unwrap_or_default() == key.namespace
                        && m.role_name.clone().unwrap_or("manager-role".into()) == key.name
                })
                .flat_map(|m| {
                    let resources: Vec<Vec<String>> = if m.resources.is_empty() {
                        vec![Vec::new()]
                    } else {
                        m.resources.iter().map(|r| vec![r.to_string()]).collect()
                    };
                    resources.into_iter().map(|resources| Rule {
                        groups: strings(&m.groups),
                        resources,
                        resource_names: strings(&m.resource_names),
                        urls: strings(&m.urls),
                        verbs: strings(&m.verbs),
                    })
                })
                .collect::<Vec<_>>();
            let (expected, collided) = reference_normalize(rules.clone());
            assert_eq!(role.rules, expected, "seed {seed} role {key:?}");
            assert_eq!(normalize_counting(rules), (expected.clone(), collided));
            expected_collisions += collided;
            ties += expected
                .windows(2)
                .filter(|w| w[0].sort_key() == w[1].sort_key())
                .count();
        }
        assert_eq!(collisions, expected_collisions, "seed {seed}");
    }
    assert!(ties > 0, "no rules with equal sort keys were compared");
}
