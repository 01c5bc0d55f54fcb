//! What a new user tripped on (issue 19), in a workspace of their own outside this one, made
//! as the README's quick start tells (`outside/mod.rs`): attributes behind a `cfg` the build
//! profile decides, the bundle's namespace, hand edits of generated files, `--check` with a
//! generator older than the sources, and the generator run from a member's directory.

#[allow(dead_code)] // shared with quick_start.rs and envtest/tests/outside_crds.rs
mod outside;
use outside::{quick_start_workspace, run_built_generator, run_generator, write};
use std::process::Output;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every spelling of a `cfg` the build profile sets, in the user's library. Line numbers
/// matter: the errors name them.
const PROFILE_LIB: &str = r#"use kube_markers::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "get")]
pub fn reconcile() {}

#[cfg(debug_assertions)]
#[rbac(groups = "", resources = "events", verbs = "create")]
pub fn only_in_debug_builds() {}

#[cfg(not(debug_assertions))]
#[rbac(groups = "", resources = "leases", verbs = "get")]
pub fn only_in_release_builds() {}

#[cfg_attr(debug_assertions, rbac(groups = "", resources = "configmaps", verbs = "get"))]
pub fn through_cfg_attr() {}

#[cfg(all(unix, any(panic = "unwind", target_os = "none")))]
#[rbac(groups = "", resources = "secrets", verbs = "get")]
pub fn nested_panic_unwind() {}

#[cfg(panic = "abort")]
#[rbac(groups = "", resources = "pods", verbs = "delete")]
pub fn panic_abort() {}

#[cfg(debug_assertions)]
pub mod debug {
    #[kube_markers::rbac(groups = "", resources = "pods", verbs = "list")]
    pub fn in_a_module() {}
}

#[cfg(debug_assertions)]
mod in_a_file;
"#;

const IN_A_FILE: &str = r#"#[kube_markers::rbac(groups = "", resources = "services", verbs = "get")]
pub fn in_a_file() {}
"#;

#[test]
fn every_attribute_behind_a_cfg_of_the_build_profile_is_refused() {
    let ws = quick_start_workspace("new-user-profile", PROFILE_LIB);
    write(&ws.join("my-operator/src/in_a_file.rs"), IN_A_FILE);
    let out = run_generator(&ws, &[]);
    let text = stderr(&out);
    assert!(!out.status.success(), "{text}");
    // One rule, whether the generator's dev build compiled the attribute or not.
    for (place, cfg, compiled) in [
        ("src/lib.rs:7:1", "cfg(debug_assertions)", true),
        ("src/lib.rs:11:1", "cfg(not(debug_assertions))", false),
        ("src/lib.rs:14:30", "cfg(debug_assertions)", true),
        (
            "src/lib.rs:18:1",
            "cfg(all(unix, any(panic = \"unwind\", target_os = \"none\")))",
            true,
        ),
        ("src/lib.rs:22:1", "cfg(panic = \"abort\")", false),
        ("src/lib.rs:27:5", "cfg(debug_assertions)", true),
        ("src/in_a_file.rs:1:1", "cfg(debug_assertions)", true),
    ] {
        let expected = format!(
            "my-operator/{place}: #[rbac] behind `{cfg}`, which the build profile sets: the \
             generator's build {} it",
            if compiled {
                "compiled"
            } else {
                "did not compile"
            }
        );
        assert!(text.contains(&expected), "{expected}:\n{text}");
    }
    assert!(
        text.contains("error: 7 problem(s) between the sources and the registry"),
        "{text}"
    );
    assert!(!ws.join("rbac-out").exists(), "{text}");
    // The edit loop refuses them too.
    let fast = run_built_generator(&ws, &["--rbac-from-source"]);
    let text = stderr(&fast);
    assert!(!fast.status.success(), "{text}");
    assert!(text.contains("debug_assertions"), "{text}");
    assert!(!ws.join("rbac-out").exists(), "{text}");
}
