//! A generator run after the scan, in process, on the aggregate bench's synthetic attributes:
//! lints, aggregate, render, the writes and the ledger, and printing the report, each step
//! timed (`KUBE_MARKERS_TIMINGS=1`). For BENCHMARKS.md, in the profile the generator runs in:
//! `cargo run -p kube-markers-codegen --example generator_steps -- 25000 2>/dev/null`
//! prints the times to stdout; stderr gets what the generator prints.

#[path = "../benches/synthetic/mod.rs"]
mod synthetic;

use kube_markers_codegen::{__internals::print_report, Options, run_with};
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(25_000, |n| n.parse().expect("the number of attributes"));
    let entries = synthetic::entries(n);
    let entries: Vec<&kube_markers::registry::RbacEntry> = entries.iter().collect();
    let out = std::env::temp_dir().join(format!(
        "kube-markers-generator-steps-{}",
        std::process::id()
    ));
    let mut opts = Options::default();
    opts.out_dir = out.clone();
    opts.no_scan = true;
    opts.generator_name = "generator-steps".to_string();
    // SAFETY: set before any other thread runs; only this process reads it.
    unsafe { std::env::set_var("KUBE_MARKERS_TIMINGS", "1") };
    for run in ["first run (writes)", "second run (unchanged)"] {
        let start = Instant::now();
        let report = run_with(&entries, &[], &[], &opts).expect("the run succeeds");
        let ran = start.elapsed();
        let printing = Instant::now();
        print_report(&report, &opts);
        println!(
            "{run}: {n} attributes, {} lint warning(s): run {:.1} ms, printing {:.1} ms",
            report.lints.len(),
            ran.as_secs_f64() * 1000.0,
            printing.elapsed().as_secs_f64() * 1000.0
        );
    }
    std::fs::remove_dir_all(&out).expect("the output directory is removed");
}
