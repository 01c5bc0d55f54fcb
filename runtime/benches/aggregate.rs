//! Aggregate + render for synthetic rule sets, and `codegen explain` and the lints on the same
//! attributes: `cargo bench -p kube-markers --features codegen --bench aggregate`.
//! Results go into BENCHMARKS.md.

use kube_markers::codegen::explain::{self, ExplainOptions, Format};
use kube_markers::rbac::generate_roles;
use kube_markers::registry::{RbacEntry, Source};

fn main() {
    divan::main();
}

mod synthetic;

use synthetic::markers as synthetic;

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 10)]
fn aggregate_and_render(bencher: divan::Bencher, n: usize) {
    let markers = synthetic(n);
    bencher.bench(|| {
        let roles = generate_roles(&markers, "manager-role");
        kube_markers::codegen::render_roles(&roles, "")
    });
}

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 10)]
fn aggregate_only(bencher: divan::Bencher, n: usize) {
    let markers = synthetic(n);
    bencher.bench(|| generate_roles(&markers, "manager-role"));
}

/// The synthetic markers as registry entries (one attribute each, a file of 100 per module),
/// as `explain` and the lints read them from the registry.
fn synthetic_entries(n: usize) -> Vec<&'static RbacEntry> {
    fn leak(list: &[String]) -> &'static [&'static str] {
        let strs: Vec<&'static str> = list
            .iter()
            .map(|s| &*Box::leak(s.clone().into_boxed_str()))
            .collect();
        Box::leak(strs.into_boxed_slice())
    }
    synthetic(n)
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let file: &'static str = Box::leak(format!("src/m{}.rs", i / 100).into_boxed_str());
            let entry = RbacEntry::__new(
                leak(&m.groups),
                leak(&m.resources),
                leak(&m.resource_names),
                leak(&m.verbs),
                leak(&m.urls),
                m.namespace.map(|s| &*Box::leak(s.into_boxed_str())),
                m.role_name.map(|s| &*Box::leak(s.into_boxed_str())),
                &[],
                Source::__new(file, (i % 100) as u32 * 10 + 1, 1, "op::m", "reconcile"),
                "",
            );
            &*Box::leak(Box::new(entry))
        })
        .collect()
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
    let opts = explain_options(Format::Text);
    bencher.bench(|| explain::run(&opts, &entries).0);
}

/// The same, `--format json`.
#[divan::bench(args = [1_000, 10_000], sample_count = 10)]
fn explain_json(bencher: divan::Bencher, n: usize) {
    let entries = synthetic_entries(n);
    let opts = explain_options(Format::Json);
    bencher.bench(|| explain::run(&opts, &entries).0);
}

/// The lints a generator run checks (every lint, `redundant` included).
#[divan::bench(args = [1_000, 10_000], sample_count = 10)]
fn lints(bencher: divan::Bencher, n: usize) {
    let entries = synthetic_entries(n);
    bencher.bench(|| kube_markers::codegen::lints::check_entries(&entries, "manager-role"));
}
