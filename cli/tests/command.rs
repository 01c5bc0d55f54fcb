//! The installed `kube-markers` on real files, run as a user runs it: from a directory outside
//! any Cargo workspace, and from inside one that does not resolve. Outputs are compared whole.

#[allow(dead_code)] // the command tests' helpers; each test file uses some
mod common;
use common::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `kube-markers args` in `dir`, with no cargo variables of this test run.
fn km(dir: &Path, args: &[&str]) -> Output {
    km_env(dir, args, &[])
}

fn km_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kube-markers"));
    command.args(args).current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") {
            command.env_remove(k);
        }
    }
    command.envs(env.iter().copied()).output().unwrap()
}

/// `(exit code, stdout, stderr)`.
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = km(dir, args);
    (
        out.status.code().unwrap(),
        text(&out.stdout),
        text(&out.stderr),
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

const MEMCACHED: &str = "crd/cache.example.com_memcacheds.yaml";

/// A temporary directory outside any workspace: the CRDs and roles of rbac-out/ as a user has
/// them, a broken CRD and a file that is not YAML's kind of CRD at all.
fn user_files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        dir.path()
            .ancestors()
            .all(|d| !d.join("Cargo.toml").exists()),
        "the temporary directory must be outside any workspace"
    );
    let crds = dir.path().join("crds");
    copy_dir(&repo().join("rbac-out/crd"), &crds);
    std::fs::remove_file(crds.join(".kube-markers-codegen.sha256")).unwrap();
    std::fs::copy(repo().join("rbac-out/role.yaml"), crds.join("role.yaml")).unwrap();
    let memcached = std::fs::read_to_string(repo().join("rbac-out").join(MEMCACHED)).unwrap();
    // Refused twice: a scope the API server does not know, a default its schema refuses; and a
    // ConfigMap beside it.
    let broken = memcached
        .replace("scope: Namespaced", "scope: Namespace")
        .replacen(
            "                type: integer\n",
            "                type: integer\n                default: \"three\"\n",
            1,
        )
        + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n";
    assert_ne!(broken, memcached);
    std::fs::create_dir_all(dir.path().join("broken")).unwrap();
    std::fs::write(dir.path().join("broken/memcached.yaml"), broken).unwrap();
    std::fs::write(dir.path().join("not-yaml.yaml"), "a: [\n").unwrap();
    dir
}

#[test]
fn check_crds_outside_any_workspace() {
    let dir = user_files();
    let (code, out, err) = run(dir.path(), &["check-crds", "crds"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out,
        "2 file(s), 2 CRD(s): the API server would accept them\n"
    );
    // The roles' two documents are skipped, and said so once.
    assert_eq!(
        err,
        "note: skipped 2 document(s) that are not CRDs, in 1 file(s): 1 ClusterRole, 1 Role\n"
    );
    // The same in each format.
    let (code, out, _) = run(dir.path(), &["check-crds", "crds", "--output", "github"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "2 file(s), 2 CRD(s): the API server would accept them\n"
    );
    let (code, out, _) = run(dir.path(), &["check-crds", "crds", "--format=json"]);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "crds/cache.example.com_memcacheds.yaml",
            "crds/db.example.com_mydatabases.yaml"
        ]
    );
}

#[test]
fn a_refused_crd_in_each_format() {
    let dir = user_files();
    let (code, out, err) = run(dir.path(), &["check-crds", "broken"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        out,
        "broken/memcached.yaml: memcacheds.cache.example.com: spec.scope: must be `Namespaced` or `Cluster`\n\
         broken/memcached.yaml: memcacheds.cache.example.com: version v1alpha1: spec.size: the default \"three\" does not validate against the field's own schema (\"three\" is not of type \"integer\"); the API server rejects such a CRD (a #[serde(default)] whose Default value breaks a marker? use Option<T>, or a default that fits)\n\
         1 file(s), 1 CRD(s): 1 the API server would refuse\n"
    );
    assert_eq!(
        err,
        "note: skipped 1 document(s) that are not CRDs, in 1 file(s): 1 ConfigMap\n"
    );
    // GitHub: where the check places each finding, the field's line for the CRD's own fields
    // (`scope:`, line 17), the property's line (`size:`, line 27) for a schema's, each at its
    // key's column; `:` escaped in the title.
    let (code, out, _) = run(dir.path(), &["check-crds", "broken", "-o", "github"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "::error file=broken/memcached.yaml,line=17,col=3,title=memcacheds.cache.example.com%3A the API server would refuse it::spec.scope: must be `Namespaced` or `Cluster`\n\
         ::error file=broken/memcached.yaml,line=27,col=15,title=memcacheds.cache.example.com%3A the API server would refuse it::version v1alpha1: spec.size: the default \"three\" does not validate against the field's own schema (\"three\" is not of type \"integer\"); the API server rejects such a CRD (a #[serde(default)] whose Default value breaks a marker? use Option<T>, or a default that fits)\n\
         1 file(s), 1 CRD(s): 1 the API server would refuse\n"
    );
    let broken = std::fs::read_to_string(dir.path().join("broken/memcached.yaml")).unwrap();
    let lines: Vec<&str> = broken.lines().collect();
    assert_eq!(lines[16], "  scope: Namespace");
    assert_eq!(lines[26], "              size:");
    let (code, out, _) = run(dir.path(), &["check-crds", "broken", "--output=json"]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json[0]["file"], "broken/memcached.yaml");
    assert_eq!(
        json[0]["crds"][0]["problems"][0],
        "spec.scope: must be `Namespaced` or `Cluster`"
    );
    assert_eq!(json[0]["crds"][0]["problems"].as_array().unwrap().len(), 2);
}

#[test]
fn files_that_cannot_be_checked_exit_2_named() {
    let dir = user_files();
    // A file named without a CRD in it: an error, and no note besides.
    let (code, out, err) = run(dir.path(), &["check-crds", "crds/role.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(
        out,
        "crds/role.yaml: error: no apiextensions.k8s.io/v1 CustomResourceDefinition in it\n\
         1 file(s), 0 CRD(s): 0 the API server would refuse, and 1 file(s) with errors\n"
    );
    assert_eq!(err, "");
    let (code, out, _) = run(dir.path(), &["check-crds", "not-yaml.yaml", "-o", "github"]);
    assert_eq!(code, 2);
    assert_eq!(
        out,
        "::error file=not-yaml.yaml,line=1,title=check-crds::not YAML: line 1: unclosed bracket '['\n\
         1 file(s), 0 CRD(s): 0 the API server would refuse, and 1 file(s) with errors\n"
    );
    let (code, out, err) = run(dir.path(), &["check-crds", "missing.yaml"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(err, "error: missing.yaml: no such file or directory\n");
    let (code, _, err) = run(dir.path(), &["check-crds", "crds", "--output", "sarif"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: `--output sarif` is not a format"),
        "{err}"
    );
    assert!(
        err.contains("Run `kube-markers check-crds --help` for usage."),
        "{err}"
    );
}

/// The previous release and this one, with `maximum` lowered.
fn release_pair(dir: &Path) {
    let old = std::fs::read_to_string(repo().join("rbac-out").join(MEMCACHED)).unwrap();
    let new = old.replacen("maximum: 3", "maximum: 2", 1);
    assert_ne!(old, new);
    std::fs::write(dir.join("old.yaml"), old).unwrap();
    std::fs::write(dir.join("new.yaml"), new).unwrap();
}

const MAXIMUM: &str = "error[maximum]: memcacheds.cache.example.com v1alpha1 spec.size: maximum \
                       decreased: 3 → 2; ratcheting (Kubernetes 1.33+) keeps stored objects \
                       updatable while this value is unchanged; creates and changed values must \
                       satisfy it";

#[test]
fn previous_old_new_in_each_format() {
    let dir = tempfile::tempdir().unwrap();
    release_pair(dir.path());
    let (code, out, err) = run(
        dir.path(),
        &["check-crds", "--previous", "old.yaml", "new.yaml"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(out, format!("{MAXIMUM}\n"));
    assert_eq!(
        err,
        "1 previous CRD(s), 1 CRD(s): 1 breaking change(s), 0 warning(s)\n"
    );
    let (code, out, _) = run(
        dir.path(),
        &[
            "check-crds",
            "--previous",
            "old.yaml",
            "new.yaml",
            "-o",
            "github",
        ],
    );
    assert_eq!(code, 1);
    // On the line of `size:` in the new file.
    assert_eq!(
        out,
        format!(
            "::error file=new.yaml,line=27,col=15,title=maximum%3A memcacheds.cache.example.com::{MAXIMUM}\n"
        )
    );
    let (code, out, _) = run(
        dir.path(),
        &[
            "check-crds",
            "--previous",
            "old.yaml",
            "new.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json[0]["check"], "maximum");
    assert_eq!(json[0]["path"], "^.spec.size");
}

/// Inside a Cargo workspace that does not resolve (a member that does not exist), the files
/// are still compared, and the workspace's upgrade policy applies.
#[test]
fn previous_in_a_workspace_that_does_not_resolve() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"not-here\"]\n\n\
         [workspace.metadata.kube-markers.upgrade]\nchecks = { maximum = \"warn\" }\n",
    )
    .unwrap();
    release_pair(dir.path());
    let sub = dir.path().join("deploy");
    std::fs::create_dir_all(&sub).unwrap();
    let (code, out, err) = run(
        &sub,
        &[
            "check-crds",
            "--previous",
            "../old.yaml",
            "../new.yaml",
            "-o",
            "github",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with(
            "::warning file=../new.yaml,line=27,col=15,title=maximum%3A memcacheds.cache.example.com::warn[maximum]: "
        ),
        "{out}"
    );
    assert_eq!(
        err,
        "1 previous CRD(s), 1 CRD(s): 0 breaking change(s), 1 warning(s)\n"
    );
    // And check-crds on its own.
    let (code, _, err) = run(&sub, &["check-crds", "../new.yaml"]);
    assert_eq!(code, 0, "{err}");
}

/// `--previous cluster` reads the cluster's CRDs with kubectl (`$KUBECTL`): here a stand-in
/// that prints what `kubectl get customresourcedefinitions -o json` prints.
#[test]
fn previous_cluster_through_kubectl() {
    let dir = tempfile::tempdir().unwrap();
    release_pair(dir.path());
    let old = std::fs::read_to_string(dir.path().join("old.yaml")).unwrap();
    let old: serde_json::Value = serde_json::to_value(
        serde_json::from_str::<serde_json::Value>(&yaml_to_json(&old)).unwrap(),
    )
    .unwrap();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [old]});
    std::fs::write(dir.path().join("list.json"), list.to_string()).unwrap();
    let kubectl = dir.path().join("kubectl");
    std::fs::write(
        &kubectl,
        format!(
            "#!/bin/sh\necho \"$@\" > {}/args\ncat {}/list.json\n",
            dir.path().display(),
            dir.path().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = km_env(
        dir.path(),
        &["check-crds", "--previous", "cluster", "new.yaml"],
        &[("KUBECTL", kubectl.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{MAXIMUM}\n"));
    let args = std::fs::read_to_string(dir.path().join("args")).unwrap();
    assert_eq!(
        args,
        "get customresourcedefinitions.apiextensions.k8s.io -o json --show-managed-fields\n"
    );
}

/// The YAML of one CRD as JSON.
fn yaml_to_json(yaml: &str) -> String {
    serde_saphyr::from_str::<serde_json::Value>(yaml)
        .unwrap()
        .to_string()
}

#[test]
fn can_i_and_explain_over_a_kustomization() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("rbac-out"), &dir.path().join("deploy"));
    let (code, out, err) = run(
        dir.path(),
        &["can-i", "list", "memcacheds", "--from", "deploy"],
    );
    assert_eq!((code, out.as_str()), (0, "yes\n"), "{err}");
    let (code, out, _) = run(
        dir.path(),
        &["can-i", "delete", "nodes", "--from", "deploy"],
    );
    assert_eq!((code, out.as_str()), (1, "no\n"));
    // A plain directory of roles and bindings, no kustomization.
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    for file in ["role.yaml", "role_binding.yaml", "service_account.yaml"] {
        std::fs::copy(dir.path().join("deploy").join(file), plain.join(file)).unwrap();
    }
    let (code, out, err) = run(
        dir.path(),
        &[
            "can-i",
            "list",
            "memcacheds.cache.example.com",
            "--from",
            "plain",
        ],
    );
    assert_eq!((code, out.as_str()), (0, "yes\n"), "{err}");
    let (code, out, err) = run(
        dir.path(),
        &[
            "explain",
            "list",
            "memcacheds",
            "--from",
            "deploy",
            "-n",
            "default",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "yes\n\
         request: \"list\" resource \"memcacheds.cache.example.com\" in namespace \"default\"\n         \
         memcacheds.cache.example.com is the CRD in deploy/crd/cache.example.com_memcacheds.yaml (document 1)\n\
         as:      \"system:serviceaccount:example-operator-system:example-operator-controller-manager\" (groups [\"system:serviceaccounts\", \"system:serviceaccounts:example-operator-system\", \"system:authenticated\"]), from the ServiceAccount of deploy/service_account.yaml (document 1)\n\
         from:    deploy (deploy/kustomization.yaml rendered as `kubectl apply -k` installs it: 18 YAML file(s): 10 ClusterRole(s), 2 Role(s), 3 ClusterRoleBinding(s), 2 RoleBinding(s))\n         \
         and kube-apiserver 1.37.2's default roles for every user: system:basic-user, system:cluster-trust-bundle-discovery, system:discovery, system:public-info-viewer, system:service-account-issuer-discovery (--no-default-roles leaves them out)\n\
         rule:    rules[3] of ClusterRole \"example-operator-manager-role\" in deploy/role.yaml (document 1)\n         \
         apiGroups: [\"cache.example.com\"], resources: [\"memcacheds\"], verbs: [\"list\", \"patch\", \"watch\"]\n\
         binding: ClusterRoleBinding \"example-operator-manager-rolebinding\" of ClusterRole \"example-operator-manager-role\" to ServiceAccount \"example-operator-controller-manager/example-operator-system\" in deploy/role_binding.yaml (document 1)\n"
    );
    // Without --from, the command has no attributes to explain, and says what to run.
    let (code, out, err) = run(dir.path(), &["explain"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: no #[rbac] attributes are linked into `kube-markers`: explain the permissions of \
         RBAC manifests with `kube-markers explain VERB TYPE --from PATH`, or run `explain` \
         through your operator's generator (`cargo run -p GENERATOR -- explain`)\n"
    );
    let (code, _, err) = run(dir.path(), &["explain", "--from", "deploy"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: `--from deploy` needs a question"),
        "{err}"
    );
    let (code, _, err) = run(dir.path(), &["can-i", "get", "pods", "--from", "nowhere"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: cannot read --from nowhere"),
        "{err}"
    );
}

#[test]
fn help_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = run(dir.path(), &["--version"]);
    assert_eq!(
        (code, out),
        (0, format!("kube-markers {}\n", env!("CARGO_PKG_VERSION")))
    );
    let (code, out, _) = run(dir.path(), &["--help"]);
    assert_eq!(code, 0);
    for sub in ["check-crds", "can-i", "explain", "generate"] {
        assert!(out.contains(&format!("\n  {sub} ")), "{out}");
        let (code, help, err) = run(dir.path(), &[sub, "--help"]);
        assert_eq!(code, 0, "{sub}: {err}");
        assert!(
            help.contains(&format!("Usage: kube-markers {sub}")),
            "{sub}: {help}"
        );
    }
    let (code, _, err) = run(dir.path(), &["check-crds", "--help"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(dir.path(), &["lint"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: unknown subcommand `lint`\n\nRun `kube-markers --help` for the list.\n"
    );
    let (code, _, err) = run(dir.path(), &[]);
    assert_eq!(code, 2);
    assert!(err.contains("Commands:"), "{err}");
}
