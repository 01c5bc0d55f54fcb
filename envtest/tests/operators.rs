//! The example operators, run against a real API server with nothing but the generated roles:
//! they converge with zero Forbidden responses, and with any one rule taken away they are
//! denied exactly what that rule granted.

mod common;
use common::{assets, root};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Service};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use kube_markers_envtest::{Envtest, parse_manifests};
use memcached_operator::{Memcached, MemcachedSpec};
use mydatabase_operator::{MyDatabase, MyDatabaseSpec};
use serde_json::{Value, json};
use std::future::Future;
use std::time::{Duration, Instant};

const NS: &str = "e2e";
const OPERATOR_NS: &str = "operators";
const OPERATOR: &str = "example-operator";

fn generated_roles() -> Vec<Value> {
    let text = std::fs::read_to_string(root().join("rbac-out/role.yaml")).unwrap();
    parse_manifests(&text).unwrap()
}

/// An environment with the CRDs, the given roles, and bindings of every role to the operator's
/// service account (the examples ship no bindings of their own).
async fn environment(roles: Vec<Value>) -> Envtest {
    let env = Envtest::builder()
        .assets(assets())
        .operator(OPERATOR_NS, OPERATOR)
        .apiserver_arg("--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    env.apply_dir(root().join("rbac-out/crd")).await.unwrap();
    for ns in [NS, OPERATOR_NS, mydatabase_operator::TENANT_NAMESPACE] {
        env.ensure_namespace(ns).await.unwrap();
    }
    let subject = json!([{"kind": "ServiceAccount", "name": OPERATOR, "namespace": OPERATOR_NS}]);
    let mut bindings = Vec::new();
    for role in &roles {
        let name = role["metadata"]["name"].as_str().unwrap();
        bindings.push(match role["metadata"]["namespace"].as_str() {
            None => json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": name}, "subjects": subject,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}}),
            Some(ns) => json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": name, "namespace": ns}, "subjects": subject,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name}}),
        });
    }
    env.apply_objects(roles).await.unwrap();
    env.apply_objects(bindings).await.unwrap();
    env
}

/// Both operators, running as the operator's service account.
fn start_operators(env: &Envtest) -> Vec<tokio::task::JoinHandle<()>> {
    let client = env.operator_client().unwrap();
    vec![
        tokio::spawn(memcached_operator::run(client.clone())),
        tokio::spawn(mydatabase_operator::run(client)),
    ]
}

async fn create_objects(admin: &Client) {
    let mcs: Api<Memcached> = Api::namespaced(admin.clone(), NS);
    mcs.create(
        &PostParams::default(),
        &Memcached::new("mc", MemcachedSpec { size: 2 }),
    )
    .await
    .unwrap();
    let dbs: Api<MyDatabase> = Api::namespaced(admin.clone(), NS);
    let spec = MyDatabaseSpec {
        replicas: 2,
        image: "postgres:17.2".into(),
        storage_class: None,
    };
    dbs.create(&PostParams::default(), &MyDatabase::new("db", spec))
        .await
        .unwrap();
}

async fn eventually<F, Fut>(what: &str, timeout: Duration, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + timeout;
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn replicas(api: &Api<Deployment>, name: &str) -> Option<i32> {
    api.get_opt(name)
        .await
        .ok()
        .flatten()
        .and_then(|d| d.spec.replicas)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_converge_with_only_the_generated_roles() {
    let env = environment(generated_roles()).await;
    let admin = env.admin_client().unwrap();
    let operators = start_operators(&env);
    create_objects(&admin).await;

    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), NS);
    let mcs: Api<Memcached> = Api::namespaced(admin.clone(), NS);
    let dbs: Api<MyDatabase> = Api::namespaced(admin.clone(), NS);
    let services: Api<Service> = Api::namespaced(admin.clone(), NS);
    let directory: Api<ConfigMap> =
        Api::namespaced(admin.clone(), mydatabase_operator::TENANT_NAMESPACE);
    let timeout = Duration::from_secs(60);

    // Memcached: a Deployment of `size` replicas, the finalizer, the Available condition.
    eventually("the memcached Deployment", timeout, || async {
        replicas(&deployments, "mc").await == Some(2)
    })
    .await;
    eventually("the memcached finalizer and condition", timeout, || async {
        let mc = mcs.get("mc").await.unwrap();
        mc.finalizers()
            .contains(&memcached_operator::FINALIZER.to_string())
            && mc
                .status
                .is_some_and(|s| s.conditions.iter().any(|c| c.type_ == "Available"))
    })
    .await;
    // Scaling follows the spec.
    mcs.patch(
        "mc",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"size": 3}})),
    )
    .await
    .unwrap();
    eventually("the memcached Deployment to scale", timeout, || async {
        replicas(&deployments, "mc").await == Some(3)
    })
    .await;

    // MyDatabase: Deployment, Service, the tenant directory entry, the Ready condition.
    eventually("the database Deployment", timeout, || async {
        replicas(&deployments, "db").await == Some(2)
    })
    .await;
    eventually("the database Service", timeout, || async {
        services.get_opt("db").await.unwrap().is_some()
    })
    .await;
    eventually("the directory entry", timeout, || async {
        directory
            .get_opt(mydatabase_operator::DIRECTORY)
            .await
            .unwrap()
            .and_then(|cm| cm.data)
            .is_some_and(|d| d.get("e2e.db").map(String::as_str) == Some("db.e2e.svc:5432"))
    })
    .await;
    eventually("the database status", timeout, || async {
        dbs.get("db")
            .await
            .unwrap()
            .status
            .is_some_and(|s| s.conditions.iter().any(|c| c.type_ == "Ready"))
    })
    .await;

    // Deletion passes through the finalizers, which the operators remove.
    mcs.delete("mc", &DeleteParams::default()).await.unwrap();
    dbs.delete("db", &DeleteParams::default()).await.unwrap();
    eventually("the Memcached to be gone", timeout, || async {
        mcs.get_opt("mc").await.unwrap().is_none()
    })
    .await;
    eventually("the MyDatabase to be gone", timeout, || async {
        dbs.get_opt("db").await.unwrap().is_none()
    })
    .await;
    eventually("the directory entry to be removed", timeout, || async {
        directory
            .get_opt(mydatabase_operator::DIRECTORY)
            .await
            .unwrap()
            .is_some_and(|cm| cm.data.unwrap_or_default().is_empty())
    })
    .await;

    for task in operators {
        task.abort();
    }
    let forbidden = env.forbidden_requests().unwrap();
    assert!(
        forbidden.is_empty(),
        "the operators were denied: {forbidden:#?}"
    );
}

/// Whether a denied permission (`verb group/resource` or `verb /path`) falls under `rule`.
fn grants(rule: &Value, denied: &str) -> bool {
    let list = |key: &str| -> Vec<String> {
        rule[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let Some((verb, target)) = denied.split_once(' ') else {
        return false;
    };
    let verbs = list("verbs");
    if !verbs.iter().any(|v| v == verb || v == "*") {
        return false;
    }
    if target.starts_with('/') && list("nonResourceURLs").iter().any(|u| u == target) {
        return true;
    }
    let Some((group, resource)) = target.split_once('/') else {
        return false;
    };
    list("apiGroups").iter().any(|g| g == group || g == "*")
        && list("resources").iter().any(|r| r == resource || r == "*")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_any_one_rule_the_operators_are_denied_exactly_that() {
    let roles = generated_roles();
    let mut cases = Vec::new();
    for (doc, role) in roles.iter().enumerate() {
        for index in 0..role["rules"].as_array().unwrap().len() {
            cases.push((doc, index));
        }
    }
    assert_eq!(
        cases.len(),
        8,
        "every rule of the generated roles: {cases:?}"
    );
    for (doc, index) in cases {
        let mut reduced = roles.clone();
        let removed = reduced[doc]["rules"].as_array_mut().unwrap().remove(index);
        let env = environment(reduced).await;
        let admin = env.admin_client().unwrap();
        let operators = start_operators(&env);
        create_objects(&admin).await;

        // Wait for the first denial, then a little longer for any others to show.
        let deadline = Instant::now() + Duration::from_secs(45);
        while env.forbidden_requests().unwrap().is_empty() {
            assert!(
                Instant::now() < deadline,
                "nothing was denied without {removed}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        tokio::time::sleep(Duration::from_secs(3)).await;
        for task in operators {
            task.abort();
        }
        let forbidden = env.forbidden_requests().unwrap();
        let stray: Vec<&String> = forbidden.iter().filter(|d| !grants(&removed, d)).collect();
        assert!(
            stray.is_empty(),
            "without {removed} the operators were also denied {stray:#?}"
        );
    }
}
