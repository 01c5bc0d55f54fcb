//! Rule sets for tests and benchmarks of the aggregation and what renders it: pseudo-random
//! markers over pools small enough that every merge pass and collision happens. Not an API.

use crate::aggregate::RbacMarker;
use kube_markers_core::model::Text;

/// Pseudo-random markers over small pools, so that every merge pass and collision happens.
pub fn random_markers(seed: u64, n: usize) -> Vec<RbacMarker> {
    let mut state = seed;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let pick = |next: &mut dyn FnMut(usize) -> usize, pool: &[&'static str], max: usize| {
        let count = 1 + next(max);
        (0..count)
            .map(|_| Text::Borrowed(pool[next(pool.len())]))
            .collect::<Vec<_>>()
    };
    (0..n)
        .map(|_| {
            if next(8) == 0 {
                RbacMarker {
                    urls: pick(&mut next, &["/metrics", "/healthz", "/readyz*"], 2),
                    verbs: pick(&mut next, &["get", "post"], 2),
                    ..RbacMarker::default()
                }
            } else {
                RbacMarker {
                    groups: pick(&mut next, &["", "core", "apps", "batch", "*"], 2),
                    resources: pick(&mut next, &["pods", "jobs", "jobs/status", "*"], 2),
                    resource_names: if next(6) == 0 {
                        pick(&mut next, &["a", "b"], 2)
                    } else {
                        Vec::new()
                    },
                    verbs: pick(&mut next, &["get", "list", "create", "*"], 3),
                    namespace: (next(5) == 0).then(|| "ns".into()),
                    ..RbacMarker::default()
                }
            }
        })
        .collect()
}

/// Markers over pools chosen to make every pass merge and collide, with strings that need
/// quotes or none, and values holding `&` and ` + ` so that distinct rules share a sort key.
pub fn tricky_markers(seed: u64, n: usize) -> Vec<RbacMarker> {
    let mut state = seed;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let groups = ["", "core", "apps", "a&b", "a", "b", "*", "x.io", "true"];
    let resources = [
        "pods",
        "jobs",
        "jobs/status",
        "*",
        "*/scale",
        "b + c",
        "b",
        "c",
        "a&b",
        "web-0",
        "123",
    ];
    let names = ["a", "b", "", "a b", "*"];
    let verbs = [
        "get",
        "list",
        "create",
        "*",
        "watch",
        "impersonate:user-info",
    ];
    let urls = ["/metrics", "/healthz", "/readyz*", "*", "/a&b"];
    let mut pick = |pool: &[&'static str], max: usize| -> Vec<Text> {
        (0..1 + next(max))
            .map(|_| Text::Borrowed(pool[next(pool.len())]))
            .collect()
    };
    (0..n)
        .map(|i| {
            let mut m = if i % 7 == 3 {
                RbacMarker {
                    urls: pick(&urls, 2),
                    verbs: pick(&verbs, 2),
                    ..RbacMarker::default()
                }
            } else {
                RbacMarker {
                    groups: pick(&groups, 2),
                    resources: pick(&resources, 3),
                    resource_names: if i % 5 == 0 {
                        pick(&names, 2)
                    } else {
                        Vec::new()
                    },
                    verbs: pick(&verbs, 3),
                    ..RbacMarker::default()
                }
            };
            match i % 9 {
                0 => m.namespace = Some("ns".into()),
                1 => m.namespace = Some("yes".into()),
                2 => m.role_name = Some("other".into()),
                _ => {}
            }
            m
        })
        .collect()
}
