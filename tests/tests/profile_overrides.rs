//! Every `[profile.<name>.package.<spec>]` section of the workspace's `Cargo.toml` names a
//! package that `Cargo.lock` holds. cargo only warns about a spec that matches nothing, so a
//! lock-file update that moves `syn` 3 to another version would silently drop the opt-level
//! the generator's speed depends on (BENCHMARKS.md); this test makes it fail instead.

use std::path::Path;

/// `(name, version)` of every package in `Cargo.lock`.
fn locked_packages(lock: &str) -> Vec<(String, String)> {
    let mut packages = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if line == "[[package]]" {
            name = None;
        } else if let Some(n) = quoted_value(line, "name") {
            name = Some(n);
        } else if let Some(v) = quoted_value(line, "version")
            && let Some(n) = name.take()
        {
            packages.push((n, v));
        }
    }
    packages
}

fn quoted_value(line: &str, key: &str) -> Option<String> {
    let rest = line
        .strip_prefix(key)?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    Some(rest.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

/// The package specs of `[profile.*.package.<spec>]` headers, with their line numbers.
fn override_specs(manifest: &str) -> Vec<(usize, String)> {
    manifest
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let header = line.trim().strip_prefix("[profile.")?.strip_suffix(']')?;
            let (_profile, spec) = header.split_once(".package.")?;
            Some((i + 1, spec.trim_matches('"').to_string()))
        })
        .collect()
}

fn spec_matches(spec: &str, packages: &[(String, String)]) -> bool {
    if spec == "*" {
        return true;
    }
    match spec.split_once('@') {
        Some((name, version)) => packages.iter().any(|(n, v)| n == name && v == version),
        None => packages.iter().any(|(n, _)| n == spec),
    }
}

#[test]
fn every_profile_override_names_a_locked_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
    let packages = locked_packages(&lock);
    assert!(
        packages.iter().any(|(n, _)| n == "kube-markers"),
        "Cargo.lock was not read: {} packages",
        packages.len()
    );
    let specs = override_specs(&manifest);
    assert!(
        !specs.is_empty(),
        "no profile overrides found in Cargo.toml"
    );
    let stale: Vec<String> = specs
        .iter()
        .filter(|(_, spec)| !spec_matches(spec, &packages))
        .map(|(line, spec)| format!("Cargo.toml:{line}: `{spec}`"))
        .collect();
    assert!(
        stale.is_empty(),
        "profile overrides that match no package of Cargo.lock (cargo ignores them with a \
         warning; update the version to the locked one):\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_spec_reader_tells_a_moved_version() {
    let lock = "[[package]]\nname = \"syn\"\nversion = \"3.0.11\"\n\n[[package]]\n\
                name = \"kube-markers\"\nversion = \"0.1.0\"\n";
    let packages = locked_packages(lock);
    assert!(!spec_matches("syn@3.0.10", &packages));
    assert!(spec_matches("syn@3.0.11", &packages));
    assert!(spec_matches("kube-markers", &packages));
    assert!(!spec_matches("proc-macro2", &packages));
    let specs = override_specs("[profile.dev.package.\"syn@3.0.10\"]\nopt-level = 3\n");
    assert_eq!(specs, vec![(1, "syn@3.0.10".to_string())]);
}
