//! The analysis on a corpus of real kube-rs operators (`tests/fixtures/calls-corpus`), against
//! what each operator requests (its `truth.txt`): recall and precision per operator, and each
//! request missed or inferred in excess, asserted exactly so that any change is seen (and the
//! figures in docs/least-privilege.md updated with it).

use super::*;
use crate::input::scan::calls::scan_calls;
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

/// `truth.txt`: `VERB RESOURCE[.GROUP][/SUB]` a line.
fn truth_of(dir: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    text.lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// What the analysis infers an operator requests, and the calls whose kind it cannot tell.
fn inferred_of(name: &str) -> (BTreeSet<String>, Vec<String>) {
    let dir = corpus().join(name);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let found: Vec<FoundCalls> = files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            FoundCalls {
                package: name.into(),
                krate: name.into(),
                file: file.clone(),
                calls: scan_calls(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display())),
            }
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
    unknown_calls: Vec<String>,
    recall: (usize, usize),
    precision: (usize, usize),
    missed: Vec<String>,
    excess: Vec<String>,
    unknown: usize,
}

fn measure(name: &str) -> Measured {
    let truth = truth_of(&corpus().join(name));
    let (inferred, unknown) = inferred_of(name);
    let hits = truth.intersection(&inferred).count();
    Measured {
        recall: (hits, truth.len()),
        precision: (hits, inferred.len()),
        missed: truth.difference(&inferred).cloned().collect(),
        excess: inferred.difference(&truth).cloned().collect(),
        unknown: unknown.len(),
        unknown_calls: unknown,
    }
}

fn assert_measured(
    name: &str,
    recall: (usize, usize),
    precision: (usize, usize),
    missed: &[&str],
    excess: &[&str],
    unknown: usize,
) {
    let m = measure(name);
    let shown = format!(
        "{name}: recall {}/{}, precision {}/{}, missed {:?}, excess {:?}, {} call(s) of unknown kind: {:#?}",
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
        (m.recall, m.precision, m.unknown),
        (recall, precision, unknown),
        "{shown}"
    );
}

#[test]
fn corpus_controller_rs() {
    assert_measured("controller-rs", (6, 6), (6, 6), &[], &[], 0);
}

#[test]
fn corpus_version_rs() {
    assert_measured("version-rs", (2, 2), (2, 2), &[], &[], 0);
}

#[test]
fn corpus_sart() {
    assert_measured("sart", (21, 21), (21, 21), &[], &[], 0);
}

#[test]
fn corpus_kube_examples() {
    assert_measured("kube-examples", (55, 55), (55, 55), &[], &[], 1);
}
