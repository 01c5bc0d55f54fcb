//! The kustomize reader against kustomize itself: every role, binding and ServiceAccount
//! `load` renders is the one `kubectl kustomize` prints (name, namespace, rules, roleRef,
//! subjects), for the deploy bundle and overlays of it; and what it does not render is refused
//! by name.

use super::*;
use serde_json::json;
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What RBAC reads of an object: kind, namespace, name, and its rules, roleRef and subjects.
type Essence = (String, String, String, String);

fn essence(doc: &Value) -> Essence {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    // Through the typed objects, so that both sides spell empty lists alike.
    fn typed<T: serde::de::DeserializeOwned + serde::Serialize>(doc: &Value) -> Value {
        serde_json::to_value(serde_json::from_value::<T>(doc.clone()).unwrap()).unwrap()
    }
    let doc = match doc["kind"].as_str().unwrap() {
        "Role" => typed::<Role>(doc),
        "ClusterRole" => typed::<ClusterRole>(doc),
        "RoleBinding" => typed::<RoleBinding>(doc),
        "ClusterRoleBinding" => typed::<ClusterRoleBinding>(doc),
        _ => doc.clone(),
    };
    (
        text(&doc["kind"]),
        text(&doc["metadata"]["namespace"]),
        text(&doc["metadata"]["name"]),
        json!({
            "rules": doc["rules"],
            "roleRef": doc["roleRef"],
            "subjects": doc["subjects"],
        })
        .to_string(),
    )
}

/// `kubectl kustomize dir`: the roles, bindings and ServiceAccounts.
fn kustomized(dir: &Path) -> Vec<Essence> {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .expect("run kubectl (kubectl kustomize is the oracle of these tests)");
    assert!(
        out.status.success(),
        "kubectl kustomize {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&String::from_utf8(out.stdout).unwrap()).unwrap();
    let mut all: Vec<Essence> = docs
        .iter()
        .filter(|d| {
            kustomize::kept(
                d["apiVersion"].as_str().unwrap(),
                d["kind"].as_str().unwrap(),
            ) && d["kind"] != "CustomResourceDefinition"
        })
        .map(essence)
        .collect();
    all.sort();
    all
}

/// `load(dir)`: the same objects.
fn loaded(dir: &Path) -> Vec<Essence> {
    let m = load(dir).unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()));
    let rbac = &m.authorizer;
    let mut all: Vec<Essence> = Vec::new();
    let docs = rbac
        .roles
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .chain(
            rbac.cluster_roles
                .iter()
                .map(|r| serde_json::to_value(r).unwrap()),
        )
        .chain(
            rbac.role_bindings
                .iter()
                .map(|r| serde_json::to_value(r).unwrap()),
        )
        .chain(
            rbac.cluster_role_bindings
                .iter()
                .map(|r| serde_json::to_value(r).unwrap()),
        );
    for (doc, kind) in docs.zip(
        std::iter::repeat_n("Role", rbac.roles.len())
            .chain(std::iter::repeat_n("ClusterRole", rbac.cluster_roles.len()))
            .chain(std::iter::repeat_n("RoleBinding", rbac.role_bindings.len()))
            .chain(std::iter::repeat_n(
                "ClusterRoleBinding",
                rbac.cluster_role_bindings.len(),
            )),
    ) {
        let mut doc = doc;
        doc["kind"] = json!(kind);
        all.push(essence(&doc));
    }
    for (namespace, name, _) in &m.service_accounts {
        all.push((
            "ServiceAccount".into(),
            namespace.clone(),
            name.clone(),
            json!({"rules": null, "roleRef": null, "subjects": null}).to_string(),
        ));
    }
    all.sort();
    all
}

fn assert_same_as_kustomize(dir: &Path) {
    let (ours, theirs) = (loaded(dir), kustomized(dir));
    let missing: Vec<_> = theirs.iter().filter(|e| !ours.contains(e)).collect();
    let extra: Vec<_> = ours.iter().filter(|e| !theirs.contains(e)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{}: kustomize renders, can-i does not:\n{missing:#?}\ncan-i renders, kustomize does not:\n{extra:#?}",
        dir.display()
    );
    assert!(!ours.is_empty());
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A copy of the repository's bundle (`rbac-out/`) under `dir/base`.
fn copy_bundle(dir: &Path) -> PathBuf {
    let from = repo_root().join("rbac-out");
    let base = dir.join("base");
    let mut stack = vec![from.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let to = base.join(path.strip_prefix(&from).unwrap());
                write(&to, &std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    base
}

const EXTRA_BINDINGS: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: view-binding, namespace: elsewhere}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: ServiceAccount, name: controller-manager, namespace: example-operator-system}
- {kind: ServiceAccount, name: controller-manager, namespace: zzz}
- {kind: ServiceAccount, name: controller-manager}
- {kind: ServiceAccount, name: example-operator-controller-manager}
- {kind: ServiceAccount, name: default}
- {kind: ServiceAccount, name: default, namespace: kube-system}
- {kind: ServiceAccount, name: other, namespace: zzz}
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
- {kind: Group, name: devs, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: manager-again}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: manager-role}
subjects:
- {kind: ServiceAccount, name: controller-manager}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: wrong-namespace, namespace: db-tenants}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: leader-election-role}
subjects:
- {kind: ServiceAccount, name: controller-manager, namespace: prod}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tenant-again, namespace: db-tenants}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: mydatabase-tenant}
subjects:
- {kind: ServiceAccount, name: controller-manager, namespace: prod}
";

#[test]
fn the_bundle_renders_as_kustomize_renders_it() {
    assert_same_as_kustomize(&repo_root().join("rbac-out"));
    let m = load(&repo_root().join("rbac-out")).unwrap();
    // The names the attributes give, for --explain.
    assert_eq!(
        m.as_in_file("ClusterRole", None, "example-operator-manager-role"),
        ("manager-role".into(), None)
    );
    assert_eq!(
        m.as_in_file(
            "Role",
            Some("db-tenants"),
            "example-operator-mydatabase-tenant"
        ),
        ("mydatabase-tenant".into(), Some("db-tenants".into()))
    );
    assert_eq!(
        m.service_accounts
            .iter()
            .map(|(ns, name, _)| (ns.as_str(), name.as_str()))
            .collect::<Vec<_>>(),
        [(
            "example-operator-system",
            "example-operator-controller-manager"
        )]
    );
    assert_eq!(m.crds.len(), 2);
    assert!(m.crds.iter().any(|c| c.plural == "memcacheds"
        && c.group == "cache.example.com"
        && c.kind == "Memcached"
        && c.namespaced));
}

#[test]
fn an_overlay_renders_as_kustomize_renders_it() {
    let dir = tempfile::tempdir().unwrap();
    copy_bundle(dir.path());
    let overlay = dir.path().join("overlay");
    write(
        &overlay.join("kustomization.yaml"),
        "resources:\n- ../base\n- extra.yaml\nnamespace: prod\nnamePrefix: p-\nnameSuffix: -s\n\
         transformers:\n- ../base/pinned-namespaces\n\
         images: [{name: x, newTag: '2'}]\ncommonLabels: {team: a}\n",
    );
    write(&overlay.join("extra.yaml"), EXTRA_BINDINGS);
    assert_same_as_kustomize(&overlay);
    // Two levels: an overlay of the overlay, without a namespace of its own.
    let top = dir.path().join("top");
    write(
        &top.join("kustomization.yaml"),
        "resources: [../overlay]\nnamePrefix: t-\n",
    );
    assert_same_as_kustomize(&top);
    let m = load(&top).unwrap();
    assert_eq!(
        m.as_in_file("ClusterRole", None, "t-p-example-operator-manager-role-s"),
        ("manager-role".into(), None)
    );
}

#[test]
fn replacements_render_as_kustomize_renders_them() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("kustomization.yaml"),
        "resources: [rbac.yaml]\nnamespace: ops\nnamePrefix: x-\nreplacements:\n\
         - source: {kind: ServiceAccount, name: op, fieldPath: metadata.name}\n  \
           targets:\n  - select: {kind: ClusterRoleBinding}\n    fieldPaths: [subjects.0.name]\n",
    );
    write(
        &dir.path().join("rbac.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op}\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n\
         metadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}\n\
         subjects:\n- {kind: ServiceAccount, name: someone, namespace: ops}\n",
    );
    assert_same_as_kustomize(dir.path());
}

#[test]
fn patch_targets_select_as_kustomize_selects() {
    // A namespaced object without a namespace is in `default` for a selector; a cluster-scoped
    // one in none.
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("kustomization.yaml"),
        "resources: [rbac.yaml]\ntransformers: [rename.yaml]\n",
    );
    write(
        &dir.path().join("rbac.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op}\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: op}\n\
         rules: []\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: op, namespace: x}\n\
         rules: []\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: op}\n\
         roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: op}\n",
    );
    write(
        &dir.path().join("rename.yaml"),
        "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: r}\n\
         target: {namespace: default}\n\
         patch: |\n  - op: replace\n    path: /metadata/name\n    value: renamed\n",
    );
    // The rendering itself (`load` then refuses the ServiceAccount without a namespace).
    let mut errors = Vec::new();
    let mut ours: Vec<(String, String, String)> = kustomize::render(dir.path(), &mut errors)
        .iter()
        .map(|o| (o.kind().into(), o.namespace().into(), o.name().into()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    ours.sort();
    let theirs: Vec<(String, String, String)> = kustomized(dir.path())
        .into_iter()
        .map(|(kind, namespace, name, _)| (kind, namespace, name))
        .collect();
    assert_eq!(ours, theirs);
    assert!(ours.contains(&("ServiceAccount".into(), "".into(), "renamed".into())));
    assert!(ours.contains(&("ClusterRole".into(), "".into(), "op".into())));
    assert!(ours.contains(&("ClusterRoleBinding".into(), "".into(), "op".into())));
}

fn refused(kustomization: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("kustomization.yaml"), kustomization);
    write(
        &dir.path().join("sa.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op}\n",
    );
    let problems = load(dir.path()).unwrap_err();
    let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    let text = text.join("\n");
    assert!(
        text.contains("kustomization.yaml"),
        "names the file: {text}"
    );
    text
}

#[test]
fn what_is_not_rendered_is_refused_by_name() {
    assert!(refused("resources: [sa.yaml]\ncomponents: [../c]\n").contains("`components`"));
    assert!(
        refused(
            "resources: [sa.yaml]\npatches:\n- target: {kind: ServiceAccount}\n  patch: '[]'\n"
        )
        .contains("may change a role, binding or ServiceAccount")
    );
    assert!(refused("resources:\n- https://github.com/x/y//config?ref=v1\n").contains("is remote"));
    assert!(refused("resources: [missing.yaml]\n").contains("missing.yaml"));
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("sub/kustomization.yaml"),
        "resources: [../sa.yaml]\n",
    );
    write(
        &dir.path().join("sa.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op, namespace: a}\n",
    );
    let problems = load(&dir.path().join("sub")).unwrap_err();
    assert!(
        problems[0].to_string().contains("is outside"),
        "{problems:?}"
    );
    assert!(refused("resources: [sa.yaml]\ntransformers: [t.yaml]\n").contains("t.yaml"));
    assert!(refused("resources: [sa.yaml]\nhelmCharts: []\n").contains("`helmCharts`"));
    assert!(
        refused(
            "resources: [sa.yaml]\nreplacements:\n- source: {kind: ConfigMap, name: c}\n  \
             targets:\n  - select: {kind: ServiceAccount}\n    fieldPaths: [metadata.name]\n"
        )
        .contains("copies from a \"ConfigMap\"")
    );
    assert!(
        refused(
            "resources: [sa.yaml]\nreplacements:\n- source: {kind: ServiceAccount, name: op}\n  \
             targets:\n  - select: {labelSelector: a=b}\n    fieldPaths: [metadata.name]\n"
        )
        .contains("selector field `labelSelector`")
    );
    // A transformer that is a plugin, or a strategic merge patch.
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("kustomization.yaml"),
        "resources: [sa.yaml]\ntransformers: [t.yaml]\n",
    );
    write(
        &dir.path().join("sa.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op, namespace: a}\n",
    );
    write(
        &dir.path().join("t.yaml"),
        "apiVersion: example.com/v1\nkind: Renamer\nmetadata: {name: r}\n---\n\
         apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: p}\n\
         patch: 'metadata: {name: x}'\n",
    );
    let text: Vec<String> = load(dir.path())
        .unwrap_err()
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert!(
        text[0].contains("t.yaml: transformer \"Renamer\""),
        "{text:?}"
    );
    assert!(text[0].contains("is a plugin"), "{text:?}");
    assert!(text[1].contains("not a JSON 6902 list"), "{text:?}");
    // A patch of a webhook configuration (the bundle's cert-manager patches) changes nothing
    // RBAC reads: it is read past.
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("kustomization.yaml"),
        "resources: [sa.yaml]\nnamespace: ops\npatches:\n- target: {kind: ValidatingWebhookConfiguration}\n  patch: '[]'\n",
    );
    write(
        &dir.path().join("sa.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op}\n",
    );
    let m = load(dir.path()).unwrap();
    assert_eq!(m.service_accounts[0].0, "ops");
}

#[test]
fn a_resource_directory_without_a_kustomization_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("kustomization.yaml"), "resources: [sub]\n");
    write(
        &dir.path().join("sub/a.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op, namespace: a}\n",
    );
    let problems = load(dir.path()).unwrap_err();
    assert!(
        problems[0]
            .to_string()
            .contains("has no kustomization.yaml"),
        "{problems:?}"
    );
}

#[test]
fn a_kustomization_that_includes_itself_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("a/kustomization.yaml"),
        "resources: [../b]\n",
    );
    write(
        &dir.path().join("b/kustomization.yaml"),
        "resources: [../a]\n",
    );
    let problems = load(&dir.path().join("a")).unwrap_err();
    assert!(
        problems[0]
            .to_string()
            .contains("includes itself (a cycle of resources)"),
        "{problems:?}"
    );
}
