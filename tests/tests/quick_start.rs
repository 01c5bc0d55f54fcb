//! The README's quick start, done as a new user does it: a workspace of their own, outside
//! this one, depending on kube-markers by path, with the README's own `Cargo.toml` lines and
//! generator `main.rs`. Then the promise a new user leans on most: an attribute in a crate the
//! generator does not link fails the run instead of vanishing. (`outside/mod.rs` builds the
//! workspace; `envtest/tests/outside_crds.rs` takes such a workspace's CRD to an API server.)

#[allow(dead_code)] // shared with envtest/tests/outside_crds.rs
mod outside;
use outside::{
    build_package, built, quick_start_workspace, readme_block, readme_step1, run_built,
    run_built_generator, run_generator, run_package, tree, write,
};
use std::path::{Path, PathBuf};

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

/// [`OPERATOR_LIB`] edited: lines shifted, verbs changed, an attribute removed, one added.
const EDITED_LIB: &str = r#"use kube_markers::rbac;
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

/// Reconciles a Memcached (a comment that moves the attributes down).
#[rbac(groups = "cache.example.com", resources = "memcacheds", verbs = "get;list;watch;patch")]
#[rbac(groups = "apps", resources = "deployments", verbs = "list;watch;create;patch")]
#[rbac(groups = "", resources = "configmaps", verbs = "get", namespace = "cache")]
pub async fn reconcile() {}
"#;

const EDITED_ROLE: &str = "---
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
  - get
  - list
  - patch
  - watch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: manager-role
  namespace: cache
rules:
- apiGroups:
  - \"\"
  resources:
  - configmaps
  verbs:
  - get
";

#[test]
fn the_readme_quick_start_works_from_outside_and_loses_nothing() {
    let ws = quick_start_workspace("quick-start", OPERATOR_LIB);
    step4(&ws);
    edit_loop(&ws);
    let hand = unlinked_crate_fails(&ws);
    linked_crate_is_in_the_output(&ws, &hand);
    from_source_refuses_what_only_the_compiler_reads(&ws);
}

/// Step 4 of the README: the run, then `--check`.
fn step4(ws: &Path) {
    let out = run_generator(ws, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert_eq!(role, EXPECTED_ROLE);
    let crd =
        std::fs::read_to_string(ws.join("rbac-out/crd/cache.example.com_memcacheds.yaml")).unwrap();
    assert!(crd.contains("maximum: 5"), "{crd}");
    let check = run_generator(ws, &["--check"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

fn edit_loop(ws: &Path) {
    // The edit loop: the built generator reads the roles from the sources, no rebuild. On the
    // sources it was built from, its output is the full run's, byte for byte (bundle and
    // ledgers included).
    let full_output = tree(&ws.join("rbac-out"));
    let fast = run_built_generator(ws, &["--rbac-from-source", "--check"]);
    let stderr = String::from_utf8_lossy(&fast.stderr);
    assert!(fast.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "role.yaml from the sources (3 #[rbac] attribute(s)), the same as the last build's"
        ),
        "{stderr}"
    );
    // An edited attribute (verbs changed, one removed, one added, every line shifted):
    // regenerated without a rebuild, and what a full run right after makes of the same
    // sources is exactly that, ledgers included.
    write(&ws.join("my-operator/src/lib.rs"), EDITED_LIB);
    let fast = run_built_generator(ws, &["--rbac-from-source"]);
    let stderr = String::from_utf8_lossy(&fast.stderr);
    assert!(fast.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "role.yaml from the sources (3 #[rbac] attribute(s)); 4 differ from the last \
             build (2 new or changed, 2 gone): run `cargo run -p codegen` to verify"
        ),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap(),
        EDITED_ROLE
    );
    let fast_output = tree(&ws.join("rbac-out"));
    let full = run_generator(ws, &[]);
    let stderr = String::from_utf8_lossy(&full.stderr);
    assert!(full.status.success(), "{stderr}");
    assert!(!stderr.contains("wrote"), "{stderr}");
    assert_eq!(tree(&ws.join("rbac-out")), fast_output);
    // And back: the binary built from the edited sources reads the original ones.
    write(&ws.join("my-operator/src/lib.rs"), OPERATOR_LIB);
    let fast = run_built_generator(ws, &["--rbac-from-source"]);
    assert!(
        fast.status.success(),
        "{}",
        String::from_utf8_lossy(&fast.stderr)
    );
    assert_eq!(tree(&ws.join("rbac-out")), full_output);
    let full = run_generator(ws, &["--check"]);
    assert!(
        full.status.success(),
        "{}",
        String::from_utf8_lossy(&full.stderr)
    );
}

/// A second crate with an attribute, which the generator does not link: the run fails,
/// naming the attribute's place and the fix, and writes nothing. Returns a hand-written file
/// left beside the generated ones.
fn unlinked_crate_fails(ws: &Path) -> PathBuf {
    write_other_operator(ws);
    // A hand-written file beside the generated CRDs, with the text the generator stamps.
    let hand = ws.join("rbac-out/crd/hand.example.com_things.yaml");
    write(
        &hand,
        "kind: CustomResourceDefinition\n# kube-markers/version: v0\n",
    );
    let lost = run_generator(ws, &[]);
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
    for line in [4, 8, 12, 17, 21] {
        assert!(
            stderr.contains(&format!("other-operator/src/tokens.rs:{line}:")),
            "tokens.rs:{line}: {stderr}"
        );
    }
    assert!(
        stderr.contains("other-operator/src/tokens/behind_a_mark.rs:1:1: #[rbac] in crate"),
        "{stderr}"
    );
    assert!(stderr.contains("16 problem(s)"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap(),
        EXPECTED_ROLE
    );
    hand
}

/// The second crate: each form a user may write an attribute in.
fn write_other_operator(ws: &Path) {
    let step1 = readme_step1();
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
    // before the attribute; rustc's Unicode whitespace between `pub` and `fn` (U+2029), between
    // `fn` and its name (U+0085) and between `mod` and its name (U+200E); a brace-delimited
    // macro as a function's return type before its body; a body after `-> !`.
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
         pub\u{2029}fn after_unicode_whitespace() {}\n\
         macro_rules! ty { ($($t:tt)*) => { u8 } }\n\
         pub fn typed_by_a_macro() -> ty!{} {\n    \
         #[kube_markers::rbac(groups = \"\", resources = \"replicationcontrollers\", verbs = \"get\")]\n    \
         fn after_a_type_macro() {}\n    \
         0\n\
         }\n\
         pub fn runs_forever() -> ! {\n    \
         #[kube_markers::rbac(groups = \"\", resources = \"componentstatuses\", verbs = \"get\")]\n    \
         fn inside_a_never_returning_fn() {}\n    \
         loop {}\n\
         }\n\
         #[kube_markers::rbac(groups = \"\", resources = \"namespaces\", verbs = \"get\")]\n\
         pub fn\u{85}after_next_line() {}\n\
         mod\u{200E}behind_a_mark;\n",
    );
    write(
        &ws.join("other-operator/src/tokens/behind_a_mark.rs"),
        "#[kube_markers::rbac(groups = \"\", resources = \"bindings\", verbs = \"get\")]\n\
         pub fn in_a_module_after_a_mark() {}\n",
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
}

/// Linked, everything is in the output, and the hand-written file is still there.
fn linked_crate_is_in_the_output(ws: &Path, hand: &Path) {
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
    let linked = run_generator(ws, &[]);
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
        "replicationcontrollers",
        "componentstatuses",
        "namespaces",
        "bindings",
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

/// From the sources, the attributes only the compiler can read are refused, each at its
/// place, and nothing is written.
fn from_source_refuses_what_only_the_compiler_reads(ws: &Path) {
    let before = tree(&ws.join("rbac-out"));
    let fast = run_built_generator(ws, &["--rbac-from-source"]);
    let stderr = String::from_utf8_lossy(&fast.stderr);
    assert!(!fast.status.success(), "{stderr}");
    for (place, why) in [
        (
            "other-operator/src/lib.rs:4:1",
            "behind `cfg(feature = \"x\")`: the generator's own build decides",
        ),
        ("other-operator/src/lib.rs:9:9", "in a macro's input"),
        (
            "other-operator/src/declared_by_a_macro.rs:1:1",
            "in a file reached through `mod declared_by_a_macro;` in a macro's input at \
             other-operator/src/lib.rs:14",
        ),
        (
            "other-operator/src/included_by_a_macro.inc:1:1",
            "in a file reached through an `include!` in a macro's input at \
             other-operator/src/lib.rs:15",
        ),
        (
            "other-operator/src/switched_on.rs:1:1",
            "behind `cfg(feature = \"x\")`",
        ),
    ] {
        assert!(
            stderr.contains(&format!("  - {place}: #[rbac] {why}")),
            "{place}: {stderr}"
        );
    }
    assert!(
        stderr.contains("5 problem(s) only the compiler can settle (nothing was written; run `cargo run -p codegen`"),
        "{stderr}"
    );
    assert_eq!(tree(&ws.join("rbac-out")), before);
}

/// A generator that is not this repository's `codegen`: package `xtask`, binary `gen` beside
/// another binary (so `cargo run -p xtask` alone is ambiguous). Every piece of advice names
/// the generator as its user runs it: usage errors name the binary, `--help` and the edit
/// loop's "run ... to verify" the cargo command.
#[test]
fn advice_names_the_generator_as_its_user_runs_it() {
    let ws = quick_start_workspace("xtask", OPERATOR_LIB);
    std::fs::rename(ws.join("codegen"), ws.join("xtask")).unwrap();
    let members = std::fs::read_to_string(ws.join("Cargo.toml"))
        .unwrap()
        .replace(r#""codegen"]"#, r#""xtask"]"#);
    write(&ws.join("Cargo.toml"), &members);
    let manifest = std::fs::read_to_string(ws.join("xtask/Cargo.toml"))
        .unwrap()
        .replace("name = \"codegen\"", "name = \"xtask\"")
        + "\n[[bin]]\nname = \"gen\"\npath = \"src/main.rs\"\n\n\
           [[bin]]\nname = \"other\"\npath = \"src/other.rs\"\n";
    write(&ws.join("xtask/Cargo.toml"), &manifest);
    write(&ws.join("xtask/src/other.rs"), "fn main() {}\n");

    let out = run_package(&ws, &["-p", "xtask", "--bin", "gen"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap(),
        EXPECTED_ROLE
    );

    for (args, hint) in [
        (&["--bogus"][..], "gen --help"),
        (&["can-i", "--bogus"], "gen can-i --help"),
        (&["explain", "--bogus"], "gen explain --help"),
    ] {
        let bad = run_built(&ws, "gen", args);
        let stderr = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("unknown option `--bogus`"),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("Run `{hint}` for usage.")),
            "{args:?}: {stderr}"
        );
    }

    let help = run_built(&ws, "gen", &["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Usage: gen [OPTIONS]"), "{help}");
    assert!(help.contains("`cargo run -p xtask --bin gen`"), "{help}");
    assert!(!help.contains("-p codegen"), "{help}");
    let bash = run_built(&ws, "gen", &["completions", "bash"]);
    assert!(String::from_utf8_lossy(&bash.stdout).contains("complete -F _gen gen"));

    write(&ws.join("my-operator/src/lib.rs"), EDITED_LIB);
    let fast = run_built(&ws, "gen", &["--rbac-from-source"]);
    let stderr = String::from_utf8_lossy(&fast.stderr);
    assert!(fast.status.success(), "{stderr}");
    assert!(
        stderr.contains("run `cargo run -p xtask --bin gen` to verify"),
        "{stderr}"
    );
    assert!(!stderr.contains("-p codegen"), "{stderr}");
}

/// What step 6's `lib.rs` block needs around it: the CRD, a reconciler and its context.
const PROBES_LIB: &str = r#"use futures::StreamExt;
use kube::runtime::controller::{Action, Controller};
use kube::{Api, CustomResource};
use kube_markers::rbac;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced)]
pub struct MemcachedSpec {
    pub size: i32,
}

pub struct Context {
    pub client: kube::Client,
}

#[rbac(groups = "cache.example.com", resources = "memcacheds", verbs = "list;watch")]
pub async fn reconcile(_obj: Arc<Memcached>, _ctx: Arc<Context>) -> Result<Action, kube::Error> {
    Ok(Action::requeue(Duration::from_secs(300)))
}

pub fn error_policy(_obj: Arc<Memcached>, _error: &kube::Error, _ctx: Arc<Context>) -> Action {
    Action::requeue(Duration::from_secs(5))
}

"#;

/// A kubeconfig whose API server refuses connections: the controller never lists.
const UNREACHABLE: &str = "apiVersion: v1
kind: Config
clusters: [{name: nowhere, cluster: {server: \"https://127.0.0.1:9\"}}]
users: [{name: someone, user: {token: t}}]
contexts: [{name: here, context: {cluster: nowhere, user: someone}}]
current-context: here
";

/// `GET path` on loopback: (status, body), or `None` while nothing listens.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    Some((head.get(9..12)?.parse().ok()?, body.to_string()))
}

/// Step 6: the README's `main.rs` and `run`, built in the user's workspace with the README's
/// dependency lines, serve the bundle's probes on `HEALTH_PROBE_PORT`: `/healthz` 200 and,
/// while the controller cannot list (no API server), `/readyz` 503 naming the cache.
#[test]
fn the_readme_operator_serves_the_bundles_probes() {
    let ws = quick_start_workspace("probes", PROBES_LIB);
    let manifest = std::fs::read_to_string(ws.join("my-operator/Cargo.toml")).unwrap();
    write(
        &ws.join("my-operator/Cargo.toml"),
        &(manifest + &readme_block("# my-operator/Cargo.toml, for the binary")),
    );
    let run = readme_block(
        "// my-operator/src/lib.rs: the controller, ready once its cache holds every Memcached",
    );
    write(
        &ws.join("my-operator/src/lib.rs"),
        &format!("{PROBES_LIB}{run}"),
    );
    write(
        &ws.join("my-operator/src/main.rs"),
        &readme_block("// my-operator/src/main.rs"),
    );
    let out = build_package(&ws, &["-p", "my-operator", "--bin", "my-operator"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    write(&ws.join("unreachable.kubeconfig"), UNREACHABLE);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut operator = std::process::Command::new(built(&ws, "my-operator"))
        .current_dir(&ws)
        .env("KUBECONFIG", ws.join("unreachable.kubeconfig"))
        .env("HEALTH_PROBE_PORT", port.to_string())
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let healthz = loop {
        if let Some(answer) = get(port, "/healthz") {
            break answer;
        }
        if let Some(status) = operator.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(operator.stderr.as_mut().unwrap(), &mut stderr).ok();
            panic!("the operator exited ({status}) before serving its probes:\n{stderr}");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no probes on port {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let readyz = get(port, "/readyz");
    let still_running = operator.try_wait().unwrap().is_none();
    operator.kill().unwrap();
    operator.wait().unwrap();
    assert_eq!(healthz, (200, "ok\n".to_string()));
    assert_eq!(
        readyz,
        Some((
            503,
            "[-]memcacheds cache: not ready yet\nreadyz check failed\n".to_string()
        ))
    );
    assert!(
        still_running,
        "the operator keeps running while it cannot list"
    );
}
