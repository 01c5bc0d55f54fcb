//! Records what a kube-rs operator really requests of a real API server: the harness of
//! `scripts/record-corpus-requests.sh`, which builds each operator of
//! `tests/fixtures/calls-corpus` and sets the variables below. Ignored in every other run (it
//! needs an operator built outside this workspace).
//!
//! The API server (kube-apiserver from `scripts/envtest-assets.sh`) gets a ServiceAccount
//! `recorder/operator` bound to a ClusterRole that allows every verb on every resource and
//! non-resource URL, so every request the operator makes succeeds (a refusal would end a path
//! early) and is written to the audit log with the account's name. The scenario, a bash script,
//! runs with `KUBECONFIG` the admin's, `OPERATOR_KUBECONFIG` a kubeconfig of the account's
//! token (from the TokenRequest API, as a Pod gets it; its context namespace `default`), and
//! `KUBECTL` kubectl 1.37.2; it starts the operator under `OPERATOR_KUBECONFIG`, drives it with
//! kubectl as the admin, and stops it. Then every (verb, resource[/subresource]) pair the
//! account requested is written to `RECORD_OUT`, after the header lines of `RECORD_HEADER`:
//!
//! - `RECORD_SCENARIO`: the scenario script (it applies the operator's CRDs itself);
//! - `RECORD_OUT`: the file written; `RECORD_HEADER`: its first lines (without `# `), if set.
//!
//! Each line is `VERB RESOURCE[.GROUP][/SUBRESOURCE]`, as the corpus' `truth.txt` is, followed by
//! how many requests it stands for and their HTTP codes; requests of no resource (`/api`,
//! `/version`) are listed last as comments, as RBAC's non-resource URLs are outside the call
//! analysis.

mod common;

use kube::Api;
use kube_markers_envtest::Envtest;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const NAMESPACE: &str = "recorder";
const ACCOUNT: &str = "operator";

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn required(name: &str) -> String {
    var(name).unwrap_or_else(|| {
        panic!("{name} is not set: run this through scripts/record-corpus-requests.sh")
    })
}

/// The account's requests, by `VERB RESOURCE[.GROUP][/SUB]` (or `VERB /path`), with the HTTP
/// codes of each.
type Recorded = BTreeMap<String, BTreeMap<i64, usize>>;

fn requests_of(env: &Envtest, user: &str) -> (Recorded, Recorded) {
    let mut resources = Recorded::new();
    let mut paths = Recorded::new();
    // A long-running request (a watch) has two events, ResponseStarted and ResponseComplete:
    // its last one stands for it.
    let mut last = BTreeMap::new();
    for event in env.audit_events().expect("the audit log") {
        if event["user"]["username"] == user {
            let id = event["auditID"].as_str().unwrap_or_default().to_string();
            last.insert(id, event);
        }
    }
    for event in last.into_values() {
        let verb = event["verb"].as_str().unwrap_or("?");
        let code = event["responseStatus"]["code"].as_i64().unwrap_or(0);
        let r = &event["objectRef"];
        let (key, into) = match r["resource"].as_str() {
            Some(resource) => {
                let group = r["apiGroup"]
                    .as_str()
                    .filter(|g| !g.is_empty())
                    .map(|g| format!(".{g}"))
                    .unwrap_or_default();
                let sub = r["subresource"]
                    .as_str()
                    .map(|s| format!("/{s}"))
                    .unwrap_or_default();
                (format!("{verb} {resource}{group}{sub}"), &mut resources)
            }
            None => {
                let uri = event["requestURI"].as_str().unwrap_or("?");
                let path = uri.split('?').next().unwrap_or(uri);
                (format!("{verb} {path}"), &mut paths)
            }
        };
        *into.entry(key).or_default().entry(code).or_default() += 1;
    }
    (resources, paths)
}

fn line(key: &str, codes: &BTreeMap<i64, usize>) -> String {
    let total: usize = codes.values().sum();
    let codes: Vec<String> = codes.iter().map(|(c, n)| format!("{n}×{c}")).collect();
    format!("{key:<48} # {total} request(s): {}", codes.join(", "))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "records a corpus operator's requests: run by scripts/record-corpus-requests.sh"]
async fn record_operator_requests() {
    let scenario = PathBuf::from(required("RECORD_SCENARIO"));
    let out = PathBuf::from(required("RECORD_OUT"));
    let env = Envtest::builder()
        .assets(common::assets())
        .start()
        .await
        .expect("start envtest");
    let admin = env.admin_client().unwrap();
    let version = admin.apiserver_version().await.unwrap().git_version;

    // The account may do everything, so that no path ends in a refusal.
    env.ensure_namespace(NAMESPACE).await.unwrap();
    let everything = serde_json::json!([
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": ACCOUNT, "namespace": NAMESPACE}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": "recorder-everything"},
         "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                   {"nonResourceURLs": ["*"], "verbs": ["*"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": "recorder-everything"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                     "name": "recorder-everything"},
         "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NAMESPACE}]},
    ]);
    env.apply_objects(serde_json::from_value(everything).unwrap())
        .await
        .unwrap();
    let token = env.service_account_token(NAMESPACE, ACCOUNT).await.unwrap();
    let operator_kubeconfig = env.dir().join("operator.kubeconfig");
    std::fs::write(
        &operator_kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: envtest\n  cluster:\n    server: {}\n    certificate-authority: {}\nusers:\n- name: operator\n  user:\n    token: {token}\ncontexts:\n- name: envtest\n  context:\n    cluster: envtest\n    user: operator\n    namespace: default\ncurrent-context: envtest\n",
            env.url(),
            env.dir().join("ca.crt").display()
        ),
    )
    .unwrap();
    // The admin's requests before the scenario are not the account's; make sure the
    // account exists for the API server before anything runs under it.
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> =
        Api::namespaced(admin.clone(), NAMESPACE);
    accounts.get(ACCOUNT).await.unwrap();

    let kubectl = common::oracle("kubectl.sh").expect("kubectl 1.37.2 (scripts/kubectl.sh)");
    let status = Command::new("bash")
        .arg(&scenario)
        .env("KUBECONFIG", env.admin_kubeconfig().unwrap())
        .env("OPERATOR_KUBECONFIG", &operator_kubeconfig)
        .env("KUBECTL", &kubectl)
        .status()
        .unwrap_or_else(|e| panic!("run {}: {e}", scenario.display()));
    assert!(status.success(), "{} failed: {status}", scenario.display());

    let user = format!("system:serviceaccount:{NAMESPACE}:{ACCOUNT}");
    let (resources, paths) = requests_of(&env, &user);
    assert!(
        !resources.is_empty(),
        "{user} made no request: did the scenario start the operator under OPERATOR_KUBECONFIG?"
    );
    let mut text = String::new();
    for header in var("RECORD_HEADER").unwrap_or_default().lines() {
        text.push_str(&format!("# {header}\n").replace("# \n", "#\n"));
    }
    text.push_str(&format!(
        "# Recorded on kube-apiserver {version} (envtest, audit level Metadata) as {user},\n\
         # bound to a ClusterRole allowing every verb on everything: VERB RESOURCE[.GROUP][/SUBRESOURCE]\n\
         # a line, then how many requests and their HTTP codes.\n"
    ));
    for (key, codes) in &resources {
        text.push_str(&line(key, codes));
        text.push('\n');
    }
    if !paths.is_empty() {
        text.push_str(
            "# Requests of no resource (non-resource URLs, outside the call analysis):\n",
        );
        for (key, codes) in &paths {
            text.push_str(&format!("#   {}\n", line(key, codes)));
        }
    }
    std::fs::write(&out, text).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    eprintln!("wrote {}", out.display());
}
