//! What each binding and role of the installed bundle grants, asked of the API server itself
//! (SelfSubjectAccessReview) rather than read from the YAML.

use super::*;

pub(super) fn api_for<K: Resource<DynamicType = ()>>(
    client: &Client,
    ns: Option<&str>,
) -> Api<DynamicObject> {
    let resource = ApiResource::erase::<K>(&());
    match ns {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

/// `POST` of `body` to `path` as `client`, the response as JSON.
pub(super) async fn post(client: &Client, path: &str, body: Value) -> Result<Value, kube::Error> {
    let request = http::Request::post(path)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&body).unwrap())
        .unwrap();
    client.request::<Value>(request).await
}

/// What a SelfSubjectAccessReview of `client` says about `attributes`.
pub(super) async fn allowed(client: &Client, attributes: &Value) -> bool {
    let review = post(
        client,
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": attributes}),
    )
    .await
    .unwrap();
    review["status"]["allowed"] == true
}

/// Every permission a role's rules grant, as access-review attributes in `namespace` (`""`:
/// cluster-wide, as a ClusterRoleBinding grants).
pub(super) fn permissions(role: &Value, namespace: &str) -> Vec<Value> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let mut out = Vec::new();
    for rule in role["rules"].as_array().unwrap() {
        for verb in strings(&rule["verbs"]) {
            for url in strings(&rule["nonResourceURLs"]) {
                out.push(json!({"nonResourceAttributes": {"path": url, "verb": verb}}));
            }
            // A rule with `resourceNames` grants those objects only.
            let names: Vec<Option<String>> = match strings(&rule["resourceNames"]) {
                names if names.is_empty() => vec![None],
                names => names.into_iter().map(Some).collect(),
            };
            for group in strings(&rule["apiGroups"]) {
                for resource in strings(&rule["resources"]) {
                    let (resource, subresource) =
                        resource.split_once('/').unwrap_or((&resource, ""));
                    for name in &names {
                        let mut attributes = json!({
                            "namespace": namespace, "verb": verb, "group": group,
                            "resource": resource, "subresource": subresource,
                        });
                        if let Some(name) = name {
                            attributes["name"] = name.as_str().into();
                        }
                        out.push(json!({ "resourceAttributes": attributes }));
                    }
                }
            }
        }
    }
    out
}

/// The role a binding refers to.
pub(super) fn role_of<'a>(docs: &'a [Value], binding: &Value) -> &'a Value {
    let role_ref = &binding["roleRef"];
    docs.iter()
        .find(|d| {
            d["kind"] == role_ref["kind"]
                && d["metadata"]["name"] == role_ref["name"]
                && (role_ref["kind"] == "ClusterRole" || namespace_of(d) == namespace_of(binding))
        })
        .unwrap_or_else(|| panic!("no role for the binding {}", name(binding)))
}

/// Deleting any one generated binding takes away exactly the permissions of its role, and the
/// startup preflight names exactly those of them the attributes declare, with the attributes;
/// putting the binding back restores them.
pub(super) async fn every_binding_grants_exactly_its_role(
    env: &Envtest,
    admin: &Client,
    operator: &Client,
    docs: &[Value],
) {
    let bindings: Vec<&Value> = of_kind(docs, "ClusterRoleBinding")
        .into_iter()
        .chain(of_kind(docs, "RoleBinding"))
        .collect();
    // manager, leader election, metrics auth, tenant, conversion CA bundle.
    assert_eq!(bindings.len(), 5);
    // (binding, permission) for every permission of every bound role.
    let mut granted: Vec<(usize, Value)> = Vec::new();
    for (index, binding) in bindings.iter().enumerate() {
        for permission in permissions(role_of(docs, binding), namespace_of(binding)) {
            granted.push((index, permission));
        }
    }
    assert!(granted.len() > 25, "{} permissions", granted.len());
    for (_, permission) in &granted {
        assert!(
            allowed(operator, permission).await,
            "not granted with every binding: {permission}"
        );
    }
    let preflight = kube_markers::preflight(operator).await.unwrap();
    assert!(preflight.is_complete(), "{preflight}");
    let registered = registered_roles();
    let publish = kube_markers::registry::rbac_entries()
        .into_iter()
        .find(|e| e.source.item == "publish")
        .unwrap()
        .source
        .clone();
    for (index, binding) in bindings.iter().enumerate() {
        let api = if binding["kind"] == "ClusterRoleBinding" {
            api_for::<k8s_openapi::api::rbac::v1::ClusterRoleBinding>(admin, None)
        } else {
            api_for::<k8s_openapi::api::rbac::v1::RoleBinding>(admin, Some(namespace_of(binding)))
        };
        api.delete(name(binding), &DeleteParams::default())
            .await
            .unwrap();
        // The authorizer's cache follows within moments.
        let (_, first) = granted.iter().find(|(i, _)| *i == index).unwrap();
        eventually(
            "the deletion to reach the authorizer",
            Duration::from_secs(10),
            || async { !allowed(operator, first).await },
        )
        .await;
        for (owner, permission) in &granted {
            assert_eq!(
                allowed(operator, permission).await,
                *owner != index,
                "without {} {}: {permission}",
                binding["kind"],
                name(binding)
            );
        }
        // The preflight names what the attributes declare and this binding granted.
        let preflight = kube_markers::preflight(operator).await.unwrap();
        let mut missing: Vec<String> = preflight
            .missing
            .iter()
            .map(|m| review_attributes(m).to_string())
            .collect();
        let role = role_of(docs, binding);
        let mut expected: Vec<String> = if registered
            .iter()
            .any(|r| role["metadata"]["name"] == r.as_str())
        {
            permissions(role, namespace_of(binding))
                .iter()
                .map(Value::to_string)
                .collect()
        } else {
            Vec::new()
        };
        missing.sort();
        expected.sort();
        assert_eq!(missing, expected, "without {}:\n{preflight}", name(binding));
        assert!(
            preflight.missing.iter().all(|m| !m.declared_by.is_empty()
                && m.declared_by.iter().all(|d| d.starts_with("examples/"))),
            "{preflight}"
        );
        if binding["kind"] == "RoleBinding"
            && namespace_of(binding) == TENANT_NS
            && !expected.is_empty()
        {
            let text = preflight.to_string();
            assert!(
                text.contains(&format!(
                    "patch configmaps in namespace \"{TENANT_NS}\" — declared at {publish}"
                )),
                "{text}"
            );
        }
        env.apply_objects(vec![(*binding).clone()]).await.unwrap();
        eventually(
            "the binding to be back",
            Duration::from_secs(10),
            || async { allowed(operator, first).await },
        )
        .await;
    }
}

/// What the operators do not exercise, done for real: a Lease in the operator's namespace
/// (and not elsewhere), a TokenReview and a SubjectAccessReview.
pub(super) async fn leader_election_and_metrics_auth_work_for_real(operator: &Client, sa_ns: &str) {
    let lease = |name: &str| json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name}, "spec": {"holderIdentity": "test"}});
    let own = api_for::<k8s_openapi::api::coordination::v1::Lease>(operator, Some(sa_ns));
    own.create(
        &PostParams::default(),
        &serde_json::from_value(lease("example-operator")).unwrap(),
    )
    .await
    .unwrap();
    let elsewhere = api_for::<k8s_openapi::api::coordination::v1::Lease>(operator, Some(NS));
    let (code, _) = refusal(
        elsewhere
            .create(
                &PostParams::default(),
                &serde_json::from_value(lease("x")).unwrap(),
            )
            .await,
    );
    assert_eq!(code, 403);
    post(
        operator,
        "/apis/authentication.k8s.io/v1/tokenreviews",
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": "not-a-token"}}),
    )
    .await
    .unwrap();
    post(
        operator,
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
               "spec": {"user": "prometheus", "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}}),
    )
    .await
    .unwrap();
}

/// Binds `user` to the ClusterRole `role` (cluster-wide, or in `namespace`).
pub(super) async fn bind(env: &Envtest, user: &str, role: &str, namespace: Option<&str>) {
    let mut binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": if namespace.is_some() { "RoleBinding" } else { "ClusterRoleBinding" },
        "metadata": {"name": format!("{user}-{role}")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
    });
    if let Some(ns) = namespace {
        binding["metadata"]["namespace"] = json!(ns);
    }
    env.apply_objects(vec![binding]).await.unwrap();
}

/// The metrics-reader ClusterRole, bound to a scraper, lets it read `/metrics` (the API
/// server's own, here); unbound, it cannot.
pub(super) async fn the_metrics_reader_reads_metrics(env: &Envtest) {
    let scraper = env
        .client_as("prometheus", &["system:authenticated"])
        .unwrap();
    let get = || http::Request::get("/metrics").body(Vec::new()).unwrap();
    let (code, _) = refusal(scraper.request_text(get()).await);
    assert_eq!(code, 403);
    bind(env, "prometheus", &format!("{PREFIX}metrics-reader"), None).await;
    eventually(
        "/metrics for the scraper",
        Duration::from_secs(10),
        || async { scraper.request_text(get()).await.is_ok() },
    )
    .await;
}

/// A viewer can get, list and watch a custom resource and read its status, and cannot create
/// it; an editor can create and update it; an admin can delete it.
pub(super) async fn viewer_and_editor_roles_grant_what_they_say(env: &Envtest, admin: &Client) {
    let kinds = [
        (
            "memcached",
            ApiResource::erase::<memcached_operator::Memcached>(&()),
            json!({"size": 1}),
            json!({"size": 2}),
        ),
        (
            "mydatabase",
            ApiResource::erase::<mydatabase_operator::MyDatabase>(&()),
            json!({"replicas": 1, "image": "postgres:17.2"}),
            json!({"replicas": 2, "image": "postgres:17.2"}),
        ),
    ];
    for (kind, resource, spec, changed) in kinds {
        let object = |name: &str, spec: &Value| -> DynamicObject {
            serde_json::from_value(json!({
                "apiVersion": resource.api_version, "kind": resource.kind,
                "metadata": {"name": name}, "spec": spec,
            }))
            .unwrap()
        };
        let api_as = |user: &str| {
            let client = env.client_as(user, &["system:authenticated"]).unwrap();
            Api::<DynamicObject>::namespaced_with(client, NS, &resource)
        };
        let (viewer, editor, owner) = (
            format!("{kind}-viewer"),
            format!("{kind}-editor"),
            format!("{kind}-admin"),
        );
        for (user, role) in [(&viewer, "viewer"), (&editor, "editor"), (&owner, "admin")] {
            bind(env, user, &format!("{PREFIX}{kind}-{role}-role"), Some(NS)).await;
        }
        Api::<DynamicObject>::namespaced_with(admin.clone(), NS, &resource)
            .create(&PostParams::default(), &object("seen", &spec))
            .await
            .unwrap();

        let as_viewer = api_as(&viewer);
        eventually("the viewer binding", Duration::from_secs(10), || async {
            as_viewer.get("seen").await.is_ok()
        })
        .await;
        assert!(
            as_viewer
                .list(&ListParams::default())
                .await
                .unwrap()
                .items
                .len()
                == 1
        );
        // The watch request is authorized when the stream opens.
        let _events = as_viewer
            .watch(&WatchParams::default().timeout(1), "0")
            .await
            .unwrap_or_else(|e| panic!("{viewer} cannot watch: {e}"));
        as_viewer.get_status("seen").await.unwrap();
        let (code, message) = refusal(
            as_viewer
                .create(&PostParams::default(), &object("new", &spec))
                .await,
        );
        assert_eq!(code, 403, "{message}");
        assert!(message.contains("cannot create resource"), "{message}");

        let as_editor = api_as(&editor);
        eventually("the editor binding", Duration::from_secs(10), || async {
            as_editor.get("seen").await.is_ok()
        })
        .await;
        as_editor
            .create(&PostParams::default(), &object("made", &spec))
            .await
            .unwrap();
        let mut made = as_editor.get("made").await.unwrap();
        made.data["spec"] = changed.clone();
        as_editor
            .replace("made", &PostParams::default(), &made)
            .await
            .unwrap();
        as_editor
            .patch(
                "made",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": spec})),
            )
            .await
            .unwrap();
        // Deleting is the editor's too (kubebuilder's editor role); the viewer's not.
        let (code, _) = refusal(as_viewer.delete("made", &DeleteParams::default()).await);
        assert_eq!(code, 403);

        let as_admin = api_as(&owner);
        eventually("the admin binding", Duration::from_secs(10), || async {
            as_admin.get("seen").await.is_ok()
        })
        .await;
        as_admin
            .delete("made", &DeleteParams::default())
            .await
            .unwrap();
        as_admin
            .delete("seen", &DeleteParams::default())
            .await
            .unwrap();
    }
}
