use super::*;

type List = &'static [&'static str];

fn source(line: u32, item: &'static str) -> Source {
    Source {
        file: "src/lib.rs",
        line,
        column: 1,
        module_path: "op::controller",
        item,
    }
}

fn entry(line: u32, groups: List, resources: List, verbs: List) -> RbacEntry {
    RbacEntry {
        // No argument text: the cross-check compares parsed markers.
        args: "",
        groups,
        resources,
        resource_names: &[],
        verbs,
        urls: &[],
        namespace: None,
        role_name: None,
        allow: &[],
        source: source(line, "reconcile"),
    }
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
    for lint in Lint::ALL {
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
    expected.retain(|l| *l != "redundant");
    assert_eq!(lints, expected);
}

#[test]
fn scope_and_names_decide() {
    // Secrets read in a namespace's Role is not cluster-wide.
    let mut namespaced = entry(1, &[""], &["secrets"], &["get"]);
    namespaced.namespace = Some("tenants");
    assert_eq!(fired(&[namespaced]), []);
    // A rule restricted to names still grants on those objects.
    let mut named = entry(1, &[""], &["secrets"], &["get"]);
    named.resource_names = &["tls"];
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
    job.allow = &[("workload-write", "runs the backup Job")];
    let other = entry(2, &["batch"], &["cronjobs"], &["create"]);
    assert_eq!(
        fired(&[job, other]),
        [(1, "wildcard-verbs"), (2, "workload-write")]
    );
}

#[test]
fn redundant_names_both_attributes_within_one_crate_and_role() {
    let broad = entry(1, &["apps"], &["deployments"], &["get", "list", "watch"]);
    let narrow = entry(2, &["apps"], &["deployments"], &["get"]);
    let refs = [&narrow, &broad];
    let warnings = check_entries(&refs, "manager-role");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].source.line, 2);
    assert_eq!(warnings[0].covered_by.map(|s| s.line), Some(1));
    assert!(
        warnings[0]
            .to_string()
            .contains("already granted by the attribute at src/lib.rs:1:1 (reconcile)"),
        "{}",
        warnings[0]
    );
    // Two equal attributes: the later one is redundant, not both.
    let twin = entry(3, &["apps"], &["deployments"], &["get", "list", "watch"]);
    assert_eq!(fired(&[broad, twin]), [(3, "redundant")]);
    // Another role, or another crate, is not redundant: each declares its own needs.
    let mut elsewhere = entry(3, &["apps"], &["deployments"], &["get"]);
    elsewhere.role_name = Some("reader");
    let mut other_crate = entry(4, &["apps"], &["deployments"], &["get"]);
    other_crate.source.module_path = "other_op";
    assert_eq!(fired(&[broad, elsewhere, other_crate]), []);
    // resourceNames: the named rule is covered by the unnamed one, not the reverse.
    let mut named = entry(5, &["apps"], &["deployments"], &["get"]);
    named.resource_names = &["web"];
    assert_eq!(fired(&[named, broad]), [(5, "redundant")]);
    // `*/status` covers `deployments/status`.
    let all_status = entry(6, &["apps"], &["*/status"], &["get"]);
    let one_status = entry(7, &["apps"], &["deployments/status"], &["get"]);
    assert_eq!(
        fired(&[all_status, one_status]),
        [(6, "wildcard-resources"), (7, "redundant")]
    );
}
