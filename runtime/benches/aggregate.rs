//! Aggregate + render for synthetic rule sets: `cargo bench -p kube-markers --bench aggregate`.
//! Results go into BENCHMARKS.md.

use kube_markers::rbac::{RbacMarker, generate_roles};

fn main() {
    divan::main();
}

/// `n` markers over pools wide enough that most survive as distinct rules, with enough overlap
/// that every merge pass has work: 40 groups, 400 resources, 12 namespaces, 8 verb sets.
fn synthetic(n: usize) -> Vec<RbacMarker> {
    let verb_sets: [&[&str]; 8] = [
        &["get"],
        &["get", "list", "watch"],
        &["create", "update", "patch"],
        &["delete"],
        &["*"],
        &["list", "watch"],
        &["get", "update"],
        &["patch"],
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as usize
    };
    (0..n)
        .map(|_| {
            let group = format!("group{}.example.com", next() % 40);
            let resource = format!("resource{}", next() % 400);
            let sub = next() % 3;
            let resources = match sub {
                0 => vec![resource.clone()],
                1 => vec![resource.clone(), format!("{resource}/status")],
                _ => vec![format!("{resource}/finalizers")],
            };
            let namespace = (next() % 4 == 0).then(|| format!("ns{}", next() % 12));
            RbacMarker {
                groups: vec![group],
                resources,
                verbs: verb_sets[next() % verb_sets.len()]
                    .iter()
                    .map(|v| v.to_string())
                    .collect(),
                resource_names: if next() % 10 == 0 {
                    vec![format!("name{}", next() % 5)]
                } else {
                    Vec::new()
                },
                namespace,
                ..RbacMarker::default()
            }
        })
        .collect()
}

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
