//! Aggregate + render for synthetic rule sets, and `codegen explain` and the lints on the same
//! attributes: `cargo bench -p kube-markers-codegen --bench aggregate`.
//! Results go into BENCHMARKS.md.

use kube_markers_codegen::explain::{self, ExplainOptions, Format};
use kube_markers_rbac::generate_roles;

fn main() {
    divan::main();
}

mod synthetic;

use synthetic::{entries as synthetic_entries, markers as synthetic};

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 10)]
fn aggregate_and_render(bencher: divan::Bencher, n: usize) {
    let markers = synthetic(n);
    bencher.bench(|| {
        let roles = generate_roles(&markers, "manager-role");
        kube_markers_codegen::render_roles(&roles, "")
    });
}

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 10)]
fn aggregate_only(bencher: divan::Bencher, n: usize) {
    let markers = synthetic(n);
    bencher.bench(|| generate_roles(&markers, "manager-role"));
}

fn explain_options(format: Format) -> ExplainOptions {
    let mut options = ExplainOptions::default();
    options.format = format;
    options
}

/// `codegen explain` without a question: aggregate with provenance and print every rule.
#[divan::bench(args = [1_000, 10_000], sample_count = 10)]
fn explain_text(bencher: divan::Bencher, n: usize) {
    let entries = synthetic_entries(n);
    let entries: Vec<&kube_markers::registry::RbacEntry> = entries.iter().collect();
    let opts = explain_options(Format::Text);
    bencher.bench(|| explain::run(&opts, &entries, Vec::new).0);
}

/// The same, `--format json`.
#[divan::bench(args = [1_000, 10_000], sample_count = 10)]
fn explain_json(bencher: divan::Bencher, n: usize) {
    let entries = synthetic_entries(n);
    let entries: Vec<&kube_markers::registry::RbacEntry> = entries.iter().collect();
    let opts = explain_options(Format::Json);
    bencher.bench(|| explain::run(&opts, &entries, Vec::new).0);
}

/// The lints a generator run checks (every lint, `redundant` included).
#[divan::bench(args = [1_000, 10_000], sample_count = 10)]
fn lints(bencher: divan::Bencher, n: usize) {
    let entries = synthetic_entries(n);
    let entries: Vec<&kube_markers::registry::RbacEntry> = entries.iter().collect();
    bencher.bench(|| kube_markers_codegen::lints::check_entries(&entries, "manager-role"));
}
