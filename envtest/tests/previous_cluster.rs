//! `check-crds --previous cluster` on a real API server: the CRDs kubectl lists in the
//! kubeconfig's current context carry `status.storedVersions`, which the comparison reads.

mod common;

use common::assets;
use kube_markers::codegen::cli::upgrade::{conversion_left_behind, from_cluster};
use kube_markers_compat::{Check, Policy, Severity, compare_sets};
use kube_markers_envtest::Envtest;
use serde_json::{Value, json};

fn version(name: &str, storage: bool) -> Value {
    json!({
        "name": name, "served": true, "storage": storage,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
        }}}
    })
}

fn crd(versions: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
            "versions": versions
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn previous_cluster_reads_installed_crds_with_their_stored_versions() {
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("widgets.yaml");
    // Installed at v1beta1, then upgraded to store v1: both are stored versions.
    for storage_v1 in [false, true] {
        let installed = crd(vec![
            version("v1beta1", !storage_v1),
            version("v1", storage_v1),
        ]);
        std::fs::write(&file, installed.to_string()).unwrap();
        env.apply_file(&file).await.unwrap();
    }
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let listed = from_cluster(Some(&kubeconfig)).unwrap();
    let old: Vec<Value> = listed
        .into_iter()
        .filter(|c| c["metadata"]["name"] == "widgets.example.com")
        .collect();
    assert_eq!(old.len(), 1);
    assert_eq!(old[0]["status"]["storedVersions"], json!(["v1beta1", "v1"]));

    // The next release drops v1beta1: objects may still be stored at it (reported once, as
    // the stored version the API server would refuse to drop).
    let next = crd(vec![version("v1", true)]);
    let findings = compare_sets(&old, std::slice::from_ref(&next), &Policy::default()).unwrap();
    let checks: Vec<(Check, &str, Severity)> = findings
        .iter()
        .map(|f| (f.check, f.version.as_str(), f.severity))
        .collect();
    assert_eq!(
        checks,
        [(Check::StoredVersionRemoval, "v1beta1", Severity::Error)]
    );

    // Migrated: storedVersions trimmed to v1, as a storage migration leaves it. Dropping
    // v1beta1 then leaves no object behind; its clients get 404, a warning.
    let patched = std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args([
            "patch",
            "customresourcedefinitions.apiextensions.k8s.io",
            "widgets.example.com",
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"storedVersions":["v1"]}}"#,
        ])
        .output()
        .expect("run kubectl");
    assert!(
        patched.status.success(),
        "{}",
        String::from_utf8_lossy(&patched.stderr)
    );
    let migrated: Vec<Value> = from_cluster(Some(&kubeconfig))
        .unwrap()
        .into_iter()
        .filter(|c| c["metadata"]["name"] == "widgets.example.com")
        .collect();
    assert_eq!(migrated[0]["status"]["storedVersions"], json!(["v1"]));
    let findings = compare_sets(&migrated, &[next], &Policy::default()).unwrap();
    let checks: Vec<(Check, &str, Severity)> = findings
        .iter()
        .map(|f| (f.check, f.version.as_str(), f.severity))
        .collect();
    assert_eq!(
        checks,
        [(Check::ServedVersionRemoval, "v1beta1", Severity::Warn)]
    );
    // Unchanged, it passes.
    let same = crd(vec![version("v1beta1", false), version("v1", true)]);
    assert_eq!(compare_sets(&old, &[same], &Policy::default()).unwrap(), []);
}

fn kubectl(kubeconfig: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .output()
        .expect("run kubectl")
}

/// The way out `check-crds --previous cluster` names for a CRD whose conversion is dropped
/// while the webhook server's field manager owns its `caBundle`, run as printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_check_crds_names_lets_the_crd_drop_its_conversion() {
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("widgets.yaml");
    let mut converting = crd(vec![version("v1", true)]);
    converting["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://127.0.0.1:9443/convert"},
    }});
    std::fs::write(&file, converting.to_string()).unwrap();
    let out = kubectl(
        &kubeconfig,
        &["apply", "--server-side", "-f", file.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The webhook server's write: a merge patch under its field manager.
    let ca = kube_markers_envtest::TestCa::new("previous cluster test CA").unwrap();
    let bundle = json!({"spec": {"conversion": {"webhook": {"clientConfig": {
        "caBundle": k8s_openapi::ByteString(ca.pem().as_bytes().to_vec())}}}}});
    let out = kubectl(
        &kubeconfig,
        &[
            "patch",
            "crd",
            "widgets.example.com",
            "--type=merge",
            "--field-manager=kube-markers-webhook-server",
            "-p",
            &bundle.to_string(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let installed = || -> Vec<Value> {
        from_cluster(Some(&kubeconfig))
            .unwrap()
            .into_iter()
            .filter(|c| c["metadata"]["name"] == "widgets.example.com")
            .collect()
    };
    let next = crd(vec![version("v1", true)]);
    let findings = conversion_left_behind(&installed(), std::slice::from_ref(&next));
    assert_eq!(findings.len(), 1, "{findings:?}");
    let command = findings[0]
        .message
        .split("then apply: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no command in {}", findings[0].message))
        .to_string();
    std::fs::write(&file, next.to_string()).unwrap();
    let apply = || {
        kubectl(
            &kubeconfig,
            &["apply", "--server-side", "-f", file.to_str().unwrap()],
        )
    };
    // As foreseen, then the command as a shell runs it, then the apply.
    let refused = apply();
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("should not be set when strategy is not set to Webhook"),
        "{refused:?}"
    );
    let removed = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .unwrap();
    assert!(removed.status.success(), "{command}: {removed:?}");
    assert!(conversion_left_behind(&installed(), std::slice::from_ref(&next)).is_empty());
    let applied = apply();
    assert!(applied.status.success(), "{applied:?}");
    assert_eq!(
        installed()[0]["spec"]["conversion"],
        json!({"strategy": "None"})
    );
}
