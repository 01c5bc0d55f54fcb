//! What a new user tripped on (issue 19), in a workspace of their own outside this one, made
//! as the README's quick start tells (`outside/mod.rs`): attributes behind a `cfg` the build
//! profile decides, the bundle's namespace, hand edits of generated files, `--check` with a
//! generator older than the sources, and the generator run from a member's directory; and
//! (issue 20) a kind in two versions whose schemas differ, refused without a conversion.

#[allow(dead_code)] // shared with quick_start.rs and envtest/tests/outside_crds.rs
mod outside;
use outside::{
    quick_start_workspace, readme_block, run_built_generator, run_generator, run_package_in, write,
};
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

#[cfg(r#debug_assertions)]
#[rbac(groups = "", resources = "secrets", verbs = "list")]
pub fn raw_identifier() {}

pub fn with_a_block() {
    #[cfg(debug_assertions)]
    {
        #[rbac(groups = "", resources = "nodes", verbs = "get")]
        fn inner() {}
    }
}

#[cfg_attr(not(debug_assertions), cfg(any()))]
#[rbac(groups = "", resources = "nodes", verbs = "list")]
pub fn through_a_cfg_attr_yielding_a_cfg() {}

pub fn release_only_block() {
    #[cfg(not(debug_assertions))]
    {
        #[rbac(groups = "batch", resources = "jobs", verbs = "create")]
        fn inner() {}
    }
}
"#;

const IN_A_FILE: &str = r#"#[kube_markers::rbac(groups = "", resources = "services", verbs = "get")]
pub fn in_a_file() {}
"#;

#[test]
fn every_attribute_behind_a_cfg_of_the_build_profile_is_refused() {
    let ws = quick_start_workspace("new-user-profile", PROFILE_LIB);
    write(&ws.join("my-operator/src/in_a_file.rs"), IN_A_FILE);
    // No `mod` reaches this file: unreachable, whatever its own cfg says.
    write(
        &ws.join("my-operator/src/orphan.rs"),
        "#![cfg(debug_assertions)]\n\
         #[kube_markers::rbac(groups = \"\", resources = \"secrets\", verbs = \"get\")]\n\
         pub fn orphan() {}\n",
    );
    let out = run_generator(&ws, &[]);
    let text = stderr(&out);
    assert!(!out.status.success(), "{text}");
    let orphan = "my-operator/src/orphan.rs:2:1: #[rbac] in a file that no `mod` or `include!` of \
                  package `my-operator` leads to";
    assert!(text.contains(orphan), "{orphan}:\n{text}");
    assert!(
        !text.contains("src/orphan.rs:2:1: #[rbac] behind"),
        "{text}"
    );
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
        // A raw identifier is the same cfg to rustc.
        ("src/lib.rs:35:1", "cfg(debug_assertions)", true),
        // A statement's cfg removes the items in it.
        ("src/lib.rs:41:9", "cfg(debug_assertions)", true),
        // Release-only: named as the profile's, not as a registry out of date.
        ("src/lib.rs:53:9", "cfg(not(debug_assertions))", false),
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
    // A cfg_attr yielding a cfg: the cfg it puts on the item is printed as rustc reads it.
    let yielded = "my-operator/src/lib.rs:47:1: #[rbac] behind `";
    assert!(text.contains(yielded), "{yielded}:\n{text}");
    assert!(
        text.contains("error: 12 problem(s) between the sources and the registry"),
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

const BUNDLE_LIB: &str = r#"use kube::CustomResource;
use kube_markers::rbac;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced)]
pub struct MemcachedSpec {
    pub size: i32,
}

#[rbac(groups = "cache.example.com", resources = "memcacheds", verbs = "get;list;watch")]
// A Role in kube-system is the operator's to ask for: only the bundle's own namespace is
// refused there.
#[rbac(groups = "", resources = "configmaps", verbs = "get", namespace = "kube-system",
       resource_names = "extension-apiserver-authentication")]
pub async fn reconcile() {}
"#;

/// The generator's table of the bundle, as the README shows it, with this namespace.
fn bundle_table(namespace: &str) -> String {
    format!(
        "\n[package.metadata.kube-markers.bundle]\nname = \"my-operator\"\n\
         namespace = \"{namespace}\"\n"
    )
}

#[test]
fn a_new_users_bundle_run_from_a_member_directory_edited_and_checked() {
    let ws = quick_start_workspace("new-user-bundle", BUNDLE_LIB);
    let manifest = ws.join("codegen/Cargo.toml");
    let cargo_toml = std::fs::read_to_string(&manifest).unwrap();
    let member = ws.join("my-operator");
    let generate_in_member = |args: &[&str]| run_package_in(&ws, &member, &["-p", "codegen"], args);

    // Item 5: the bundle owns its namespace, and Kubernetes reserves every `kube-` name.
    write(
        &manifest,
        &format!("{cargo_toml}{}", bundle_table("kube-ops")),
    );
    let out = generate_in_member(&[]);
    let text = stderr(&out);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains(
            "`namespace = \"kube-ops\"` is in the `kube-` prefix Kubernetes reserves for its \
             system namespaces; Kubernetes owns `default` and reserves the `kube-` prefix, and \
             the bundle creates and deletes its own namespace"
        ),
        "{text}"
    );
    assert!(!ws.join("rbac-out").exists() && !member.join("rbac-out").exists());

    // Item 13: run in the member's directory, the default --out is the workspace's.
    write(
        &manifest,
        &format!("{cargo_toml}{}", bundle_table("my-operator-system")),
    );
    let out = generate_in_member(&[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(!member.join("rbac-out").exists(), "{text}");
    let out_dir = ws.join("rbac-out");
    assert!(
        text.contains(&format!("wrote {}", out_dir.join("role.yaml").display())),
        "{text}"
    );
    let role = std::fs::read_to_string(out_dir.join("role.yaml")).unwrap();
    assert!(
        role.contains("kind: Role\nmetadata:\n  name: manager-role\n  namespace: kube-system\n"),
        "{role}"
    );
    // A --out given is relative to the current directory, as documented.
    let out = generate_in_member(&["--out", "here", "--no-bundle"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(member.join("here/role.yaml").is_file());
    std::fs::remove_dir_all(member.join("here")).unwrap();
    // From the root, nothing to do: one bundle.
    let check = run_generator(&ws, &["--check"]);
    assert!(check.status.success(), "{}", stderr(&check));

    // Item 6: the roles stay controller-gen's bytes; the bundle's own files say what they are.
    assert!(role.starts_with("---\n"), "{role}");
    let generated = "# Generated by kube-markers; do not edit: change the attributes or the \
                     bundle's metadata and run `cargo run -p codegen` instead.\n---\n";
    for file in ["service_account.yaml", "role_binding.yaml", "manager.yaml"] {
        let text = std::fs::read_to_string(out_dir.join(file)).unwrap();
        assert!(text.starts_with(generated), "{file}:\n{text}");
    }
    let kustomization_path = out_dir.join("kustomization.yaml");
    let kustomization = std::fs::read_to_string(&kustomization_path).unwrap();
    assert!(
        kustomization.starts_with(
            "# Generated by kube-markers: the files listed here are regenerated by the \
             generator; do not edit.\n# Change the attributes or the bundle's metadata and run \
             `cargo run -p codegen` instead.\n---\n"
        ),
        "{kustomization}"
    );

    // A file of the user's own beside the generated ones: no ledger lists it, so no run
    // touches it.
    let mine = out_dir.join("mine.yaml");
    write(&mine, "# mine\nkind: ConfigMap\n");

    // Hand edits: --check names them, a run regenerates the files and keeps the edits.
    let role_path = out_dir.join("role.yaml");
    let edited_role = format!("{role}- apiGroups:\n  - \"\"\n  resources:\n  - secrets\n");
    let edited_kustomization = format!("{kustomization}- extra.yaml\n");
    write(&role_path, &edited_role);
    write(&kustomization_path, &edited_kustomization);
    let check = run_built_generator(&ws, &["--check"]);
    let text = stderr(&check);
    assert!(!check.status.success(), "{text}");
    for file in ["role.yaml", "kustomization.yaml"] {
        let expected =
            format!("error: rbac-out/{file} was edited by hand since generator `codegen` wrote it");
        assert!(text.contains(&expected), "{expected}:\n{text}");
    }
    let run = run_built_generator(&ws, &[]);
    let text = stderr(&run);
    assert!(run.status.success(), "{text}");
    for (file, edit) in [
        ("role.yaml", &edited_role),
        ("kustomization.yaml", &edited_kustomization),
    ] {
        let expected = format!(
            "warning: rbac-out/{file} was edited by hand since generator `codegen` wrote it \
             (its SHA-256 is not the one in the ledger); a run regenerates it and keeps the \
             edited file as rbac-out/{file}.edited"
        );
        assert!(text.contains(&expected), "{expected}:\n{text}");
        let kept = std::fs::read_to_string(out_dir.join(format!("{file}.edited"))).unwrap();
        assert_eq!(&kept, edit);
    }
    assert_eq!(std::fs::read_to_string(&role_path).unwrap(), role);
    assert_eq!(
        std::fs::read_to_string(&kustomization_path).unwrap(),
        kustomization
    );
    for file in ["role.yaml", "kustomization.yaml"] {
        std::fs::remove_file(out_dir.join(format!("{file}.edited"))).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "# mine\nkind: ConfigMap\n"
    );

    // Item 7: after the edit loop, the binary is older than the sources: its --check says so
    // first and claims no file fresh.
    let lib = member.join("src/lib.rs");
    write(
        &lib,
        &BUNDLE_LIB.replace(
            "verbs = \"get;list;watch\"",
            "verbs = \"get;list;watch;patch\"",
        ),
    );
    let fast = run_built_generator(&ws, &["--rbac-from-source"]);
    assert!(fast.status.success(), "{}", stderr(&fast));
    let check = run_built_generator(&ws, &["--check"]);
    let text = stderr(&check);
    assert!(!check.status.success(), "{text}");
    assert!(
        text.starts_with(
            "error: this generator was built from older sources than the workspace's, so \
             nothing was checked or written: run it with `cargo run`, which rebuilds it first\n"
        ),
        "{text}"
    );
    assert!(!text.contains("up to date"), "{text}");
    // The edit loop's own check vouches only for what it reads.
    let fast_check = run_built_generator(&ws, &["--rbac-from-source", "--check"]);
    let text = stderr(&fast_check);
    assert!(fast_check.status.success(), "{text}");
    assert!(text.contains("rbac-out/role.yaml is up to date"), "{text}");
    assert!(
        text.contains(
            "rbac-out/crd/cache.example.com_memcacheds.yaml not checked: --rbac-from-source \
             reads only the #[rbac] attributes; `cargo run -p codegen -- --check` checks it"
        ),
        "{text}"
    );
    // The rebuild agrees.
    let check = run_generator(&ws, &["--check"]);
    assert!(check.status.success(), "{}", stderr(&check));
}

/// Two versions of a kind and the conversion between them, as a user writes them.
const CONVERSION_LIB: &str = r#"use kube::CustomResource;
use kube_markers::conversion::Spoke;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod v1 {
    use super::*;
    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "cache.example.com", version = "v1", kind = "Memcached", namespaced)]
    pub struct MemcachedSpec {
        pub size: i32,
    }
}

pub mod v2 {
    use super::*;
    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "cache.example.com", version = "v2", kind = "Memcached", namespaced)]
    pub struct MemcachedSpec {
        pub replicas: i32,
    }
}

#[kube_markers::conversion]
impl Spoke<v2::Memcached> for v1::Memcached {
    type Error = String;
    fn to_hub(self) -> Result<v2::Memcached, String> {
        Ok(v2::Memcached { metadata: self.metadata, spec: v2::MemcachedSpec { replicas: self.spec.size } })
    }
    fn from_hub(hub: v2::Memcached) -> Result<Self, String> {
        Ok(v1::Memcached { metadata: hub.metadata, spec: v1::MemcachedSpec { size: hub.spec.replicas } })
    }
}
"#;

/// A `#[conversion]` in a crate of the workspace that the generator does not link is refused,
/// naming its file and line, by the full run and by `--rbac-from-source`; the linked crate's
/// own conversion is found in the registry.
#[test]
fn a_conversion_in_a_crate_the_generator_does_not_link_is_refused() {
    let ws = quick_start_workspace("new-user-conversion", CONVERSION_LIB);
    // A second library, in the workspace but not named by the generator's `link!`.
    let cargo_toml = std::fs::read_to_string(ws.join("Cargo.toml")).unwrap();
    write(
        &ws.join("Cargo.toml"),
        &cargo_toml.replace(
            r#"members = ["my-operator", "codegen"]"#,
            r#"members = ["my-operator", "codegen", "other-op"]"#,
        ),
    );
    let operator_toml = std::fs::read_to_string(ws.join("my-operator/Cargo.toml")).unwrap();
    write(
        &ws.join("other-op/Cargo.toml"),
        &operator_toml.replace("name = \"my-operator\"", "name = \"other-op\""),
    );
    write(&ws.join("other-op/src/lib.rs"), CONVERSION_LIB);

    let out = run_generator(&ws, &[]);
    let text = stderr(&out);
    assert!(!out.status.success(), "{text}");
    let unlinked = "other-op/src/lib.rs:26:1: #[conversion] in crate `other_op` is missing from \
                    the registry";
    assert!(text.contains(unlinked), "{unlinked}:\n{text}");
    assert!(!text.contains("my-operator/src/lib.rs:26:1"), "{text}");
    assert!(!ws.join("rbac-out").exists(), "{text}");

    let fast = run_built_generator(&ws, &["--rbac-from-source"]);
    let text = stderr(&fast);
    assert!(!fast.status.success(), "{text}");
    let refused = "other-op/src/lib.rs:26:1: 1 #[conversion] in this file, 0 in the last build";
    assert!(text.contains(refused), "{refused}:\n{text}");
    assert!(!ws.join("rbac-out").exists(), "{text}");
}

/// A kind in two versions whose schemas differ (v2 adds `coupon`), no conversion. Line numbers
/// matter: the error names them.
const TWO_VERSIONS_LIB: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod v1 {
    use super::*;

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "shop.example.com", version = "v1", kind = "Cart", namespaced)]
    pub struct CartSpec {
        pub items: i32,
    }
}

pub mod v2 {
    use super::*;

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "shop.example.com", version = "v2", kind = "Cart", root = "CartV2", namespaced)]
    pub struct CartSpec {
        pub items: i32,
        pub coupon: Option<String>,
    }
}
"#;

#[test]
fn a_kind_in_two_versions_without_a_conversion_is_refused_and_an_allow_accepts_it() {
    let ws = quick_start_workspace("new-user-versions", TWO_VERSIONS_LIB);
    let out = run_generator(&ws, &[]);
    assert!(
        !out.status.success(),
        "the generator accepted differing versions"
    );
    let err = stderr(&out);
    assert!(
        err.contains(
            "shop.example.com/Cart: versions v2 (my-operator/src/lib.rs:19 (CartV2)) and v1 \
             (my-operator/src/lib.rs:8 (Cart)) have different schemas (spec.coupon exists in v2 \
             only)"
        ),
        "{err}"
    );
    assert!(!ws.join("rbac-out/crd/shop.example.com_carts.yaml").exists());
    // The way out the message names, on the old version's type.
    write(
        &ws.join("my-operator/src/lib.rs"),
        &TWO_VERSIONS_LIB.replace(
            "    #[kube_markers::crd]\n",
            "    #[kube_markers::crd(allow(unconverted-versions, reason = \"v1 clients only read\"))]\n",
        ),
    );
    let out = run_generator(&ws, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let crd = std::fs::read_to_string(ws.join("rbac-out/crd/shop.example.com_carts.yaml")).unwrap();
    assert!(
        crd.contains("  - name: v1\n") && crd.contains("  - name: v2\n"),
        "{crd}"
    );
    assert!(!crd.contains("conversion:"), "{crd}");

    // The other way out: a conversion, and the README's bundle. The CRD calls the webhook
    // server at /convert and the bundle wires it.
    write(
        &ws.join("my-operator/src/lib.rs"),
        &format!("{TWO_VERSIONS_LIB}{CART_CONVERSION}"),
    );
    let codegen_toml = std::fs::read_to_string(ws.join("codegen/Cargo.toml")).unwrap();
    write(
        &ws.join("codegen/Cargo.toml"),
        &format!(
            "{codegen_toml}\n{}",
            readme_block("# codegen/Cargo.toml, beside [dependencies]")
        ),
    );
    let out = run_generator(&ws, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let crd = std::fs::read_to_string(ws.join("rbac-out/crd/shop.example.com_carts.yaml")).unwrap();
    assert!(
        crd.contains(
            "  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        \
             service:\n          name: webhook-service\n          namespace: system\n          \
             path: /convert\n      conversionReviewVersions:\n      - v1\n"
        ),
        "{crd}"
    );
    let kustomization = std::fs::read_to_string(ws.join("rbac-out/kustomization.yaml")).unwrap();
    for listed in [
        "- crd_kustomizeconfig.yaml",
        "- webhook_service.yaml",
        "- conversion_ca_bundle_role.yaml",
        "- conversion_ca_bundle_role_binding.yaml",
    ] {
        assert!(kustomization.contains(listed), "{listed}:\n{kustomization}");
        let file = listed.trim_start_matches("- ");
        assert!(ws.join("rbac-out").join(file).exists(), "{file}");
    }
    let role = std::fs::read_to_string(ws.join("rbac-out/conversion_ca_bundle_role.yaml")).unwrap();
    assert!(
        role.contains("resourceNames:\n  - carts.shop.example.com\n"),
        "{role}"
    );
    let manager = std::fs::read_to_string(ws.join("rbac-out/manager.yaml")).unwrap();
    assert!(
        manager.contains("containerPort: 9443")
            && manager.contains("secretName: webhook-server-cert"),
        "{manager}"
    );
}

/// The conversion between [`TWO_VERSIONS_LIB`]'s versions: v1 keeps v2's coupon in an
/// annotation.
const CART_CONVERSION: &str = r#"
const COUPON: &str = "shop.example.com/coupon";

#[kube_markers::conversion]
impl kube_markers::conversion::Spoke<v2::CartV2> for v1::Cart {
    type Error = String;

    fn to_hub(mut self) -> Result<v2::CartV2, String> {
        let coupon = self.metadata.annotations.as_mut().and_then(|a| a.remove(COUPON));
        Ok(v2::CartV2 {
            metadata: self.metadata,
            spec: v2::CartSpec { items: self.spec.items, coupon },
        })
    }

    fn from_hub(mut hub: v2::CartV2) -> Result<Self, String> {
        if let Some(coupon) = hub.spec.coupon {
            hub.metadata.annotations.get_or_insert_default().insert(COUPON.into(), coupon);
        }
        Ok(v1::Cart { metadata: hub.metadata, spec: v1::CartSpec { items: hub.spec.items } })
    }
}
"#;
