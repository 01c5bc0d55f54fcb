//! The run's profiler.

/// With `KUBE_MARKERS_TIMINGS=1`, the time each step of a run took, printed to stderr: for
/// profiling the generator where users run it (`cargo run -p codegen`). Wall time, and where
/// Linux tells (`/proc/thread-self/schedstat`) the time the thread ran on a CPU, which other
/// processes of a loaded machine do not inflate (to the scheduler's tick, a few ms).
pub(crate) struct Timings(Option<(std::time::Instant, Option<u64>)>);

impl Timings {
    pub(crate) fn from_env() -> Self {
        let on = std::env::var_os("KUBE_MARKERS_TIMINGS").is_some_and(|v| v == "1");
        Timings(on.then(|| (std::time::Instant::now(), Self::cpu_nanos())))
    }

    fn cpu_nanos() -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        stat.split_whitespace().next()?.parse().ok()
    }

    pub(crate) fn lap(&mut self, step: &str) {
        if let Some((start, cpu_start)) = &mut self.0 {
            let cpu = Self::cpu_nanos();
            let on_cpu = match (*cpu_start, cpu) {
                (Some(from), Some(to)) => {
                    format!(" ({:.1} ms on CPU)", to.saturating_sub(from) as f64 / 1e6)
                }
                _ => String::new(),
            };
            eprintln!(
                "timing: {step}: {:.1} ms{on_cpu}",
                start.elapsed().as_secs_f64() * 1000.0
            );
            *start = std::time::Instant::now();
            *cpu_start = cpu;
        }
    }
}
