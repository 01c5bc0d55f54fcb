//! Time and peak heap of aggregate + render on the aggregate bench's synthetic markers, for
//! BENCHMARKS.md: `cargo run --release -p kube-markers-codegen --example aggregate_memory -- 100000`
//! (run it under `/usr/bin/time -v` for the process's peak resident memory too).

#[path = "../benches/synthetic/mod.rs"]
mod synthetic;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// The system allocator, counting the bytes live and the most ever live at once.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counters only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        // SAFETY: the caller's contract for `alloc` is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: `ptr` came from `alloc` above, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
            PEAK.fetch_max(live, Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        // SAFETY: as for `alloc`; `ptr` and `layout` are the caller's, unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The time this thread has run on a CPU (Linux's `/proc/thread-self/schedstat`), which other
/// processes on a loaded machine do not inflate as they do wall time.
fn cpu_time() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(nanos))
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("the number of markers"))
        .unwrap_or(100_000);
    let markers = synthetic::markers(n);
    let input = LIVE.load(Relaxed);
    PEAK.store(input, Relaxed);
    let start = Instant::now();
    let cpu_start = cpu_time();
    let roles = kube_markers_rbac::generate_roles(&markers, "manager-role");
    let aggregated = start.elapsed();
    let yaml = kube_markers_codegen::render_roles(&roles, "");
    let total = start.elapsed();
    let cpu = cpu_time().zip(cpu_start).map(|(end, start)| end - start);
    let rules: usize = roles.iter().map(|r| r.rules.len()).sum();
    println!(
        "{n} markers -> {} roles, {rules} rules, {:.1} MiB of YAML",
        roles.len(),
        mib(yaml.len())
    );
    println!(
        "aggregate {:.1} ms, aggregate + render {:.1} ms (on CPU: {})",
        aggregated.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3,
        cpu.map_or("unknown".into(), |cpu| format!(
            "{:.1} ms",
            cpu.as_secs_f64() * 1e3
        ))
    );
    println!(
        "heap: markers {:.1} MiB; peak during aggregate + render {:.1} MiB above them",
        mib(input),
        mib(PEAK.load(Relaxed) - input)
    );
}
