//! kube-markers-compat against crdify v0.5.0 (built from source by `scripts/crdify.sh`), on
//! pairs of CRDs: consecutive Gateway API releases (standard channel, v1.0 → v1.6, fetched by
//! `scripts/gateway-api-crds.sh`), crdify's own test pairs and examples, and one mutation of a
//! base CRD per kind of breaking and of compatible change (`mutations()`, below).
//!
//! The measure: every finding crdify reports is reported, with its check, version and path;
//! nothing is reported where crdify finds nothing, except by the checks crdify does not have.
//! Every pair is compared twice: both tools with crdify's defaults (every check an error, enum
//! additions refused, served versions compared even where a webhook converts them), and both
//! with this crate's defaults (`Policy::default()`; crdify configured alike: enum additions
//! allowed, `description` off, `conversion: Ignore`). Alpha versions are compared in both, as
//! all others. What differs on purpose, the residue, is classified below and counted:
//!
//! - a removed field: crdify reports it (`existingFieldRemoval`) and every field under it, and
//!   compares what it was with an empty schema (`type` "string" → "", `description`, ...);
//!   we report it once, at the top. Covered when our `existingFieldRemoval` names the path or
//!   an ancestor, in that version (or served pair).
//! - crdify v0.5.0 has no `pattern` and `nullable` checks and reports CEL rules and list/map
//!   types as `unhandled`: covered by ours at the same path.
//! - `unhandled` where nothing tightens: a CEL rule removed or only its message changed, or a
//!   list or map topology spelled out as the default server-side apply assumes
//!   (`x-kubernetes-list-type: atomic` added, as Gateway API v1.4 did on every list). crdify
//!   cannot tell; for us it is no change. Counted, each checked to be only that.
//! - a map whose values' schema changed: crdify reports `unhandled` on the map (it keeps
//!   `additionalProperties` in the map's node) and the change itself on `[*]`; we report it
//!   on `[*]` only. Counted, each checked to be only that.
//! - a node with `allOf`/`anyOf`/`oneOf`/`not`: crdify files each subschema under the node's
//!   own path, so the last one replaces the node and the node's own changes (a description,
//!   a `required`) go unseen; we compare the node. Counted, each checked to be such a node.
//! - an enum constraint dropped (any value then goes): crdify reports its values removed; with
//!   enum additions allowed it is no change for us (a loosening, as added values are).
//!   Counted, each checked to be only that.
//! - a conversion webhook dropped (`Webhook` → `None`) while served versions differ: crdify
//!   subtracts the differences the old CRD's pairs had, though the old CRD converted them;
//!   without the webhook the API server no longer does, so we report them. Counted, each
//!   checked to be such a pair.
//!
//! Needs Go. `KUBE_MARKERS_SKIP_ORACLE=1` skips it knowingly; it never skips silently.

use kube_markers_compat::{Check, Finding, Policy, compare};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A finding as both tools can name it: check, version (or served pair), path.
type Key = (String, String, String);

fn key(check: &str, version: &str, path: &str) -> Key {
    (check.to_string(), version.to_string(), path.to_string())
}

/// How both tools are configured for one comparison.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// crdify's defaults on both sides (`Policy::crdify()`).
    Crdify,
    /// This crate's defaults (`Policy::default()`), crdify configured alike ([`OURS_AS_CRDIFY`]).
    Ours,
}

impl Mode {
    fn policy(self) -> Policy {
        match self {
            Mode::Crdify => Policy::crdify(),
            Mode::Ours => Policy::default(),
        }
    }
}

/// `Policy::default()` in crdify's configuration: enum additions allowed, description off,
/// served versions of a CRD that converts through a webhook not compared.
const OURS_AS_CRDIFY: &str = "conversion: Ignore
validations:
  - name: enum
    enforcement: Error
    configuration:
      additionPolicy: Allow
  - name: description
    enforcement: None
";

/// crdify's findings: every `errors` entry of its JSON report.
fn crdify(bin: &Path, dir: &Path, mode: Mode, old: &Value, new: &Value) -> BTreeSet<Key> {
    let (a, b) = (dir.join("old.json"), dir.join("new.json"));
    std::fs::write(&a, old.to_string()).unwrap();
    std::fs::write(&b, new.to_string()).unwrap();
    let mut command = Command::new(bin);
    command.args([
        format!("file://{}", a.display()),
        format!("file://{}", b.display()),
        "-o".into(),
        "json".into(),
    ]);
    if mode == Mode::Ours {
        let config = dir.join("config.yaml");
        std::fs::write(&config, OURS_AS_CRDIFY).unwrap();
        command.arg("--config").arg(config);
    }
    let out = command.output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "crdify's report does not read ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let mut found = BTreeSet::new();
    for result in report["crdValidation"].as_array().into_iter().flatten() {
        let name = result["name"].as_str().unwrap();
        for error in result["errors"].as_array().into_iter().flatten() {
            let error = error.as_str().unwrap();
            match name {
                // "removed field : v1.^.spec.foo"
                "existingFieldRemoval" => {
                    let field = error.split(" : ").nth(1).unwrap();
                    let (version, path) = field.split_once('.').unwrap();
                    found.insert(key(name, version, path));
                }
                // "stored versions removed : [v1beta1 v1]"
                "storedVersionRemoval" => {
                    let list = error.split(" : ").nth(1).unwrap();
                    let versions = list.trim_matches(['[', ']']).replace(' ', ", ");
                    found.insert(key(name, &versions, ""));
                }
                _ => {
                    found.insert(key(name, "", ""));
                }
            }
        }
    }
    for section in ["sameVersionValidation", "servedVersionValidation"] {
        for (version, paths) in report[section].as_object().into_iter().flatten() {
            for (path, results) in paths.as_object().unwrap() {
                for result in results.as_array().unwrap() {
                    if result["errors"].as_array().is_some_and(|e| !e.is_empty()) {
                        found.insert(key(result["name"].as_str().unwrap(), version, path));
                    }
                }
            }
        }
    }
    found
}

fn ours(mode: Mode, old: &Value, new: &Value) -> Vec<Finding> {
    compare(old, new, &mode.policy()).unwrap_or_else(|e| panic!("{e}"))
}

/// What crdify reports under `unhandled`, ours names.
const UNHANDLED_BY_CRDIFY: [Check; 7] = [
    Check::Unhandled,
    Check::Pattern,
    Check::Nullable,
    Check::ValidationRules,
    Check::ListType,
    Check::ListMapKeys,
    Check::MapType,
];

fn is_under(path: &str, ancestor: &str) -> bool {
    path == ancestor
        || path
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// The tally of one corpus.
#[derive(Default, Debug)]
struct Tally {
    pairs: usize,
    crdify: usize,
    matched: usize,
    covered_by_removal: usize,
    no_tightening_residue: usize,
    map_values_residue: usize,
    junctor_residue: usize,
    enum_dropped_residue: usize,
    webhook_dropped_residue: usize,
    beyond_crdify: usize,
    missed: Vec<String>,
    extra: Vec<String>,
}

/// The schema node at a crdify path, with its children dropped (as crdify compares it).
fn node<'a>(crd: &'a Value, version: &str, path: &str) -> Option<&'a Value> {
    let v = crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["name"] == version)?;
    let mut at = &v["schema"]["openAPIV3Schema"];
    let mut rest = path.strip_prefix('^')?;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[*]") {
            at = if at["items"].is_object() {
                &at["items"]
            } else {
                &at["additionalProperties"]
            };
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            at = &at["properties"][&r[..end]];
            rest = &r[end..];
        } else {
            return None;
        }
    }
    at.is_object().then_some(at)
}

/// The two nodes a finding at `version` (or served pair) and `path` compares.
fn nodes<'a>(
    old: &'a Value,
    new: &'a Value,
    version: &str,
    path: &str,
) -> Option<(&'a Value, &'a Value)> {
    let (va, vb) = match version.split_once(" -> ") {
        Some((a, b)) => (a, b),
        None => (version, version),
    };
    let old_crd = if va == vb { old } else { new };
    Some((node(old_crd, va, path)?, node(new, vb, path)?))
}

/// Whether a node (old or new) has subschemas crdify files under the node's own path.
fn has_junctor(old: &Value, new: &Value, version: &str, path: &str) -> bool {
    nodes(old, new, version, path).is_some_and(|(a, b)| {
        ["allOf", "anyOf", "oneOf", "not"]
            .iter()
            .any(|k| a.get(*k).is_some() || b.get(*k).is_some())
    })
}

/// Whether the two nodes' `additionalProperties` schemas differ (were anything else crdify
/// calls unhandled different too, ours would have matched at the node itself).
fn map_values_differ(old: &Value, new: &Value, version: &str, path: &str) -> bool {
    nodes(old, new, version, path).is_some_and(|(a, b)| {
        a["additionalProperties"].is_object()
            && a["additionalProperties"] != b["additionalProperties"]
    })
}

/// crdify's `unhandled` where nothing tightens: CEL rules removed or with another message
/// (every new expression was there before), list or map topology spelled out as the default
/// server-side apply assumes (a list atomic, a map granular, no keys), or both.
fn no_tightening(old: &Value, new: &Value, version: &str, path: &str) -> bool {
    const TOPOLOGY: [(&str, &str); 3] = [
        ("x-kubernetes-list-type", "\"atomic\""),
        ("x-kubernetes-map-type", "\"granular\""),
        ("x-kubernetes-list-map-keys", "[]"),
    ];
    let Some((a, b)) = nodes(old, new, version, path) else {
        return false;
    };
    let strip = |n: &Value| {
        let mut n = n.as_object().unwrap().clone();
        for k in [
            "properties",
            "items",
            "description",
            "x-kubernetes-validations",
        ] {
            n.remove(k);
        }
        for (k, _) in TOPOLOGY {
            n.remove(k);
        }
        n
    };
    let implied = |n: &Value, key: &str, default: &str| match n.get(key) {
        Some(v) => v.to_string(),
        None => default.to_string(),
    };
    let rules = |n: &Value| -> BTreeSet<String> {
        n["x-kubernetes-validations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["rule"].as_str().map(str::to_string))
            .collect()
    };
    strip(a) == strip(b)
        && TOPOLOGY
            .iter()
            .all(|(k, d)| implied(a, k, d) == implied(b, k, d))
        && rules(b).is_subset(&rules(a))
}

/// Whether `old` → `new` at `version` and `path` drops the node's whole enum (crdify: values
/// removed; with additions allowed, a loosening for us).
fn enum_dropped(old: &Value, new: &Value, version: &str, path: &str) -> bool {
    nodes(old, new, version, path).is_some_and(|(a, b)| {
        a["enum"].as_array().is_some_and(|e| !e.is_empty())
            && b["enum"].as_array().is_none_or(Vec::is_empty)
    })
}

/// Whether a finding on a served pair (`v1beta1 -> v1`) comes of a conversion webhook dropped.
fn webhook_dropped(old: &Value, new: &Value, version: &str) -> bool {
    version.contains(" -> ")
        && old["spec"]["conversion"]["strategy"] == "Webhook"
        && new["spec"]["conversion"]["strategy"] != "Webhook"
}

const MODES: [Mode; 2] = [Mode::Crdify, Mode::Ours];

/// Compares one pair both ways (crdify's defaults, ours), each tallied apart.
fn tally_pair(
    tallies: &mut [Tally; 2],
    name: &str,
    bin: &Path,
    dir: &Path,
    old: &Value,
    new: &Value,
) {
    for (tally, mode) in tallies.iter_mut().zip(MODES) {
        tally.pairs += 1;
        tally_mode(
            tally,
            &format!("{name} ({mode:?})"),
            bin,
            dir,
            mode,
            old,
            new,
        );
    }
}

fn tally_mode(
    tally: &mut Tally,
    name: &str,
    bin: &Path,
    dir: &Path,
    mode: Mode,
    old: &Value,
    new: &Value,
) {
    let theirs = crdify(bin, dir, mode, old, new);
    let ours = ours(mode, old, new);
    tally.crdify += theirs.len();
    let removals: Vec<(&str, &str)> = ours
        .iter()
        .filter(|f| f.check == Check::ExistingFieldRemoval)
        .map(|f| (f.version.as_str(), f.path.as_str()))
        .collect();
    let mut used = vec![false; ours.len()];
    for (check, version, path) in &theirs {
        let same = |f: &Finding| f.version == *version && f.path == *path;
        let hit = ours.iter().position(|f| {
            same(f)
                && (f.check.name() == check
                    || (check == "unhandled" && UNHANDLED_BY_CRDIFY.contains(&f.check)))
        });
        if let Some(i) = hit {
            tally.matched += 1;
            used[i] = true;
            // Every finding of ours at that place answers crdify's one `unhandled`.
            for (j, f) in ours.iter().enumerate() {
                if same(f) && check == "unhandled" && UNHANDLED_BY_CRDIFY.contains(&f.check) {
                    used[j] = true;
                }
            }
        } else if removals
            .iter()
            .any(|(v, p)| v == version && is_under(path, p))
        {
            tally.covered_by_removal += 1;
        } else if check == "unhandled" && no_tightening(old, new, version, path) {
            tally.no_tightening_residue += 1;
        } else if check == "unhandled"
            && map_values_differ(old, new, version, path)
            && ours
                .iter()
                .any(|f| f.version == *version && is_under(&f.path, &format!("{path}[*]")))
        {
            tally.map_values_residue += 1;
        } else if mode == Mode::Ours && check == "enum" && enum_dropped(old, new, version, path) {
            tally.enum_dropped_residue += 1;
        } else {
            tally
                .missed
                .push(format!("{name}: crdify {check} {version} {path}, not ours"));
        }
    }
    for (f, used) in ours.iter().zip(used) {
        if used {
            continue;
        }
        let by_removal = f.check == Check::ExistingFieldRemoval
            && theirs.iter().any(|(c, v, p)| {
                c == "existingFieldRemoval" && *v == f.version && *p == f.path
            }
                || (*v == f.version && *p == f.path));
        if by_removal {
            continue;
        }
        if !f.check.is_crdify() {
            tally.beyond_crdify += 1;
        } else if has_junctor(old, new, &f.version, &f.path) {
            tally.junctor_residue += 1;
        } else if mode == Mode::Ours && webhook_dropped(old, new, &f.version) {
            tally.webhook_dropped_residue += 1;
        } else {
            tally
                .extra
                .push(format!("{name}: ours {}, not crdify's", f.line()));
        }
    }
}

fn read_crds(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_iter()
        .filter(|d| d["kind"] == "CustomResourceDefinition")
        .collect()
}

fn one_crd(path: &Path) -> Value {
    let mut crds = read_crds(path);
    assert_eq!(crds.len(), 1, "{}", path.display());
    crds.remove(0)
}

fn assert_agree(corpus: &str, tallies: &[Tally; 2]) {
    for (tally, mode) in tallies.iter().zip(MODES) {
        eprintln!("{corpus} ({mode:?}): {tally:#?}");
        assert!(
            tally.missed.is_empty() && tally.extra.is_empty(),
            "{corpus} ({mode:?}): disagreement with crdify:\n{}\n{}",
            tally.missed.join("\n"),
            tally.extra.join("\n")
        );
    }
}

fn oracle() -> Option<PathBuf> {
    kube_markers_tests::oracle("crdify.sh")
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn gateway_api_releases_agree_with_crdify() {
    let Some(bin) = oracle() else { return };
    let Some(releases) = kube_markers_tests::oracle("gateway-api-crds.sh") else {
        return;
    };
    let versions: Vec<String> = std::fs::read_to_string(releases.join(".complete"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut tally: [Tally; 2] = Default::default();
    for pair in versions.windows(2) {
        let (from, to) = (releases.join(&pair[0]), releases.join(&pair[1]));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&from)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for old_file in files {
            let new_file = to.join(old_file.file_name().unwrap());
            if !new_file.exists() {
                continue;
            }
            let name = format!(
                "{} → {} {}",
                pair[0],
                pair[1],
                old_file.file_name().unwrap().to_string_lossy()
            );
            let (old, new) = (one_crd(&old_file), one_crd(&new_file));
            tally_pair(&mut tally, &name, &bin, dir.path(), &old, &new);
        }
    }
    assert!(tally[0].pairs >= 30, "{tally:?}");
    assert!(
        tally[0].crdify > 0,
        "crdify found nothing at all: {tally:?}"
    );
    assert_agree("Gateway API v1.0 → v1.6", &tally);
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn crdifys_own_pairs_agree() {
    let Some(bin) = oracle() else { return };
    let root = bin.parent().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut tally: [Tally; 2] = Default::default();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root.join("test"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("a.yaml").exists())
        .collect();
    cases.sort();
    for case in &cases {
        let (old, new) = (one_crd(&case.join("a.yaml")), one_crd(&case.join("b.yaml")));
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        tally_pair(&mut tally, &name, &bin, dir.path(), &old, &new);
    }
    let examples = root.join("examples");
    let base = one_crd(&examples.join("base-crd.yaml"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("base-crd.yaml") && !p.ends_with("config.yaml"))
        .collect();
    files.sort();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        tally_pair(&mut tally, &name, &bin, dir.path(), &base, &one_crd(&file));
    }
    assert!(tally[0].pairs >= 20, "{tally:?}");
    assert_agree("crdify's test pairs and examples", &tally);
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn one_mutation_per_kind_of_change_agrees() {
    let Some(bin) = oracle() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The same mutations of a kind at v1beta1 and v1, and of one at v1alpha1 and v1alpha2:
    // alpha versions are checked as all others.
    for versions in [["v1beta1", "v1"], ["v1alpha1", "v1alpha2"]] {
        let mut tally: [Tally; 2] = Default::default();
        let base = base(versions);
        for (name, kind, mutate) in mutations() {
            let mut new = base.clone();
            mutate(&mut new);
            let old = old_of(name, &base, versions);
            let name = format!("{name} ({})", versions.join(", "));
            tally_pair(&mut tally, &name, &bin, dir.path(), &old, &new);
            // Our own defaults: each breaking change is an error, each compatible one passes.
            let ours = compare(&old, &new, &Policy::default()).unwrap();
            match kind {
                Kind::Breaking => assert!(
                    kube_markers_compat::has_errors(&ours),
                    "{name}: no error by default: {ours:?}"
                ),
                Kind::Compatible => assert!(
                    !kube_markers_compat::has_errors(&ours),
                    "{name}: an error by default: {ours:?}"
                ),
            }
        }
        assert_agree(
            &format!("mutations of a base CRD at {}", versions.join(", ")),
            &tally,
        );
    }
}

fn webhook() -> Value {
    json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"service": {"name": "w", "namespace": "n", "path": "/convert"}}
    }})
}

/// The CRD a mutation is compared with: the base, or what the mutation's name says it was.
fn old_of(name: &str, base: &Value, versions: [&str; 2]) -> Value {
    let mut old = base.clone();
    match name {
        "stored version removed" => old["status"] = json!({"storedVersions": versions}),
        "conversion webhook dropped" => old["spec"]["conversion"] = webhook(),
        "conversion webhook dropped while versions differ" => {
            old["spec"]["conversion"] = webhook();
            spec(&mut old, 1)["properties"]["size"]["maximum"] = json!(5);
        }
        "conversion webhook dropped, one version left" => {
            old["spec"]["versions"].as_array_mut().unwrap().remove(0);
            old["spec"]["conversion"] = webhook();
        }
        _ => {}
    }
    old
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Breaking,
    Compatible,
}

fn base(names: [&str; 2]) -> Value {
    let spec = json!({
        "type": "object",
        "description": "The desired state.",
        "required": ["size"],
        "properties": {
            "size": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10, "default": 3},
            "name": {"type": "string", "minLength": 1, "maxLength": 63, "pattern": "^[a-z]+$"},
            "mode": {"type": "string", "enum": ["Fast", "Safe"]},
            "tier": {"type": "string"},
            "ports": {
                "type": "array", "minItems": 0, "maxItems": 8,
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string"}, "port": {"type": "integer"}
                }}
            },
            "labels": {
                "type": "object", "maxProperties": 16, "minProperties": 0,
                "additionalProperties": {"type": "string"}
            },
            "selector": {"type": "object", "x-kubernetes-map-type": "granular",
                "properties": {"app": {"type": "string"}}},
            "note": {"type": "string", "nullable": true},
            "window": {"type": "object", "properties": {
                "start": {"type": "integer"}, "end": {"type": "integer"}
            }, "x-kubernetes-validations": [{"rule": "self.start <= self.end", "message": "start after end"}]}
        }
    });
    let version = |name: &str, storage: bool| {
        json!({
            "name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec.clone()}}}
        })
    };
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
            "scope": "Namespaced",
            "versions": [version(names[0], false), version(names[1], true)]
        }
    })
}

type Mutation = (&'static str, Kind, fn(&mut Value));

/// The `spec` schema of version `i` of the base.
fn spec(crd: &mut Value, i: usize) -> &mut Value {
    &mut crd["spec"]["versions"][i]["schema"]["openAPIV3Schema"]["properties"]["spec"]
}

/// In both versions (a change made to the type, as a generator makes it).
fn both(crd: &mut Value, f: impl Fn(&mut Value)) {
    f(spec(crd, 0));
    f(spec(crd, 1));
}

fn prop<'a>(spec: &'a mut Value, name: &str) -> &'a mut Value {
    &mut spec["properties"][name]
}

fn remove(v: &mut Value, key: &str) {
    v.as_object_mut().unwrap().remove(key);
}

fn mutations() -> Vec<Mutation> {
    use Kind::*;
    vec![
        ("scope changed", Breaking, |c| {
            c["spec"]["scope"] = json!("Cluster")
        }),
        ("field removed", Breaking, |c| {
            both(c, |s| remove(&mut s["properties"], "tier"))
        }),
        ("object with children removed", Breaking, |c| {
            both(c, |s| remove(&mut s["properties"], "ports"))
        }),
        ("stored version removed", Breaking, |c| {
            c["spec"]["versions"].as_array_mut().unwrap().remove(0);
        }),
        ("served version unserved", Breaking, |c| {
            c["spec"]["versions"][0]["served"] = json!(false)
        }),
        ("enum added", Breaking, |c| {
            both(c, |s| prop(s, "tier")["enum"] = json!(["Gold"]))
        }),
        ("enum value removed", Breaking, |c| {
            both(c, |s| prop(s, "mode")["enum"] = json!(["Fast"]))
        }),
        ("enum value added", Compatible, |c| {
            both(c, |s| {
                prop(s, "mode")["enum"] = json!(["Fast", "Safe", "Slow"])
            })
        }),
        ("default added", Breaking, |c| {
            both(c, |s| prop(s, "tier")["default"] = json!("Gold"))
        }),
        ("default removed", Breaking, |c| {
            both(c, |s| remove(prop(s, "size"), "default"))
        }),
        ("default changed", Breaking, |c| {
            both(c, |s| prop(s, "size")["default"] = json!(4))
        }),
        ("maximum decreased", Breaking, |c| {
            both(c, |s| prop(s, "size")["maximum"] = json!(5))
        }),
        ("maximum added", Breaking, |c| {
            both(c, |s| {
                prop(s, "ports")["items"]["properties"]["port"]["maximum"] = json!(65535)
            })
        }),
        ("maxLength decreased", Breaking, |c| {
            both(c, |s| prop(s, "name")["maxLength"] = json!(10))
        }),
        ("maxItems decreased", Breaking, |c| {
            both(c, |s| prop(s, "ports")["maxItems"] = json!(4))
        }),
        ("maxProperties decreased", Breaking, |c| {
            both(c, |s| prop(s, "labels")["maxProperties"] = json!(8))
        }),
        ("minimum increased", Breaking, |c| {
            both(c, |s| prop(s, "size")["minimum"] = json!(2))
        }),
        ("minLength increased", Breaking, |c| {
            both(c, |s| prop(s, "name")["minLength"] = json!(2))
        }),
        ("minItems increased", Breaking, |c| {
            both(c, |s| prop(s, "ports")["minItems"] = json!(1))
        }),
        ("minProperties increased", Breaking, |c| {
            both(c, |s| prop(s, "labels")["minProperties"] = json!(1))
        }),
        ("required added", Breaking, |c| {
            both(c, |s| s["required"] = json!(["size", "name"]))
        }),
        ("type changed", Breaking, |c| {
            both(c, |s| prop(s, "tier")["type"] = json!("integer"))
        }),
        ("map value type changed", Breaking, |c| {
            both(c, |s| {
                prop(s, "labels")["additionalProperties"]["type"] = json!("integer")
            })
        }),
        ("pattern added", Breaking, |c| {
            both(c, |s| prop(s, "tier")["pattern"] = json!("^[A-Z]"))
        }),
        ("pattern changed", Breaking, |c| {
            both(c, |s| prop(s, "name")["pattern"] = json!("^[a-z]+[0-9]*$"))
        }),
        ("nullable removed", Breaking, |c| {
            both(c, |s| remove(prop(s, "note"), "nullable"))
        }),
        ("nullable added", Breaking, |c| {
            both(c, |s| prop(s, "tier")["nullable"] = json!(true))
        }),
        ("CEL rule added", Breaking, |c| {
            both(c, |s| {
                s["x-kubernetes-validations"] = json!([{"rule": "self.size % 2 == 1"}])
            })
        }),
        ("CEL rule tightened", Breaking, |c| {
            both(c, |s| {
                prop(s, "window")["x-kubernetes-validations"] =
                    json!([{"rule": "self.start < self.end"}])
            })
        }),
        ("transition rule added", Breaking, |c| {
            both(c, |s| {
                prop(s, "tier")["x-kubernetes-validations"] =
                    json!([{"rule": "self == oldSelf", "message": "immutable"}])
            })
        }),
        ("list type changed", Breaking, |c| {
            both(c, |s| {
                prop(s, "ports")["x-kubernetes-list-type"] = json!("atomic");
                remove(prop(s, "ports"), "x-kubernetes-list-map-keys");
            })
        }),
        ("list map keys changed", Breaking, |c| {
            both(c, |s| {
                prop(s, "ports")["x-kubernetes-list-map-keys"] = json!(["name", "port"]);
                prop(s, "ports")["items"]["required"] = json!(["name", "port"]);
            })
        }),
        ("map type changed", Breaking, |c| {
            both(c, |s| {
                prop(s, "selector")["x-kubernetes-map-type"] = json!("atomic")
            })
        }),
        ("format changed", Breaking, |c| {
            both(c, |s| prop(s, "size")["format"] = json!("int64"))
        }),
        ("conversion webhook dropped", Breaking, |c| {
            // Base → webhook is the way out of a change; webhook → none is one.
            c["spec"]["conversion"] = json!({"strategy": "None"});
        }),
        (
            "conversion webhook dropped while versions differ",
            Breaking,
            |c| spec(c, 1)["properties"]["size"]["maximum"] = json!(5),
        ),
        (
            "conversion webhook dropped, one version left",
            Compatible,
            |c| {
                c["spec"]["versions"].as_array_mut().unwrap().remove(0);
            },
        ),
        (
            "served versions differ, a webhook converting them",
            Compatible,
            |c| {
                c["spec"]["conversion"] = webhook();
                spec(c, 1)["properties"]["size"]["maximum"] = json!(5)
            },
        ),
        ("served versions diverge", Breaking, |c| {
            spec(c, 1)["properties"]["size"]["maximum"] = json!(5)
        }),
        ("description changed", Compatible, |c| {
            both(c, |s| s["description"] = json!("What you want."))
        }),
        ("optional field added", Compatible, |c| {
            both(c, |s| s["properties"]["extra"] = json!({"type": "string"}))
        }),
        ("maximum loosened", Compatible, |c| {
            both(c, |s| prop(s, "size")["maximum"] = json!(20))
        }),
        ("maximum removed", Compatible, |c| {
            both(c, |s| remove(prop(s, "size"), "maximum"))
        }),
        ("minimum lowered", Compatible, |c| {
            both(c, |s| prop(s, "size")["minimum"] = json!(0))
        }),
        ("required dropped", Compatible, |c| {
            both(c, |s| s["required"] = json!([]))
        }),
        ("CEL rule removed", Compatible, |c| {
            both(c, |s| remove(prop(s, "window"), "x-kubernetes-validations"))
        }),
        ("CEL message changed", Compatible, |c| {
            both(c, |s| {
                prop(s, "window")["x-kubernetes-validations"][0]["message"] =
                    json!("end before start")
            })
        }),
        ("version added", Compatible, |c| {
            let mut v2 = c["spec"]["versions"][1].clone();
            v2["name"] = json!("v2");
            v2["storage"] = json!(false);
            c["spec"]["versions"].as_array_mut().unwrap().push(v2);
        }),
        ("conversion webhook added", Compatible, |c| {
            c["spec"]["conversion"] = webhook();
        }),
        ("unchanged", Compatible, |_| {}),
    ]
}
