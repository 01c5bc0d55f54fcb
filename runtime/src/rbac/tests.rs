use super::*;

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
    let url = |u: &str, v: &str| RbacMarker {
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
                m.namespace = Some(format!("ns{}", i % 3));
            }
            if i % 13 == 0 {
                m.resource_names = vec![format!("n{}", i % 2)];
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

/// Pseudo-random markers over small pools, so that every merge pass and collision happens.
fn random_markers(seed: u64, n: usize) -> Vec<RbacMarker> {
    let mut state = seed;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let pick = |next: &mut dyn FnMut(usize) -> usize, pool: &[&str], max: usize| {
        let count = 1 + next(max);
        (0..count)
            .map(|_| pool[next(pool.len())].to_string())
            .collect::<Vec<_>>()
    };
    (0..n)
        .map(|_| {
            if next(8) == 0 {
                RbacMarker {
                    urls: pick(&mut next, &["/metrics", "/healthz", "/readyz*"], 2),
                    verbs: pick(&mut next, &["get", "post"], 2),
                    ..RbacMarker::default()
                }
            } else {
                RbacMarker {
                    groups: pick(&mut next, &["", "core", "apps", "batch", "*"], 2),
                    resources: pick(&mut next, &["pods", "jobs", "jobs/status", "*"], 2),
                    resource_names: if next(6) == 0 {
                        pick(&mut next, &["a", "b"], 2)
                    } else {
                        Vec::new()
                    },
                    verbs: pick(&mut next, &["get", "list", "create", "*"], 3),
                    namespace: (next(5) == 0).then(|| "ns".to_string()),
                    ..RbacMarker::default()
                }
            }
        })
        .collect()
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
        fn core(g: &String) -> String {
            if g == "core" {
                String::new()
            } else {
                g.clone()
            }
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
                    (&rule.resources, &origins.resources, |m| m.resources.clone()),
                    (&rule.resource_names, &origins.resource_names, |m| {
                        m.resource_names.clone()
                    }),
                    (&rule.urls, &origins.urls, |m| m.urls.clone()),
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
                        assert!(markers[*id].verbs.contains(verb), "seed {seed}");
                    }
                }
            }
        }
        // Complete: each marker's each verb shows up in some rule of its role.
        for (id, m) in markers.iter().enumerate() {
            let role = explained
                .iter()
                .find(|e| e.role.key.namespace == m.namespace.clone().unwrap_or_default())
                .unwrap();
            for verb in &m.verbs {
                assert!(
                    role.origins
                        .iter()
                        .any(|o| o.verbs.get(verb).is_some_and(|ids| ids.contains(&id))),
                    "seed {seed}: marker {id} verb {verb}"
                );
            }
        }
    }
}
