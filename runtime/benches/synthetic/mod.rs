//! The synthetic markers of the aggregate bench, shared with `examples/aggregate_memory.rs`.

use kube_markers::rbac::RbacMarker;
use kube_markers::registry::{RbacEntry, Source};

/// `n` markers over pools wide enough that most survive as distinct rules, with enough overlap
/// that every merge pass has work: 40 groups, 400 resources, 12 namespaces, 8 verb sets.
pub fn markers(n: usize) -> Vec<RbacMarker> {
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

/// The same markers as registry entries (one attribute each, a file of 100 per module), as a
/// generator run, `explain` and the lints read them from the registry.
#[allow(dead_code)] // the memory example uses only the markers
pub fn entries(n: usize) -> Vec<&'static RbacEntry> {
    markers(n)
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let file: &'static str = Box::leak(format!("src/m{}.rs", i / 100).into_boxed_str());
            let line = (i % 100) as u32 * 10 + 1;
            RbacEntry::__leaked(&m, Source::__new(file, line, 1, "op::m", "reconcile"))
        })
        .collect()
}
