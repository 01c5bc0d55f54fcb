//! Differential test against the real controller-gen (v0.23.0, built by
//! `scripts/controller-gen.sh`): random webhook marker sets, written once as `#[webhook]`
//! arguments (parsed and validated by the macro's parser) and once as
//! `+kubebuilder:webhook` markers, must give byte-identical `manifests.yaml`.

use kube_markers::codegen::__internals::parse_webhook;
use kube_markers::codegen::webhook::{WebhookMarker, configurations, render};
use kube_markers::registry::{
    Attribute, Source, WebhookConfigurationEntry, WebhookConfigurationMarker,
};
use kube_markers_tests::Rng;
use std::path::Path;
use std::process::Command;

const NAMES: &[&str] = &[
    "a.example.com",
    "b.example.com",
    "v.db.example.com",
    "m.x.io",
];
const GROUPS: &[&str] = &["", "core", "apps", "db.example.com", "*"];
const RESOURCES: &[&str] = &["pods", "deployments", "mydatabases", "pods/status", "*"];
const VERBS: &[&str] = &["create", "Update", "DELETE", "connect", "*"];
const VERSIONS: &[&str] = &["v1", "v1beta1", "*"];
const PATCHES: &[&str] = &[
    r#"{"namespaceSelector":{"matchLabels":{"env":"prod"}}}"#,
    r#"{"objectSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]}}"#,
    r#"{"timeoutSeconds":null}"#,
    r#"{"timeoutSeconds":7,"matchConditions":[{"name":"c","expression":"true"}]}"#,
    r#"{"rules":[{"apiGroups":["batch"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["jobs"]}]}"#,
    r#"{"clientConfig":{"caBundle":"Q0E="}}"#,
];

/// One random webhook: its `#[webhook]` arguments and its controller-gen marker.
fn random_webhook(rng: &mut Rng) -> (String, String) {
    let mut rust: Vec<String> = Vec::new();
    let mut go: Vec<String> = Vec::new();
    let mut both = |key: &str, go_key: &str, rust_value: String, go_value: String| {
        rust.push(format!("{key} = {rust_value}"));
        go.push(format!("{go_key}={go_value}"));
    };
    let pick = |rng: &mut Rng, pool: &[&str]| pool[rng.below(pool.len())].to_string();
    let list = |rng: &mut Rng, pool: &[&str]| {
        let n = 1 + rng.below(3);
        let mut items: Vec<String> = (0..n).map(|_| pick(rng, pool)).collect();
        // controller-gen cannot write an empty element among others; `""` alone is the core group.
        if items.len() > 1 {
            items.retain(|i| !i.is_empty());
            if items.is_empty() {
                items.push("apps".into());
            }
        }
        items
    };
    let quoted = |items: &[String]| {
        if items == [""] {
            "\"\"".to_string()
        } else {
            items.join(";")
        }
    };
    let mutating = rng.chance(50);
    let name = pick(rng, NAMES);
    both("name", "name", format!("{name:?}"), name);
    both(
        "mutating",
        "mutating",
        mutating.to_string(),
        mutating.to_string(),
    );
    let fp = pick(rng, &["Fail", "fail", "Ignore", "IGNORE"]);
    both("failure_policy", "failurePolicy", format!("{fp:?}"), fp);
    let se = pick(rng, &["None", "none", "NoneOnDryRun"]);
    both("side_effects", "sideEffects", format!("{se:?}"), se);
    for (key, go_key, pool) in [
        ("groups", "groups", GROUPS),
        ("resources", "resources", RESOURCES),
        ("verbs", "verbs", VERBS),
        ("versions", "versions", VERSIONS),
    ] {
        let items = list(rng, pool);
        let rust_value = if rng.chance(50) {
            format!("{:?}", items)
        } else {
            format!("{:?}", items.join(";"))
        };
        both(key, go_key, rust_value, quoted(&items));
    }
    let arv = pick(rng, &["v1", "v1;v1beta1", "v1beta1;v1"]);
    both(
        "admission_review_versions",
        "admissionReviewVersions",
        format!("{arv:?}"),
        arv,
    );
    if rng.chance(70) {
        let path = pick(
            rng,
            &["/validate", "/mutate-db-example-com-v1-mydatabase", "/x"],
        );
        both("path", "path", format!("{path:?}"), path);
        if rng.chance(30) {
            let s = pick(rng, &["svc", "webhook-service", "my-svc"]);
            both("service_name", "serviceName", format!("{s:?}"), s);
        }
        if rng.chance(30) {
            let s = pick(rng, &["default", "op-system"]);
            both("service_namespace", "serviceNamespace", format!("{s:?}"), s);
        }
        if rng.chance(30) {
            let p = [443, 9443, 8443][rng.below(3)];
            both("service_port", "servicePort", p.to_string(), p.to_string());
        }
    } else {
        let url = pick(
            rng,
            &[
                "https://hook.example.com:9443/validate",
                "https://10.0.0.1/x",
            ],
        );
        both("url", "url", format!("{url:?}"), format!("{url:?}"));
    }
    if rng.chance(40) {
        let mp = pick(rng, &["Exact", "equivalent"]);
        both("match_policy", "matchPolicy", format!("{mp:?}"), mp);
    }
    if rng.chance(40) {
        let t = 1 + rng.below(30);
        both(
            "timeout_seconds",
            "timeoutSeconds",
            t.to_string(),
            t.to_string(),
        );
    }
    if rng.chance(40) {
        let r = pick(rng, &["Never", "IfNeeded", "ifneeded"]);
        both(
            "reinvocation_policy",
            "reinvocationPolicy",
            format!("{r:?}"),
            r,
        );
    }
    if rng.chance(30) {
        both(
            "webhook_versions",
            "webhookVersions",
            "\"v1\"".into(),
            "v1".into(),
        );
    }
    if rng.chance(35) {
        let p = pick(rng, PATCHES);
        both("patch", "patch", format!("r#\"{p}\"#"), format!("`{p}`"));
    }
    // Argument order does not matter to either tool.
    let mut order: Vec<usize> = (0..rust.len()).collect();
    rng.shuffle(&mut order);
    let rust = order
        .iter()
        .map(|&i| rust[i].clone())
        .collect::<Vec<_>>()
        .join(", ");
    let go = order
        .iter()
        .map(|&i| go[i].clone())
        .collect::<Vec<_>>()
        .join(",");
    (rust, format!("// +kubebuilder:webhook:{go}"))
}

fn controller_gen(bin: &Path, dir: &Path, markers: &str) -> String {
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(
        dir.join("go.mod"),
        "module example.com/differential\n\ngo 1.22\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pkg/webhooks.go"),
        format!("package pkg\n\n{markers}"),
    )
    .unwrap();
    let out = Command::new(bin)
        .args(["webhook", "paths=./...", "output:webhook:dir=out"])
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("run controller-gen");
    assert!(
        out.status.success(),
        "controller-gen failed in {}:\n{}\nmarkers:\n{markers}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("out/manifests.yaml")).unwrap_or_default()
}

#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
#[test]
fn random_webhook_sets_match_controller_gen() {
    let Some(bin) = kube_markers_tests::oracle("controller-gen.sh") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x5eed_0f3e_b400_c0de);
    let sets = 60;
    for i in 0..sets {
        let n = 1 + rng.below(4);
        let mut go = String::new();
        let mut markers: Vec<(WebhookMarker, Source)> = Vec::new();
        let mut attributes = Vec::new();
        for j in 0..n {
            let (rust, marker) = random_webhook(&mut rng);
            let parsed = parse_webhook(&rust)
                .unwrap_or_else(|e| panic!("set {i}: #[webhook({rust})] is refused: {e}"));
            markers.push((
                parsed,
                Source::__new("pkg/webhooks.go", j as u32 + 3, 1, "pkg", "_"),
            ));
            attributes.push(rust);
            go.push_str(&marker);
            go.push('\n');
        }
        let mut names: Vec<WebhookConfigurationEntry> = Vec::new();
        for mutating in [true, false] {
            if rng.chance(25) {
                let name = if mutating {
                    "custom-mutating"
                } else {
                    "custom-validating"
                };
                go.push_str(&format!(
                    "// +kubebuilder:webhookconfiguration:mutating={mutating},name={name}\n"
                ));
                names.push(Attribute::new(
                    WebhookConfigurationMarker {
                        mutating,
                        name: Some(name.into()),
                    },
                    Source::__new("pkg/webhooks.go", 100, 1, "pkg", "_"),
                    "",
                ));
            }
        }
        let names: Vec<&WebhookConfigurationEntry> = names.iter().collect();
        let markers: Vec<Attribute<WebhookMarker>> = markers
            .into_iter()
            .map(|(marker, source)| Attribute::new(marker, source, ""))
            .collect();
        let markers: Vec<&Attribute<WebhookMarker>> = markers.iter().collect();
        let ours = render(&configurations(&markers, &names).unwrap(), "");
        let theirs = controller_gen(&bin, &tmp.path().join(format!("set{i}")), &go);
        assert!(
            ours == theirs,
            "set {i} differs from controller-gen\nattributes:\n{}\nmarkers:\n{go}\n--- controller-gen\n{theirs}\n--- kube-markers\n{ours}",
            attributes.join("\n")
        );
    }
}
