//! `codegen can-i` against `kubectl auth can-i` on a real API server, for an operator a new
//! user made outside this workspace as the README tells (`tests/tests/outside/mod.rs`): a
//! `Backup` CRD with a status subresource and conditions, and the `#[rbac]` attributes of a
//! controller that owns Jobs and ConfigMaps, keeps a finalizer, records events, reads one
//! Secret in a tenant namespace and elects a leader. Its generator writes the deploy bundle,
//! `kubectl apply -k rbac-out` installs it, and every question below is asked three ways: the
//! generator's `can-i` with its default identity, its `can-i --as` the installed
//! ServiceAccount, and `kubectl auth can-i --as` that ServiceAccount on the server. All answers
//! must agree; the test prints the table of those that do not.
//!
//! The same API server also checks the tables `can-i` carries: kube-apiserver's default roles
//! for every user, rule for rule, and its built-in resources, against its discovery.

#[allow(dead_code)] // shared by the suites; not all of it is used here
mod common;
#[allow(dead_code)]
#[path = "../../tests/tests/outside/mod.rs"]
mod outside;

use common::assets;
use common::bundle::{kustomize, service_account};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::Api;
use kube::api::ListParams;
use kube_markers::codegen::can_i::{DEFAULT_ROLES, builtin_resources};
use kube_markers_envtest::Envtest;
use std::path::Path;
use std::process::{Command, Output};

const BACKUP_LIB: &str = r#"use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use kube_markers::rbac;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "backup.example.com", version = "v1", kind = "Backup", namespaced,
       status = "BackupStatus", shortname = "bk")]
pub struct BackupSpec {
    pub source: String,
    pub schedule: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct BackupStatus {
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

#[rbac(groups = "backup.example.com", resources = "backups", verbs = "get;list;watch;patch;update")]
#[rbac(groups = "backup.example.com", resources = "backups/status", verbs = "get;patch;update")]
#[rbac(groups = "backup.example.com", resources = "backups/finalizers", verbs = "update")]
#[rbac(groups = "batch", resources = "jobs", verbs = "get;list;watch;create;patch;delete")]
#[rbac(groups = "", resources = "configmaps", verbs = "get;list;watch;create;patch")]
#[rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
pub async fn reconcile() {}

#[rbac(groups = "", resources = "secrets", verbs = "get", namespace = "backup-targets",
       resource_names = "backup-credentials")]
pub async fn read_credentials() {}
"#;

const TENANT_NS: &str = "backup-targets";

fn kubectl(env: &Envtest, dir: &Path, args: &[&str]) -> Output {
    Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(env.admin_kubeconfig().unwrap())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run kubectl")
}

fn succeeded(what: &str, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `yes` or `no` from stdout and the exit code, which must agree (0 yes, 1 no); anything else
/// is reported as it came.
fn answer(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match (stdout.as_str(), out.status.code()) {
        ("yes", Some(0)) => "yes".into(),
        ("no", Some(1)) => "no".into(),
        _ => format!(
            "{stdout:?} (exit {:?}; {})",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
}

/// The questions: resources and subresources, URLs, the self reviews, namespaced and
/// cluster-wide, granted and denied, the tenant Role (by name), leader election.
fn questions(operator_ns: &str) -> Vec<Vec<String>> {
    let q = |args: &[&str]| args.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let op = operator_ns;
    vec![
        q(&["list", "backups", "-A"]),
        q(&["watch", "backups", "-n", "default"]),
        q(&["get", "backup", "-n", "default"]),
        q(&["list", "bk", "-n", "shop"]),
        q(&["create", "backups", "-n", "default"]),
        q(&["delete", "backups.backup.example.com", "-n", "default"]),
        q(&[
            "patch",
            "backups",
            "--subresource",
            "status",
            "-n",
            "default",
        ]),
        q(&[
            "update",
            "backups/nightly",
            "--subresource",
            "finalizers",
            "-n",
            "default",
        ]),
        q(&[
            "delete",
            "backups",
            "--subresource",
            "status",
            "-n",
            "default",
        ]),
        q(&["create", "jobs", "-n", "default"]),
        q(&["delete", "jobs.batch", "-A"]),
        q(&["deletecollection", "jobs", "-n", "default"]),
        q(&["update", "jobs", "--subresource", "status", "-n", "default"]),
        q(&["create", "configmaps", "-n", "default"]),
        q(&["delete", "configmaps", "-n", "default"]),
        // `events` is the core group's, as kubectl resolves it; the attribute grants the
        // other one.
        q(&["create", "events", "-n", "default"]),
        q(&["create", "events.events.k8s.io", "-n", "default"]),
        q(&["get", "secrets/backup-credentials", "-n", TENANT_NS]),
        q(&["get", "secrets/other", "-n", TENANT_NS]),
        q(&["get", "secrets", "-n", TENANT_NS]),
        q(&["get", "secrets/backup-credentials", "-n", "default"]),
        q(&["get", "leases", "-n", op]),
        q(&["create", "leases.coordination.k8s.io", "-n", op]),
        q(&["get", "leases", "-n", "default"]),
        q(&["create", "configmaps", "-n", op]),
        q(&["list", "pods", "-A"]),
        q(&["list", "nodes", "-A"]),
        q(&["create", "tokenreviews", "-A"]),
        q(&["create", "subjectaccessreviews", "-A"]),
        q(&["create", "selfsubjectaccessreviews", "-A"]),
        q(&["create", "selfsubjectrulesreviews", "-A"]),
        q(&["get", "/healthz"]),
        q(&["get", "/version"]),
        q(&["get", "/readyz"]),
        q(&["get", "/livez"]),
        q(&["get", "/openapi/v3"]),
        q(&["get", "/apis/backup.example.com/v1"]),
        q(&["get", "/openid/v1/jwks"]),
        q(&["get", "/metrics"]),
        q(&["post", "/healthz"]),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn can_i_answers_as_kubectl_auth_can_i_on_the_installed_bundle() {
    // The user's workspace, per the README: the library above, its generator, and the deploy
    // bundle declared as the README's bundle section shows.
    let ws = outside::quick_start_workspace("can-i-differential", BACKUP_LIB);
    let bundle = outside::readme_block("# codegen/Cargo.toml, beside [dependencies]")
        .replace("memcached-operator", "backup-operator");
    let manifest = ws.join("codegen/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    outside::write(&manifest, &format!("{text}\n{bundle}"));
    let out = outside::run_generator(&ws, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bundle_dir = ws.join("rbac-out");
    let (operator_ns, sa_name) = service_account(&kustomize(&bundle_dir));
    assert!(
        sa_name.ends_with("-controller-manager") && sa_name != "controller-manager",
        "the bundle's ServiceAccount carries its name prefix: {sa_name}"
    );
    let installed = format!("system:serviceaccount:{operator_ns}:{sa_name}");

    let env = Envtest::builder()
        .assets(assets())
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    let admin = env.admin_client().unwrap();
    default_roles_are_the_servers(&admin).await;
    builtin_resources_are_the_servers(&admin).await;

    env.ensure_namespace(TENANT_NS).await.unwrap();
    let applied = kubectl(&env, &ws, &["apply", "--server-side", "-k", "rbac-out"]);
    succeeded("kubectl apply -k rbac-out", &applied);
    let established = kubectl(
        &env,
        &ws,
        &[
            "wait",
            "--for=condition=Established",
            "crd",
            "--all",
            "--timeout=30s",
        ],
    );
    succeeded("kubectl wait for the CRD", &established);

    // As the README runs it, and with the link to the attributes kept through the prefix.
    let out = outside::run_generator(&ws, &["can-i", "list", "backups", "-A", "--explain"]);
    let explained = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{explained}");
    let line = BACKUP_LIB
        .lines()
        .position(|l| l.contains("resources = \"backups\""))
        .unwrap()
        + 1;
    assert!(
        explained.contains(&format!(
            "#[rbac]: (\"manager-role\" in its file)\n  my-operator/src/lib.rs:{line} (reconcile) "
        )),
        "{explained}"
    );

    let mut rows = Vec::new();
    let mut disagreements = Vec::new();
    for question in questions(&operator_ns) {
        let args: Vec<&str> = question.iter().map(String::as_str).collect();
        let as_installed = [&args[..], &["--as", &installed]].concat();
        let ours_default = answer(&outside::run_built_generator(
            &ws,
            &[&["can-i"], &args[..]].concat(),
        ));
        let ours_as = answer(&outside::run_built_generator(
            &ws,
            &[&["can-i"], &as_installed[..]].concat(),
        ));
        let theirs = answer(&kubectl(
            &env,
            &ws,
            &[&["auth", "can-i"], &as_installed[..]].concat(),
        ));
        let row = format!(
            "{:<70} {ours_default:<4} {ours_as:<4} {theirs}",
            args.join(" ")
        );
        if ours_default != theirs || ours_as != theirs {
            disagreements.push(row.clone());
        }
        rows.push(row);
    }
    let table = format!(
        "{:<70} {:<4} {:<4} kubectl auth can-i --as {installed}\n{}",
        "question",
        "can-i",
        "--as",
        rows.join("\n")
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} answers differ:\n{}\n\nall:\n{table}",
        disagreements.len(),
        rows.len(),
        disagreements.join("\n")
    );
    assert!(rows.len() >= 26, "{table}");
    // Both answers occur: the comparison is not of a constant.
    assert!(table.contains(" yes") && table.contains(" no"), "{table}");
    eprintln!(
        "{} of {} answers agree with kubectl:\n{table}",
        rows.len(),
        rows.len()
    );
}

/// Every default role and binding of the table is the server's, rule for rule and subject for
/// subject; and every default binding of the server to a group every user may be in is in the
/// table.
async fn default_roles_are_the_servers(admin: &kube::Client) {
    let roles: Api<ClusterRole> = Api::all(admin.clone());
    let bindings: Api<ClusterRoleBinding> = Api::all(admin.clone());
    for role in DEFAULT_ROLES {
        let server = roles.get(role.name).await.unwrap();
        assert_eq!(
            server.rules.unwrap_or_default(),
            role.rules(),
            "ClusterRole {}",
            role.name
        );
        let server = bindings.get(role.name).await.unwrap();
        let ours = role.cluster_role_binding();
        assert_eq!(server.role_ref, ours.role_ref, "{}", role.name);
        assert_eq!(server.subjects, ours.subjects, "{}", role.name);
    }
    let every_user = [
        "system:authenticated",
        "system:unauthenticated",
        "system:serviceaccounts",
    ];
    let mut for_every_user: Vec<String> = bindings
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|b| {
            b.subjects
                .iter()
                .flatten()
                .any(|s| s.kind == "Group" && every_user.contains(&s.name.as_str()))
        })
        .map(|b| b.metadata.name.unwrap())
        .collect();
    for_every_user.sort();
    let mut ours: Vec<String> = DEFAULT_ROLES.iter().map(|r| r.name.to_string()).collect();
    ours.sort();
    assert_eq!(for_every_user, ours);
}

/// The built-in resources `can-i` resolves names against are the server's discovery: every
/// resource (no subresource) of the core group and of each group's preferred version, in its
/// order, with its singular and short names, kind and scope.
async fn builtin_resources_are_the_servers(admin: &kube::Client) {
    let mut server = Vec::new();
    let core = admin.list_core_api_resources("v1").await.unwrap();
    let mut lists = vec![("".to_string(), core.resources)];
    for group in admin.list_api_groups().await.unwrap().groups {
        let preferred = group.preferred_version.unwrap().group_version;
        let list = admin.list_api_group_resources(&preferred).await.unwrap();
        lists.push((group.name, list.resources));
    }
    for (group, resources) in lists {
        for r in resources.into_iter().filter(|r| !r.name.contains('/')) {
            server.push((
                group.clone(),
                r.name,
                r.singular_name,
                r.kind,
                r.namespaced,
                r.short_names.unwrap_or_default(),
            ));
        }
    }
    let ours: Vec<_> = builtin_resources()
        .into_iter()
        .map(|r| {
            (
                r.group,
                r.plural,
                r.singular,
                r.kind,
                r.namespaced,
                r.short_names,
            )
        })
        .collect();
    assert_eq!(ours, server);
}
