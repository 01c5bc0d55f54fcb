//! kube-markers-cel against kube-apiserver itself: every case of the corpus
//! (`cel/tests/corpus`) created with server-side dry-run; `check-crds`' verdict must be the
//! server's, cause by cause. The corpus includes the real-world CRDs `scripts/crd-corpus.sh`
//! fetches (with Go, as the API server's own build needs), as released and with their size
//! bounds stripped. With `KUBE_MARKERS_RECORD_VERDICTS=1` the server's causes are
//! written to `cel/tests/data/verdicts.json`, which `cel/tests/differential.rs` replays
//! without the assets.

mod common;
#[allow(dead_code)]
#[path = "../../cel/tests/corpus/mod.rs"]
mod corpus;

use common::assets;
use kube::api::{Api, DynamicObject, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube_markers_envtest::{Envtest, parse_manifests};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn crd(schema: &Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.diff.example.com"},
        "spec": {
            "group": "diff.example.com",
            "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}],
        },
    }))
    .unwrap()
}

/// The real-world CRDs, fetched once into `.assets/crd-corpus` by `scripts/crd-corpus.sh`.
fn fetch_corpus() {
    let out = std::process::Command::new("bash")
        .arg(common::root().join("scripts/crd-corpus.sh"))
        .output()
        .expect("run scripts/crd-corpus.sh");
    assert!(
        out.status.success(),
        "scripts/crd-corpus.sh failed (Go is needed to fetch the CRDs from the module proxy):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An API server, and its CRDs as untyped objects (a CRD the typed client could not hold is
/// sent as it is).
async fn start() -> (Envtest, Api<DynamicObject>) {
    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        "customresourcedefinitions",
    );
    let api = Api::all_with(env.admin_client().unwrap(), &ar);
    (env, api)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_crds_decides_as_kube_apiserver() {
    let (_env, api) = start().await;
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    fetch_corpus();
    assert!(
        corpus::fetched_corpus().is_some(),
        "scripts/crd-corpus.sh left no corpus"
    );
    let cases = corpus::all_cases(|text| parse_manifests(text).unwrap());
    let mut verdicts = BTreeMap::new();
    let mut disagreements = Vec::new();
    for case in &cases {
        let mut causes: Vec<(String, String)> = match api.create(&dry_run, &crd(&case.schema)).await
        {
            Ok(_) => Vec::new(),
            Err(kube::Error::Api(status)) => status
                .details
                .map(|d| d.causes)
                .unwrap_or_default()
                .iter()
                .map(|c| corpus::normalize_server(&c.field, &c.message))
                .collect(),
            Err(e) => panic!("{}: {e}", case.id),
        };
        // The server lists causes in Go's map order; sorted, a new recording differs from the
        // last only where a verdict did.
        causes.sort();
        let report = kube_markers_cel::check_schema(&case.schema, "openAPIV3Schema");
        let agree = corpus::agrees(&causes, &report);
        let ours = report.problems;
        if !agree {
            disagreements.push(format!(
                "{}:\n  server: {causes:?}\n  ours:   {:?}",
                case.id,
                ours.iter()
                    .map(|p| (&p.path, &p.detail))
                    .collect::<Vec<_>>()
            ));
        }
        verdicts.insert(case.id.clone(), causes);
    }
    if std::env::var_os("KUBE_MARKERS_RECORD_VERDICTS").is_some() {
        let path = common::root().join("cel/tests/data/verdicts.json");
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&verdicts).unwrap() + "\n",
        )
        .unwrap();
    }
    let refused = verdicts.values().filter(|c| !c.is_empty()).count();
    let real = cases.iter().filter(|c| c.id.contains("corpus:")).count();
    let real_refused = verdicts
        .iter()
        .filter(|(id, c)| id.contains("corpus:") && !c.is_empty())
        .count();
    eprintln!(
        "{} cases, {refused} refused by the server, {} disagreements; of them {real} \
         fetched real-world schemas (as released and stripped), {real_refused} refused",
        cases.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}

/// What `check-crds` says of a CRD that decodes badly is what the API server and kubectl do:
/// a field of the wrong type is refused whatever the client asks; a field the CRD type does
/// not have is refused by `kubectl apply` (strict validation, its default) and by any
/// server-side apply (the object must fit the type's schema), and dropped by a create without
/// strict validation, which `check-crds` reports as a warning, not a refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_the_crd_type_does_not_decode_as_the_api_server_and_kubectl_do() {
    use kube_markers::codegen::check::crd::files::check_crd;
    let Some(kubectl_bin) = common::oracle("kubectl.sh") else {
        return;
    };
    let (env, _) = start().await;
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubectl = |crd: &Value, args: &[&str]| {
        let file = dir.path().join("crd.json");
        std::fs::write(&file, serde_json::to_string(crd).unwrap()).unwrap();
        let out = std::process::Command::new(&kubectl_bin)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(args)
            .args(["--dry-run=server", "-o", "json", "-f"])
            .arg(&file)
            .output()
            .expect("run kubectl");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let as_value = |schema: Value| serde_json::to_value(crd(&schema)).unwrap();
    let ways = [
        &["apply"][..],
        &["apply", "--server-side"],
        &["apply", "--server-side", "--validate=false"],
        &["create", "--validate=false"],
    ];

    // A typo: a warning for check-crds; refused but by a create without strict validation,
    // which drops it.
    let typo = as_value(json!({"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"s": {"type": "string", "maxLenght": 5}}}}}));
    let report = check_crd(&typo, 1);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].starts_with(
            "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.s.maxLenght: \
             unknown field"
        ),
        "{:?}",
        report.warnings
    );
    for args in &ways[..3] {
        let (ok, _, stderr) = kubectl(&typo, args);
        assert!(!ok, "kubectl {args:?} accepted an unknown field");
        assert!(stderr.contains("maxLenght"), "{args:?}: {stderr}");
    }
    let (ok, stdout, stderr) = kubectl(&typo, ways[3]);
    assert!(ok, "{stderr}");
    let created: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        created["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["s"],
        json!({"type": "string"}),
        "the API server drops the unknown field"
    );

    // A field of the wrong type: refused every way, a problem for check-crds.
    let mistyped = as_value(json!({"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"s": {"type": "string", "maxLength": "5"}}}}}));
    let report = check_crd(&mistyped, 1);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(
        report.problems[0].contains("maxLength: invalid type: string \"5\""),
        "{:?}",
        report.problems
    );
    for args in ways {
        let (ok, _, stderr) = kubectl(&mistyped, args);
        assert!(!ok, "kubectl {args:?} accepted maxLength: \"5\"");
        assert!(stderr.contains("maxLength"), "{args:?}: {stderr}");
    }
}

/// The scale subresource's `labelSelectorPath` must lie under `.spec` or `.status`: the API
/// server refuses `.metadata.labels`, and so does `check-crds`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_selector_path_outside_spec_and_status_is_refused_as_the_api_server_does() {
    use kube_markers::codegen::check::crd::files::check_crd;
    let (_env, api) = start().await;
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"},
            "selector": {"type": "string"}}},
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"},
            "selector": {"type": "string"}}}}});
    for (selector, refused) in [
        (".metadata.labels", true),
        (".status.selector", false),
        (".spec.selector", false),
    ] {
        let mut crd = serde_json::to_value(crd(&schema)).unwrap();
        crd["spec"]["versions"][0]["subresources"] = json!({"scale": {
            "specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.replicas",
            "labelSelectorPath": selector,
        }});
        let report = check_crd(&crd, 1);
        let server = api
            .create(
                &PostParams {
                    dry_run: true,
                    ..PostParams::default()
                },
                &serde_json::from_value(crd).unwrap(),
            )
            .await;
        assert_eq!(server.is_err(), refused, "{selector}: {server:?}");
        assert_eq!(
            !report.problems.is_empty(),
            refused,
            "{selector}: {:?}",
            report.problems
        );
        if let Err(e) = server {
            assert!(
                e.to_string()
                    .contains("should be a json path under either .spec or .status"),
                "{e}"
            );
            assert!(
                report.problems[0].contains("labelSelectorPath `.metadata.labels` must be under"),
                "{:?}",
                report.problems
            );
        }
    }
}

/// The verdicts recorded beside the attack files of `check-crds`
/// (`crdcheck/tests/check_crds/kubectl_cases/verdicts.tsv`, which the generator's tests replay
/// without a server) are what kubectl and this kube-apiserver say today.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recorded_kubectl_verdicts_are_the_servers() {
    let Some(kubectl_bin) = common::oracle("kubectl.sh") else {
        return;
    };
    let (env, _) = start().await;
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let dir = common::root().join("crdcheck/tests/check_crds/kubectl_cases");
    let verdicts = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut differ = Vec::new();
    let mut cases = 0;
    for line in verdicts.lines().filter(|l| !l.starts_with('#')) {
        let (file, recorded) = line.split_once('\t').unwrap();
        cases += 1;
        let out = std::process::Command::new(&kubectl_bin)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["create", "--dry-run=server", "--validate=false", "-f"])
            .arg(dir.join(file))
            .output()
            .expect("run kubectl");
        let now = if out.status.success() {
            "accepted"
        } else {
            "refused"
        };
        if now != recorded {
            differ.push(format!(
                "{file}: recorded {recorded}, now {now}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(cases >= 70, "{cases} cases");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// The defaults recorded as refused (`crdcheck/tests/check_crds/default_values.refused`, which
/// the generator's tests replay without a server) are the fields this kube-apiserver refuses in
/// `default_values.json` today, no more and no fewer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recorded_default_verdicts_are_the_servers() {
    let Some(kubectl_bin) = common::oracle("kubectl.sh") else {
        return;
    };
    let (env, _) = start().await;
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let dir = common::root().join("crdcheck/tests/check_crds");
    let out = std::process::Command::new(&kubectl_bin)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args(["create", "--dry-run=server", "--validate=false", "-f"])
        .arg(dir.join("default_values.json"))
        .output()
        .expect("run kubectl");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let refused: std::collections::BTreeSet<&str> = stderr
        .split("properties[spec].properties[")
        .skip(1)
        .filter_map(|rest| rest.split(']').next())
        .collect();
    let recorded = std::fs::read_to_string(dir.join("default_values.refused")).unwrap();
    let recorded: std::collections::BTreeSet<&str> =
        recorded.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(recorded.len() > 500, "{} recorded", recorded.len());
    assert_eq!(refused, recorded, "{stderr}");
}

#[path = "../../crdcheck/tests/random_crds/mod.rs"]
mod random_crds;

/// The random CRDs of `check_crds_random.rs` sent to this kube-apiserver (a dry-run create):
/// its verdicts are the recorded ones (`KUBE_MARKERS_RECORD_VERDICTS=1` records them anew) and
/// `check-crds` agrees with each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_crds_are_decided_as_kube_apiserver_decides_them() {
    use kube_markers::codegen::check::crd::files::check_crd;
    let (_env, api) = start().await;
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let mut lines = vec![
        "# What kube-apiserver 1.37.2 made of each CRD of crdcheck/tests/random_crds (a dry-run"
            .to_string(),
        "# create), recorded by envtest/tests/cel_differential.rs.".to_string(),
    ];
    let mut differ = Vec::new();
    let mut verdicts = Vec::new();
    for i in 0..random_crds::COUNT {
        let crd = random_crds::crd(i);
        let object: DynamicObject = serde_json::from_value(crd.clone()).unwrap();
        let (accepted, why) = match api.create(&dry_run, &object).await {
            Ok(_) => (true, String::new()),
            // 422: invalid; 400: a field of the wrong type, which the API server cannot decode.
            Err(kube::Error::Api(status)) if matches!(status.code, 400 | 422) => {
                (false, status.message)
            }
            Err(e) => panic!("w{i}s: {e}"),
        };
        verdicts.push(accepted);
        lines.push(format!(
            "w{i}s.example.com\t{}",
            if accepted { "accepted" } else { "refused" }
        ));
        let report = check_crd(&crd, 1);
        if report.problems.is_empty() != accepted {
            differ.push(format!(
                "w{i}s: server {why:?}; check-crds {:?}",
                report.problems
            ));
        }
    }
    let path = common::root().join("crdcheck/tests/check_crds/random_crds.verdicts");
    let text = lines.join("\n") + "\n";
    if std::env::var_os("KUBE_MARKERS_RECORD_VERDICTS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        random_crds::recorded(&std::fs::read_to_string(&path).unwrap_or_default()),
        verdicts,
        "the recorded verdicts are not this server's"
    );
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The CRDs of `crdcheck/tests/check_crds/server_warnings/` (optional enums as schemars writes
/// them, integer and other formats, sets of objects, and the generator's own CRD of such a
/// type) created with `kubectl create --dry-run=server`: the verdict and the warnings
/// kube-apiserver sends are the recorded ones (`verdicts.tsv`, which
/// `crdcheck/tests/check_crds_server_warnings.rs` replays without a server;
/// `KUBE_MARKERS_RECORD_VERDICTS=1` records them anew).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recorded_server_warnings_are_the_servers() {
    let Some(kubectl_bin) = common::oracle("kubectl.sh") else {
        return;
    };
    let (env, _) = start().await;
    let kubeconfig = env.admin_kubeconfig().unwrap();
    let dir = common::root().join("crdcheck/tests/check_crds/server_warnings");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") || n.ends_with(".yaml"))
        .collect();
    files.sort();
    let mut lines = vec![
        "# What kube-apiserver 1.37.2 made of each CRD here (kubectl 1.37.2, `create --dry-run=server".to_string(),
        "# --validate=false`): file, verdict, the warnings it sent (sorted, ` | ` between them);".to_string(),
        "# recorded by envtest/tests/cel_differential.rs.".to_string(),
    ];
    for file in &files {
        let out = std::process::Command::new(&kubectl_bin)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["create", "--dry-run=server", "--validate=false", "-f"])
            .arg(dir.join(file))
            .output()
            .expect("run kubectl");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut warnings: Vec<&str> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("Warning: "))
            .collect();
        warnings.sort();
        warnings.dedup();
        let verdict = if out.status.success() {
            "accepted"
        } else {
            "refused"
        };
        lines.push(format!("{file}\t{verdict}\t{}", warnings.join(" | ")));
    }
    let text = lines.join("\n") + "\n";
    let path = dir.join("verdicts.tsv");
    if std::env::var_os("KUBE_MARKERS_RECORD_VERDICTS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        text,
        "the recorded verdicts are not this server's"
    );
}
