use super::*;
use crate::testing::{marker, rbac, texts};
use kube_markers_core::model::Allow;

type List = &'static [&'static str];

fn source(line: u32, item: &'static str) -> Source {
    Source::__new("src/lib.rs", line, 1, "op::controller", item)
}

fn entry(line: u32, groups: List, resources: List, verbs: List) -> RbacEntry {
    rbac(marker(groups, resources, verbs), source(line, "reconcile"))
}

/// The lints that fire on each line, in order.
fn fired(entries: &[RbacEntry]) -> Vec<(u32, &'static str)> {
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    check_entries(&refs, "manager-role")
        .iter()
        .map(|w| (w.source.line, w.lint.name()))
        .collect()
}

/// One attribute per lint, each tripping exactly its own lint (and, for a wildcard, the
/// lints whose requests the wildcard allows).
fn every_lint() -> Vec<RbacEntry> {
    vec![
        entry(1, &["apps"], &["deployments"], &["*"]),
        entry(2, &["example.com"], &["*"], &["get"]),
        entry(3, &["*"], &["widgets"], &["get"]),
        entry(4, &[RBAC], &["clusterroles"], &["escalate"]),
        entry(5, &[RBAC], &["roles"], &["bind"]),
        entry(6, &[""], &["serviceaccounts"], &["impersonate"]),
        entry(7, &[RBAC], &["rolebindings"], &["create"]),
        entry(8, &["core"], &["secrets"], &["list"]),
        entry(9, &[""], &["pods/exec"], &["create"]),
        entry(10, &[""], &["nodes/proxy"], &["get"]),
        entry(11, &[""], &["serviceaccounts/token"], &["create"]),
        entry(12, &["batch"], &["jobs"], &["create"]),
        entry(13, &[""], &["persistentvolumes"], &["create"]),
        entry(14, &["certificates.k8s.io"], &["signers"], &["approve"]),
        entry(
            15,
            &["admissionregistration.k8s.io"],
            &["mutatingwebhookconfigurations"],
            &["patch"],
        ),
        entry(16, &[""], &["namespaces"], &["patch"]),
        entry(17, &["example.com"], &["widgets"], &["get", "list"]),
        entry(18, &["example.com"], &["widgets"], &["list"]),
    ]
}

#[test]
fn each_lint_fires_on_its_attribute() {
    assert_eq!(
        fired(&every_lint()),
        [
            (1, "wildcard-verbs"),
            (1, "workload-write"),
            (2, "wildcard-resources"),
            (3, "wildcard-groups"),
            (4, "escalate"),
            (5, "bind"),
            (6, "impersonate"),
            (7, "rbac-write"),
            (8, "cluster-secrets-read"),
            (9, "pods-exec"),
            (10, "nodes-proxy"),
            (11, "token-request"),
            (12, "workload-write"),
            (13, "persistent-volume-create"),
            (14, "csr-approval"),
            (15, "webhook-config-write"),
            (16, "namespace-modify"),
            (18, "redundant"),
        ]
    );
    // Every lint is exercised.
    let seen: Vec<&str> = fired(&every_lint()).iter().map(|(_, l)| *l).collect();
    // `unused` is the call check's (`check::calls`): the code decides it, not the rule.
    for lint in Lint::ALL.into_iter().filter(|&l| l != Lint::Unused) {
        assert!(seen.contains(&lint.name()), "{lint} never fired");
    }
}

#[test]
fn the_warnings_as_printed() {
    let entries = every_lint();
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let text: Vec<String> = check_entries(&refs, "manager-role")
        .iter()
        .map(ToString::to_string)
        .collect();
    insta::assert_snapshot!(text.join("\n"));
}

#[test]
fn wildcards_trip_every_lint_they_allow() {
    let all = [entry(1, &["*"], &["*"], &["*"])];
    let lints: Vec<&str> = fired(&all).iter().map(|(_, l)| *l).collect();
    let mut expected: Vec<&str> = Lint::names().to_vec();
    expected.retain(|l| *l != "redundant" && *l != "unused");
    assert_eq!(lints, expected);
}

#[test]
fn scope_and_names_decide() {
    // Secrets read in a namespace's Role is not cluster-wide.
    let mut namespaced = entry(1, &[""], &["secrets"], &["get"]);
    namespaced.marker.namespace = Some("tenants".into());
    assert_eq!(fired(&[namespaced]), []);
    // A rule restricted to names still grants on those objects.
    let mut named = entry(1, &[""], &["secrets"], &["get"]);
    named.marker.resource_names = texts(&["tls"]);
    assert_eq!(fired(&[named]), [(1, "cluster-secrets-read")]);
    // Status subresources of workloads are not the workloads; `pods/log` is not exec.
    let fine = [
        entry(1, &["apps"], &["deployments/status"], &["patch"]),
        entry(2, &[""], &["pods/log"], &["get"]),
        entry(
            3,
            &["apps"],
            &["deployments"],
            &["get", "list", "watch", "delete"],
        ),
    ];
    assert_eq!(fired(&fine), []);
    // Constrained impersonation verbs are impersonation too.
    let constrained = entry(
        1,
        &["authentication.k8s.io"],
        &["nodes"],
        &["impersonate:arbitrary-node"],
    );
    assert_eq!(fired(&[constrained]), [(1, "impersonate")]);
}

#[test]
fn allow_silences_only_its_lint_on_its_attribute() {
    let mut job = entry(1, &["batch"], &["jobs"], &["*"]);
    job.marker.allow = vec![Allow {
        lint: "workload-write".into(),
        reason: "runs the backup Job".into(),
    }];
    let other = entry(2, &["batch"], &["cronjobs"], &["create"]);
    assert_eq!(
        fired(&[job, other]),
        [(1, "wildcard-verbs"), (2, "workload-write")]
    );
}

#[test]
fn redundant_names_both_attributes_on_one_item_and_role() {
    let broad = entry(1, &["apps"], &["deployments"], &["get", "list", "watch"]);
    let narrow = entry(2, &["apps"], &["deployments"], &["get"]);
    let refs = [&narrow, &broad];
    let warnings = check_entries(&refs, "manager-role");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].source.line, 2);
    assert_eq!(warnings[0].covered_by.as_ref().map(|s| s.line), Some(1));
    assert!(
        warnings[0].to_string().contains(
            "already granted by the attribute at src/lib.rs:1:1 on the same item (reconcile)"
        ),
        "{}",
        warnings[0]
    );
    // Two equal attributes: the later one is redundant, not both.
    let twin = entry(3, &["apps"], &["deployments"], &["get", "list", "watch"]);
    assert_eq!(fired(&[broad.clone(), twin]), [(3, "redundant")]);
    // Another role, or another crate, is not redundant: each declares its own needs.
    let mut elsewhere = entry(3, &["apps"], &["deployments"], &["get"]);
    elsewhere.marker.role_name = Some("reader".into());
    let mut other_crate = entry(4, &["apps"], &["deployments"], &["get"]);
    other_crate.source.module_path = "other_op".into();
    assert_eq!(fired(&[broad.clone(), elsewhere, other_crate]), []);
    // resourceNames: the named rule is covered by the unnamed one, not the reverse.
    let mut named = entry(5, &["apps"], &["deployments"], &["get"]);
    named.marker.resource_names = texts(&["web"]);
    assert_eq!(fired(&[named, broad.clone()]), [(5, "redundant")]);
    // `*/status` covers `deployments/status`.
    let all_status = entry(6, &["apps"], &["*/status"], &["get"]);
    let one_status = entry(7, &["apps"], &["deployments/status"], &["get"]);
    assert_eq!(
        fired(&[all_status, one_status]),
        [(6, "wildcard-resources"), (7, "redundant")]
    );
}

/// The docs' advice: `#[rbac]` beside each function that needs it. Two functions that both
/// publish events each declare it; that is documentation, not redundancy. Only the same
/// grant twice on one item, or a grant inside a broader one there, is.
#[test]
fn the_same_grant_on_two_items_is_not_redundant() {
    let on = |line: u32, item: &'static str, verbs: List| {
        rbac(
            marker(&["events.k8s.io"], &["events"], verbs),
            source(line, item),
        )
    };
    let reconcile = on(1, "reconcile", &["create", "patch"]);
    let cleanup = on(5, "cleanup", &["create", "patch"]);
    let narrower = on(9, "error_policy", &["create"]);
    assert_eq!(fired(&[reconcile.clone(), cleanup, narrower]), []);
    // A method of the same name in another module, or another file, is another item.
    let mut other_module = on(2, "reconcile", &["create"]);
    other_module.source.module_path = "op::other".into();
    let mut other_file = on(3, "reconcile", &["create"]);
    other_file.source.file = "src/other.rs".into();
    assert_eq!(fired(&[reconcile.clone(), other_module, other_file]), []);
    // Stacked on one item: the same grant twice, and one inside a broader one, are.
    let twice = on(2, "reconcile", &["create", "patch"]);
    let inside = on(3, "reconcile", &["patch"]);
    assert_eq!(
        fired(&[reconcile, twice, inside]),
        [(2, "redundant"), (3, "redundant")]
    );
}

/// A small xorshift: the same random attributes on every run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// One to `most` values of the pool, maybe repeated.
    fn some(&mut self, pool: List, most: usize) -> List {
        let n = 1 + self.below(most);
        let picked: Vec<&'static str> = (0..n).map(|_| pool[self.below(pool.len())]).collect();
        Box::leak(picked.into_boxed_slice())
    }
}

/// Random attributes over the probes' own groups, resources and verbs, wildcards, names and
/// scopes: every lint gets cases where it fires and cases where it barely does not. Each is
/// one the attribute's validation accepts: verbs, and groups with resources or URLs alone.
fn random_entries(n: usize, seed: u64) -> Vec<RbacEntry> {
    const GROUPS: List = &[
        "",
        "core",
        "*",
        "apps",
        "batch",
        RBAC,
        "authentication.k8s.io",
        "certificates.k8s.io",
        "admissionregistration.k8s.io",
        "example.com",
    ];
    const RESOURCES: List = &[
        "*",
        "*/status",
        "*/exec",
        "pods",
        "pods/exec",
        "pods/log",
        "secrets",
        "roles",
        "clusterroles",
        "rolebindings",
        "deployments",
        "deployments/status",
        "nodes/proxy",
        "serviceaccounts/token",
        "users",
        "signers",
        "namespaces",
        "widgets",
        "certificatesigningrequests/approval",
        "pods/ephemeralcontainers",
    ];
    const VERBS: List = &[
        "*",
        "get",
        "list",
        "watch",
        "create",
        "update",
        "patch",
        "delete",
        "escalate",
        "bind",
        "impersonate",
        "approve",
        "impersonate:user-info",
    ];
    let mut draw = Draw(seed);
    (0..n)
        .map(|i| {
            let mut e = entry(
                i as u32 + 1,
                draw.some(GROUPS, 2),
                draw.some(RESOURCES, 2),
                draw.some(VERBS, 3),
            );
            if draw.below(4) == 0 {
                e.marker.resource_names = texts(draw.some(&["a", "b"], 2));
            }
            if draw.below(8) == 0 {
                e.marker.resources = texts(&[]);
                e.marker.groups = texts(&[]);
                e.marker.resource_names = texts(&[]);
                e.marker.urls = texts(draw.some(&["/metrics", "/healthz", "/*"], 2));
            } else if draw.below(3) == 0 {
                e.marker.namespace = Some(["ns1", "ns2"][draw.below(2)].into());
            }
            if draw.below(5) == 0 {
                e.marker.role_name = Some("other".into());
            }
            if draw.below(6) == 0 {
                e.source.module_path = "other_op::m".into();
            }
            if draw.below(4) == 0 {
                e.source.item = "cleanup".into();
            }
            e
        })
        .collect()
}

/// The lints' answers on random attributes equal the plain definitions: every probe request
/// asked of the rule with `rule_allows` (no index, no shortcut by group or resource), and
/// `redundant` as the first other attribute of the same item and role whose rule covers this
/// one's (the later of two that cover each other), found by comparing every pair.
#[test]
fn lints_agree_with_their_definitions_on_random_attributes() {
    let mut fired_somewhere = std::collections::BTreeSet::new();
    for seed in 1..=20u64 {
        let entries = random_entries(150, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let refs: Vec<&RbacEntry> = entries.iter().collect();
        let rules: Vec<PolicyRule> = entries.iter().map(|e| policy_rule(&e.marker)).collect();
        let mut expected = Vec::new();
        for (i, (e, rule)) in entries.iter().zip(&rules).enumerate() {
            let role = role_of(e, "manager-role");
            for lint in Lint::ALL {
                let finding = match lint {
                    Lint::Redundant => {
                        let scope = |e: &RbacEntry| {
                            (
                                e.source.file.to_string(),
                                e.source.module_path.to_string(),
                                e.source.item.to_string(),
                                e.marker.namespace.clone(),
                                e.marker.role_name.clone(),
                            )
                        };
                        (0..entries.len())
                            .find(|&j| {
                                j != i
                                    && scope(&entries[j]) == scope(e)
                                    && rule_covers(&rules[j], rule)
                                    && (j < i || !rule_covers(rule, &rules[j]))
                            })
                            .map(|j| format!("covered by {}", entries[j].source.line))
                    }
                    Lint::WildcardVerbs | Lint::WildcardResources | Lint::WildcardGroups => {
                        check(lint, e, rule, true, &mut || role.clone())
                    }
                    Lint::ClusterSecretsRead if e.marker.namespace.is_some() => None,
                    _ => {
                        let mut found = Vec::new();
                        for probe in resource_probes(lint) {
                            let names = rule.resource_names.clone().unwrap_or_default();
                            let verbs: Vec<&str> = probe
                                .requests
                                .iter()
                                .filter(|(_, request)| {
                                    if names.is_empty() {
                                        rule_allows(request, rule)
                                    } else {
                                        names
                                            .iter()
                                            .any(|n| rule_allows(&request.clone().named(n), rule))
                                    }
                                })
                                .map(|(verb, _)| *verb)
                                .collect();
                            if !verbs.is_empty() {
                                found.push(format!(
                                    "{} on {}",
                                    verbs.join(", "),
                                    resource_name(probe.group, probe.resource)
                                ));
                            }
                        }
                        let constrained: Vec<String> = e
                            .marker
                            .verbs
                            .iter()
                            .filter(|v| v.starts_with("impersonate:"))
                            .map(|v| format!("{v:?}"))
                            .collect();
                        if !found.is_empty() {
                            Some(format!("grants {} {role}", found.join("; ")))
                        } else if lint == Lint::Impersonate && !constrained.is_empty() {
                            Some(format!(
                                "grants the impersonation verb(s) {} {role}",
                                constrained.join(", ")
                            ))
                        } else {
                            None
                        }
                    }
                };
                if let Some(finding) = finding {
                    expected.push((e.source.line, lint, finding));
                }
            }
        }
        let actual: Vec<(u32, Lint, String)> = check_entries(&refs, "manager-role")
            .into_iter()
            .map(|w| {
                let finding = match w.covered_by {
                    Some(other) => format!("covered by {}", other.line),
                    None => w.finding,
                };
                (w.source.line, w.lint, finding)
            })
            .collect();
        assert_eq!(actual, expected, "seed {seed}");
        fired_somewhere.extend(actual.iter().map(|(_, lint, _)| *lint));
    }
    // The random attributes exercise every lint.
    // All but `unused`, the call check's.
    assert_eq!(
        fired_somewhere.len(),
        Lint::ALL.len() - 1,
        "{fired_somewhere:?}"
    );
}
