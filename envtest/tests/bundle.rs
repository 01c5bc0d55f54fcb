//! The examples' deploy bundle (`rbac-out/kustomization.yaml` and the files it lists): kubectl
//! renders it, an overlay moves only the operator, and on a real API server it installs with
//! `kubectl apply -k`, the example operators converge under its ServiceAccount (with a token
//! from the TokenRequest API) with zero Forbidden responses, under the request audit that finds
//! every request covered and every generated permission needed, every binding grants exactly
//! its role (and the startup preflight names what a removed one took away), the per-CRD roles grant what they say, and the manager's Pod passes Pod Security
//! "restricted" only with every hardening field that level checks.
//!
//! One API server serves every check of the installed bundle, in phases, to keep CI short.

mod common;
use common::bundle::{kubectl, kustomize, named, namespace_of, of_kind, rendered, service_account};
use common::operators::{self, NS, create_objects, eventually};
use common::{assets, refusal, root};
use kube::api::{
    Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchParams,
};
use kube::client::ClientBuilder;
use kube::core::ApiResource;
use kube::{Client, Resource};
use kube_markers::audit::{Audit, Mode, Permissions};
use kube_markers_envtest::Envtest;
use serde_json::{Value, json};
use std::process::Output;
use std::time::Duration;

const PREFIX: &str = "example-operator-";
const OPERATOR_NS: &str = "example-operator-system";
const TENANT_NS: &str = mydatabase_operator::TENANT_NAMESPACE;

fn name(doc: &Value) -> &str {
    doc["metadata"]["name"].as_str().unwrap()
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

// The crate root resolves modules beside it, not under a `bundle/` of its own.
#[path = "bundle/access.rs"]
mod access;
#[path = "bundle/render.rs"]
mod render;
use access::*;

// ---- on a real API server ----

/// What `docs/bundle.md` says of checking and installing the bundle on a fresh cluster: a
/// server-side dry run refuses the objects in the operator's namespace (a dry run creates no
/// Namespace), a client-side dry run accepts every object, and with the namespace created
/// first the server-side dry run does too; then `kubectl apply -k` installs it.
async fn install(env: &Envtest, docs: &[Value]) {
    // Tenant namespaces belong to the cluster: the bundle only grants in them.
    for ns in [TENANT_NS, NS] {
        env.ensure_namespace(ns).await.unwrap();
    }
    let server_dry_run = [
        "apply",
        "--server-side",
        "--dry-run=server",
        "-k",
        "rbac-out",
    ];
    let out = kubectl(env, &server_dry_run);
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("namespaces \"{OPERATOR_NS}\" not found")),
        "{stderr}"
    );

    let out = kubectl(env, &["apply", "--dry-run=client", "-k", "rbac-out"]);
    let text = succeeded("kubectl apply --dry-run=client -k rbac-out", &out);
    assert_eq!(
        text.matches(" (dry run)\n").count(),
        docs.len(),
        "every object passes the client-side dry run:\n{text}"
    );

    let out = kubectl(env, &["create", "namespace", OPERATOR_NS]);
    succeeded("kubectl create namespace", &out);
    let out = kubectl(env, &server_dry_run);
    let text = succeeded("kubectl apply --dry-run=server -k rbac-out", &out);
    assert_eq!(
        text.matches("serverside-applied (server dry run)").count(),
        docs.len(),
        "every object passes the dry run:\n{text}"
    );
    let out = kubectl(env, &["apply", "--server-side", "-k", "rbac-out"]);
    let text = succeeded("kubectl apply -k rbac-out", &out);
    assert_eq!(
        text.matches("serverside-applied").count(),
        docs.len(),
        "{text}"
    );
    let out = kubectl(
        env,
        &[
            "wait",
            "--for=condition=Established",
            "crd",
            "--all",
            "--timeout=30s",
        ],
    );
    succeeded("kubectl wait for the CRDs", &out);
}

/// The ServiceAccount is `<name-prefix>controller-manager` once kustomize has prefixed it, and
/// `kubectl create token` with that name gives a token that authenticates as it.
async fn kubectl_create_token_names_the_prefixed_service_account(env: &Envtest) {
    let name = format!("{PREFIX}controller-manager");
    let out = kubectl(env, &["create", "token", &name, "-n", OPERATOR_NS]);
    let token = succeeded("kubectl create token", &out);
    let client = env.client_for_token(token.trim(), OPERATOR_NS).unwrap();
    let whoami = post(
        &client,
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
    )
    .await
    .unwrap();
    assert_eq!(
        whoami["status"]["userInfo"]["username"],
        format!("system:serviceaccount:{OPERATOR_NS}:{name}")
    );
    // The unprefixed name of the generator's `service-account` key is not there.
    let out = kubectl(
        env,
        &["create", "token", "controller-manager", "-n", OPERATOR_NS],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("serviceaccounts \"controller-manager\" not found"),
        "{out:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bundle_installs_and_the_operators_run_under_exactly_it() {
    let env = Envtest::builder()
        .assets(assets())
        // Setting blockOwnerDeletion needs `update` on the owner's finalizers, as on OpenShift.
        .apiserver_arg("--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest: {e}"));
    let admin = env.admin_client().unwrap();
    let docs = rendered();
    install(&env, &docs).await;
    kubectl_create_token_names_the_prefixed_service_account(&env).await;

    // A real token for the generated ServiceAccount, from the TokenRequest API.
    let (sa_ns, sa_name) = service_account(&docs);
    let user = format!("system:serviceaccount:{sa_ns}:{sa_name}");
    let token = env.service_account_token(&sa_ns, &sa_name).await.unwrap();
    let operator = env.client_for_token(&token, &sa_ns).unwrap();
    let whoami = post(
        &operator,
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
    )
    .await
    .unwrap();
    assert_eq!(whoami["status"]["userInfo"]["username"], user.as_str());

    // The operators run under the request audit: each request checked in-process against the
    // roles generated from the attributes this test links (the examples').
    let audit = Audit::new(
        Permissions::from_registry().with_user_name(&user),
        Mode::Warn,
    );
    let audited = ClientBuilder::try_from(env.config_for_token(&token, &sa_ns).unwrap())
        .unwrap()
        .with_layer(&audit.layer())
        .build();
    readyz_waits_for_the_caches_to_sync(&env).await;
    operators_converge_with_zero_forbidden(&env, &admin, &audited, &user).await;
    every_request_was_covered_and_every_permission_needed(&audit);
    every_binding_grants_exactly_its_role(&env, &admin, &operator, &docs).await;
    leader_election_and_metrics_auth_work_for_real(&operator, &sa_ns).await;
    the_metrics_reader_reads_metrics(&env).await;
    viewer_and_editor_roles_grant_what_they_say(&env, &admin).await;
    the_pod_passes_restricted_only_with_every_hardening_field(&env, &admin, &docs).await;
}

/// Operators whose identity may list nothing never sync their caches: `/readyz` stays 503.
async fn readyz_waits_for_the_caches_to_sync(env: &Envtest) {
    let nobody = env
        .client_as(
            "system:serviceaccount:e2e:nobody",
            &["system:authenticated"],
        )
        .unwrap();
    let running = operators::start(nobody).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (status, body) = operators::get(running.probes.local_addr(), "/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("[-]memcacheds cache: not ready yet\n"),
        "{body}"
    );
    for task in running.tasks {
        task.abort();
    }
    running.probes.shutdown().await;
}

async fn operators_converge_with_zero_forbidden(
    env: &Envtest,
    admin: &Client,
    operator: &Client,
    user: &str,
) {
    let running = operators::start(operator.clone()).await;
    operators::become_ready(&running).await;
    create_objects(admin).await;
    operators::converge(admin).await;
    for task in running.tasks {
        task.abort();
    }
    running.probes.shutdown().await;
    let forbidden = env.forbidden_requests_of(user).unwrap();
    assert!(
        forbidden.is_empty(),
        "the operators were denied: {forbidden:#?}"
    );
    // The audit log did see the operators' requests as the ServiceAccount.
    let theirs = env
        .audit_events()
        .unwrap()
        .into_iter()
        .filter(|e| e["user"]["username"] == user)
        .count();
    assert!(
        theirs > 20,
        "only {theirs} requests by {user} in the audit log"
    );
}

/// What the audit layer saw while the operators converged: every request allowed by the
/// generated roles, every verb of every attribute used, and every permission (group × resource
/// × verb) of every generated rule needed alone by some request — no other rule allowed it.
///
/// This replaces the rule-removal loop that started an API server per generated rule and waited
/// for a denial without it. It proves more: necessity per permission rather than per rule (a
/// merged rule's unused resource or verb is caught), with one API server. What the loop got
/// from the server — that RBAC denies without the rule — follows from the evaluator, which
/// passes kube-apiserver's own vectors; that the server agrees with the in-process decisions is
/// the zero-Forbidden check above, under the same roles.
fn every_request_was_covered_and_every_permission_needed(audit: &Audit) {
    let report = audit.report();
    assert!(report.requests > 20, "{report}");
    assert!(report.is_clean(), "{report}");
    assert_eq!(
        report.unused.len() + report.unneeded.len() + report.uncovered.len(),
        0
    );
}

/// The generated roles' names as the bundle prefixes them.
fn registered_roles() -> Vec<String> {
    kube_markers::codegen::roles_for(
        &kube_markers::registry::rbac_entries(),
        kube_markers::codegen::rbac::DEFAULT_ROLE_NAME,
    )
    .into_iter()
    .map(|r| format!("{PREFIX}{}", r.key.name))
    .collect()
}

/// A missing permission as the access-review attributes of [`permissions`].
fn review_attributes(missing: &kube_markers::Missing) -> Value {
    let p = &missing.permission;
    if !p.url.is_empty() {
        return json!({"nonResourceAttributes": {"path": p.url, "verb": p.verb}});
    }
    let (resource, subresource) = p.resource.split_once('/').unwrap_or((&p.resource, ""));
    json!({"resourceAttributes": {
        "namespace": p.namespace, "verb": p.verb, "group": p.group,
        "resource": resource, "subresource": subresource,
    }})
}

/// A Pod made from the Deployment's template passes Pod Security "restricted", and fails it
/// with any one of the fields that level checks taken away. `readOnlyRootFilesystem` is set
/// too, but "restricted" does not check it: the Pod without it is accepted, as Kubernetes
/// defines the level.
async fn the_pod_passes_restricted_only_with_every_hardening_field(
    env: &Envtest,
    admin: &Client,
    docs: &[Value],
) {
    env.apply_objects(vec![json!({
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "restricted", "labels": {
            "pod-security.kubernetes.io/enforce": "restricted",
            "pod-security.kubernetes.io/enforce-version": "latest",
        }},
    })])
    .await
    .unwrap();
    let deployment = named(docs, "Deployment", &format!("{PREFIX}controller-manager"));
    let template = &deployment["spec"]["template"];
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "manager", "labels": template["metadata"]["labels"]},
        "spec": template["spec"],
    });
    let pods = api_for::<k8s_openapi::api::core::v1::Pod>(admin, Some("restricted"));
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let create = |pod: Value| {
        let pods = pods.clone();
        let dry_run = dry_run.clone();
        async move {
            pods.create(&dry_run, &serde_json::from_value(pod).unwrap())
                .await
        }
    };
    create(pod.clone()).await.unwrap();

    let without = |path: &[&str]| {
        let mut pod = pod.clone();
        let (last, parents) = path.split_last().unwrap();
        let mut node = &mut pod["spec"];
        for key in parents {
            node = if let Ok(i) = key.parse::<usize>() {
                &mut node[i]
            } else {
                &mut node[*key]
            };
        }
        assert!(
            node.as_object_mut().unwrap().remove(*last).is_some(),
            "{path:?} is set"
        );
        pod
    };
    let container = ["containers", "0", "securityContext"];
    let in_container = |field: &'static str| -> Vec<&'static str> {
        let mut path = container.to_vec();
        path.push(field);
        path
    };
    for (path, violation) in [
        (
            vec!["securityContext", "runAsNonRoot"],
            "runAsNonRoot != true",
        ),
        (vec!["securityContext", "seccompProfile"], "seccompProfile"),
        (
            in_container("allowPrivilegeEscalation"),
            "allowPrivilegeEscalation != false",
        ),
        (in_container("capabilities"), "unrestricted capabilities"),
    ] {
        let (code, message) = refusal(create(without(&path)).await);
        assert_eq!(code, 403, "without {path:?}: {message}");
        assert!(
            message.contains("violates PodSecurity \"restricted:latest\"")
                && message.contains(violation),
            "without {path:?}: {message}"
        );
    }
    create(without(&in_container("readOnlyRootFilesystem")))
        .await
        .unwrap();

    // The API server checks the downward API's field paths, so the accepted Pod's
    // POD_SERVICE_ACCOUNT (spec.serviceAccountName) is one it resolves for environment
    // variables; a path it does not resolve is refused.
    let env_vars = &pod["spec"]["containers"][0]["env"];
    let service_account = env_vars
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e["name"] == "POD_SERVICE_ACCOUNT")
        .expect("the manager container has POD_SERVICE_ACCOUNT");
    assert_eq!(
        env_vars[service_account]["valueFrom"]["fieldRef"]["fieldPath"],
        "spec.serviceAccountName"
    );
    let mut unresolved = pod.clone();
    unresolved["spec"]["containers"][0]["env"][service_account]["valueFrom"]["fieldRef"]["fieldPath"] =
        json!("spec.automountServiceAccountToken");
    let (code, message) = refusal(create(unresolved).await);
    assert_eq!(code, 422, "{message}");
    assert!(
        message.contains("spec.automountServiceAccountToken")
            && message.contains("field label not supported"),
        "{message}"
    );
}
