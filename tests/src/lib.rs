//! Helpers shared by kube-markers' integration tests (the tests themselves are in `tests/`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Builds (or reuses) a reference oracle with one of the repository's pinned build scripts
/// (`scripts/<script>`) and returns the binary's path.
///
/// Returns `None` only when `KUBE_MARKERS_SKIP_ORACLE=1` is set, and says so; a failed build
/// fails the test, so a missing Go never passes for a green run.
pub fn oracle(script: &str) -> Option<PathBuf> {
    if std::env::var_os("KUBE_MARKERS_SKIP_ORACLE").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED: KUBE_MARKERS_SKIP_ORACLE=1, test against scripts/{script} not run");
        return None;
    }
    let out = Command::new("bash")
        .arg(workspace_root().join("scripts").join(script))
        .output()
        .unwrap_or_else(|e| panic!("cannot run scripts/{script}: {e}"));
    assert!(
        out.status.success(),
        "scripts/{script} failed (Go is needed; KUBE_MARKERS_SKIP_ORACLE=1 skips the oracle tests):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()))
}

/// A small deterministic generator (xorshift64*), so a failing corpus reproduces.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}
