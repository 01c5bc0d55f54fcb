//! Shared by the end-to-end tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// kube-apiserver and etcd: `KUBEBUILDER_ASSETS`, else the pinned build of
/// `scripts/envtest-assets.sh` (which also honours `KUBEBUILDER_ASSETS`).
pub fn assets() -> PathBuf {
    let out = Command::new("bash")
        .arg(root().join("scripts/envtest-assets.sh"))
        .output()
        .expect("run scripts/envtest-assets.sh");
    assert!(
        out.status.success(),
        "scripts/envtest-assets.sh failed (Go is needed to build kube-apiserver and etcd):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// An oracle built by `scripts/<script>` (helm, kubectl 1.37); `None` (the test skips) with
/// `KUBE_MARKERS_SKIP_ORACLE=1`.
#[allow(dead_code)] // not every suite runs an oracle
pub fn oracle(script: &str) -> Option<PathBuf> {
    if std::env::var_os("KUBE_MARKERS_SKIP_ORACLE").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED: KUBE_MARKERS_SKIP_ORACLE=1, scripts/{script} is not run");
        return None;
    }
    let out = Command::new("bash")
        .arg(root().join("scripts").join(script))
        .output()
        .unwrap_or_else(|e| panic!("run scripts/{script}: {e}"));
    assert!(
        out.status.success(),
        "scripts/{script} failed (Go is needed; KUBE_MARKERS_SKIP_ORACLE=1 skips):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()))
}

/// The API server's refusal of a request, as (HTTP code, message).
#[allow(dead_code)] // not every suite is refused
pub fn refusal<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message.clone()),
        other => panic!("expected the API server to refuse, got {other:?}"),
    }
}

/// A merge patch of `spec` into the object `name`.
#[allow(dead_code)] // not every suite patches
pub async fn patch_spec(
    api: &kube::Api<kube::api::DynamicObject>,
    name: &str,
    spec: serde_json::Value,
) -> Result<kube::api::DynamicObject, kube::Error> {
    let patch = kube::api::Patch::Merge(serde_json::json!({ "spec": spec }));
    api.patch(name, &kube::api::PatchParams::default(), &patch)
        .await
}

#[allow(dead_code)]
pub mod bundle;
#[allow(dead_code)]
pub mod operators;
