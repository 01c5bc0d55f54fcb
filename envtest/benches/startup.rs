//! Start-up time and memory of an envtest: `cargo bench -p kube-markers-envtest --bench startup`.
//! Needs the binaries of `scripts/envtest-assets.sh` (or KUBEBUILDER_ASSETS).

use kube_markers_envtest::Envtest;
use std::path::Path;

fn main() {
    divan::main();
}

fn assets() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/envtest-assets.sh");
    let out = std::process::Command::new("bash")
        .arg(script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// From nothing to a ready API server (etcd started, TLS generated, /readyz ok), and back.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn start_until_ready_and_stop(bencher: divan::Bencher) {
    let assets = assets();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    bencher.bench_local(|| {
        runtime.block_on(async {
            let env = Envtest::builder().assets(&assets).start().await.unwrap();
            // Resident memory right after start, for BENCHMARKS.md.
            eprintln!(
                "ready in {:?}, kube-apiserver + etcd resident memory {} MiB",
                env.startup,
                env.resident_memory().unwrap_or(0) / (1024 * 1024)
            );
            drop(env);
        })
    });
}
