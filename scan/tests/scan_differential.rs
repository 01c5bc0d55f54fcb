//! The token-level scan (`scan_source`) against the syn-based one (`scan_file`, the oracle) on
//! real code: every `.rs` file of this repository's `tests/` and `examples/` trees and a
//! deterministic sample of the crates in cargo's registry (`$CARGO_HOME/registry/src`), each
//! as written and with a synthetic `#[rbac]` (plain, then inside `cfg_attr`) put before
//! every `fn`, `struct` and `impl` line, so that attribute places and cfg scopes are
//! exercised on real items. Both scans must report the same modules, includes and
//! attributes (place, the `cfg_attr` around, cfgs, arguments).
//!
//! `KUBE_MARKERS_SCAN_CORPUS=dir1:dir2` adds directories (every `.rs` file under them);
//! `KUBE_MARKERS_SCAN_SAMPLE=n` sets the registry sample (default 2,500 files).

use kube_markers_scan::{FileScan, scan_file, scan_source};
use proc_macro2::TokenStream;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// What both scans must agree on, as comparable text.
fn summary(scan: &FileScan) -> Vec<String> {
    let norm = |text: &str| {
        TokenStream::from_str(text)
            .map(|t| t.to_string())
            .unwrap_or_else(|_| text.to_string())
    };
    let cfgs = |cfgs: &[kube_markers_core::cfg::Cfg]| {
        cfgs.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" && ")
    };
    let mut out = Vec::new();
    for a in &scan.attrs {
        out.push(format!(
            "attr {:?} {}:{} outer={:?} cfgs=[{}] args=({})",
            a.kind,
            a.line,
            a.column,
            a.outer,
            cfgs(&a.cfgs),
            norm(&a.args)
        ));
    }
    for m in &scan.mods {
        out.push(format!(
            "mod {} line {} path={:?} cfg_paths={:?} inline={:?} cfgs=[{}]",
            m.name,
            m.line,
            m.path_attr,
            m.cfg_paths
                .iter()
                .map(|(c, p)| format!("{c} => {p}"))
                .collect::<Vec<_>>(),
            m.inline_path,
            cfgs(&m.cfgs)
        ));
    }
    for i in &scan.includes {
        out.push(format!(
            "include {:?} line {} inline={:?} cfgs=[{}]",
            i.path,
            i.line,
            i.inline_path,
            cfgs(&i.cfgs)
        ));
    }
    out
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() && !path.ends_with("target") => rs_files(&path, out),
            Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "rs") => out.push(path),
            _ => {}
        }
    }
}

/// Lines that start an item the synthetic attribute can stand before.
fn starts_item(line: &str) -> bool {
    let t = line.trim_start();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub(super) "))
        .or_else(|| t.strip_prefix("pub "))
        .unwrap_or(t);
    let t = t
        .strip_prefix("async ")
        .or_else(|| t.strip_prefix("const "))
        .or_else(|| t.strip_prefix("unsafe "))
        .unwrap_or(t);
    t.starts_with("fn ") || t.starts_with("struct ") || t.starts_with("impl")
}

/// The text with `attr` inserted at the start of every item line (same line: places of the
/// rest of the file do not move).
fn with_attribute(text: &str, attr: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() * 2);
    let mut any = false;
    for line in text.split_inclusive('\n') {
        if starts_item(line) {
            let indent = line.len() - line.trim_start().len();
            out.push_str(&line[..indent]);
            out.push_str(attr);
            out.push(' ');
            out.push_str(&line[indent..]);
            any = true;
        } else {
            out.push_str(line);
        }
    }
    any.then_some(out)
}

/// The one difference the token scan is allowed: an attribute it finds (never one it misses)
/// on a `fn` without a body outside a trait and an `extern` block (`#[ref_cast_custom] fn
/// f(..) -> &Self;`, `#[eii] fn f();`). syn keeps such an item as verbatim tokens, so its
/// scan records no attribute there, while the compiler does hand the item to attribute
/// macros. One more finding is reported loudly by the cross-check if the registry lacks it;
/// it can never hide one.
fn accepted(text: &str, line: &str) -> bool {
    let Some(at) = line
        .strip_prefix("attr ")
        .and_then(|rest| rest.split_whitespace().nth(1))
        .and_then(|place| place.split(':').next())
        .and_then(|l| l.parse::<usize>().ok())
    else {
        return false;
    };
    let rest: String = text
        .split_inclusive('\n')
        .skip(at - 1)
        .collect::<Vec<_>>()
        .concat();
    let Some(sig) = rest.find("fn ").map(|i| &rest[i..]) else {
        return false;
    };
    matches!(sig.find([';', '{']).map(|i| &sig[i..i + 1]), Some(";"))
}

#[derive(Default)]
struct Tally {
    files: usize,
    compared: usize,
    oracle_failed: usize,
    found: usize,
    accepted: usize,
    failures: Vec<String>,
}

fn compare(path: &Path, variant: &str, text: &str, tally: &mut Tally) {
    let Ok(file) = syn::parse_file(text) else {
        // The oracle has no answer (the synthetic attribute landed where syn rejects it, or
        // the file is not Rust syn reads): nothing to compare.
        tally.oracle_failed += 1;
        return;
    };
    tally.compared += 1;
    let expected = summary(&scan_file(&file));
    let actual = match scan_source(text) {
        Ok(scan) => summary(&scan),
        Err(e) => vec![format!("token scan failed: {e}")],
    };
    tally.found += expected.len();
    if expected == actual {
        return;
    }
    let shown = path.display().to_string();
    let missing: Vec<&String> = expected.iter().filter(|e| !actual.contains(e)).collect();
    let extra: Vec<&String> = actual.iter().filter(|a| !expected.contains(a)).collect();
    if missing.is_empty() && !extra.is_empty() && extra.iter().all(|l| accepted(text, l)) {
        tally.accepted += extra.len();
        return;
    }
    let mut message = format!("{shown} ({variant}):");
    if missing.is_empty() && extra.is_empty() {
        message.push_str("\n  same findings, other order");
    }
    for m in missing.iter().take(4) {
        message.push_str(&format!("\n  syn only:   {m}"));
    }
    for e in extra.iter().take(4) {
        message.push_str(&format!("\n  token only: {e}"));
    }
    tally.failures.push(message);
}

fn run(files: &[PathBuf], tally: &mut Tally) {
    for path in files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        tally.files += 1;
        compare(path, "as written", &text, tally);
        if let Some(text) = with_attribute(&text, "#[rbac(verbs = \"get\")]") {
            compare(path, "with #[rbac]", &text, tally);
        }
        if let Some(text) = with_attribute(
            &text,
            "#[cfg_attr(feature = \"x\", kube_markers::rbac(verbs = \"get\"))]",
        ) {
            compare(path, "with cfg_attr(rbac)", &text, tally);
        }
    }
}

fn report(what: &str, tally: &Tally) {
    eprintln!(
        "{what}: {} files, {} texts compared ({} found items), {} the oracle could not parse, \
         {} accepted differences (attributes on body-less fns)",
        tally.files, tally.compared, tally.found, tally.oracle_failed, tally.accepted
    );
    assert!(
        tally.failures.is_empty(),
        "{} of {} texts differ:\n{}",
        tally.failures.len(),
        tally.compared,
        tally.failures[..tally.failures.len().min(30)].join("\n")
    );
}

#[test]
fn agrees_with_syn_on_this_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for dir in [
        "tests",
        "examples",
        "core/src",
        // Files written to break the token scan (Unicode whitespace, `union` and `gen` as
        // names, suffixes ending in `e`, a type macro with braces before a body, ...).
        "generator/tests/scan_cases",
        "generator/src",
        "registry/src",
        "rbac/src",
        "runtime/src",
        "macros/src",
        "codegen",
    ] {
        rs_files(&root.join(dir), &mut files);
    }
    if let Some(extra) = std::env::var_os("KUBE_MARKERS_SCAN_CORPUS") {
        for dir in std::env::split_paths(&extra) {
            rs_files(&dir, &mut files);
        }
    }
    files.sort();
    assert!(files.len() > 100, "{} files", files.len());
    let mut tally = Tally::default();
    run(&files, &mut tally);
    report("this repository", &tally);
}

#[test]
fn agrees_with_syn_on_registry_crates() {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(registry) = home.map(|h| h.join("registry/src")) else {
        return;
    };
    let mut files = Vec::new();
    rs_files(&registry, &mut files);
    if files.is_empty() {
        eprintln!(
            "no registry sources under {}: nothing compared",
            registry.display()
        );
        return;
    }
    files.sort();
    // A deterministic sample: every k-th file of the sorted list.
    let sample: usize = std::env::var("KUBE_MARKERS_SCAN_SAMPLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_500);
    let step = files.len().div_ceil(sample.max(1));
    let files: Vec<PathBuf> = files.into_iter().step_by(step.max(1)).collect();
    let mut tally = Tally::default();
    run(&files, &mut tally);
    report("registry crates", &tally);
}
