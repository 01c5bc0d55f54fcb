//! `kube-markers generate` in a user's workspace outside this one (the README's quick start):
//! after `#[rbac]`-only edits it regenerates from the sources without building, and writes
//! byte for byte what a build and run writes; any other edit takes the build, named.

#[allow(dead_code)] // the outside-workspace helpers of tests/tests; this test uses a few
#[path = "../../tests/tests/outside/mod.rs"]
mod outside;
use outside::{quick_start_workspace, tree, write};
#[allow(dead_code)] // the command tests' helpers; each test file uses some
mod common;
use common::{cargo_env, generate_in, text};
use std::path::{Path, PathBuf};
use std::process::Output;

const LIB: &str = r#"use kube_markers::rbac;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced)]
pub struct MemcachedSpec {
    #[k8s(minimum = 1, maximum = 5)]
    pub size: i32,
}

#[rbac(groups = "cache.example.com", resources = "memcacheds", verbs = "list;watch;patch")]
#[rbac(groups = "cache.example.com", resources = "memcacheds/status", verbs = "patch")]
#[rbac(groups = "apps", resources = "deployments", verbs = "list;watch;create;patch")]
pub async fn reconcile() -> u32 {
    1
}
"#;

/// `LIB` with only its `#[rbac]` attributes edited: verbs changed, one spread over two lines
/// and spelled with the crate's path, one removed, one added, and a comment that moves them.
const RBAC_EDITED: &str = r#"use kube_markers::rbac;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced)]
pub struct MemcachedSpec {
    #[k8s(minimum = 1, maximum = 5)]
    pub size: i32,
}

// What the reconciler reads and writes.
#[rbac(groups = "cache.example.com", resources = "memcacheds", verbs = "get;list;watch;patch")]
#[kube_markers::rbac(groups = "apps", resources = "deployments",
    verbs = "list;watch;create;patch;delete")]
#[::kube_markers::rbac(groups = "", resources = "configmaps", verbs = "get", namespace = "cache")]
pub async fn reconcile() -> u32 {
    1
}
"#;

fn generate(ws: &Path, args: &[&str]) -> Output {
    generate_in(ws, args, &cargo_env(ws))
}

/// What `generate --dry-run` would do.
fn plan(ws: &Path) -> String {
    let out = generate(ws, &["--dry-run"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// The generated files, ledgers included.
fn written(ws: &Path) -> Vec<(PathBuf, String)> {
    tree(&ws.join("rbac-out"))
}

/// The run regenerated from the sources without building: the edit of `my-operator/src/lib.rs`
/// changed only #[rbac] attributes.
fn took_the_fast_path(out: &std::process::Output) {
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with(
            "kube-markers: no rebuild of codegen: only #[rbac] attributes changed since its \
             build (my-operator/src/lib.rs); regenerating from the sources\n"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("Compiling"), "{stderr}");
}

#[test]
fn rbac_edits_regenerate_without_a_build_and_anything_else_builds() {
    let ws = quick_start_workspace("cli-generate", LIB);
    let lib = ws.join("my-operator/src/lib.rs");
    // The target directory outlives the workspace (its builds are reused): not its record.
    let [_, (_, target)] = cargo_env(&ws);
    let _ = std::fs::remove_dir_all(target.join("kube-markers"));

    // The first run builds, and records what it built from.
    let out = generate(&ws, &[]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with(
            "kube-markers: building codegen: no record of the generator's last build by \
             kube-markers yet\n"
        ),
        "{stderr}"
    );
    let before = written(&ws);
    assert_eq!(plan(&ws), "run: nothing changed since codegen was built\n");

    // `#[rbac]` edits only: no build, and the files a build would write.
    write(&lib, RBAC_EDITED);
    assert_eq!(
        plan(&ws),
        "regenerate from the sources: only #[rbac] attributes changed (my-operator/src/lib.rs)\n"
    );
    let out = generate(&ws, &[]);
    took_the_fast_path(&out);
    let fast = written(&ws);
    assert_ne!(fast, before, "the edit changes the roles");
    let role = &fast
        .iter()
        .find(|(p, _)| p == Path::new("role.yaml"))
        .unwrap()
        .1;
    assert!(role.contains("- delete"), "{role}");

    // Every other edit takes the build, named; back to the rbac-only edit, the fast path again
    // (the record is still the build's).
    let other_edits = [
        (
            "a function's body",
            RBAC_EDITED.replace("    1\n", "    2\n"),
        ),
        (
            "a type's field",
            RBAC_EDITED.replace("pub size: i32,", "pub size: i32,\n    pub image: String,"),
        ),
        (
            "a cfg",
            RBAC_EDITED.replace("pub async fn", "#[cfg(feature = \"never\")]\npub async fn"),
        ),
        ("a macro", RBAC_EDITED.replace("    1\n", "    line!()\n")),
        (
            "a marker",
            RBAC_EDITED.replace("maximum = 5", "maximum = 6"),
        ),
        (
            "a doc comment (a schema's description)",
            RBAC_EDITED.replace("    pub size", "    /// How many.\n    pub size"),
        ),
        (
            "a #[webhook] attribute",
            RBAC_EDITED.replace(
                "#[kube_markers::crd]",
                "#[kube_markers::crd]\n#[kube_markers::webhook(path = \"/validate\")]",
            ),
        ),
        (
            "an #[rbac] inside a cfg_attr",
            RBAC_EDITED
                .replace(
                    "#[::kube_markers::rbac(",
                    "#[cfg_attr(test, ::kube_markers::rbac(",
                )
                .replace("namespace = \"cache\")]", "namespace = \"cache\"))]"),
        ),
    ];
    for (what, edit) in other_edits {
        assert_ne!(edit, RBAC_EDITED, "{what}");
        write(&lib, &edit);
        assert_eq!(
            plan(&ws),
            "build codegen: my-operator/src/lib.rs: its tokens outside #[rbac] attributes changed\n",
            "{what}"
        );
    }
    write(&lib, RBAC_EDITED);
    let manifest = ws.join("my-operator/Cargo.toml");
    let cargo_toml = std::fs::read_to_string(&manifest).unwrap();
    write(
        &manifest,
        &format!("{cargo_toml}\n[features]\nextra = []\n"),
    );
    assert_eq!(
        plan(&ws),
        "build codegen: my-operator/Cargo.toml: its contents changed\n"
    );
    write(&manifest, &cargo_toml);
    let build_rs = ws.join("my-operator/build.rs");
    write(&build_rs, "fn main() {}\n");
    assert_eq!(
        plan(&ws),
        "build codegen: my-operator/build.rs: it was created\n"
    );
    std::fs::remove_file(&build_rs).unwrap();
    // The same bytes written again (a save without a change) are no change.
    let lock = std::fs::read(ws.join("Cargo.lock")).unwrap();
    std::fs::write(ws.join("Cargo.lock"), &lock).unwrap();
    assert_eq!(
        plan(&ws),
        "regenerate from the sources: only #[rbac] attributes changed (my-operator/src/lib.rs)\n"
    );
    // --check proves CRDs and webhooks too: only the full run does.
    let out = generate(&ws, &["--check", "--dry-run"]);
    assert_eq!(
        text(&out.stdout),
        "build codegen: --check with #[rbac] edits since the build: the full run checks CRDs \
         and webhooks too\n"
    );

    // The build of the same sources writes byte for byte what the fast path wrote.
    let out = generate(&ws, &["--build"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("kube-markers: building codegen: --build\n"),
        "{stderr}"
    );
    assert_eq!(written(&ws), fast);
    assert_eq!(plan(&ws), "run: nothing changed since codegen was built\n");
    let out = generate(&ws, &["--check"]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // A CRD edited by hand: the fast path would keep it, the full run rewrites it: the build.
    write(&lib, LIB);
    let crd = ws.join("rbac-out/crd/cache.example.com_memcacheds.yaml");
    let generated = std::fs::read_to_string(&crd).unwrap();
    write(&crd, &format!("{generated}# edited by hand\n"));
    let out = generate(&ws, &[]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "kube-markers: building codegen: a CRD or webhook file differs from what the \
             generator writes (above)\n"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&crd).unwrap(), generated);
    assert_eq!(written(&ws), before);
}

/// A workspace whose target directory is set in its `.cargo/config.toml` (relative to the
/// directory holding `.cargo/`): the record is kept there, and an `#[rbac]`-only edit takes the
/// fast path.
#[test]
fn a_target_dir_of_cargo_config_keeps_the_fast_path() {
    let ws = quick_start_workspace("cli-generate-config", LIB);
    write(
        &ws.join(".cargo/config.toml"),
        "[build]\ntarget-dir = \"../config-target\"\n",
    );
    let target = ws.join("../config-target");
    let _ = std::fs::remove_dir_all(target.join("kube-markers"));
    // This build's directory (its dependencies are reused), and no CARGO_TARGET_DIR.
    let [build_dir, _] = cargo_env(&ws);
    let env = [build_dir];

    let out = generate_in(&ws, &[], &env);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("kube-markers: building codegen: no record"),
        "{stderr}"
    );
    assert!(target.join("debug/codegen").is_file(), "{stderr}");
    assert!(
        target.join("kube-markers/generate/codegen.json").is_file(),
        "{stderr}"
    );
    assert!(!ws.join("target").exists());

    write(&ws.join("my-operator/src/lib.rs"), RBAC_EDITED);
    let out = generate_in(&ws, &[], &env);
    took_the_fast_path(&out);
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert!(role.contains("- delete"), "{role}");
}
