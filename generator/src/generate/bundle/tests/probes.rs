//! The probes' port and paths and the metrics endpoint, as the bundle's metadata names them:
//! parsed, checked (each bad value an error naming the key and the Cargo.toml), and written
//! into the Deployment and the metrics Service.

use super::*;

const PLACE: &str = "[package.metadata.kube-markers.bundle] in /ws/codegen/Cargo.toml";

fn resolved(table: Value) -> Identity {
    let meta = metadata(Value::Null, table);
    resolve_with(&BundleFlags::default(), &meta, &["op"])
        .unwrap()
        .unwrap()
}

fn refused(table: Value) -> Vec<String> {
    let meta = metadata(Value::Null, table);
    resolve_with(&BundleFlags::default(), &meta, &["op"]).unwrap_err()
}

/// The manager Deployment of `id`'s bundle (with the test's webhook configurations when
/// `id.webhooks`).
fn manager(id: &Identity) -> Value {
    let (entries, crds) = shop();
    let roles = roles_of(&entries);
    let refs: Vec<&RbacEntry> = entries.iter().collect();
    let configurations = webhook_configurations();
    let input = Input {
        roles: &roles,
        entries: &refs,
        default_role_name: "manager-role",
        crds: &crds,
        listed_files: &[PathBuf::from("role.yaml")],
        header: "",
        regenerate: "`cargo run -p codegen`",
        webhook_configurations: if id.webhooks { &configurations } else { &[] },
        webhook_file: Some(Path::new("webhook/manifests.yaml")),
    };
    own_resources(id, &input)
        .unwrap()
        .into_iter()
        .flat_map(|(_, docs)| docs)
        .find(|d| d["kind"] == "Deployment")
        .unwrap()
}

#[test]
fn by_default_the_probes_are_controller_runtimes_and_there_is_no_metrics_endpoint() {
    let id = resolved(json!({}));
    assert_eq!(id.liveness_probe_path.as_deref(), Some("/healthz"));
    assert_eq!(id.readiness_probe_path.as_deref(), Some("/readyz"));
    assert_eq!(
        (id.metrics_port, id.metrics_path.as_str()),
        (None, "/metrics")
    );
    let container = &manager(&id)["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        container["livenessProbe"]["httpGet"],
        json!({"path": "/healthz", "port": 8081})
    );
    assert_eq!(
        container["readinessProbe"]["httpGet"],
        json!({"path": "/readyz", "port": 8081})
    );
    assert!(container.get("ports").is_none(), "{container}");
}

/// controller-rs: `/health` on 8080, no `/readyz`, and `/metrics` on the same port.
#[test]
fn an_operator_names_its_own_probe_path_and_port_and_no_readiness_probe() {
    let id = resolved(json!({
        "health-probe-port": 8080,
        "liveness-probe-path": "/health",
        "readiness-probe-path": false,
        "metrics-port": 8080,
    }));
    assert_eq!(id.health_probe_port, 8080);
    assert_eq!(id.liveness_probe_path.as_deref(), Some("/health"));
    assert_eq!(id.readiness_probe_path, None);
    assert_eq!(id.metrics_port, Some(8080));
    let container = &manager(&id)["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        container["livenessProbe"]["httpGet"],
        json!({"path": "/health", "port": 8080})
    );
    assert!(container.get("readinessProbe").is_none(), "{container}");
    assert_eq!(
        container["ports"],
        json!([{"containerPort": 8080, "name": "metrics", "protocol": "TCP"}])
    );
    assert_eq!(
        container["env"][2],
        json!({"name": "HEALTH_PROBE_PORT", "value": "8080"})
    );
    // kaniop: `/healthz` on 8080, no `/readyz`; and an operator with no probe at all.
    let id = resolved(json!({
        "health-probe-port": 8080, "readiness-probe-path": false,
        "liveness-probe-path": false,
    }));
    let container = &manager(&id)["spec"]["template"]["spec"]["containers"][0];
    assert!(container.get("livenessProbe").is_none() && container.get("readinessProbe").is_none());
    // A readiness path of its own, and the default liveness path.
    let id = resolved(json!({"readiness-probe-path": "/ready?full=1"}));
    let container = &manager(&id)["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(
        container["readinessProbe"]["httpGet"]["path"],
        "/ready?full=1"
    );
}

#[test]
fn a_metrics_port_adds_the_container_port_and_the_metrics_service() {
    let mut id = identity(false);
    id.metrics_port = Some(9090);
    id.metrics_path = "/stats".into();
    let (entries, crds) = shop();
    let files = generate_for(&id, &entries, &crds).unwrap();
    assert!(paths(&files).contains(&"metrics_service.yaml".to_string()));
    let kustomization = file(&files, "kustomization.yaml");
    assert!(
        kustomization.contains("- metrics_service.yaml\n"),
        "{kustomization}"
    );
    insta::assert_snapshot!(
        "metrics__metrics_service.yaml",
        file(&files, "metrics_service.yaml")
    );
    insta::assert_snapshot!("metrics__manager.yaml", file(&files, "manager.yaml"));
    // Without a port: no Service.
    let files = generate_for(&identity(false), &entries, &crds).unwrap();
    assert!(!paths(&files).contains(&"metrics_service.yaml".to_string()));
}

#[test]
fn with_webhooks_the_metrics_port_comes_first_and_the_webhook_port_is_refused() {
    let mut id = identity(false);
    id.webhooks = true;
    id.metrics_port = Some(8443);
    let deployment = manager(&id);
    let names: Vec<&Value> = deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["name"])
        .collect();
    assert_eq!(names, ["metrics", "webhook-server"]);

    let meta = metadata(
        Value::Null,
        json!({"webhooks": true, "metrics-port": 9443, "health-probe-port": 9443}),
    );
    let id = resolve_with(&BundleFlags::default(), &meta, &["op"])
        .unwrap()
        .unwrap();
    let errors = texts(
        generate_with_webhooks(
            &id,
            &webhook_configurations(),
            Some(Path::new("webhook/manifests.yaml")),
        )
        .unwrap_err(),
    );
    assert_eq!(
        errors,
        [
            format!(
                "{PLACE}: `health-probe-port = 9443` is the port the manager's webhook server \
                 listens on (`webhooks = true`): choose another"
            ),
            format!(
                "{PLACE}: `metrics-port = 9443` is the port the manager's webhook server \
                 listens on (`webhooks = true`): choose another"
            ),
        ]
    );
}

#[test]
fn each_bad_port_or_path_is_an_error_naming_the_key_and_the_cargo_toml() {
    let cases: &[(Value, String)] = &[
        (
            json!({"health-probe-port": 0}),
            format!("{PLACE}: `health-probe-port = 0` is not a port (1 to 65535)"),
        ),
        (
            json!({"health-probe-port": 65536}),
            format!("{PLACE}: `health-probe-port = 65536` is not a port (1 to 65535)"),
        ),
        (
            json!({"health-probe-port": -1}),
            format!("{PLACE}: `health-probe-port = -1` is not a port (1 to 65535)"),
        ),
        (
            json!({"health-probe-port": 80.5}),
            format!("{PLACE}: `health-probe-port = 80.5` is not a port (1 to 65535)"),
        ),
        (
            json!({"health-probe-port": "8080"}),
            format!(
                "{PLACE}: `health-probe-port` must be a port number (1 to 65535), not the \
                 string \"8080\""
            ),
        ),
        (
            json!({"metrics-port": 100000}),
            format!("{PLACE}: `metrics-port = 100000` is not a port (1 to 65535)"),
        ),
        (
            json!({"metrics-port": true}),
            format!(
                "{PLACE}: `metrics-port` must be a port number (1 to 65535), not the boolean true"
            ),
        ),
        (
            json!({"liveness-probe-path": "health"}),
            format!(
                "{PLACE}: `liveness-probe-path = \"health\"` is not an HTTP path: it must start \
                 with `/` and hold no white space (\"/healthz\", say)"
            ),
        ),
        (
            json!({"readiness-probe-path": "/ready z"}),
            format!(
                "{PLACE}: `readiness-probe-path = \"/ready z\"` is not an HTTP path: it must \
                 start with `/` and hold no white space (\"/healthz\", say)"
            ),
        ),
        (
            json!({"readiness-probe-path": ""}),
            format!(
                "{PLACE}: `readiness-probe-path = \"\"` is not an HTTP path: it must start with \
                 `/` and hold no white space (\"/healthz\", say)"
            ),
        ),
        (
            json!({"readiness-probe-path": true}),
            format!(
                "{PLACE}: `readiness-probe-path` must be a path starting with `/`, or false (no \
                 probe), not the boolean true"
            ),
        ),
        (
            json!({"liveness-probe-path": 8080}),
            format!(
                "{PLACE}: `liveness-probe-path` must be a path starting with `/`, or false (no \
                 probe), not the number 8080"
            ),
        ),
        (
            json!({"metrics-port": 8080, "metrics-path": false}),
            format!(
                "{PLACE}: `metrics-path` must be a path starting with `/`, not the boolean false"
            ),
        ),
        (
            json!({"metrics-port": 8080, "metrics-path": "metrics"}),
            format!(
                "{PLACE}: `metrics-path = \"metrics\"` is not an HTTP path: it must start with \
                 `/` and hold no white space (\"/healthz\", say)"
            ),
        ),
        (
            json!({"metrics-path": "/metrics"}),
            format!(
                "{PLACE}: `metrics-path` is set, but not `metrics-port`: set the port the \
                 operator serves its metrics on too"
            ),
        ),
        (
            json!({"metrics-prot": 8080}),
            format!("{PLACE}: unknown key `metrics-prot` (did you mean `metrics-port`?)"),
        ),
    ];
    for (table, expected) in cases {
        let errors = refused(table.clone());
        assert!(
            errors.len() == 1 && errors[0].starts_with(expected.as_str()),
            "{table}: expected {expected:?}, got {errors:#?}"
        );
    }
}
