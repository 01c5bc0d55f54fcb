//! Every `#[rbac]` attribute a tool suggests besides the call check's warnings (which
//! `calls_outside.rs` pastes): `explain`'s and `can-i`'s `to allow it:`, `can-i`'s narrowest
//! `or only this:`, and the request audit's report. Each is pasted as printed into a user's
//! crate outside this workspace whose files have no `use kube_markers::rbac;`: it compiles,
//! lands in the generated role, and the same question is then answered yes.

#[allow(dead_code)] // shared with the other outside-workspace tests
mod outside;
use outside::{quick_start_workspace, run_built_generator, run_generator, run_package, write};
use std::path::Path;
use std::process::Output;

/// No `use kube_markers::rbac;`: a suggestion must compile as pasted.
const LIB: &str = r#"#[kube_markers::rbac(groups = "", resources = "configmaps", verbs = "get")]
pub fn reconcile() {}

pub fn cleanup() {}

pub fn settings() {}

pub fn tidy() {}

pub fn logs() {}
"#;

/// The audit, offline: one request (`METHOD URL`) checked against the linked attributes, and
/// the report printed.
const AUDIT_EXAMPLE: &str = r#"kube_markers::link!(my_operator);

fn main() {
    use kube_markers::audit::{Audit, Mode, Permissions};
    let args: Vec<String> = std::env::args().collect();
    let audit = Audit::new(Permissions::from_registry(), Mode::Record);
    audit.check(&args[1], &args[2]);
    print!("{}", audit.report());
}
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn lib_path(ws: &Path) -> std::path::PathBuf {
    ws.join("my-operator/src/lib.rs")
}

/// `attribute` pasted above `pub fn FUNCTION` of the crate's `lib.rs`.
fn paste_above(ws: &Path, function: &str, attribute: &str) {
    let lib = std::fs::read_to_string(lib_path(ws)).unwrap();
    let header = format!("pub fn {function}()");
    assert!(lib.contains(&header), "{lib}");
    write(
        &lib_path(ws),
        &lib.replacen(&header, &format!("{attribute}\n{header}"), 1),
    );
}

/// The generator rebuilt with the crate as it is now (it compiles), run.
fn regenerate(ws: &Path) {
    let out = run_generator(ws, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The text after `label` on its line of `out`'s stdout.
fn after(out: &Output, label: &str) -> String {
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .unwrap_or_else(|| panic!("no {label:?} in {stdout}"));
    line.to_string()
}

fn explain(ws: &Path, question: &[&str]) -> Output {
    run_built_generator(ws, &[&["explain"], question].concat())
}

fn can_i(ws: &Path, question: &[&str]) -> Output {
    run_built_generator(ws, &[&["can-i", "--explain"], question].concat())
}

#[test]
fn every_suggested_attribute_compiles_as_pasted_and_grants() {
    let ws = quick_start_workspace("rbac-suggestions", LIB);
    let manifest = ws.join("my-operator/Cargo.toml");
    let cargo_toml = std::fs::read_to_string(&manifest).unwrap();
    let with_audit = cargo_toml.replace(
        r#"features = ["health"]"#,
        r#"features = ["health", "audit"]"#,
    );
    assert_ne!(with_audit, cargo_toml, "step 1's kube-markers line");
    write(&manifest, &with_audit);
    write(&ws.join("my-operator/examples/audit.rs"), AUDIT_EXAMPLE);
    // The deploy bundle: its ServiceAccount and bindings are whom can-i asks about.
    let generator_toml = ws.join("codegen/Cargo.toml");
    let text_of = std::fs::read_to_string(&generator_toml).unwrap();
    write(
        &generator_toml,
        &format!(
            "{text_of}\n[package.metadata.kube-markers.bundle]\nimage = \"my-operator:dev\"\n"
        ),
    );
    regenerate(&ws);

    // explain: a question no attribute answers exits 1 with the attribute to paste.
    let question = ["delete", "services", "-n", "web"];
    let no = explain(&ws, &question);
    assert_eq!(no.status.code(), Some(1), "{}", text(&no.stdout));
    let attribute = after(&no, "to allow it: ");
    assert_eq!(
        attribute,
        r#"#[kube_markers::rbac(groups = "", resources = "services", verbs = "delete")]"#
    );
    paste_above(&ws, "cleanup", &attribute);
    regenerate(&ws);
    let yes = explain(&ws, &question);
    assert_eq!(yes.status.code(), Some(0), "{}", text(&yes.stdout));
    assert!(
        text(&yes.stdout).contains("(cleanup)"),
        "{}",
        text(&yes.stdout)
    );

    // can-i, on the generated manifests: the narrowest attribute and the broad one.
    let question = ["patch", "configmaps/settings", "-n", "web"];
    let no = can_i(&ws, &question);
    assert_eq!(no.status.code(), Some(1), "{}", text(&no.stdout));
    let narrow = after(&no, "or only this: ");
    assert_eq!(
        narrow,
        r#"#[kube_markers::rbac(groups = "", resources = "configmaps", verbs = "patch", resource_names = "settings", namespace = "web")]"#
    );
    let broad = after(&no, "to allow it: ");
    paste_above(&ws, "settings", &narrow);
    regenerate(&ws);
    let yes = can_i(&ws, &question);
    assert_eq!(yes.status.code(), Some(0), "{}", text(&yes.stdout));
    let elsewhere = ["patch", "configmaps/other", "-n", "ops"];
    assert_eq!(can_i(&ws, &elsewhere).status.code(), Some(1));
    paste_above(&ws, "tidy", &broad);
    regenerate(&ws);
    assert_eq!(can_i(&ws, &elsewhere).status.code(), Some(0));

    // The request audit's report, for a request the linked attributes do not allow.
    let audit = |ws: &Path| {
        let request = ["GET", "/api/v1/namespaces/web/pods/p/log"];
        let out = run_package(ws, &["-p", "my-operator", "--example", "audit"], &request);
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    let report = audit(&ws);
    let stdout = text(&report.stdout);
    assert!(stdout.contains(", 1 not covered by the roles,"), "{stdout}");
    let attribute = after(&report, "#[");
    let attribute = format!("#[{attribute}");
    assert_eq!(
        attribute,
        r#"#[kube_markers::rbac(groups = "", resources = "pods/log", verbs = "get")]"#
    );
    paste_above(&ws, "logs", &attribute);
    let stdout = text(&audit(&ws).stdout);
    assert!(stdout.contains(", 0 not covered by the roles,"), "{stdout}");
    regenerate(&ws);
    let role = std::fs::read_to_string(ws.join("rbac-out/role.yaml")).unwrap();
    assert!(role.contains("  - pods/log\n"), "{role}");
}
