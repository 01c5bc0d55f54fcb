//! Differential test against the real controller-gen (built from the Go module proxy by
//! `scripts/controller-gen.sh`, pinned): random rule sets, written once as controller-gen
//! markers and once as our markers, must give byte-identical role files.
//!
//! Rule sets whose merges collide are compared differently: there controller-gen keeps one of
//! two rules at random (Go map order), so its output is not a function of its input; we check
//! that ours grants at least what it granted.
//!
//! Needs Go. Set `KUBE_MARKERS_SKIP_ORACLE=1` to skip it knowingly; it never skips silently.

use kube_markers::codegen::rbac::{GeneratedRole, generate_roles, merge_collisions};
use kube_markers::registry::{RbacMarker, Text};
use kube_markers_tests::Rng;
use kube_markers_tests::markers::go_marker;
use std::path::{Path, PathBuf};
use std::process::Command;

const SETS: usize = 150;

fn controller_gen() -> Option<PathBuf> {
    kube_markers_tests::oracle("controller-gen.sh")
}

/// Random marker lists from small pools, so that merges happen.
trait Picks {
    /// 1..=max picks (duplicates kept on purpose: both tools dedupe).
    fn some(&mut self, pool: &[&'static str], max: usize) -> Vec<Text>;
}

impl Picks for Rng {
    fn some(&mut self, pool: &[&'static str], max: usize) -> Vec<Text> {
        let n = 1 + self.below(max);
        (0..n)
            .map(|_| Text::Borrowed(pool[self.below(pool.len())]))
            .collect()
    }
}

const GROUPS: &[&str] = &[
    "",
    "core",
    "apps",
    "batch",
    "batch.io",
    "x.example.com",
    "*",
];
const RESOURCES: &[&str] = &[
    "pods",
    "pods/status",
    "deployments",
    "jobs",
    "jobs/status",
    "*/scale",
    "*",
    "secrets",
];
const VERBS: &[&str] = &[
    "get", "list", "watch", "create", "update", "patch", "delete", "*",
];
const URL_VERBS: &[&str] = &["get", "head", "post", "*"];
const URLS: &[&str] = &["/metrics", "/healthz", "/healthz*", "/api/*", "/version"];
const NAMES: &[&str] = &["a", "b", "web-0"];
const NAMESPACES: &[&str] = &["ns-a", "ns-b"];
const ROLES: &[&str] = &["reader", "writer"];

fn random_set(rng: &mut Rng) -> Vec<RbacMarker> {
    let n = 1 + rng.below(25);
    (0..n)
        .map(|_| {
            if rng.chance(15) {
                RbacMarker {
                    urls: rng.some(URLS, 3),
                    verbs: rng.some(URL_VERBS, 3),
                    role_name: rng.chance(10).then(|| ROLES[rng.below(ROLES.len())].into()),
                    ..RbacMarker::default()
                }
            } else {
                RbacMarker {
                    groups: rng.some(GROUPS, 3),
                    resources: rng.some(RESOURCES, 3),
                    resource_names: if rng.chance(15) {
                        rng.some(NAMES, 2)
                    } else {
                        Vec::new()
                    },
                    verbs: rng.some(VERBS, 4),
                    namespace: rng
                        .chance(20)
                        .then(|| NAMESPACES[rng.below(NAMESPACES.len())].into()),
                    role_name: rng.chance(15).then(|| ROLES[rng.below(ROLES.len())].into()),
                    ..RbacMarker::default()
                }
            }
        })
        .collect()
}

fn run_controller_gen(bin: &Path, dir: &Path, markers: &[RbacMarker]) -> String {
    let mut source = String::from("package pkg\n\n");
    for m in markers {
        source.push_str(&go_marker(m));
        source.push('\n');
    }
    role_yaml_for(bin, dir, &source)
}

/// Runs controller-gen's RBAC generator on one Go file in a fresh module; its role.yaml.
fn role_yaml_for(bin: &Path, dir: &Path, go_source: &str) -> String {
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(
        dir.join("go.mod"),
        "module example.com/differential\n\ngo 1.22\n",
    )
    .unwrap();
    std::fs::write(dir.join("pkg/rules.go"), go_source).unwrap();
    let out = Command::new(bin)
        .args([
            "rbac:roleName=manager-role",
            "paths=./...",
            "output:rbac:dir=out",
        ])
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("run controller-gen");
    assert!(
        out.status.success(),
        "controller-gen failed in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("out/role.yaml")).unwrap_or_default()
}

fn ours(markers: &[RbacMarker]) -> String {
    let roles: Vec<GeneratedRole> = generate_roles(markers, "manager-role");
    kube_markers::codegen::render_roles(&roles, "")
}

/// Every (role, group, resource, name-or-*, url, verb) grant of a role file, for the subset
/// comparison of colliding sets.
fn grants(roles: &[GeneratedRole]) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for role in roles {
        for r in &role.rules {
            let names = if r.resource_names.is_empty() {
                vec!["*".to_string()]
            } else {
                r.resource_names.clone()
            };
            for v in &r.verbs {
                for u in &r.urls {
                    out.insert(format!("{:?} url {u} {v}", role.key));
                }
                for g in &r.groups {
                    for res in &r.resources {
                        for n in &names {
                            out.insert(format!("{:?} {g} {res} {n} {v}", role.key));
                        }
                    }
                }
            }
        }
    }
    out
}

fn parse_go_roles(yaml: &str) -> Vec<GeneratedRole> {
    // controller-gen's output, read back by re-deriving rules from its documents.
    let mut roles = Vec::new();
    for doc in yaml.split("---\n").filter(|d| !d.trim().is_empty()) {
        let value: serde_json::Value = parse_role_document(doc);
        let meta = &value["metadata"];
        let key = kube_markers::codegen::rbac::RoleKey {
            namespace: meta["namespace"].as_str().unwrap_or_default().to_string(),
            name: meta["name"].as_str().unwrap().to_string(),
        };
        let list = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .map(|s| s.as_str().unwrap().to_string())
                .collect()
        };
        let rules = value["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| kube_markers::codegen::rbac::Rule {
                groups: list(&r["apiGroups"]),
                resources: list(&r["resources"]),
                resource_names: list(&r["resourceNames"]),
                urls: list(&r["nonResourceURLs"]),
                verbs: list(&r["verbs"]),
            })
            .collect();
        roles.push(GeneratedRole { key, rules });
    }
    roles
}

/// A reader for the small YAML subset controller-gen writes for roles (block maps, indentless
/// sequences of scalars and maps, `""` and `'*'` quoting).
fn parse_role_document(doc: &str) -> serde_json::Value {
    use serde_json::{Map, Value};
    fn scalar(s: &str) -> Value {
        let s = s.trim();
        let unquoted = if let Some(inner) = s.strip_prefix('\'').and_then(|s| s.strip_suffix('\''))
        {
            inner.replace("''", "'")
        } else if let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            inner.to_string()
        } else {
            s.to_string()
        };
        Value::String(unquoted)
    }
    let mut root = Map::new();
    let mut section: Option<String> = None; // "metadata" or "rules"
    let mut rules: Vec<Value> = Vec::new();
    let mut current_list: Option<String> = None;
    for line in doc.lines() {
        if !line.starts_with(' ') && !line.starts_with('-') {
            let (k, v) = line.split_once(':').unwrap();
            section = Some(k.to_string());
            if !v.trim().is_empty() {
                root.insert(k.to_string(), scalar(v));
            } else if k == "metadata" {
                root.insert(k.to_string(), Value::Object(Map::new()));
            }
            continue;
        }
        match section.as_deref() {
            Some("metadata") => {
                let (k, v) = line.trim().split_once(':').unwrap();
                root.get_mut("metadata")
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert(k.to_string(), scalar(v));
            }
            Some("rules") => {
                let (new_rule, rest) = match line.strip_prefix("- ") {
                    Some(rest) => (true, rest.to_string()),
                    None => (false, line.trim_start().to_string()),
                };
                if new_rule {
                    rules.push(Value::Object(Map::new()));
                }
                let rule = rules.last_mut().unwrap().as_object_mut().unwrap();
                if let Some(item) = rest.strip_prefix("- ") {
                    let key = current_list.clone().unwrap();
                    rule.get_mut(&key)
                        .unwrap()
                        .as_array_mut()
                        .unwrap()
                        .push(scalar(item));
                } else {
                    let key = rest.trim_end_matches(':').to_string();
                    rule.insert(key.clone(), Value::Array(Vec::new()));
                    current_list = Some(key);
                }
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    root.insert("rules".into(), Value::Array(rules));
    Value::Object(root)
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn random_rule_sets_match_controller_gen() {
    let Some(bin) = controller_gen() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut identical, mut colliding) = (0, 0);
    for i in 0..SETS {
        let markers = random_set(&mut rng);
        let theirs = run_controller_gen(&bin, &tmp.path().join(format!("set{i}")), &markers);
        let mine = ours(&markers);
        if merge_collisions(&markers, "manager-role") > 0 {
            colliding += 1;
            let missing: Vec<String> = grants(&parse_go_roles(&theirs))
                .difference(&grants(&generate_roles(&markers, "manager-role")))
                .cloned()
                .collect();
            assert!(
                missing.is_empty(),
                "set {i}: controller-gen grants what we don't: {missing:#?}"
            );
            continue;
        }
        assert!(
            mine == theirs,
            "set {i} differs from controller-gen.\nmarkers:\n{}\n--- controller-gen\n{theirs}\n--- kube-markers\n{mine}",
            markers.iter().map(go_marker).collect::<Vec<_>>().join("\n")
        );
        identical += 1;
    }
    eprintln!(
        "{identical} rule sets byte-identical to controller-gen, {colliding} with colliding merges"
    );
    // The corpus must mostly exercise the byte-for-byte path.
    assert!(
        identical >= SETS * 3 / 4,
        "{identical} of {SETS} compared byte for byte"
    );
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn the_golden_markers_match_controller_gen_too() {
    let Some(bin) = controller_gen() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // Our Rust port of the markers lives in controller_gen_conformance.rs; here the Go side
    // regenerates the golden file from the marker text and must agree with the committed copy.
    let markers = include_str!("../conformance/controller-gen-markers.go");
    let theirs = role_yaml_for(&bin, tmp.path(), markers);
    assert_eq!(
        theirs,
        include_str!("../conformance/controller-gen-role.yaml")
    );
}

/// A set whose merges collide: `batch` and `cron` (both `create`) merge into `batch;cron`,
/// which another marker already holds with `get`. controller-gen keeps one of the two rules;
/// we keep both verbs. Whatever controller-gen grants, we grant too.
#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn colliding_merges_keep_everything_controller_gen_keeps() {
    let Some(bin) = controller_gen() else { return };
    let marker = |groups: &[&str], verbs: &[&str]| RbacMarker {
        groups: groups.iter().map(|s| s.to_string().into()).collect(),
        resources: vec!["jobs".into()],
        verbs: verbs.iter().map(|s| s.to_string().into()).collect(),
        ..RbacMarker::default()
    };
    let markers = [
        marker(&["batch"], &["create"]),
        marker(&["cron"], &["create"]),
        marker(&["batch", "cron"], &["get"]),
    ];
    assert_eq!(merge_collisions(&markers, "manager-role"), 1);
    let ours = grants(&generate_roles(&markers, "manager-role"));
    let tmp = tempfile::tempdir().unwrap();
    for run in 0..5 {
        let theirs = run_controller_gen(&bin, &tmp.path().join(format!("run{run}")), &markers);
        let theirs = grants(&parse_go_roles(&theirs));
        assert!(
            theirs.is_subset(&ours),
            "run {run}: {theirs:#?} not within {ours:#?}"
        );
        // controller-gen lost one verb: its output has 2 of the 4 grants.
        assert!(
            theirs.len() < ours.len(),
            "controller-gen kept everything this time: {theirs:#?}"
        );
    }
}
