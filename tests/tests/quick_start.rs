//! The README's quick start, done as a new user does it: a workspace of their own, outside
//! this one, depending on kube-markers by path, with the README's own `Cargo.toml` lines and
//! generator `main.rs`. Then the promise a new user leans on most: an attribute in a crate the
//! generator does not link fails the run instead of vanishing.
//!
//! The outside workspace compiles into this build's directory (`CARGO_BUILD_BUILD_DIR`), so
//! the dependencies this test suite already built are reused; its own binaries go elsewhere
//! and cannot replace this workspace's `codegen`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The fenced block of the README that starts with the line `first` (its content, without the
/// fences and without that line's indentation).
fn readme_block(first: &str) -> String {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == first)
        .unwrap_or_else(|| panic!("the README has no block starting with `{first}`"));
    let indent = lines[start].len() - lines[start].trim_start().len();
    lines[start..]
        .iter()
        .take_while(|l| l.trim() != "```")
        .map(|l| l.get(indent..).unwrap_or("").to_string() + "\n")
        .collect()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `cargo run -p codegen -- args` in the user's workspace.
fn run_generator(workspace: &Path, args: &[&str]) -> Output {
    let target_tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let build_dir = target_tmp.parent().unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Command::new(cargo)
        .args(["run", "-q", "-p", "codegen", "--"])
        .args(args)
        .current_dir(workspace)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .env("CARGO_BUILD_BUILD_DIR", build_dir)
        .env("CARGO_TARGET_DIR", target_tmp.join("quick-start-target"))
        .output()
        .unwrap()
}

const OPERATOR_LIB: &str = r#"use kube_markers::rbac;
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
pub async fn reconcile() {}
"#;

const EXPECTED_ROLE: &str = "---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups:
  - apps
  resources:
  - deployments
  verbs:
  - create
  - list
  - patch
  - watch
- apiGroups:
  - cache.example.com
  resources:
  - memcacheds
  verbs:
  - list
  - patch
  - watch
- apiGroups:
  - cache.example.com
  resources:
  - memcacheds/status
  verbs:
  - patch
";

#[test]
fn the_readme_quick_start_works_from_outside_and_loses_nothing() {
    let projects = Path::new(env!("CARGO_TARGET_TMPDIR")).join("quick-start");
    let _ = std::fs::remove_dir_all(&projects);
    std::fs::create_dir_all(&projects).unwrap();
    std::os::unix::fs::symlink(repo_root(), projects.join("kube-markers")).unwrap();
    let ws = projects.join("my-operator");

    // This build's debug-info settings, so that its compiled dependencies are reused, and the
    // README's profile lines (step 3) as printed; and this build's lock file, so that the same
    // versions are.
    write(
        &ws.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"3\"\nmembers = [\"my-operator\", \"codegen\"]\n\n\
             [profile.dev]\ndebug = \"line-tables-only\"\n\n\
             [profile.dev.package.\"*\"]\ndebug = false\n\n{}",
            readme_block("# Cargo.toml (the workspace's)")
        ),
    );
    std::fs::copy(repo_root().join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();

    // Step 1 of the README (the dependency lines as printed there), with its CRD dependencies.
    let step1 = readme_block("# my-operator/Cargo.toml");
    let crd_deps = readme_block(
        r#"kube = { version = "5", features = ["derive"] }   # plus "client", "runtime", ... as usual"#,
    );
    let crd_deps: String = crd_deps
        .lines()
        .filter(|l| !l.starts_with("k8s-openapi")) // step 1 names it already
        .map(|l| format!("{l}\n"))
        .collect();
    write(
        &ws.join("my-operator/Cargo.toml"),
        &format!(
            "[package]\nname = \"my-operator\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{}{crd_deps}",
            step1.replace(
                r#"features = ["latest"] }"#,
                r#"features = ["latest", "schemars"] }"#
            )
        ),
    );
    write(&ws.join("my-operator/src/lib.rs"), OPERATOR_LIB);
    // Step 3: the generator, its Cargo.toml lines and main.rs as printed.
    write(
        &ws.join("codegen/Cargo.toml"),
        &format!(
            "[package]\nname = \"codegen\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{}",
            readme_block("# codegen/Cargo.toml")
        ),
    );
    write(
        &ws.join("codegen/src/main.rs"),
        &readme_block("// codegen/src/main.rs"),
    );

    // Step 4.
    let out = run_generator(&ws, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert_eq!(role, EXPECTED_ROLE);
    let crd =
        std::fs::read_to_string(ws.join("rbac-out/crd/cache.example.com_memcacheds.yaml")).unwrap();
    assert!(crd.contains("maximum: 5"), "{crd}");
    let check = run_generator(&ws, &["--check"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // A second crate with an attribute, which the generator does not link: the run fails,
    // naming the attribute's place and the fix, and writes nothing.
    let members = std::fs::read_to_string(ws.join("Cargo.toml"))
        .unwrap()
        .replace(r#""codegen"]"#, r#""codegen", "other-operator"]"#);
    write(&ws.join("Cargo.toml"), &members);
    write(
        &ws.join("other-operator/Cargo.toml"),
        &format!(
            "[package]\nname = \"other-operator\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{}",
            step1
        ),
    );
    // Each form a user may write, in the unlinked crate: every one must be reported.
    std::fs::write(
        ws.join("other-operator/Cargo.toml"),
        std::fs::read_to_string(ws.join("other-operator/Cargo.toml")).unwrap()
            + "\n[features]\ndefault = [\"x\"]\nx = []\n",
    )
    .unwrap();
    write(
        &ws.join("other-operator/src/lib.rs"),
        r#"#[kube_markers::rbac(groups = "", resources = "secrets", verbs = "get")]
pub fn read_secrets() {}
#[cfg(feature = "x")]
#[kube_markers::rbac(groups = "", resources = "pods", verbs = "get")]
pub fn behind_a_default_feature() {}
#[cfg_attr(all(), kube_markers::rbac(groups = "", resources = "nodes", verbs = "get"))]
pub fn through_cfg_attr() {}
macro_rules! pass { ($i:item) => { $i }; }
pass! { #[kube_markers::rbac(groups = "", resources = "events", verbs = "get")] pub fn through_a_macro() {} }
include!("part.rs");
use kube_markers::rbac;
#[rbac(groups = "", resources = "services", verbs = "get")]
pub fn imported_name() {}
pass! { mod declared_by_a_macro; }
pass! { include!("included_by_a_macro.inc"); }
#[cfg_attr(feature = "x", path = "switched_on.rs")]
mod switched;
#[cfg(test)]
#[path = "twice.rs"]
mod twice_in_tests;
mod twice;
mod tokens;
"#,
    );
    // Text that tripped a token-level reading: a local named `union` in a comparison (`<`)
    // before the attribute, and rustc's Unicode whitespace (U+2029) between `pub` and `fn`.
    write(
        &ws.join("other-operator/src/tokens.rs"),
        "pub fn within(a: u8, limit: u8) -> bool {\n    \
         let union = a | 1;\n    \
         let small = union as u8 - 1 < limit;\n    \
         #[kube_markers::rbac(groups = \"\", resources = \"serviceaccounts\", verbs = \"get\")]\n    \
         fn after_a_local_named_union() {}\n    \
         small\n\
         }\n\
         #[kube_markers::rbac(groups = \"\", resources = \"podtemplates\", verbs = \"get\")]\n\
         pub\u{2029}fn after_unicode_whitespace() {}\n",
    );
    for (file, resource) in [
        ("declared_by_a_macro.rs", "configmaps"),
        ("included_by_a_macro.inc", "limitranges"),
        ("switched_on.rs", "resourcequotas"),
        ("twice.rs", "persistentvolumes"),
    ] {
        write(
            &ws.join("other-operator/src").join(file),
            &format!(
                "#[kube_markers::rbac(groups = \"\", resources = \"{resource}\", verbs = \"get\")]\n\
                 pub fn {}() {{}}\n",
                file.split('.').next().unwrap()
            ),
        );
    }
    write(
        &ws.join("other-operator/src/part.rs"),
        "#[kube_markers::rbac(groups = \"\", resources = \"endpoints\", verbs = \"get\")]\n\
         pub fn included() {}\n",
    );
    // A hand-written file beside the generated CRDs, with the text the generator stamps.
    let hand = ws.join("rbac-out/crd/hand.example.com_things.yaml");
    write(
        &hand,
        "kind: CustomResourceDefinition\n# kube-markers/version: v0\n",
    );
    let lost = run_generator(&ws, &[]);
    let stderr = String::from_utf8_lossy(&lost.stderr);
    assert!(!lost.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "other-operator/src/lib.rs:1:1: #[rbac] in crate `other_operator` is missing from \
             the registry: the generator does not link crate `other_operator`; add it to \
             `kube_markers::link!(...)`"
        ),
        "{stderr}"
    );
    for line in [4, 6, 9, 12] {
        assert!(
            stderr.contains(&format!("other-operator/src/lib.rs:{line}:")),
            "line {line}: {stderr}"
        );
    }
    assert!(
        stderr.contains("other-operator/src/part.rs:1:1: #[rbac] in crate `other_operator`"),
        "{stderr}"
    );
    // Files reached only through a macro's input, a `cfg_attr(path)` or a second `mod`.
    for file in [
        "declared_by_a_macro.rs",
        "included_by_a_macro.inc",
        "switched_on.rs",
        "twice.rs",
    ] {
        assert!(
            stderr.contains(&format!(
                "other-operator/src/{file}:1:1: #[rbac] in crate `other_operator`"
            )),
            "{file}: {stderr}"
        );
    }
    for line in [4, 8] {
        assert!(
            stderr.contains(&format!("other-operator/src/tokens.rs:{line}:")),
            "tokens.rs:{line}: {stderr}"
        );
    }
    assert!(stderr.contains("12 problem(s)"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap(),
        EXPECTED_ROLE
    );

    // Linked, everything is in the output, and the hand-written file is still there.
    let codegen_toml = std::fs::read_to_string(ws.join("codegen/Cargo.toml")).unwrap();
    write(
        &ws.join("codegen/Cargo.toml"),
        &(codegen_toml + "other-operator = { path = \"../other-operator\" }\n"),
    );
    write(
        &ws.join("codegen/src/main.rs"),
        &readme_block("// codegen/src/main.rs")
            .replace("link!(my_operator)", "link!(my_operator, other_operator)"),
    );
    let linked = run_generator(&ws, &[]);
    let stderr = String::from_utf8_lossy(&linked.stderr);
    assert!(linked.status.success(), "{stderr}");
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    for resource in [
        "secrets",
        "pods",
        "nodes",
        "events",
        "endpoints",
        "services",
        "configmaps",
        "limitranges",
        "resourcequotas",
        "persistentvolumes",
        "serviceaccounts",
        "podtemplates",
    ] {
        assert!(
            role.contains(&format!("  - {resource}\n")),
            "{resource}: {role}"
        );
    }
    assert!(
        hand.is_file(),
        "a file the generator did not write was removed"
    );
}
