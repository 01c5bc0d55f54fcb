//! The synthetic markers of the aggregate bench, shared with `examples/aggregate_memory.rs`.

use kube_markers::registry::{Attribute, RbacEntry, RbacMarker, Source, Text};

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
            let resources: Vec<Text> = match sub {
                0 => vec![resource.clone().into()],
                1 => vec![resource.clone().into(), format!("{resource}/status").into()],
                _ => vec![format!("{resource}/finalizers").into()],
            };
            let namespace = (next() % 4 == 0).then(|| format!("ns{}", next() % 12).into());
            RbacMarker {
                groups: vec![group.into()],
                resources,
                verbs: verb_sets[next() % verb_sets.len()]
                    .iter()
                    .map(|v| Text::Borrowed(v))
                    .collect(),
                resource_names: if next() % 10 == 0 {
                    vec![format!("name{}", next() % 5).into()]
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
pub fn entries(n: usize) -> Vec<RbacEntry> {
    markers(n)
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let file = format!("src/m{}.rs", i / 100);
            let line = (i % 100) as u32 * 10 + 1;
            Attribute::new(m, Source::new(file, line, 1, "op::m", "reconcile"), "")
        })
        .collect()
}
