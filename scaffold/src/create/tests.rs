use super::*;
use crate::init::tests::{assert_rustfmt_clean, new_project};
use std::path::PathBuf;

/// `create ARGS --skip-generate` in `dir`: what it said, or its refusal.
fn create(dir: &Path, args: &[&str]) -> Result<Vec<String>, Error> {
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args.push("--skip-generate".into());
    said(&args, dir)
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `COMMAND --group cache --version VERSION --kind KIND EXTRA...`, the arguments of a `create`.
fn cache<'a>(command: &'a str, version: &'a str, kind: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
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

const MEMCACHED: &[&str] = &[
    "api",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
];

#[test]
fn create_api_writes_the_kind_and_registers_its_controller() {
    let dir = new_project();
    let root = dir.path();
    create(root, MEMCACHED).unwrap();
    let types = read(root, "my-operator/src/api/cache/v1alpha1/memcached.rs");
    assert!(types.contains("#[kube_markers::crd(storage)]"));
    assert!(types.contains("group = \"cache.example.com\""));
    assert!(types.contains("    namespaced,\n"));
    assert!(types.contains("pub observed_generation: Option<i64>"));
    assert!(read(root, "my-operator/src/api/mod.rs").contains("pub mod cache;\n"));
    assert!(
        read(root, "my-operator/src/api/cache/v1alpha1/mod.rs").contains("pub use memcached::*;")
    );
    let controller = read(root, "my-operator/src/controllers/memcached.rs");
    assert!(controller.contains("resources = \"memcacheds/status\""));
    assert!(controller.contains("Api::namespaced(client.clone()"));
    let main = read(root, "my-operator/src/main.rs");
    assert!(main.contains("let memcached_cache = health.condition(\"memcacheds cache\");"));
    assert!(main.contains("controllers.spawn(my_operator::controllers::memcached::run("));
    // A standby (--leader-elect, not leading) is ready without the controller's cache.
    assert!(main.contains(
        "let caches: &[kube_markers::health::Condition] = &[\n            memcached_cache.clone(),\n            // +kube-markers:scaffold:standby\n        ];"
    ), "{main}");
    assert!(
        root.join("my-operator/tests/memcached_controller.rs")
            .is_file()
    );
    assert_eq!(
        read(root, "config/samples/cache_v1alpha1_memcached.yaml"),
        "apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: memcached-sample\nspec:\n  foo: bar\n"
    );

    // A cluster-scoped kind in the same group and version: the modules gain a line each.
    create(
        root,
        &cache("api", "v1alpha1", "CachePolicy", &["--namespaced=false"]),
    )
    .unwrap();
    let types = read(root, "my-operator/src/api/cache/v1alpha1/cache_policy.rs");
    assert!(!types.contains("namespaced"));
    assert!(types.contains("plural = \"cachepolicies\""));
    assert_eq!(
        read(root, "my-operator/src/api/mod.rs")
            .matches("pub mod cache;")
            .count(),
        1
    );
    let controller = read(root, "my-operator/src/controllers/cache_policy.rs");
    assert!(controller.contains("    Api::all(client.clone())\n"));
    assert_rustfmt_clean(root);
}

#[test]
fn an_existing_kind_is_refused_naming_its_file() {
    let dir = new_project();
    create(dir.path(), MEMCACHED).unwrap();
    let main_before = read(dir.path(), "my-operator/src/main.rs");
    let e = create(dir.path(), MEMCACHED).unwrap_err();
    assert_eq!(e.code, 1);
    assert!(
        e.message
            .contains("cache.example.com/v1alpha1 Memcached exists already: ")
            && e.message
                .contains("my-operator/src/api/cache/v1alpha1/memcached.rs"),
        "{e}"
    );
    assert_eq!(read(dir.path(), "my-operator/src/main.rs"), main_before);
}

#[test]
fn an_existing_file_is_refused_and_nothing_changes() {
    let dir = new_project();
    std::fs::create_dir_all(dir.path().join("config/samples")).unwrap();
    std::fs::write(
        dir.path()
            .join("config/samples/cache_v1alpha1_memcached.yaml"),
        "mine",
    )
    .unwrap();
    let e = create(dir.path(), MEMCACHED).unwrap_err();
    assert!(
        e.message
            .contains("cache_v1alpha1_memcached.yaml exists already"),
        "{e}"
    );
    assert!(!dir.path().join("my-operator/src/api/cache").exists());
    assert!(!read(dir.path(), "my-operator/src/api/mod.rs").contains("pub mod cache;"));
}

#[test]
fn outside_a_project_of_ours_create_refuses() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    let e = create(dir.path(), MEMCACHED).unwrap_err();
    assert!(
        e.message
            .contains("Run `kube-markers init --domain example.com`"),
        "{e}"
    );
    let e = create(dir.path(), &cache("webhook", "v1", "A", &["--defaulting"])).unwrap_err();
    assert!(
        e.message
            .contains("is not in a workspace made by `kube-markers init`"),
        "{e}"
    );
}

#[test]
fn a_removed_marker_is_refused_naming_the_file() {
    let dir = new_project();
    let main = dir.path().join("my-operator/src/main.rs");
    let text = read(dir.path(), "my-operator/src/main.rs")
        .replace("    // +kube-markers:scaffold:controllers\n", "");
    std::fs::write(&main, text).unwrap();
    let e = create(dir.path(), MEMCACHED).unwrap_err();
    assert!(
        e.message
            .contains("main.rs has no `+kube-markers:scaffold:controllers` marker"),
        "{e}"
    );
    assert!(
        !dir.path()
            .join("my-operator/src/controllers/memcached.rs")
            .exists()
    );
}

#[test]
fn a_second_version_is_a_spoke_converted_to_the_first() {
    let dir = new_project();
    let root = dir.path();
    create(root, MEMCACHED).unwrap();
    create(root, &cache("api", "v1beta1", "Memcached", &[])).unwrap();
    let spoke = read(root, "my-operator/src/api/cache/v1beta1/memcached.rs");
    assert!(
        spoke.contains("#[kube_markers::conversion]\nimpl Spoke<hub::Memcached> for Memcached")
    );
    assert!(spoke.contains("use crate::api::cache::v1alpha1 as hub;"));
    assert!(spoke.contains("check_spoke_round_trip::<Memcached, hub::Memcached>"));
    assert!(
        !root
            .join("my-operator/src/controllers/memcached_v1beta1.rs")
            .exists()
    );
    let manifest = read(root, "my-operator/Cargo.toml");
    assert!(
        manifest
            .contains(r#"features = ["audit", "leader-election", "health", "webhook-server"] }"#),
        "{manifest}"
    );
    let main = read(root, "my-operator/src/main.rs");
    assert!(main.contains(".registered()"));
    assert!(main.contains("webhooks.shutdown().await;"));
    assert!(read(root, "codegen/Cargo.toml").contains("cert-manager = true"));
    assert_rustfmt_clean(root);
}

#[test]
fn create_webhook_writes_both_handlers_and_refuses_twice() {
    let dir = new_project();
    let root = dir.path();
    let hook = cache(
        "webhook",
        "v1alpha1",
        "Memcached",
        &["--defaulting", "--programmatic-validation"],
    );
    let e = create(root, &hook).unwrap_err();
    assert!(
        e.message.contains(
            "Run `kube-markers create api --group cache --version v1alpha1 --kind Memcached` first"
        ),
        "{e}"
    );
    create(root, MEMCACHED).unwrap();
    let e = create(root, &hook[..7]).unwrap_err();
    assert!(
        e.message
            .contains("needs --defaulting, --programmatic-validation or both"),
        "{e}"
    );
    create(root, &hook).unwrap();
    let file = read(root, "my-operator/src/webhooks/cache_v1alpha1_memcached.rs");
    assert!(file.contains("path = \"/mutate-cache-example-com-v1alpha1-memcached\""));
    assert!(file.contains("path = \"/validate-cache-example-com-v1alpha1-memcached\""));
    assert!(file.contains("async fn defaulting_sets_foo_and_keeps_a_value()"));
    assert!(file.contains("async fn validation_refuses_a_forbidden_foo_naming_it()"));
    assert!(read(root, "codegen/Cargo.toml").contains("webhooks = true"));
    let main_before = read(root, "my-operator/src/main.rs");
    assert_eq!(main_before.matches("let webhooks =").count(), 1);
    let e = create(root, &hook[..8]).unwrap_err();
    assert!(
        e.message.contains("exist already: ") && e.message.contains("cache_v1alpha1_memcached.rs"),
        "{e}"
    );
    assert_rustfmt_clean(root);
}

#[test]
fn every_command_has_help_and_names_the_way_on() {
    let dir = tempfile::tempdir().unwrap();
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // --help works anywhere, before any check of the project.
    assert_eq!(run(&args(&["api", "--help"]), dir.path()), Ok(()));
    assert_eq!(run(&args(&["webhook", "-h"]), dir.path()), Ok(()));
    assert_eq!(run(&args(&["--help"]), dir.path()), Ok(()));
    assert_eq!(crate::init::run(&args(&["--help"]), dir.path()), Ok(()));
    let e = run(&[], dir.path()).unwrap_err();
    assert_eq!(e.code, 2);
    let e = run(&args(&["apis"]), dir.path()).unwrap_err();
    assert!(
        e.message
            .contains("there is `create api` and `create webhook`"),
        "{e}"
    );
    let e = crate::init::run(&args(&["--name", "op"]), dir.path()).unwrap_err();
    assert!(e.message.contains("needs --domain"), "{e}");
}

#[test]
fn resource_and_controller_switches() {
    let dir = new_project();
    let root = dir.path();
    // The controller alone needs the kind's types.
    let e = create(root, &[MEMCACHED, &["--resource=false"]].concat()).unwrap_err();
    assert!(e.message.contains("--resource=false, but "), "{e}");
    assert!(e.message.contains("memcached.rs is missing"), "{e}");
    // The types alone: no controller, main untouched.
    let main_before = read(root, "my-operator/src/main.rs");
    create(
        root,
        &[MEMCACHED, &["--controller=false", "--plural", "mcs"]].concat(),
    )
    .unwrap();
    assert!(
        read(root, "my-operator/src/api/cache/v1alpha1/memcached.rs").contains("plural = \"mcs\"")
    );
    assert!(
        !root
            .join("my-operator/src/controllers/memcached.rs")
            .exists()
    );
    assert_eq!(read(root, "my-operator/src/main.rs"), main_before);
    // Then the controller for those types, once.
    create(root, &[MEMCACHED, &["--resource=false"]].concat()).unwrap();
    assert!(read(root, "my-operator/src/controllers/memcached.rs").contains("resources = \"mcs\""));
    assert!(read(root, "my-operator/src/main.rs").contains("memcached::run("));
    let e = create(root, &[MEMCACHED, &["--resource=false"]].concat()).unwrap_err();
    assert!(
        e.message
            .contains("controllers/memcached.rs exists already"),
        "{e}"
    );
    let e = create(root, MEMCACHED).unwrap_err();
    assert!(e.message.contains("Memcached exists already"), "{e}");
}

/// The command a refusal names after "Run `...`", as its words (a shell's split).
fn suggested(message: &str) -> Vec<String> {
    let command = message
        .split("Run `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no command in {message}"));
    command.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_commands_refusals_name_work_as_written() {
    // `create` outside a project: the `init` it names, then the same `create` goes through.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("my-operator");
    std::fs::create_dir(&dir).unwrap();
    let refused = create(&dir, MEMCACHED).unwrap_err().to_string();
    let init = suggested(&refused);
    assert_eq!(init[..2], ["kube-markers", "init"], "{refused}");
    let mut args = init[2..].to_vec();
    args.push("--skip-generate".into());
    crate::init::run(&args, &dir).unwrap();
    create(&dir, MEMCACHED).unwrap();

    // A webhook before its kind: the `create api` it names, then the webhook goes through.
    let dir = new_project();
    let webhook = cache("webhook", "v1alpha1", "Memcached", &["--defaulting"]);
    let refused = create(dir.path(), &webhook).unwrap_err().to_string();
    let api = suggested(&refused);
    assert_eq!(api[..3], ["kube-markers", "create", "api"], "{refused}");
    let api: Vec<&str> = api[2..].iter().map(String::as_str).collect();
    create(dir.path(), &api).unwrap();
    create(dir.path(), &webhook).unwrap();
}

/// `main.rs` and the features of a project of `kube-markers init` before leader election.
fn make_older(root: &Path) {
    std::fs::write(
        root.join("my-operator/src/main.rs"),
        include_str!("../../tests/fixtures/older-init/main.rs"),
    )
    .unwrap();
    let manifest = root.join("my-operator/Cargo.toml");
    let text = read(root, "my-operator/Cargo.toml");
    let older = text.replace(
        r#"features = ["audit", "leader-election", "health"]"#,
        r#"features = ["audit", "health"]"#,
    );
    assert_ne!(older, text);
    std::fs::write(manifest, older).unwrap();
}

#[test]
fn a_project_from_an_init_before_leader_election_gets_its_kind_and_webhooks() {
    let dir = new_project();
    let root = dir.path();
    make_older(root);
    let said = create(root, MEMCACHED).unwrap();
    let note = said.iter().find(|l| l.starts_with("note: ")).unwrap();
    assert!(
        note.contains("my-operator/src/main.rs runs no leader election")
            && note.contains("no standby needs memcached_cache"),
        "{said:?}"
    );
    let main = read(root, "my-operator/src/main.rs");
    assert!(main.contains("let memcached_cache = health.condition(\"memcacheds cache\");"));
    assert!(main.contains(
        "    let mut controllers = tokio::task::JoinSet::new();\n    \
         controllers.spawn(my_operator::controllers::memcached::run(\n        client.clone(),\n        \
         memcached_cache,\n    ));\n    // +kube-markers:scaffold:controllers\n"
    ), "{main}");
    assert!(!main.contains("caches"), "{main}");
    create(
        root,
        &cache("webhook", "v1alpha1", "Memcached", &["--defaulting"]),
    )
    .unwrap();
    assert!(
        read(root, "my-operator/Cargo.toml")
            .contains(r#"features = ["audit", "health", "webhook-server"] }"#)
    );
    assert!(read(root, "my-operator/src/main.rs").contains("webhooks.shutdown().await;"));
    assert_rustfmt_clean(root);
}

/// Applies the way out of a missing marker's refusal as it is printed: a line added after,
/// before or at the end, or a comment appended to a numbered line.
fn put_back_as_said(message: &str) {
    let way = message
        .split("Put the marker back: ")
        .nth(1)
        .and_then(|w| w.split("\nthen run the command again").next())
        .unwrap_or_else(|| panic!("no way back in {message}"));
    let location = |s: &str| -> (PathBuf, usize) {
        let (path, n) = s.rsplit_once(':').unwrap();
        (PathBuf::from(path), n.parse().unwrap())
    };
    let path;
    let (at, line, appended) = if let Some(rest) = way.strip_prefix("append `") {
        let (comment, rest) = rest.split_once("` to the end of ").unwrap();
        let (p, n) = location(rest.split(" (`").next().unwrap());
        path = p;
        (n - 1, comment, true)
    } else {
        let (place, line) = way.split_once(", add the line\n").unwrap();
        if let Some(p) = place.strip_prefix("at the end of ") {
            path = PathBuf::from(p);
            (usize::MAX, line, false)
        } else {
            let (side, rest) = place.split_once(' ').unwrap();
            let (p, n) = location(rest.split(" (`").next().unwrap());
            path = p;
            (if side == "after" { n } else { n - 1 }, line, false)
        }
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match (appended, at) {
        (true, at) => lines[at].push_str(line),
        (false, usize::MAX) => lines.push(line.to_string()),
        (false, at) => lines.insert(at, line.to_string()),
    }
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

/// Every file of the project, by path.
fn project_files(root: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_marker_a_command_needs_is_put_back_as_its_refusal_says() {
    let other = |version| cache("api", version, "Other", &[]);
    let webhook = cache("webhook", "v1alpha1", "Memcached", &["--defaulting"]);
    let memcached = MEMCACHED.to_vec();
    // (the file, its marker, the command that needs it; whether Memcached exists first)
    let cases: Vec<(&str, &str, Vec<&str>, bool)> = vec![
        (
            "my-operator/src/api/mod.rs",
            "groups",
            memcached.clone(),
            false,
        ),
        (
            "my-operator/src/api/cache/mod.rs",
            "versions",
            other("v1"),
            true,
        ),
        (
            "my-operator/src/api/cache/v1alpha1/mod.rs",
            "kinds",
            other("v1alpha1"),
            true,
        ),
        (
            "my-operator/src/controllers/mod.rs",
            "controllers",
            memcached.clone(),
            false,
        ),
        (
            "my-operator/src/main.rs",
            "conditions",
            memcached.clone(),
            false,
        ),
        (
            "my-operator/src/main.rs",
            "standby",
            memcached.clone(),
            false,
        ),
        (
            "my-operator/src/main.rs",
            "controllers",
            memcached.clone(),
            false,
        ),
        (
            "my-operator/src/main.rs",
            "webhook-server",
            webhook.clone(),
            true,
        ),
        ("my-operator/src/main.rs", "shutdown", webhook.clone(), true),
        (
            "my-operator/src/webhooks/mod.rs",
            "webhooks",
            webhook.clone(),
            true,
        ),
        (
            "my-operator/Cargo.toml",
            "kube-markers-features",
            webhook.clone(),
            true,
        ),
        (
            "codegen/Cargo.toml",
            "bundle-webhooks",
            webhook.clone(),
            true,
        ),
        (
            "codegen/Cargo.toml",
            "bundle-cert-manager",
            webhook.clone(),
            true,
        ),
    ];
    for (rel, marker, command, first) in cases {
        let dir = new_project();
        let root = dir.path();
        if first {
            create(root, MEMCACHED).unwrap();
        }
        let token = format!("+kube-markers:scaffold:{marker}");
        let original = read(root, rel);
        let removed: String = original
            .lines()
            .filter_map(|l| match l.trim_end().strip_suffix(token.as_str()) {
                None => Some(format!("{l}\n")),
                Some(rest) => {
                    let rest = rest.trim_end();
                    let rest = rest.strip_suffix('#').or(rest.strip_suffix("//")).unwrap();
                    let kept = rest.trim_end();
                    (!kept.trim().is_empty()).then(|| format!("{kept}\n"))
                }
            })
            .collect();
        assert_ne!(removed, original, "{rel} {marker}");
        std::fs::write(root.join(rel), &removed).unwrap();
        let before = project_files(root);
        let e = create(root, &command).unwrap_err();
        assert!(
            e.message
                .contains(&format!("{rel} has no `{token}` marker")),
            "{rel} {marker}: {e}"
        );
        assert_eq!(project_files(root), before, "{rel} {marker}: written: {e}");
        put_back_as_said(&e.message);
        assert_eq!(read(root, rel), original, "{rel} {marker}: {e}");
        create(root, &command).unwrap_or_else(|e| panic!("{rel} {marker}: {e}"));
    }
}

#[test]
fn a_dependency_line_without_features_is_edited_or_refused_with_its_fix() {
    assert_eq!(
        with_feature(
            r#"kube-markers = { workspace = true, features = ["health"] } # +m"#,
            "webhook-server"
        )
        .as_deref(),
        Some(
            r#"kube-markers = { workspace = true, features = ["health", "webhook-server"] } # +m"#
        )
    );
    assert_eq!(
        with_feature(r#"kube-markers = { path = "../km", features = [] }"#, "x").as_deref(),
        Some(r#"kube-markers = { path = "../km", features = ["x"] }"#)
    );
    assert_eq!(
        with_feature(r#"kube-markers = { workspace = true } # +m"#, "x").as_deref(),
        Some(r#"kube-markers = { workspace = true, features = ["x"] } # +m"#)
    );
    assert_eq!(
        set_true("webhooks=false   # +m").as_deref(),
        Some("webhooks = true # +m")
    );

    // A line the scaffold cannot read: refused, the line named; its fix as said, then it goes.
    let dir = new_project();
    let root = dir.path();
    create(root, MEMCACHED).unwrap();
    let manifest = read(root, "my-operator/Cargo.toml");
    let line = manifest
        .lines()
        .find(|l| l.contains("scaffold:kube-markers-features"))
        .unwrap();
    let dotted = "kube-markers.workspace = true # +kube-markers:scaffold:kube-markers-features";
    std::fs::write(
        root.join("my-operator/Cargo.toml"),
        manifest.replace(line, dotted),
    )
    .unwrap();
    let webhook = cache(
        "webhook",
        "v1alpha1",
        "Memcached",
        &["--programmatic-validation"],
    );
    let e = create(root, &webhook).unwrap_err();
    assert!(
        e.message.contains(&format!(
            "my-operator/Cargo.toml:{}: the scaffold cannot edit `{dotted}` (nothing was written).\nadd \"webhook-server\" to kube-markers' features",
            manifest.lines().position(|l| l == line).unwrap() + 1
        )),
        "{e}"
    );
    assert!(
        !root
            .join("my-operator/src/webhooks/cache_v1alpha1_memcached.rs")
            .exists()
    );
    std::fs::write(
        root.join("my-operator/Cargo.toml"),
        manifest.replace(
            line,
            r#"kube-markers = { workspace = true, features = ["webhook-server"] } # +kube-markers:scaffold:kube-markers-features"#,
        ),
    )
    .unwrap();
    create(root, &webhook).unwrap();
}

/// A module file of the scaffold deleted: restored as the refusal says, by `git checkout` in a
/// committed project, or created holding the marker's line.
#[test]
fn a_deleted_module_file_is_restored_as_the_refusal_says() {
    let dir = new_project();
    let root = dir.path();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(root)
            .output()
            .expect("git on the PATH");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "init"]);
    let rel = "my-operator/src/controllers/mod.rs";
    let original = read(root, rel);
    std::fs::remove_file(root.join(rel)).unwrap();
    let e = create(root, MEMCACHED).unwrap_err();
    let command = e
        .message
        .split("Restore it with `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .unwrap_or_else(|| panic!("{e}"));
    assert_eq!(command, format!("git checkout -- {rel}"), "{e}");
    assert!(
        e.message
            .contains(&format!(" in {} if it is committed", root.display())),
        "{e}"
    );
    assert!(!root.join("my-operator/src/api/cache").exists(), "{e}");
    let words: Vec<&str> = command.split(' ').collect();
    git(&words[1..]);
    assert_eq!(read(root, rel), original);
    create(root, MEMCACHED).unwrap();

    // Not committed: created holding the line the refusal names.
    let dir = new_project();
    let root = dir.path();
    let rel = "my-operator/src/api/mod.rs";
    std::fs::remove_file(root.join(rel)).unwrap();
    let e = create(root, MEMCACHED).unwrap_err();
    let line = e
        .message
        .split("or create it holding the line\n")
        .nth(1)
        .and_then(|r| r.lines().next())
        .unwrap_or_else(|| panic!("{e}"));
    assert_eq!(line, "// +kube-markers:scaffold:groups");
    std::fs::write(root.join(rel), format!("{line}\n")).unwrap();
    create(root, MEMCACHED).unwrap();
    assert!(read(root, rel).contains("pub mod cache;"));
    // main.rs has more than its markers: restored from git only.
    std::fs::remove_file(root.join("my-operator/src/main.rs")).unwrap();
    let e = create(root, &cache("api", "v1", "Other", &[])).unwrap_err();
    assert!(
        e.message.contains("main.rs is missing") && !e.message.contains("or create it"),
        "{e}"
    );
}
