//! A new user's CEL rules (and defaults, and a pattern) that kube-apiserver 1.37.2 refuses at
//! CRD creation,
//! written as `#[k8s(validation(...))]` in a workspace outside this one: `cargo run -p codegen` refuses
//! each at its field with the API server's text and, for the one over the cost budget, the
//! bound that fixes it; with that bound the run succeeds, and, when the envtest assets are
//! present, kube-apiserver 1.37.2 creates and establishes the CRD it wrote.

#[allow(dead_code)] // shared with the other outside-workspace tests
mod outside;
use outside::{quick_start_workspace, run_generator};

const LIB: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cel.example.com", version = "v1", kind = "Gadget", namespaced)]
#[k8s(validation(rule = "self.nope == 1"))]
pub struct GadgetSpec {
    #[k8s(validation(rule = "self == 'a'"))]
    pub count: i32,
    #[k8s(XS_MARKERS)]
    pub xs: Vec<String>,
    #[k8s(validation(rule = "self.size() >= 0", message_expression = "'got ' + string(self.size())"))]
    pub name: String,
    #[k8s(validation(rule = "'%d'.format([self]) != ''"))]
    pub label: String,
    #[k8s(format = "date-time")]
    #[serde(default = "since")]
    pub since: String,
    // Go's regexp takes Unicode classes by its own names (taken both times).
    #[k8s(pattern = "^\\p{Lu}\\p{greek}*[[:alpha:]]*$")]
    pub title: String,
    // The API server checks a default a second time as on a create, `oldSelf` empty.
    #[k8s(validation(rule = "self <= oldSelf.orValue(0)", optional_old_self))]
    #[serde(default = "five")]
    pub level: i32,
}

fn since() -> String {
    "2020-01-01 00:00:00Z".into()
}

fn five() -> i32 {
    5
}
"#;

fn lib(refused: bool, max_items: Option<u64>) -> String {
    let xs = match max_items {
        Some(n) => {
            format!("max_items = {n}, validation(rule = \"self.all(x, self.all(y, x == y))\")")
        }
        None => "validation(rule = \"self.all(x, self.all(y, x == y))\")".to_string(),
    };
    let text = LIB.replace("XS_MARKERS", &xs);
    if refused {
        return text;
    }
    text.replace("#[k8s(validation(rule = \"self.nope == 1\"))]\n", "")
        .replace(
            "#[k8s(validation(rule = \"self == 'a'\"))]",
            "#[k8s(validation(rule = \"self >= 0\"))]",
        )
        .replace("string(self.size())", "self")
        .replace("'%d'.format", "'%s'.format")
        .replace("2020-01-01 00:00:00Z", "2020-01-01T00:00:00Z")
        .replace("self <= oldSelf.orValue(0)", "self >= oldSelf.orValue(0)")
}

#[test]
fn refused_rules_fail_the_run_naming_field_and_fix_and_the_fix_passes() {
    let ws = quick_start_workspace("cel-refusals", &lib(true, None));
    let out = run_generator(&ws, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    for expected in [
        "spec: rule `self.nope == 1`: the API server refuses it: compilation failed: ERROR: <input>:1:5: undefined field 'nope'",
        "spec.count: rule `self == 'a'`: the API server refuses it: compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(int, string)'",
        "spec.xs: rule `self.all(x, self.all(y, x == y))`: the API server refuses it: estimated rule cost exceeds budget by factor of more than 100x",
        "spec.name: message_expression `'got ' + string(self.size())`: the API server refuses it: estimated messageExpression cost exceeds budget",
        "spec.label: rule `'%d'.format([self]) != ''`: the API server refuses it: compilation failed: ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given string",
        "spec.since: the default \"2020-01-01 00:00:00Z\" does not validate against the field's own schema",
        "spec.level: the default 5 does not validate against the field's own schema (rule `self <= oldSelf.orValue(0)` fails",
    ] {
        assert!(
            stderr.contains(expected),
            "missing `{expected}` in:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("GadgetSpec") || stderr.contains("Gadget"),
        "{stderr}"
    );
    let max: u64 = stderr
        .split("fix: add `#[k8s(max_items = ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no max_items fix in:\n{stderr}"));
    assert!(
        stderr.contains(&format!("#[k8s(max_items = {max})]` on `xs`")),
        "{stderr}"
    );

    // The fixes: the bound named, rules that type-check, a message that has a size.
    std::fs::write(ws.join("my-operator/src/lib.rs"), lib(false, Some(max))).unwrap();
    let out = run_generator(&ws, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let crd_dir = ws.join("rbac-out/crd");
    let crd = crd_dir.join("cel.example.com_gadgets.yaml");
    let text = std::fs::read_to_string(&crd).unwrap();
    assert!(
        text.contains(&format!("maxItems: {max}")),
        "{}: {text}",
        crd.display()
    );
    the_api_server_establishes(&crd_dir);
    // One more item than the bound is over budget again.
    std::fs::write(ws.join("my-operator/src/lib.rs"), lib(false, Some(max + 1))).unwrap();
    let out = run_generator(&ws, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("spec.xs: rule"),
        "{stderr}"
    );
}

/// kube-apiserver 1.37.2 and etcd: `KUBEBUILDER_ASSETS`, else the pinned build of
/// `scripts/envtest-assets.sh` when it has been made; `None` when neither is there.
fn envtest_assets() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("KUBEBUILDER_ASSETS") {
        return Some(dir.into());
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.assets/envtest/k8s-1.37.2-etcd-3.6.16");
    dir.join("kube-apiserver").is_file().then_some(dir)
}

/// The CRDs of `dir` created on a real API server and established: the server compiled and
/// costed every rule as the generator did.
fn the_api_server_establishes(dir: &std::path::Path) {
    let Some(assets) = envtest_assets() else {
        eprintln!(
            "SKIPPED: the envtest assets are absent (scripts/envtest-assets.sh builds them, or set \
             KUBEBUILDER_ASSETS): the fixed CRD is not created on kube-apiserver"
        );
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let env = kube_markers_envtest::Envtest::builder()
            .assets(assets)
            .start()
            .await
            .unwrap_or_else(|e| panic!("envtest: {e}"));
        let applied = env
            .apply_dir(dir)
            .await
            .unwrap_or_else(|e| panic!("kube-apiserver refused {}: {e}", dir.display()));
        assert_eq!(applied.len(), 1, "{applied:?}");
    });
}
