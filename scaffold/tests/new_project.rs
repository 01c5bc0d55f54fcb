//! Day zero from outside this workspace, as a user runs it: the `kube-markers` command built,
//! `init`, `create api` for a namespaced and a cluster-scoped kind, the bundle applied to a
//! real API server, `create webhook` with both handlers, a second version with its conversion,
//! then the new project's `cargo test` (its envtest tests included), clippy and fmt as its CI
//! runs them, and its generator's `--check`; and `create api` in a project of an older `init`.
//!
//! The project shares this build's directory (`CARGO_BUILD_BUILD_DIR`) and lock file, so only
//! its own crates are compiled; its binaries go to a target directory of its own, so that its
//! `codegen` never replaces this workspace's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// kube-apiserver and etcd: `KUBEBUILDER_ASSETS`, else the pinned build of
/// `scripts/envtest-assets.sh` when it has been made; `None` when neither is there.
fn envtest_assets() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KUBEBUILDER_ASSETS") {
        return Some(dir.into());
    }
    let dir = repo_root().join(".assets/envtest/k8s-1.37.2-etcd-3.6.16");
    dir.join("kube-apiserver").is_file().then_some(dir)
}

/// A command with this build's directory shared and the project's own target directory.
fn in_project(program: &Path, dir: &Path, target: &Path) -> Command {
    let build_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let mut command = Command::new(program);
    command
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .env("CARGO_BUILD_BUILD_DIR", build_dir)
        .env("CARGO_TARGET_DIR", target);
    command
}

/// `create COMMAND --group cache --version VERSION --kind KIND EXTRA...`.
fn cache<'a>(command: &'a str, version: &'a str, kind: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "create",
        command,
        "--group",
        "cache",
        "--version",
        version,
        "--kind",
        kind,
    ];
    args.extend_from_slice(extra);
    args
}

fn ok(what: &str, out: Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what} failed:\n{stdout}\n{stderr}");
    stdout + &stderr
}

#[test]
fn a_new_project_builds_generates_and_passes_its_tests() {
    let cargo = PathBuf::from(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("new-project");
    let _ = std::fs::remove_dir_all(&tmp);
    let project = tmp.join("my-operator");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(repo_root().join("Cargo.lock"), project.join("Cargo.lock")).unwrap();

    // The command, built as `cargo install --path cli` would build it.
    let bin_target = tmp.join("cli-target");
    ok(
        "cargo build -p kube-markers-cli",
        in_project(&cargo, &repo_root(), &bin_target)
            .args([
                "build",
                "-q",
                "-p",
                "kube-markers-cli",
                "--bin",
                "kube-markers",
            ])
            .output()
            .unwrap(),
    );
    let kube_markers = bin_target.join("debug/kube-markers");
    let target = tmp.join("target");
    let run = |args: &[&str]| {
        ok(
            &format!("kube-markers {}", args.join(" ")),
            in_project(&kube_markers, &project, &target)
                .args(args)
                .output()
                .unwrap(),
        )
    };

    let out = run(&["init", "--domain", "example.com"]);
    // The generator's first run: the bundle alone, fresh.
    assert!(out.contains("running the generator"), "{out}");
    assert!(
        project.join("rbac-out/kustomization.yaml").is_file(),
        "{out}"
    );
    assert!(!project.join("rbac-out/crd").exists(), "{out}");
    run(&cache("api", "v1alpha1", "Memcached", &["--skip-generate"]));
    let out = run(&cache(
        "api",
        "v1alpha1",
        "CachePolicy",
        &["--namespaced=false"],
    ));
    assert!(
        out.contains("rbac-out/crd/cache.example.com_cachepolicies.yaml"),
        "{out}"
    );

    if let Some(assets) = envtest_assets() {
        apply_the_bundle(&assets, &project);
    } else {
        eprintln!("SKIPPED: the envtest assets are absent: the bundle is not applied");
    }

    // The generator fails here (a cargo that cannot run it): the files are written, and the
    // way out the command names is taken as written.
    let out = in_project(&kube_markers, &project, &target)
        .args(cache(
            "webhook",
            "v1alpha1",
            "Memcached",
            &["--defaulting", "--programmatic-validation"],
        ))
        .env("CARGO", "false")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let way_out = "Fix what it reported above, then run `cargo run -p codegen` there to write \
                   rbac-out/.";
    assert!(stderr.contains(way_out), "{stderr}");
    assert!(
        project
            .join("my-operator/src/webhooks/cache_v1alpha1_memcached.rs")
            .is_file()
    );
    ok(
        "cargo run -p codegen, as the failed command says",
        in_project(&cargo, &project, &target)
            .args(["run", "-p", "codegen"])
            .output()
            .unwrap(),
    );
    assert!(
        std::fs::read_dir(project.join("rbac-out/webhook")).is_ok_and(|mut d| d.next().is_some()),
        "the webhook manifests were not written"
    );
    let out = run(&cache("api", "v1beta1", "Memcached", &[]));
    assert!(!out.contains("of unknown kind"), "{out}");

    let mut test = in_project(&cargo, &project, &target);
    test.args(["test", "--workspace"]);
    match envtest_assets() {
        Some(assets) => test.env("KUBEBUILDER_ASSETS", assets),
        None => test.env_remove("KUBEBUILDER_ASSETS"),
    };
    let out = ok("the project's cargo test", test.output().unwrap());
    for name in [
        "memcached_becomes_ready_and_its_deletion_is_finalized ... ok",
        "cache_policy_becomes_ready_and_its_deletion_is_finalized ... ok",
        "the_sample_round_trips_through_the_hub ... ok",
        "defaulting_sets_foo_and_keeps_a_value ... ok",
        "validation_refuses_a_forbidden_foo_naming_it ... ok",
    ] {
        assert!(out.contains(name), "{name} did not pass:\n{out}");
    }
    if envtest_assets().is_some() {
        assert!(!out.contains("SKIPPED"), "{out}");
    }
    the_operator_takes_the_deployments_args(&project, &target);
    ok(
        "the project's generator --check",
        in_project(&cargo, &project, &target)
            .args(["run", "-q", "-p", "codegen", "--", "--check"])
            .output()
            .unwrap(),
    );
    ok(
        "the project's cargo clippy, as its CI runs it",
        in_project(&cargo, &project, &target)
            .args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])
            .output()
            .unwrap(),
    );
    ok(
        "the project's cargo fmt --check",
        in_project(&cargo, &project, &target)
            .args(["fmt", "--all", "--check"])
            .output()
            .unwrap(),
    );
    an_older_project_gets_a_kind(&kube_markers, &cargo, &tmp, &target);
}

/// A project of an older `init` (its `main` from before leader election, without the
/// `standby` marker): `create api` adds the kind, and the project passes its CI's clippy.
fn an_older_project_gets_a_kind(kube_markers: &Path, cargo: &Path, tmp: &Path, target: &Path) {
    let project = tmp.join("older/my-operator");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(repo_root().join("Cargo.lock"), project.join("Cargo.lock")).unwrap();
    let run = |program: &Path, args: &[&str]| {
        ok(
            &format!("{} {}", program.display(), args.join(" ")),
            in_project(program, &project, target)
                .args(args)
                .output()
                .unwrap(),
        )
    };
    run(
        kube_markers,
        &["init", "--domain", "example.com", "--skip-generate"],
    );
    std::fs::write(
        project.join("my-operator/src/main.rs"),
        include_str!("fixtures/older-init/main.rs"),
    )
    .unwrap();
    let manifest = project.join("my-operator/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let older = text.replace(
        r#"features = ["audit", "leader-election", "health"]"#,
        r#"features = ["audit", "health"]"#,
    );
    assert_ne!(older, text);
    std::fs::write(&manifest, older).unwrap();
    let out = run(
        kube_markers,
        &cache("api", "v1alpha1", "Memcached", &["--skip-generate"]),
    );
    assert!(out.contains("runs no leader election"), "{out}");
    run(
        cargo,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    );
}

/// The operator binary (built for its tests) accepts the arguments the bundle's Deployment
/// passes it (`--leader-elect`), and refuses others by name, before it calls the cluster.
fn the_operator_takes_the_deployments_args(project: &Path, target: &Path) {
    let manager = std::fs::read_to_string(project.join("rbac-out/manager.yaml")).unwrap();
    let args: Vec<&str> = manager
        .lines()
        .skip_while(|l| !matches!(l.trim(), "args:" | "- args:"))
        .skip(1)
        .map_while(|l| l.trim().strip_prefix("- "))
        .collect();
    assert_eq!(args, ["--leader-elect"], "{manager}");
    let operator = target.join("debug/my-operator");
    let out = Command::new(&operator)
        .args(&args)
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(
        ok("my-operator --leader-elect --help", out),
        "usage: my-operator [--leader-elect[=true|false]]\n"
    );
    let out = Command::new(&operator).arg("--leader").output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown argument `--leader`"),
        "{out:?}"
    );
}

/// `kubectl apply --server-side -k rbac-out/` on a real API server (its namespace first).
fn apply_the_bundle(assets: &Path, project: &Path) {
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
            .unwrap();
        env.ensure_namespace("my-operator-system").await.unwrap();
        let kubeconfig = env.admin_kubeconfig().unwrap();
        let out = Command::new("kubectl")
            .args(["apply", "--server-side", "-k"])
            .arg(project.join("rbac-out"))
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .output()
            .expect("kubectl on the PATH");
        let text = ok("kubectl apply --server-side -k rbac-out/", out);
        for object in [
            "customresourcedefinition.apiextensions.k8s.io/memcacheds.cache.example.com serverside-applied",
            "customresourcedefinition.apiextensions.k8s.io/cachepolicies.cache.example.com serverside-applied",
            "serviceaccount/my-operator-controller-manager serverside-applied",
            "deployment.apps/my-operator-controller-manager serverside-applied",
            "role.rbac.authorization.k8s.io/my-operator-leader-election-role serverside-applied",
        ] {
            assert!(text.contains(object), "{object} not applied:\n{text}");
        }
    });
}
