//! The examples' deploy bundle (`rbac-out/kustomization.yaml`), as kubectl renders and
//! installs it.

use super::root;
use kube_markers_envtest::{Envtest, parse_manifests};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// `kubectl kustomize <dir>`: the objects, or a panic with kubectl's message.
pub fn kustomize(dir: &Path) -> Vec<Value> {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .expect("run kubectl (it is needed for the bundle tests)");
    assert!(
        out.status.success(),
        "kubectl kustomize {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_manifests(&String::from_utf8(out.stdout).unwrap()).unwrap()
}

/// The examples' bundle, rendered.
pub fn rendered() -> Vec<Value> {
    kustomize(&root().join("rbac-out"))
}

/// `kubectl <args>` as the environment's admin.
pub fn kubectl(env: &Envtest, args: &[&str]) -> Output {
    Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(env.admin_kubeconfig().unwrap())
        .args(args)
        .current_dir(root())
        .output()
        .expect("run kubectl")
}

/// The objects of `kind`.
pub fn of_kind<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

/// The one object of `kind` named `name`.
pub fn named<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    let found: Vec<&Value> = docs
        .iter()
        .filter(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .collect();
    assert_eq!(found.len(), 1, "one {kind} {name} in the bundle");
    found[0]
}

/// The generated ServiceAccount: `(namespace, name)`.
pub fn service_account(docs: &[Value]) -> (String, String) {
    let accounts = of_kind(docs, "ServiceAccount");
    assert_eq!(accounts.len(), 1, "the bundle has one ServiceAccount");
    let meta = &accounts[0]["metadata"];
    (
        meta["namespace"].as_str().unwrap().to_string(),
        meta["name"].as_str().unwrap().to_string(),
    )
}

/// The namespace of an object (`""` for cluster-scoped ones).
pub fn namespace_of(doc: &Value) -> &str {
    doc["metadata"]["namespace"].as_str().unwrap_or_default()
}
