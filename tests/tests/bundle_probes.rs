//! An operator that serves its own health endpoint and metrics (controller-rs: `/health` and
//! `/metrics` on 8080, no readiness endpoint), in a workspace of the user's own outside this
//! one (`outside/mod.rs`): the bundle's metadata names the probe path and port, leaves the
//! readiness probe out and declares the metrics port; a bad value stops the run with an error
//! naming the key and the `Cargo.toml`, and writes nothing.

#[allow(dead_code)] // shared with the other outside-workspace tests
mod outside;
use outside::{quick_start_workspace, run_generator, write};
use std::process::Output;

const LIB: &str = r#"use kube_markers::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "get;list;watch")]
pub async fn reconcile() {}
"#;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_bundles_metadata_names_the_operators_own_probes_and_metrics() {
    let ws = quick_start_workspace("bundle-probes", LIB);
    let manifest = ws.join("codegen/Cargo.toml");
    let cargo_toml = std::fs::read_to_string(&manifest).unwrap();
    let with_table = |keys: &str| {
        write(
            &manifest,
            &format!(
                "{cargo_toml}\n[package.metadata.kube-markers.bundle]\nname = \"doc-controller\"\n{keys}"
            ),
        )
    };
    with_table(
        "health-probe-port = 8080\nliveness-probe-path = \"/health\"\n\
         readiness-probe-path = false\nmetrics-port = 8080\n",
    );
    let out = run_generator(&ws, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out_dir = ws.join("rbac-out");
    let manager = std::fs::read_to_string(out_dir.join("manager.yaml")).unwrap();
    assert!(
        manager.contains(
            "        livenessProbe:\n          httpGet:\n            path: /health\n            \
             port: 8080\n"
        ),
        "{manager}"
    );
    assert!(!manager.contains("readinessProbe"), "{manager}");
    assert!(
        manager
            .contains("        ports:\n        - containerPort: 8080\n          name: metrics\n"),
        "{manager}"
    );
    let service = std::fs::read_to_string(out_dir.join("metrics_service.yaml")).unwrap();
    assert!(
        service.contains("  name: controller-manager-metrics-service\n"),
        "{service}"
    );
    let kustomization = std::fs::read_to_string(out_dir.join("kustomization.yaml")).unwrap();
    assert!(
        kustomization.contains("- metrics_service.yaml\n"),
        "{kustomization}"
    );
    let monitor =
        std::fs::read_to_string(out_dir.join("chart/templates/service_monitor.yaml")).unwrap();
    assert!(monitor.contains("    path: /metrics\n"), "{monitor}");

    // Each bad value: the key, the value and the Cargo.toml named; no panic; nothing changed.
    let place = format!(
        "[package.metadata.kube-markers.bundle] in {}",
        manifest.display()
    );
    for (keys, expected) in [
        (
            "liveness-probe-path = \"health\"\n",
            format!(
                "{place}: `liveness-probe-path = \"health\"` is not an HTTP path: it must start \
                 with `/` and hold no white space"
            ),
        ),
        (
            "metrics-port = 70000\n",
            format!("{place}: `metrics-port = 70000` is not a port (1 to 65535)"),
        ),
        (
            "health-probe-port = 0\n",
            format!("{place}: `health-probe-port = 0` is not a port (1 to 65535)"),
        ),
        (
            "readiness-probe-path = true\n",
            format!(
                "{place}: `readiness-probe-path` must be a path starting with `/`, or false (no \
                 probe), not the boolean true"
            ),
        ),
    ] {
        with_table(keys);
        let out = run_generator(&ws, &[]);
        let text = stderr(&out);
        assert!(!out.status.success(), "{keys}: {text}");
        assert!(
            text.contains(&expected),
            "{keys}: expected {expected:?} in {text}"
        );
        assert!(!text.contains("panicked"), "{text}");
        assert_eq!(
            std::fs::read_to_string(out_dir.join("manager.yaml")).unwrap(),
            manager
        );
    }
}
