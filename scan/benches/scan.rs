//! The workspace scan's per-file cost, on text alone (no compiled crate needed):
//! `cargo bench -p kube-markers-scan --bench scan`.
//!
//! The sources are shaped as `scripts/bench-vs-controller-gen.sh` generates them: 100
//! `#[rbac]`-annotated functions a file, 25 files for 2,500 rules (250 for 25,000 would be
//! ten times the same). `token_scan` is what the generator runs now (`scan_source`, and no
//! argument parsing: the cross-check compares the arguments' text with the registry's);
//! `syn_scan` is what it ran before (`syn::parse_file`, the syn visitor, and every `#[rbac]`'s
//! arguments parsed with the macro's parser).

use kube_markers_scan::{normalized_text, scan_file, scan_source};
use std::fmt::Write;

fn main() {
    divan::main();
}

/// `n` files of 100 attributed functions each.
fn files(n: usize) -> Vec<String> {
    let verbs = [
        "get;list;watch",
        "create;patch",
        "get",
        "delete;deletecollection",
    ];
    (0..n)
        .map(|f| {
            let mut text = String::from("use kube_markers::rbac;\n\n");
            for i in 0..100 {
                let n = f * 100 + i;
                let _ = writeln!(
                    text,
                    "#[rbac(groups = \"group{}.example.com\", resources = \"resource{}\", verbs = \"{}\"{})]\n\
                     pub async fn reconcile_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n",
                    n % 40,
                    n,
                    verbs[n % 4],
                    if n % 4 == 0 { ", namespace = \"ns1\"" } else { "" }
                );
            }
            text
        })
        .collect()
}

/// What the generator runs now on `files`: the token scan, and the cross-check's text test
/// of each `#[rbac]`'s arguments.
fn token_scan(files: &[String]) -> usize {
    let mut found = 0;
    for text in files {
        let scan = scan_source(text).unwrap();
        for a in &scan.attrs {
            found += normalized_text(&a.args).map_or(0, |t| t.len());
        }
    }
    found
}

/// What it ran before: syn's parse, the syn visitor, every `#[rbac]`'s arguments parsed.
fn syn_scan(files: &[String]) -> usize {
    let mut found = 0;
    for text in files {
        let scan = scan_file(&syn::parse_file(text).unwrap());
        for a in &scan.attrs {
            let tokens = a.args.parse().unwrap();
            found += kube_markers_core::rbac::parse_marker(tokens).is_ok() as usize;
        }
    }
    found
}

#[divan::bench(sample_count = 10)]
fn token_scan_2500(bencher: divan::Bencher) {
    let files = files(25);
    bencher.bench(|| token_scan(&files));
}

#[divan::bench(sample_count = 10)]
fn syn_scan_2500(bencher: divan::Bencher) {
    let files = files(25);
    bencher.bench(|| syn_scan(&files));
}

#[divan::bench(sample_count = 5)]
fn token_scan_25000(bencher: divan::Bencher) {
    let files = files(250);
    bencher.bench(|| token_scan(&files));
}

#[divan::bench(sample_count = 5)]
fn syn_scan_25000(bencher: divan::Bencher) {
    let files = files(250);
    bencher.bench(|| syn_scan(&files));
}
