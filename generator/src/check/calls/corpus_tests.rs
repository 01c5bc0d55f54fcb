//! The analysis on a corpus of real kube-rs operators (`tests/fixtures/calls-corpus`), against
//! what each operator requests: its `recorded.txt` (the audit log's record of a real run on
//! kube-apiserver, made by `scripts/record-corpus-requests.sh`) where one was made, else its
//! `truth.txt` (read from the code). Recall and precision per operator, and each request missed
//! or inferred in excess with the reason, are asserted exactly so that any change is seen (and
//! the figures in docs/least-privilege.md updated with it).

use super::*;
use crate::input::scan::calls::{CrateFile, scan_crate_files};
use crate::input::sources::FoundCalls;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/calls-corpus")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// `kinds.txt`: `Type group plural Namespaced|Cluster` a line (`""` for the core group).
fn kinds_of(dir: &Path) -> Kinds<'static> {
    let kinds = Kinds::new(&[]);
    let text = std::fs::read_to_string(dir.join("kinds.txt")).unwrap();
    for line in text.lines() {
        let line = line.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, group, plural, scope] = fields[..] else {
            panic!("{}: bad line {line:?}", dir.join("kinds.txt").display());
        };
        kinds.crds.borrow_mut().insert(
            name.to_string(),
            Some(Resolved {
                group: group.trim_matches('"').to_string(),
                plural: plural.to_string(),
                namespaced: scope == "Namespaced",
            }),
        );
    }
    kinds
}

/// Where an operator's requests come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ground {
    /// `recorded.txt`: recorded on an API server.
    Recorded,
    /// `truth.txt`: read from the code (no recording could be made).
    Read,
}

/// `recorded.txt`, else `truth.txt`: `VERB RESOURCE[.GROUP][/SUB]` a line, `#` comments.
///
/// A recorded request is counted with the permissions kube-apiserver checks for it besides its
/// own verb, which its audit event does not name: `create` for a `patch` answered `201 Created`
/// (a server-side apply that created the object: `handlers/patch.go` checks `create` then), and
/// for a websocket `get` of `pods/exec`, `pods/attach` or `pods/portforward` (checked since
/// 1.35). envtest/tests/implied_create.rs has the API server show both.
fn truth_of(dir: &Path) -> (Ground, BTreeSet<String>) {
    let (ground, file) = if dir.join("recorded.txt").is_file() {
        (Ground::Recorded, "recorded.txt")
    } else {
        (Ground::Read, "truth.txt")
    };
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut requests = BTreeSet::new();
    for line in text.lines() {
        let (request, comment) = line.split_once('#').unwrap_or((line, ""));
        let words: Vec<&str> = request.split_whitespace().collect();
        let [verb, resource] = words[..] else {
            assert!(
                words.is_empty(),
                "{}: bad line {line:?}",
                dir.join(file).display()
            );
            continue;
        };
        requests.insert(format!("{verb} {resource}"));
        if ground == Ground::Recorded {
            let created = verb == "patch" && comment.contains("×201");
            let websocket = verb == "get"
                && ["pods/exec", "pods/attach", "pods/portforward"].contains(&resource);
            if created || websocket {
                requests.insert(format!("create {resource}"));
            }
        }
    }
    (ground, requests)
}

/// The operators whose binary (`src/main.rs`) reaches their library by name (its `[lib]`).
const LIBRARIES: &[(&str, &str)] = &[("controller-rs", "controller")];

/// `file` of an operator as the generator reads it: under `src/`, a module of the library
/// (crate 0; `main.rs` is the binary, crate 1); any other file (kube's examples, version-rs's
/// `version.rs`) a crate of its own.
fn crate_file<'a>(dir: &Path, file: &Path, text: &'a str, index: usize) -> CrateFile<'a> {
    let under_src = file.strip_prefix(dir.join("src")).ok();
    match under_src.and_then(Path::to_str) {
        Some("main.rs") => CrateFile::crate_root(text, 1),
        Some(path) => CrateFile::at(path, text),
        None => CrateFile::crate_root(text, 2 + index as u32),
    }
}

/// What the analysis infers an operator requests, and the calls whose kind it cannot tell.
fn inferred_of(name: &str) -> (BTreeSet<String>, Vec<String>) {
    let dir = corpus().join(name);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let texts: Vec<String> = files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            // Each parses: the crate's read below says nothing of one that does not.
            syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            text
        })
        .collect();
    // As the generator reads a package: the files of each of its crates together, each in its
    // module (the kept files stand where they stood in the operator's repository).
    let crate_files: Vec<CrateFile<'_>> = files
        .iter()
        .zip(&texts)
        .enumerate()
        .map(|(i, (file, text))| crate_file(&dir, file, text, i))
        .collect();
    let library = LIBRARIES
        .iter()
        .find(|(operator, _)| *operator == name)
        .map(|&(_, library)| (0, library));
    let found: Vec<FoundCalls> = files
        .iter()
        .zip(scan_crate_files(&crate_files, library))
        .filter_map(|(file, calls)| {
            Some(FoundCalls {
                package: name.into(),
                krate: name.into(),
                file: file.clone(),
                calls: calls?,
            })
        })
        .collect();
    let kinds = kinds_of(&dir);
    let analysis = analyse_kinds(&found, &[], &kinds, &[name], &dir, "manager-role");
    let inferred = analysis
        .needed
        .iter()
        .flat_map(|n| {
            n.verbs
                .iter()
                .map(|v| format!("{v} {}", resource_text(&n.group, &n.resource)))
        })
        .collect();
    (inferred, analysis.unknown)
}

struct Measured {
    ground: Ground,
    unknown_calls: Vec<String>,
    recall: (usize, usize),
    precision: (usize, usize),
    missed: Vec<String>,
    excess: Vec<String>,
    unknown: usize,
}

fn measure(name: &str) -> Measured {
    let (ground, truth) = truth_of(&corpus().join(name));
    let (inferred, unknown) = inferred_of(name);
    let hits = truth.intersection(&inferred).count();
    Measured {
        ground,
        recall: (hits, truth.len()),
        precision: (hits, inferred.len()),
        missed: truth.difference(&inferred).cloned().collect(),
        excess: inferred.difference(&truth).cloned().collect(),
        unknown: unknown.len(),
        unknown_calls: unknown,
    }
}

/// Holds `name`'s measure to the figures given; `missed` and `excess` pair each request with
/// the reason it differs (the test's record of why, not compared).
fn assert_measured(
    name: &str,
    ground: Ground,
    recall: (usize, usize),
    precision: (usize, usize),
    missed: &[(&str, &str)],
    excess: &[(&str, &str)],
    unknown: usize,
) {
    let m = measure(name);
    let missed: Vec<&str> = missed.iter().map(|(request, _)| *request).collect();
    let excess: Vec<&str> = excess.iter().map(|(request, _)| *request).collect();
    let shown = format!(
        "{name} ({:?}): recall {}/{}, precision {}/{}, missed {:?}, excess {:?}, {} call(s) of unknown kind: {:#?}",
        m.ground,
        m.recall.0,
        m.recall.1,
        m.precision.0,
        m.precision.1,
        m.missed,
        m.excess,
        m.unknown,
        m.unknown_calls
    );
    assert_eq!(m.missed, missed, "{shown}");
    assert_eq!(m.excess, excess, "{shown}");
    assert_eq!(
        (m.ground, m.recall, m.precision, m.unknown),
        (ground, recall, precision, unknown),
        "{shown}"
    );
}

#[test]
fn corpus_controller_rs() {
    assert_measured(
        "controller-rs",
        Ground::Recorded,
        (6, 6),
        (6, 6),
        &[],
        &[],
        0,
    );
}

#[test]
fn corpus_version_rs() {
    assert_measured("version-rs", Ground::Recorded, (2, 2), (2, 2), &[], &[], 0);
}

/// sart's controller as `sartd controller` runs it (dual mode): eight reconcilers, the
/// allocator's recovery at start (server.rs) and a BGPPeerTemplate read (crd/bgp_peer.rs).
#[test]
fn corpus_sart() {
    let unused_recorder = "controller/context.rs's `Diagnostics::recorder` builds a `Recorder` \
                           but is dead code (private, never called), so nothing publishes; the \
                           scan counts `Recorder::new` as its `publish`";
    assert_measured(
        "sart",
        Ground::Recorded,
        (42, 42),
        (42, 44),
        &[],
        &[
            ("create events.events.k8s.io", unused_recorder),
            ("patch events.events.k8s.io", unused_recorder),
        ],
        // server.rs's `Controller::new(config)` is sart's own `struct Controller`, not taken
        // for kube-runtime's.
        0,
    );
}

#[test]
fn corpus_kube_examples() {
    assert_measured(
        "kube-examples",
        Ground::Recorded,
        (55, 55),
        (55, 55),
        &[],
        &[],
        1,
    );
}

/// sart's own hand-written ClusterRole (`manifests/base/rbac/role.yaml`, kept as `role.yaml`)
/// against its recording, with kube-apiserver's rule matching: the one request it does not
/// grant is the `delete` that `node_watcher`'s cleanup sends for a Node being deleted (under
/// that role the cleanup fails with 403 and the Node keeps its finalizer); the analysis infers
/// it (`corpus_sart` misses nothing).
#[test]
fn sart_own_role_lacks_what_its_node_watcher_deletes() {
    use kube_markers_rbac::authorize::{RequestAttributes, rules_allow};
    let dir = corpus().join("sart");
    let role: k8s_openapi::api::rbac::v1::ClusterRole =
        serde_saphyr::from_str(&std::fs::read_to_string(dir.join("role.yaml")).unwrap()).unwrap();
    let rules = role.rules.unwrap_or_default();
    let (ground, recorded) = truth_of(&dir);
    assert_eq!(ground, Ground::Recorded);
    let denied: Vec<&String> = recorded
        .iter()
        .filter(|request| {
            let (verb, resource) = request.split_once(' ').unwrap();
            let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
            let (resource, api_group) = resource.split_once('.').unwrap_or((resource, ""));
            let attributes = RequestAttributes {
                resource_request: true,
                verb: verb.into(),
                api_group: api_group.into(),
                resource: resource.into(),
                subresource: subresource.into(),
                ..RequestAttributes::default()
            };
            rules_allow(&attributes, &rules).is_none()
        })
        .collect();
    assert_eq!(denied, ["delete nodes"]);
    assert!(measure("sart").missed.is_empty());
}

/// A recording is of the sources kept: its header names the commit that the corpus' README
/// names for the directory, and only operators without a recording keep a `truth.txt`.
#[test]
fn recordings_are_of_the_commits_kept() {
    let readme = std::fs::read_to_string(corpus().join("README.md")).unwrap();
    let mut recorded = 0;
    for name in ["controller-rs", "version-rs", "kube-examples", "sart"] {
        let dir = corpus().join(name);
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("README.md has no row for {name}"));
        let commit = row
            .split('`')
            .find(|s| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .unwrap_or_else(|| panic!("README.md's row for {name} names no commit: {row}"));
        let Ok(text) = std::fs::read_to_string(dir.join("recorded.txt")) else {
            assert!(
                dir.join("truth.txt").is_file(),
                "{name}: neither recorded.txt nor truth.txt"
            );
            continue;
        };
        recorded += 1;
        assert!(
            text.lines()
                .next()
                .is_some_and(|l| l.contains(&format!("at commit {commit},"))),
            "{name}/recorded.txt is not of the commit README.md names ({commit})"
        );
        assert!(
            !dir.join("truth.txt").exists(),
            "{name} has a recording: its truth.txt read from the code is stale"
        );
    }
    assert_eq!(recorded, 4, "every operator of the corpus is recorded");
}
