use super::*;
use crate::cli::can_i::CanICommand;
use crate::testing::{marker, rbac};
use kube_markers_core::model::RbacMarker;
use kube_markers_registry::Source;
use std::path::Path;

const ROLES: &str = "\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- nonResourceURLs:
  - /metrics
  verbs:
  - get
- apiGroups:
  - apps
  resources:
  - deployments
  verbs:
  - list
  - watch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: tenant
  namespace: tenants
rules:
- apiGroups:
  - \"\"
  resources:
  - configmaps
  verbs:
  - create
";

const BINDINGS: &str = "\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: op
  namespace: ops
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: manager-role
subjects:
- kind: ServiceAccount
  name: op
  namespace: ops
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: tenant
  namespace: tenants
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: tenant
subjects:
- kind: ServiceAccount
  name: op
  namespace: ops
";

fn source(line: u32, item: &'static str) -> Source {
    Source::__new("src/controller.rs", line, 1, "op::controller", item)
}

fn entries() -> Vec<&'static RbacEntry> {
    static ENTRIES: std::sync::OnceLock<Vec<RbacEntry>> = std::sync::OnceLock::new();
    ENTRIES
        .get_or_init(|| {
            let deployments = marker(&["apps"], &["deployments"], &["list", "watch"]);
            // Same group and resource, other verbs: not what grants `list`.
            let patch = marker(&["apps"], &["deployments"], &["patch"]);
            let configmaps = RbacMarker {
                namespace: Some("tenants".into()),
                role_name: Some("tenant".into()),
                ..marker(&["core"], &["configmaps"], &["create"])
            };
            vec![
                rbac(deployments, source(10, "reconcile")),
                rbac(patch, source(11, "reconcile")),
                rbac(configmaps, source(20, "tenant")),
            ]
        })
        .iter()
        .collect()
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn ask(dir: &Path, args: &[&str]) -> Result<CanIAnswer, CanIError> {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.push("--from".into());
    all.push(dir.display().to_string());
    let CanICommand::Ask(opts) = CanICommand::parse(all).unwrap() else {
        panic!()
    };
    run(&opts, &entries(), Vec::new)
}

fn manifest_errors(dir: &Path, args: &[&str]) -> String {
    match ask(dir, args) {
        Err(e) => e.to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn answers_as_the_service_account_of_the_manifests() {
    let dir = dir_with(&[("role.yaml", ROLES), ("bundle/bindings.yml", BINDINGS)]);
    let yes = |args: &[&str]| ask(dir.path(), args).unwrap().allowed();
    assert!(yes(&["list", "deployments.apps"]));
    assert!(yes(&["watch", "deployments.apps", "-n", "anywhere"]));
    assert!(!yes(&["delete", "deployments.apps/web", "-n", "anywhere"]));
    // Resolved as kubectl's discovery resolves it: deployments are apps'.
    assert!(yes(&["list", "deployments"]));
    assert!(yes(&["list", "deploy"]));
    assert!(!yes(&["list", "deployments.extensions"]));
    assert!(yes(&["get", "/metrics"]));
    assert!(!yes(&["post", "/metrics"]));
    // The Role applies in its namespace only.
    assert!(yes(&["create", "configmaps", "-n", "tenants"]));
    assert!(!yes(&["create", "configmaps", "-n", "ops"]));
    assert!(!yes(&["create", "configmaps"]));
    // Someone else.
    assert!(!yes(&["list", "deployments.apps", "--as", "alice"]));
    assert!(yes(&[
        "list",
        "deployments.apps",
        "--as",
        "system:serviceaccount:ops:op"
    ]));
    assert!(!yes(&[
        "list",
        "deployments.apps",
        "--as",
        "system:serviceaccount:other:op"
    ]));
    assert_eq!(
        ask(dir.path(), &["list", "deployments.apps"]).unwrap().text,
        "yes\n"
    );
    assert_eq!(
        ask(dir.path(), &["delete", "deployments.apps"])
            .unwrap()
            .text,
        "no\n"
    );
}

#[test]
fn explain_names_rule_role_binding_and_attributes() {
    let dir = dir_with(&[("role.yaml", ROLES), ("bindings.yaml", BINDINGS)]);
    let text = ask(
        dir.path(),
        &["list", "deployments.apps", "-n", "web", "--explain"],
    )
    .unwrap()
    .text;
    let role_file = dir.path().join("role.yaml").display().to_string();
    let binding_file = dir.path().join("bindings.yaml").display().to_string();
    let expected = format!(
        "yes
request: \"list\" resource \"deployments.apps\" in namespace \"web\"
as:      \"system:serviceaccount:ops:op\" (groups [\"system:serviceaccounts\", \"system:serviceaccounts:ops\", \"system:authenticated\"]), from the ServiceAccount of {binding_file} (document 1)
from:    {dir} (2 YAML file(s): 1 ClusterRole(s), 1 Role(s), 1 ClusterRoleBinding(s), 1 RoleBinding(s))
         and kube-apiserver 1.37.2's default roles for every user: system:basic-user, system:cluster-trust-bundle-discovery, system:discovery, system:public-info-viewer, system:service-account-issuer-discovery (--no-default-roles leaves them out)
rule:    rules[1] of ClusterRole \"manager-role\" in {role_file} (document 1)
         apiGroups: [\"apps\"], resources: [\"deployments\"], verbs: [\"list\", \"watch\"]
binding: ClusterRoleBinding \"manager-rolebinding\" of ClusterRole \"manager-role\" to ServiceAccount \"op/ops\" in {binding_file} (document 2)
#[rbac]:
  src/controller.rs:10 (reconcile) (apiGroups: [\"apps\"], resources: [\"deployments\"], verbs: [\"list\", \"watch\"])
",
        dir = dir.path().display()
    );
    assert_eq!(text, expected);

    // A Role's attributes are found by namespace; `core` is the core group.
    let text = ask(
        dir.path(),
        &["create", "configmaps", "-n", "tenants", "--explain"],
    )
    .unwrap()
    .text;
    assert!(
        text.contains("rule:    rules[0] of Role \"tenant\""),
        "{text}"
    );
    assert!(text.contains("binding: RoleBinding \"tenant/tenants\" of Role \"tenant\" to ServiceAccount \"op/ops\""), "{text}");
    assert!(text.contains("  src/controller.rs:20 (tenant) (apiGroups: [\"\"], resources: [\"configmaps\"], verbs: [\"create\"])"), "{text}");
    assert!(!text.contains("src/controller.rs:10"), "{text}");

    // With another --role-name, the default-named attributes belong to another role.
    let text = ask(
        dir.path(),
        &[
            "list",
            "deployments.apps",
            "--explain",
            "--role-name",
            "other",
        ],
    )
    .unwrap()
    .text;
    assert!(text.contains("#[rbac]: none of this generator's attributes grants this in ClusterRole \"manager-role\" on its own"), "{text}");
}

#[test]
fn explain_says_what_applies_when_nothing_allows() {
    let dir = dir_with(&[("role.yaml", ROLES), ("bindings.yaml", BINDINGS)]);
    let text = ask(
        dir.path(),
        &[
            "delete",
            "deployments.apps/web",
            "-n",
            "tenants",
            "--explain",
        ],
    )
    .unwrap()
    .text;
    assert!(text.starts_with("no\nrequest: \"delete\" resource \"deployments.apps\" named \"web\" in namespace \"tenants\"\n"), "{text}");
    assert!(text.contains("rules:   none of these rules in namespace \"tenants\" allows it:\n  rules[0] of ClusterRole \"manager-role\" (bound by ClusterRoleBinding \"manager-rolebinding\"): nonResourceURLs: [\"/metrics\"], verbs: [\"get\"]\n  rules[1] of ClusterRole \"manager-role\""), "{text}");
    assert!(text.contains("  rules[0] of Role \"tenant\" (bound by RoleBinding \"tenant\"): apiGroups: [\"\"], resources: [\"configmaps\"], verbs: [\"create\"]\n"), "{text}");
    assert!(text.ends_with("to allow it: #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"delete\")]\n  or only this: #[kube_markers::rbac(groups = \"apps\", resources = \"deployments\", verbs = \"delete\", resource_names = \"web\", namespace = \"tenants\")]\n"), "{text}");

    let text = ask(
        dir.path(),
        &[
            "get",
            "/healthz",
            "--as",
            "alice",
            "--explain",
            "--no-default-roles",
        ],
    )
    .unwrap()
    .text;
    assert!(
        text.contains("rules:   no binding gives this user any rule cluster-wide\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "to allow it: #[kube_markers::rbac(urls = \"/healthz\", verbs = \"get\")]\n"
        ),
        "{text}"
    );

    // A binding to a role that is not there: reported, as the API server reports it.
    let dangling = BINDINGS.replace("name: manager-role\nsubjects", "name: gone\nsubjects");
    let dir = dir_with(&[("role.yaml", ROLES), ("bindings.yaml", &dangling)]);
    let text = ask(dir.path(), &["list", "deployments.apps", "--explain"])
        .unwrap()
        .text;
    assert!(
        text.contains("error:   clusterrole.rbac.authorization.k8s.io \"gone\" not found\n"),
        "{text}"
    );
    let text = ask(
        dir.path(),
        &[
            "get",
            "pods/web",
            "--subresource",
            "log",
            "-n",
            "ops",
            "--explain",
        ],
    )
    .unwrap()
    .text;
    assert!(text.ends_with("to allow it: #[kube_markers::rbac(groups = \"\", resources = \"pods/log\", verbs = \"get\")]\n  or only this: #[kube_markers::rbac(groups = \"\", resources = \"pods/log\", verbs = \"get\", resource_names = \"web\", namespace = \"ops\")]\n"), "{text}");
}

#[test]
fn the_identity_must_be_clear() {
    let dir = dir_with(&[("role.yaml", ROLES)]);
    assert!(matches!(
        ask(dir.path(), &["list", "pods"]),
        Err(CanIError::NoServiceAccount { from }) if from == dir.path()
    ));
    let e = manifest_errors(dir.path(), &["list", "pods"]);
    assert!(
        e.contains("no ServiceAccount in") && e.contains("pass `--as USER`"),
        "{e}"
    );
    // --as needs no ServiceAccount.
    assert!(
        !ask(dir.path(), &["list", "pods", "--as", "alice"])
            .unwrap()
            .allowed()
    );

    let second =
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: other\n  namespace: ops\n";
    let dir = dir_with(&[
        ("role.yaml", ROLES),
        ("b.yaml", BINDINGS),
        ("c.yaml", second),
    ]);
    let Err(CanIError::SeveralServiceAccounts { accounts, .. }) =
        ask(dir.path(), &["list", "pods"])
    else {
        panic!("two ServiceAccounts")
    };
    assert_eq!(
        accounts,
        [("ops".into(), "op".into()), ("ops".into(), "other".into())]
    );
    let e = manifest_errors(dir.path(), &["list", "pods"]);
    assert!(
        e.contains("2 ServiceAccounts in") && e.contains("(ops/op, ops/other)"),
        "{e}"
    );
}

#[test]
fn namespaces_come_from_the_objects_or_the_kustomization() {
    let no_namespace = BINDINGS.replacen("  namespace: ops\n---", "---", 1);
    let dir = dir_with(&[("role.yaml", ROLES), ("bindings.yaml", &no_namespace)]);
    let e = manifest_errors(dir.path(), &["list", "pods"]);
    assert!(
        e.contains("ServiceAccount \"op\" in ")
            && e.contains("(document 1) has no metadata.namespace"),
        "{e}"
    );

    let kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ops\nresources:\n- role.yaml\n- bindings.yaml\n";
    let dir = dir_with(&[
        ("role.yaml", ROLES),
        ("bindings.yaml", &no_namespace),
        ("kustomization.yaml", kustomization),
    ]);
    let answer = ask(dir.path(), &["list", "deployments.apps", "--explain"]).unwrap();
    assert!(answer.allowed(), "{}", answer.text);
    assert!(
        answer.text.contains("\"system:serviceaccount:ops:op\""),
        "{}",
        answer.text
    );
    // kustomize's `namespace:` moves every namespaced object, those that name another
    // namespace too (the deploy bundle's pinned-namespaces transformers put its own back).
    assert!(
        !ask(dir.path(), &["create", "configmaps", "-n", "tenants"])
            .unwrap()
            .allowed()
    );
    assert!(
        ask(dir.path(), &["create", "configmaps", "-n", "ops"])
            .unwrap()
            .allowed()
    );
    // Only the files the kustomization lists are read.
    let only_roles = kustomization.replace("- bindings.yaml\n", "");
    let dir = dir_with(&[
        ("role.yaml", ROLES),
        ("bindings.yaml", &no_namespace),
        ("kustomization.yaml", &only_roles),
    ]);
    assert!(matches!(
        ask(dir.path(), &["list", "pods"]),
        Err(CanIError::NoServiceAccount { .. })
    ));
}

#[test]
fn bad_manifests_are_named_all_together() {
    let dir = dir_with(&[
        ("a.yaml", "kind: [unclosed\n"),
        (
            "b.yaml",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules: 7\n",
        ),
        ("c.yaml", ROLES),
        (
            "d.yaml",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {}\n",
        ),
        ("notes.txt", "not read"),
    ]);
    let Err(CanIError::Manifests(problems)) = ask(dir.path(), &["list", "pods", "--as", "alice"])
    else {
        panic!("bad manifests")
    };
    assert!(
        matches!(
            problems.as_slice(),
            [
                ManifestProblem::NotYaml { path, .. },
                ManifestProblem::Invalid { kind, name, .. },
                ManifestProblem::Duplicate { .. },
                ManifestProblem::NoName { .. },
            ] if path.ends_with("a.yaml") && kind == "ClusterRole" && name == "manager-role"
        ),
        "{problems:#?}"
    );
    let e = manifest_errors(dir.path(), &["list", "pods", "--as", "alice"]);
    assert!(e.starts_with("4 problems with the manifests:\n"), "{e}");
    assert!(e.contains("a.yaml: not YAML"), "{e}");
    assert!(
        e.contains("ClusterRole \"manager-role\" in ")
            && e.contains("b.yaml (document 1) is not a valid object"),
        "{e}"
    );
    assert!(
        e.contains("c.yaml (document 1) is defined again (first in "),
        "{e}"
    );
    assert!(
        e.contains("ClusterRoleBinding in ")
            && e.contains("d.yaml (document 1) has no metadata.name"),
        "{e}"
    );

    let missing = dir.path().join("nope");
    let CanICommand::Ask(opts) =
        CanICommand::parse(["get", "pods", "--from", missing.to_str().unwrap()]).unwrap()
    else {
        panic!()
    };
    let e = run(&opts, &[], Vec::new).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("cannot read --from {}: ", missing.display())),
        "{e}"
    );
}

#[test]
fn lists_and_single_files_are_read() {
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}",
        [ROLES, BINDINGS]
            .iter()
            .flat_map(|t| t.split("---\n"))
            .filter(|d| !d.trim().is_empty())
            .map(|d| {
                let mut lines = d.lines();
                let first = format!("- {}\n", lines.next().unwrap());
                first + &lines.map(|l| format!("  {l}\n")).collect::<String>()
            })
            .collect::<String>()
    );
    let dir = dir_with(&[("all.yaml", &list)]);
    let file = dir.path().join("all.yaml");
    let CanICommand::Ask(opts) = CanICommand::parse([
        "create",
        "configmaps",
        "-n",
        "tenants",
        "--from",
        file.to_str().unwrap(),
    ])
    .unwrap() else {
        panic!()
    };
    assert!(run(&opts, &[], Vec::new).unwrap().allowed());
}

#[test]
fn unknown_verbs_are_warned_about_as_kubectl_does() {
    let opts = |args: &[&str]| match CanICommand::parse(args.iter().copied()).unwrap() {
        CanICommand::Ask(o) => o,
        CanICommand::Help => panic!(),
    };
    assert_eq!(unknown_verb_warning(&opts(&["list", "pods"])), None);
    assert_eq!(
        unknown_verb_warning(&opts(&["lsit", "pods"])).as_deref(),
        Some("Warning: verb \"lsit\" is not a known verb")
    );
    assert_eq!(unknown_verb_warning(&opts(&["post", "/metrics"])), None);
    assert!(unknown_verb_warning(&opts(&["list", "/metrics"])).is_some());
}

#[test]
fn every_user_has_the_default_roles_unless_left_out() {
    let dir = dir_with(&[("role.yaml", ROLES), ("bindings.yaml", BINDINGS)]);
    let yes = |args: &[&str]| ask(dir.path(), args).unwrap().allowed();
    for args in [
        &["get", "/healthz"][..],
        &["get", "/version"],
        &["get", "/readyz"],
        &["get", "/livez"],
        &["get", "/openapi/v3"],
        &["get", "/apis/apps/v1"],
        &["get", "/openid/v1/jwks"],
        &["create", "selfsubjectaccessreviews"],
        &["create", "selfsubjectrulesreviews.authorization.k8s.io"],
        &["create", "selfsubjectreviews"],
        &["list", "clustertrustbundles"],
    ] {
        assert!(yes(args), "{args:?}");
        let mut without = args.to_vec();
        without.push("--no-default-roles");
        assert!(!yes(&without), "{without:?}");
    }
    // Only what the server gives: not another verb, not another URL.
    assert!(!yes(&["post", "/healthz"]));
    assert!(!yes(&["get", "/healthz/etcd"]));
    assert!(!yes(&["create", "subjectaccessreviews"]));
    // OIDC discovery and trust bundles are for ServiceAccounts only.
    assert!(!yes(&["get", "/openid/v1/jwks", "--as", "alice"]));
    assert!(yes(&["get", "/healthz", "--as", "alice"]));
    assert!(yes(&["get", "/healthz", "--as", "system:anonymous"]));
    assert!(!yes(&["get", "/api", "--as", "system:anonymous"]));

    // A --from that holds a default role already (a dump of a cluster's roles) is taken as it
    // is: that cluster's system:discovery, here narrowed to /api.
    let dump = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: system:discovery\nrules:\n- nonResourceURLs: [/api]\n  verbs: [get]\n";
    let dumped = dir_with(&[
        ("role.yaml", ROLES),
        ("bindings.yaml", BINDINGS),
        ("dump.yaml", dump),
    ]);
    let dumped_yes = |args: &[&str]| ask(dumped.path(), args).unwrap().allowed();
    assert!(dumped_yes(&["get", "/api"]));
    assert!(!dumped_yes(&["get", "/openapi/v3"]));
    assert!(dumped_yes(&["get", "/version"])); // system:public-info-viewer's
    let text = ask(dumped.path(), &["get", "/api", "--explain"])
        .unwrap()
        .text;
    assert!(
        text.contains("rule:    rules[0] of ClusterRole \"system:discovery\" in "),
        "{text}"
    );
    assert!(
        text.contains("(3 YAML file(s): 2 ClusterRole(s), 1 Role(s), 1 ClusterRoleBinding(s), 1 RoleBinding(s))\n"),
        "{text}"
    );

    let text = ask(dir.path(), &["get", "/version", "--explain"])
        .unwrap()
        .text;
    assert!(text.contains("rule:    rules[0] of ClusterRole \"system:discovery\" (a default of kube-apiserver 1.37.2)\n"), "{text}");
    assert!(text.contains("binding: ClusterRoleBinding \"system:discovery\" of ClusterRole \"system:discovery\" to Group \"system:authenticated\" (a default of kube-apiserver 1.37.2)\n"), "{text}");
    assert!(
        text.ends_with("#[rbac]: none needed: every cluster grants this to every such user\n"),
        "{text}"
    );
}

const BACKUP_CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.backup.example.com
spec:
  group: backup.example.com
  names:
    kind: Backup
    plural: backups
    shortNames: [bk]
  scope: Namespaced
  versions: []
";

#[test]
fn resources_are_resolved_as_kubectl_discovery_does() {
    let dir = dir_with(&[
        ("role.yaml", ROLES),
        ("bindings.yaml", BINDINGS),
        ("crd/backups.yaml", BACKUP_CRD),
    ]);
    let text = ask(dir.path(), &["list", "backups", "--explain"])
        .unwrap()
        .text;
    let crd_file = dir.path().join("crd/backups.yaml").display().to_string();
    assert!(text.starts_with(&format!(
        "no\nrequest: \"list\" resource \"backups.backup.example.com\" cluster-wide\n         backups.backup.example.com is the CRD in {crd_file} (document 1)\n"
    )), "{text}");
    assert!(text.ends_with("to allow it: #[kube_markers::rbac(groups = \"backup.example.com\", resources = \"backups\", verbs = \"list\")]\n"), "{text}");
    // Singular (the lowercased kind) and short name.
    for name in ["backup", "bk", "Backup", "backups.backup.example.com"] {
        let answer = ask(dir.path(), &["list", name, "--explain"]).unwrap();
        assert!(
            answer
                .text
                .contains("resource \"backups.backup.example.com\""),
            "{name}: {}",
            answer.text
        );
        assert!(answer.warnings.is_empty(), "{name}: {:?}", answer.warnings);
    }
    // A CRD linked into the generator, without --from knowing it.
    let bare = dir_with(&[("role.yaml", ROLES), ("bindings.yaml", BINDINGS)]);
    let CanICommand::Ask(opts) = CanICommand::parse([
        "list",
        "bk",
        "--explain",
        "--from",
        bare.path().to_str().unwrap(),
    ])
    .unwrap() else {
        panic!()
    };
    let linked = KnownResource {
        from: ResourceSource::Registry("backup::Backup".into()),
        ..KnownResource::from_manifest(&load(dir.path()).unwrap().crds[0])
    };
    let text = run(&opts, &entries(), || vec![linked]).unwrap().text;
    assert!(text.contains("         backups.backup.example.com is the CRD of `backup::Backup` (#[kube_markers::crd])\n"), "{text}");
    assert!(
        text.contains("groups = \"backup.example.com\", resources = \"backups\""),
        "{text}"
    );
    // What nothing knows is asked as typed, with a warning, as kubectl warns.
    let answer = ask(bare.path(), &["list", "widgets"]).unwrap();
    assert!(!answer.allowed());
    assert!(
        answer.warnings[0]
            .contains("`widgets` is neither a resource of kube-apiserver 1.37.2 nor a CRD"),
        "{:?}",
        answer.warnings
    );
    let answer = ask(bare.path(), &["list", "widgets.example.com"]).unwrap();
    assert!(answer.warnings.is_empty(), "{:?}", answer.warnings);
}

/// The deploy bundle's layout: a name prefix, a namespace, a Role pinned in another namespace.
fn bundle_dir() -> tempfile::TempDir {
    dir_with(&[
        ("role.yaml", ROLES),
        ("role_binding.yaml", &BINDINGS.replace("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: op\n  namespace: ops\n---\n", "")),
        ("service_account.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: op\n  namespace: ops\n"),
        ("kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ops\nnamePrefix: my-operator-\nresources:\n- role.yaml\n- service_account.yaml\n- role_binding.yaml\ntransformers:\n- pinned-namespaces\n"),
        ("pinned-namespaces/kustomization.yaml", "resources:\n- transformers.yaml\n"),
        ("pinned-namespaces/transformers.yaml", "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: pin-tenants\npatch: |\n  - op: replace\n    path: /metadata/namespace\n    value: tenants\ntarget:\n  namespace: tenants\n---\napiVersion: builtin\nkind: ReplacementTransformer\nmetadata:\n  name: pinned-subjects\nreplacements:\n- source:\n    fieldPath: metadata.namespace\n    kind: ServiceAccount\n    name: op\n  targets:\n  - fieldPaths:\n    - subjects.[kind=ServiceAccount].namespace\n    select:\n      kind: RoleBinding\n      namespace: tenants\n"),
    ])
}

#[test]
fn a_kustomization_is_evaluated_as_kubectl_apply_k_installs_it() {
    let dir = bundle_dir();
    let yes = |args: &[&str]| ask(dir.path(), args).unwrap().allowed();
    // The default identity is the ServiceAccount as installed: prefixed.
    let text = ask(dir.path(), &["list", "deployments", "--explain"])
        .unwrap()
        .text;
    assert!(
        text.contains("as:      \"system:serviceaccount:ops:my-operator-op\""),
        "{text}"
    );
    assert!(
        text.contains("rule:    rules[1] of ClusterRole \"my-operator-manager-role\" in "),
        "{text}"
    );
    assert!(text.contains("binding: ClusterRoleBinding \"my-operator-manager-rolebinding\" of ClusterRole \"my-operator-manager-role\" to ServiceAccount \"my-operator-op/ops\""), "{text}");
    // The attributes are found by the names they give, before the prefix.
    assert!(text.ends_with("#[rbac]: (\"manager-role\" in its file)\n  src/controller.rs:10 (reconcile) (apiGroups: [\"apps\"], resources: [\"deployments\"], verbs: [\"list\", \"watch\"])\n"), "{text}");
    // The pinned Role stays in its namespace, bound to the moved ServiceAccount.
    assert!(yes(&["create", "configmaps", "-n", "tenants"]));
    let text = ask(
        dir.path(),
        &["create", "configmaps", "-n", "tenants", "--explain"],
    )
    .unwrap()
    .text;
    assert!(text.contains("  src/controller.rs:20 (tenant)"), "{text}");
    assert!(!yes(&["create", "configmaps", "-n", "ops"]));
    // --as the installed name: the same answers; --as the name in the file: no, and why.
    let installed = "system:serviceaccount:ops:my-operator-op";
    assert!(yes(&["list", "deployments", "--as", installed]));
    assert!(yes(&[
        "create",
        "configmaps",
        "-n",
        "tenants",
        "--as",
        installed
    ]));
    let answer = ask(
        dir.path(),
        &[
            "list",
            "deployments",
            "--as",
            "system:serviceaccount:ops:op",
        ],
    )
    .unwrap();
    assert!(!answer.allowed());
    assert_eq!(
        answer.warnings,
        [
            "Warning: no binding of --from names the ServiceAccount ops/op (as `kubectl apply -k` installs it): the bindings name system:serviceaccount:ops:my-operator-op"
        ]
    );
    assert!(
        ask(dir.path(), &["list", "deployments", "--as", installed])
            .unwrap()
            .warnings
            .is_empty()
    );
}

fn crd(plural: &str, group: &str, singular: &str, kind: &str, short: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.{group}\nspec:\n  group: {group}\n  names:\n    plural: {plural}\n    singular: {singular}\n    kind: {kind}\n    shortNames: [{short}]\n  scope: Namespaced\n  versions: []\n"
    )
}

#[test]
fn a_plural_or_singular_is_not_expanded_as_a_short_name() {
    // One CRD's short name is another's singular: kubectl does not expand a name that is a
    // resource's plural or singular, whatever the order.
    for (first, second) in [
        (
            crd("mcs", "aaa.io", "mcx", "Mcx", "memcached"),
            crd(
                "memcacheds",
                "cache.example.com",
                "memcached",
                "Memcached",
                "mc",
            ),
        ),
        (
            crd(
                "memcacheds",
                "cache.example.com",
                "memcached",
                "Memcached",
                "mc",
            ),
            crd("mcs", "aaa.io", "mcx", "Mcx", "memcached"),
        ),
    ] {
        let dir = dir_with(&[
            ("role.yaml", ROLES),
            ("bindings.yaml", BINDINGS),
            ("crd/a.yaml", &first),
            ("crd/b.yaml", &second),
        ]);
        let text = ask(dir.path(), &["list", "memcached", "--explain"])
            .unwrap()
            .text;
        assert!(
            text.contains("resource \"memcacheds.cache.example.com\""),
            "{text}"
        );
        let text = ask(dir.path(), &["list", "mcs", "--explain"]).unwrap().text;
        assert!(text.contains("resource \"mcs.aaa.io\""), "{text}");
    }
    // The reverse: a CRD's singular is a built-in's short name; the CRD wins.
    let dir = dir_with(&[
        ("role.yaml", ROLES),
        ("bindings.yaml", BINDINGS),
        (
            "crd/a.yaml",
            &crd("deploys", "zzz.io", "deploy", "Deploy", "zd"),
        ),
    ]);
    let text = ask(dir.path(), &["list", "deploy", "--explain"])
        .unwrap()
        .text;
    assert!(text.contains("resource \"deploys.zzz.io\""), "{text}");
    let text = ask(dir.path(), &["list", "deployment", "--explain"])
        .unwrap()
        .text;
    assert!(text.contains("resource \"deployments.apps\""), "{text}");
}

#[test]
fn a_trailing_dot_is_parsed_as_kubectl_does() {
    let dir = dir_with(&[("role.yaml", ROLES), ("bindings.yaml", BINDINGS)]);
    for name in ["configmaps.", "configmap.v1."] {
        let text = ask(dir.path(), &["get", name, "-n", "kube-system", "--explain"])
            .unwrap()
            .text;
        assert!(
            text.contains("resource \"configmaps\" in namespace \"kube-system\""),
            "{name}: {text}"
        );
    }
    let answer = ask(dir.path(), &["create", "deployments.apps."]).unwrap();
    assert!(!answer.allowed());
    assert!(
        answer.warnings[0].contains("`deployments.apps.` is neither a resource"),
        "{:?}",
        answer.warnings
    );
}

#[test]
fn a_kustomization_file_is_its_directorys_kustomization() {
    let dir = bundle_dir();
    let file = dir.path().join("kustomization.yaml");
    let CanICommand::Ask(opts) = CanICommand::parse([
        "list",
        "deployments",
        "--explain",
        "--from",
        file.to_str().unwrap(),
    ])
    .unwrap() else {
        panic!()
    };
    let answer = run(&opts, &entries(), Vec::new).unwrap();
    assert!(answer.allowed(), "{}", answer.text);
    assert!(
        answer
            .text
            .contains("as:      \"system:serviceaccount:ops:my-operator-op\""),
        "{}",
        answer.text
    );
}
