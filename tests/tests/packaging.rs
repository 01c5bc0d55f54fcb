//! The publishable crates' manifests, without building a package (the packaging itself is
//! `scripts/package.sh`, run by `.ci/run`): every member is either in the script's list of
//! unpublished crates and not publishable, or has what crates.io and docs.rs need.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn metadata() -> Value {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `UNPUBLISHED=(...)` of `scripts/package.sh`.
fn unpublished() -> Vec<String> {
    let script = std::fs::read_to_string(repo_root().join("scripts/package.sh")).unwrap();
    let line = script
        .lines()
        .find_map(|l| l.strip_prefix("UNPUBLISHED=("))
        .expect("scripts/package.sh sets UNPUBLISHED=(...)");
    line.trim_end_matches(')')
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// crates.io's category slugs these crates use (crates.io refuses unknown ones on publish).
const CATEGORIES: [&str; 9] = [
    "api-bindings",
    "authentication",
    "command-line-utilities",
    "development-tools",
    "development-tools::build-utils",
    "development-tools::procedural-macro-helpers",
    "development-tools::testing",
    "parser-implementations",
    "encoding",
];

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

#[test]
fn every_member_is_unpublished_or_ready_for_crates_io() {
    let metadata = metadata();
    let unpublished = unpublished();
    let mut problems = Vec::new();
    let mut published = Vec::new();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap());
        let dir = manifest.parent().unwrap();
        let not_publishable = package["publish"].as_array().is_some_and(Vec::is_empty);
        let fixture = manifest.starts_with(repo_root().join("tests/fixtures"));
        if unpublished.iter().any(|u| u == name) {
            if !(not_publishable || fixture) {
                problems.push(format!("{name}: in UNPUBLISHED but not `publish = false`"));
            }
            continue;
        }
        if not_publishable || fixture {
            problems.push(format!(
                "{name}: not publishable, but missing from UNPUBLISHED in scripts/package.sh"
            ));
            continue;
        }
        published.push(name);
        let mut want = |ok: bool, what: &str| {
            if !ok {
                problems.push(format!("{name}: {what}"));
            }
        };
        for key in ["description", "license", "repository", "homepage"] {
            want(
                package[key].as_str().is_some_and(|v| !v.is_empty()),
                &format!("no {key}"),
            );
        }
        want(
            package["documentation"].as_str() == Some(&format!("https://docs.rs/{name}")),
            "documentation is not its docs.rs page",
        );
        let readme = package["readme"].as_str().map(|r| dir.join(r));
        want(
            readme.as_ref().is_some_and(|r| r.is_file()),
            &format!("readme {readme:?} is not a file"),
        );
        let keywords = strings(&package["keywords"]);
        want(
            (1..=5).contains(&keywords.len())
                && keywords.iter().all(|k| {
                    k.len() <= 20
                        && k.starts_with(|c: char| c.is_ascii_alphabetic())
                        && k.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                }),
            &format!("keywords {keywords:?}: 1 to 5, lower-case words of at most 20 characters"),
        );
        let categories = strings(&package["categories"]);
        want(
            !categories.is_empty() && categories.iter().all(|c| CATEGORIES.contains(c)),
            &format!("categories {categories:?} not among crates.io's slugs listed here"),
        );
        // `[package.metadata.docs.rs]` is the table `rs` in the table `docs`.
        let docs_rs = &package["metadata"]["docs"]["rs"];
        want(docs_rs.is_object(), "no [package.metadata.docs.rs]");
        for dependency in package["dependencies"].as_array().unwrap() {
            let dep = dependency["name"].as_str().unwrap();
            let kind = dependency["kind"].as_str();
            // Path dependencies need a version to be published; dev-dependencies without
            // one are dropped from the package.
            if dependency["path"].is_string() && kind != Some("dev") {
                want(
                    dependency["req"].as_str() != Some("*"),
                    &format!("path dependency {dep} has no version"),
                );
            }
            // docs.rs builds the library alone: it must name a Kubernetes version.
            if dep == "k8s-openapi" && kind.is_none() {
                want(
                    strings(&docs_rs["features"]).contains(&"k8s-openapi/latest"),
                    "depends on k8s-openapi but docs.rs enables no version of it",
                );
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    published.sort();
    assert_eq!(
        published,
        [
            "kube-markers",
            "kube-markers-cel",
            "kube-markers-cli",
            "kube-markers-codegen",
            "kube-markers-compat",
            "kube-markers-core",
            "kube-markers-crdcheck",
            "kube-markers-envtest",
            "kube-markers-macros",
            "kube-markers-rbac",
            "kube-markers-registry",
            "kube-markers-scaffold",
            "kube-markers-scan",
        ]
    );
}

/// Files a library reads at build time through `include_str!`/`include_bytes!`/`include!`
/// must be inside its package: a `../` path builds here and fails in the `.crate`.
#[test]
fn no_library_includes_a_file_outside_its_crate() {
    let mut problems = Vec::new();
    for krate in [
        "core",
        "macros",
        "registry",
        "rbac",
        "scan",
        "cel",
        "compat",
        "runtime",
        "generator",
        "envtest",
        "scaffold",
    ] {
        let src = repo_root().join(krate).join("src");
        let mut stack = vec![src];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    for mac in ["include_str!(\"", "include_bytes!(\"", "include!(\""] {
                        let Some(at) = code.find(mac) else { continue };
                        let arg = &code[at + mac.len()..];
                        let depth = Path::new(&arg[..arg.find('"').unwrap_or(arg.len())])
                            .components()
                            .filter(|c| matches!(c, std::path::Component::ParentDir))
                            .count();
                        // From src/<sub>/x.rs, `../` stays inside the crate up to the depth
                        // of x.rs below the crate's directory.
                        let below = path
                            .strip_prefix(repo_root().join(krate))
                            .unwrap()
                            .components()
                            .count()
                            - 1;
                        if depth > below {
                            problems.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                        }
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
