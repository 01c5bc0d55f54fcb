//! An operator that depends on `kube-markers` with its default features links no generator
//! code: no parser, no CEL, no diffing, no JSON-schema validator (the macros' model crate,
//! `kube-markers-core`, comes without its parser).

use std::process::Command;

/// Crates of the normal (non-proc-macro) dependency graph of `kube-markers` with `features`.
fn dependencies(features: &[&str]) -> Vec<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../runtime/Cargo.toml");
    let mut cmd = Command::new(cargo);
    cmd.args(["tree", "--manifest-path", manifest, "-p", "kube-markers"])
        .args([
            "-e",
            "normal,no-proc-macro",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ]);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    let out = cmd.output().expect("cargo tree runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
}

const GENERATOR_ONLY: &[&str] = &[
    // The generator's own crate, and the authorizer it shares with the audit.
    "kube-markers-codegen",
    "kube-markers-scan",
    "kube-markers-rbac",
    "cargo_metadata",
    "syn",
    "quote",
    "proc-macro2",
    "similar",
    "kube-cel",
    "jsonschema",
    "regex",
    "regex-syntax",
    "serde-saphyr",
];

#[test]
fn the_default_features_link_no_generator_code() {
    let lean = dependencies(&[]);
    let leaked: Vec<&&str> = GENERATOR_ONLY
        .iter()
        .filter(|name| lean.iter().any(|d| d == **name))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?} in {lean:#?}");
    // The probe can fail: with the generator, they are there.
    let full = dependencies(&["codegen"]);
    for name in [
        "kube-markers-codegen",
        "kube-markers-scan",
        "kube-markers-rbac",
        "syn",
        "similar",
        "kube-cel",
        "jsonschema",
    ] {
        assert!(full.iter().any(|d| d == name), "{name} not in {full:#?}");
    }
}

/// The light generator (feature `export`) builds what the operator builds: the same crates as
/// the default features, none of the generator's (docs/command.md, "The light generator").
#[test]
fn the_light_generator_links_what_the_default_features_link() {
    let lean = dependencies(&[]);
    let light = dependencies(&["export"]);
    assert_eq!(light, lean);
    for name in GENERATOR_ONLY {
        assert!(!light.iter().any(|d| d == name), "{name} in {light:#?}");
    }
}

/// What only the run-time least-privilege tools (feature `audit`) bring: kube's client, tower's
/// traits, `tracing`.
const AUDIT_ONLY: &[&str] = &[
    "kube-client",
    "hyper",
    "tower",
    "tower-layer",
    "tower-service",
    "http-body-util",
    "tracing",
    "futures-util",
];

#[test]
fn the_default_features_link_no_audit_code() {
    let lean = dependencies(&[]);
    let leaked: Vec<&&str> = AUDIT_ONLY
        .iter()
        .filter(|name| lean.iter().any(|d| d == **name))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?} in {lean:#?}");
    // The probe can fail: with the audit, they are there, and no generator code.
    let audit = dependencies(&["audit"]);
    for name in [
        "kube-client",
        "kube-markers-rbac",
        "tower-layer",
        "tower-service",
        "tracing",
    ] {
        assert!(audit.iter().any(|d| d == name), "{name} not in {audit:#?}");
    }
    for name in [
        "kube-markers-codegen",
        "syn",
        "similar",
        "kube-cel",
        "jsonschema",
    ] {
        assert!(!audit.iter().any(|d| d == name), "{name} in {audit:#?}");
    }
}

/// The webhook server's HTTP and TLS stack.
const SERVER_ONLY: &[&str] = &[
    "hyper",
    "hyper-util",
    "http-body-util",
    "rustls",
    "tokio-rustls",
    "ring",
    "tokio",
];

/// TLS stacks the server must not bring in (it uses rustls with ring).
const NEVER: &[&str] = &[
    "aws-lc-rs",
    "aws-lc-sys",
    "openssl",
    "openssl-sys",
    "native-tls",
];

fn present<'a>(names: &[&'a str], deps: &[String]) -> Vec<&'a str> {
    names
        .iter()
        .copied()
        .filter(|name| deps.iter().any(|d| d == name))
        .collect()
}

#[test]
fn only_the_server_features_link_an_http_server() {
    for features in [&[][..], &["webhook"][..]] {
        let deps = dependencies(features);
        let leaked = present(SERVER_ONLY, &deps);
        assert!(
            leaked.is_empty(),
            "features {features:?}: {leaked:?} in {deps:#?}"
        );
    }
    // `webhook` brings kube-core's admission types and the JSON patch only.
    assert!(dependencies(&["webhook"]).iter().any(|d| d == "json-patch"));

    let server = dependencies(&["webhook-server"]);
    assert_eq!(present(SERVER_ONLY, &server), SERVER_ONLY, "{server:#?}");
    let forbidden = present(NEVER, &server);
    assert!(forbidden.is_empty(), "{forbidden:?} in {server:#?}");

    // The health probes: the same HTTP server, plain (the kubelet probes over HTTP), and
    // nothing of the generator.
    let health = dependencies(&["health"]);
    assert_eq!(
        present(SERVER_ONLY, &health),
        ["hyper", "hyper-util", "http-body-util", "tokio"],
        "{health:#?}"
    );
    let forbidden = present(NEVER, &health);
    assert!(forbidden.is_empty(), "{forbidden:?} in {health:#?}");
    let leaked = present(GENERATOR_ONLY, &health);
    assert!(leaked.is_empty(), "{leaked:?} in {health:#?}");
}
