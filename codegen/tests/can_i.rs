//! `codegen can-i`, the real binary, on the committed role.yaml and bindings written here.

use std::process::Output;

mod common;
use common::{codegen, text, workspace_root};

fn can_i(args: &[&str]) -> Output {
    codegen(&[&["can-i"], args].concat())
}

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
  name: op-manager
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
  name: op-tenant
  namespace: db-tenants
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: mydatabase-tenant
subjects:
- kind: ServiceAccount
  name: op
  namespace: ops
";

/// The generated role.yaml and the bindings above, in a directory of their own.
fn manifests() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        workspace_root().join("rbac-out/role.yaml"),
        dir.path().join("role.yaml"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("bundle")).unwrap();
    std::fs::write(dir.path().join("bundle/bindings.yaml"), BINDINGS).unwrap();
    dir
}

/// `file:line` of the `#[rbac(` attribute whose `resources = ...` line contains `needle`.
fn attribute(file: &str, needle: &str) -> String {
    let source = std::fs::read_to_string(workspace_root().join(file)).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let at = lines.iter().position(|l| l.contains(needle)).unwrap();
    let start = (0..=at)
        .rev()
        .find(|&i| lines[i].starts_with("#[rbac("))
        .unwrap();
    format!("{file}:{}", start + 1)
}

#[test]
fn answers_yes_and_no_with_kubectls_exit_codes() {
    let dir = manifests();
    let from = dir.path().to_str().unwrap();
    for (args, expected) in [
        (&["create", "deployments.apps", "-n", "web"][..], true),
        (&["watch", "deployments.apps", "--all-namespaces"], true),
        (&["delete", "deployments.apps/web", "-n", "web"], false),
        (
            &[
                "patch",
                "memcacheds.cache.example.com/m",
                "--subresource",
                "status",
                "-n",
                "x",
            ],
            true,
        ),
        (
            &[
                "update",
                "memcacheds.cache.example.com/m",
                "--subresource",
                "status",
                "-n",
                "x",
            ],
            false,
        ),
        (&["get", "/metrics"], true),
        // Every cluster's default roles give every user /healthz, unless left out.
        (&["get", "/healthz"], true),
        (&["get", "/healthz", "--no-default-roles"], false),
        (&["create", "selfsubjectaccessreviews"], true),
        // TYPE resolved as kubectl's discovery does: a short name, a linked CRD's plural.
        (&["create", "deploy", "-n", "web"], true),
        (
            &[
                "patch",
                "memcacheds/m",
                "--subresource",
                "status",
                "-n",
                "x",
            ],
            true,
        ),
        (&["patch", "configmaps", "-n", "db-tenants"], true),
        (&["patch", "configmaps", "-n", "web"], false),
        (&["list", "deployments.apps", "--as", "alice"], false),
        (
            &[
                "list",
                "deployments.apps",
                "--as",
                "alice",
                "--as-group",
                "system:serviceaccounts:ops",
            ],
            false,
        ),
    ] {
        let out = can_i(&[args, &["--from", from]].concat());
        let (answer, code) = if expected { ("yes\n", 0) } else { ("no\n", 1) };
        assert_eq!(text(&out.stdout), answer, "{args:?}\n{}", text(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
}

#[test]
fn explain_names_rule_role_binding_and_the_attributes_behind_them() {
    let dir = manifests();
    let from = dir.path().to_str().unwrap();
    let out = can_i(&[
        "create",
        "deployments.apps",
        "-n",
        "web",
        "--explain",
        "--from",
        from,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    let role_file = dir.path().join("role.yaml").display().to_string();
    let bindings_file = dir
        .path()
        .join("bundle/bindings.yaml")
        .display()
        .to_string();
    assert!(
        stdout.starts_with(
            "yes\nrequest: \"create\" resource \"deployments.apps\" in namespace \"web\"\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("as:      \"system:serviceaccount:ops:op\" (groups [\"system:serviceaccounts\", \"system:serviceaccounts:ops\", \"system:authenticated\"])"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "of ClusterRole \"manager-role\" in {role_file} (document 1)\n"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("apiGroups: [\"apps\"], resources: [\"deployments\"], verbs: [\"create\", \"list\", \"patch\", \"watch\"]"), "{stdout}");
    assert!(stdout.contains(&format!(
        "binding: ClusterRoleBinding \"op-manager\" of ClusterRole \"manager-role\" to ServiceAccount \"op/ops\" in {bindings_file} (document 2)\n"
    )), "{stdout}");
    // Both example operators declare this permission; both attributes are named.
    for file in [
        "examples/memcached-operator/src/lib.rs",
        "examples/mydatabase-operator/src/lib.rs",
    ] {
        let at = attribute(file, "resources = \"deployments\"");
        assert!(stdout.contains(&format!("  {at} (reconcile) (apiGroups: [\"apps\"], resources: [\"deployments\"], verbs: [\"list\", \"watch\", \"create\", \"patch\"])\n")), "{at}\n{stdout}");
    }

    // A Role bound by a RoleBinding, and its attribute (namespace and role_name).
    let out = can_i(&[
        "create",
        "configmaps",
        "-n",
        "db-tenants",
        "--explain",
        "--from",
        from,
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("of Role \"mydatabase-tenant\" in "),
        "{stdout}"
    );
    assert!(stdout.contains("binding: RoleBinding \"op-tenant/db-tenants\" of Role \"mydatabase-tenant\" to ServiceAccount \"op/ops\""), "{stdout}");
    let at = attribute(
        "examples/mydatabase-operator/src/lib.rs",
        "resources = \"configmaps\"",
    );
    assert!(
        stdout.contains(&format!("  {at} (publish) ")),
        "{at}\n{stdout}"
    );

    // No: what applies, and the attribute that would allow it.
    let out = can_i(&[
        "delete",
        "services/db",
        "-n",
        "web",
        "--explain",
        "--from",
        from,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("no\n"), "{stdout}");
    assert!(
        stdout.contains("rules:   none of these rules in namespace \"web\" allows it:\n"),
        "{stdout}"
    );
    assert!(stdout.ends_with("to allow it: #[kube_markers::rbac(groups = \"\", resources = \"services\", verbs = \"delete\")]\n  or only this: #[kube_markers::rbac(groups = \"\", resources = \"services\", verbs = \"delete\", resource_names = \"db\", namespace = \"web\")]\n"), "{stdout}");
}

#[test]
fn bad_arguments_and_unreadable_manifests_exit_2() {
    let dir = manifests();
    let from = dir.path().to_str().unwrap();
    let out = can_i(&["get"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("error: missing TYPE after `get`"),
        "{}",
        text(&out.stderr)
    );
    let out = can_i(&["get", "pods", "--namespace", "a", "-A", "--from", from]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("conflict"));

    let out = can_i(&["get", "pods", "--from", "no/such/dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("error: cannot read --from no/such/dir: "),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());

    // Only the roles: no ServiceAccount to evaluate as.
    let roles = dir.path().join("role.yaml");
    let out = can_i(&["get", "pods", "--from", roles.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no ServiceAccount in"),
        "{}",
        text(&out.stderr)
    );

    let out = can_i(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Usage: codegen can-i VERB"));
}

/// The committed deploy bundle, `rbac-out/` (a kustomization with a name prefix, a namespace and
/// a Role pinned in `db-tenants`), as `kubectl apply -k rbac-out` installs it.
#[test]
fn the_bundle_is_evaluated_as_kubectl_apply_k_installs_it() {
    let from = workspace_root().join("rbac-out");
    let from = from.to_str().unwrap();
    let installed =
        "system:serviceaccount:example-operator-system:example-operator-controller-manager";
    let out = can_i(&["list", "memcacheds", "--explain", "--from", from]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(&format!("as:      \"{installed}\"")),
        "{stdout}"
    );
    assert!(
        stdout.contains("rule:    rules[")
            && stdout.contains(" of ClusterRole \"example-operator-manager-role\" in "),
        "{stdout}"
    );
    let at = attribute(
        "examples/memcached-operator/src/lib.rs",
        "resources = \"memcacheds\"",
    );
    assert!(
        stdout.contains(&format!("#[rbac]: (\"manager-role\" in its file)\n  {at} ")),
        "{at}\n{stdout}"
    );

    // The pinned Role, in its namespace, bound to the installed ServiceAccount.
    let out = can_i(&[
        "patch",
        "configmaps",
        "-n",
        "db-tenants",
        "--explain",
        "--from",
        from,
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("binding: RoleBinding \"example-operator-mydatabase-tenant-rolebinding/db-tenants\" of Role \"example-operator-mydatabase-tenant\" to ServiceAccount \"example-operator-controller-manager/example-operator-system\""), "{stdout}");
    let at = attribute(
        "examples/mydatabase-operator/src/lib.rs",
        "resources = \"configmaps\"",
    );
    assert!(
        stdout.contains(&format!("  {at} (publish) ")),
        "{at}\n{stdout}"
    );

    // --as the installed name answers the same; the name in the file is not bound, and the
    // warning says which names are.
    let out = can_i(&["list", "memcacheds", "--as", installed, "--from", from]);
    assert_eq!(text(&out.stdout), "yes\n", "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let out = can_i(&[
        "list",
        "memcacheds",
        "--as",
        "system:serviceaccount:example-operator-system:controller-manager",
        "--from",
        from,
    ]);
    assert_eq!(text(&out.stdout), "no\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "Warning: no binding of --from names the ServiceAccount example-operator-system/controller-manager (as `kubectl apply -k` installs it): the bindings name {installed}\n"
        )
    );
    // An ungranted resource of the generator's own CRDs: the hint names its group.
    let out = can_i(&["delete", "mydatabases", "--explain", "--from", from]);
    assert!(
        text(&out.stdout).ends_with("to allow it: #[kube_markers::rbac(groups = \"db.example.com\", resources = \"mydatabases\", verbs = \"delete\")]\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn the_default_from_is_the_workspaces_rbac_out() {
    // From a member's directory, as a plain run writes the workspace's rbac-out.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(["can-i", "list", "memcacheds", "-A"])
        .current_dir(workspace_root().join("codegen"))
        .output()
        .expect("run codegen");
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("cannot read --from"), "{stderr}");
    assert_ne!(out.status.code(), Some(2), "{stderr}");
    // A --from given stays relative to the current directory.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(["can-i", "list", "memcacheds", "-A", "--from", "rbac-out"])
        .current_dir(workspace_root().join("codegen"))
        .output()
        .expect("run codegen");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
