use super::*;
use std::path::PathBuf;

fn options() -> Options {
    Options {
        domain: "example.com".into(),
        name: "my-operator".into(),
        license: Some("Apache-2.0".into()),
        source: Source::Path("/src/kube-markers".into()),
    }
}

/// A project written by `init` (without the generator) in a temporary directory.
pub(crate) fn new_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut plan = Plan::new(dir.path());
    plan_files(&mut plan, &options()).unwrap();
    plan.write().unwrap();
    dir
}

/// Every `.rs` file under `dir` is as `rustfmt` writes it (the project's CI runs
/// `cargo fmt --check`); skipped where rustfmt is not installed.
pub(crate) fn assert_rustfmt_clean(dir: &Path) {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let Ok(out) = std::process::Command::new("rustfmt")
        .args(["--check", "--edition", "2024"])
        .args(&files)
        .output()
    else {
        eprintln!("SKIPPED: rustfmt is not installed");
        return;
    };
    assert!(
        out.status.success(),
        "the scaffold's Rust is not rustfmt's:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_new_project_has_every_file_and_its_record() {
    let dir = new_project();
    for file in [
        "Cargo.toml",
        "my-operator/Cargo.toml",
        "my-operator/src/lib.rs",
        "my-operator/src/main.rs",
        "codegen/Cargo.toml",
        "codegen/src/main.rs",
        "Dockerfile",
        ".dockerignore",
        ".gitignore",
        ".github/workflows/ci.yml",
        "README.md",
    ] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }
    let project = crate::project::Project::find(dir.path()).unwrap();
    assert_eq!(project.domain, "example.com");
    assert_eq!(project.operator, "my-operator");
    let workspace: toml::Table = std::fs::read_to_string(dir.path().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        workspace["workspace"]["dependencies"]["kube-markers"]["path"].as_str(),
        Some("/src/kube-markers/runtime")
    );
    let codegen = std::fs::read_to_string(dir.path().join("codegen/src/main.rs")).unwrap();
    assert!(codegen.contains("kube_markers::link!(my_operator);"));
    let docker = std::fs::read_to_string(dir.path().join("Dockerfile")).unwrap();
    assert!(docker.contains("USER 65532:65532"));
    assert!(docker.contains("cargo build --release --locked -p my-operator"));
    assert_rustfmt_clean(dir.path());
}

#[test]
fn an_existing_file_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "mine").unwrap();
    let mut plan = Plan::new(dir.path());
    let e = plan_files(&mut plan, &options()).unwrap_err();
    assert!(e.message.contains("README.md exists already"), "{e}");
    drop(plan);
    assert!(!dir.path().join("Cargo.toml").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("README.md")).unwrap(),
        "mine"
    );
    // Through the command line too, naming the file, exit 1.
    let e = run(
        &[
            "--domain".into(),
            "example.com".into(),
            "--name".into(),
            "op".into(),
        ],
        dir.path(),
    )
    .unwrap_err();
    assert_eq!(e.code, 1);
    assert!(e.message.contains("README.md exists already"), "{e}");
}

#[test]
fn the_sources_and_licenses() {
    let dir = tempfile::tempdir().unwrap();
    let e = run(
        &[
            "--domain".into(),
            "example.com".into(),
            "--name".into(),
            "op".into(),
            "--kube-markers-path".into(),
            "/nowhere".into(),
        ],
        dir.path(),
    )
    .unwrap_err();
    assert!(e.message.contains("no kube-markers checkout there"), "{e}");
    let e = run(
        &[
            "--domain".into(),
            "example.com".into(),
            "--name".into(),
            "op".into(),
            "--kube-markers-version".into(),
            "0.1".into(),
            "--kube-markers-git".into(),
            "https://x".into(),
        ],
        dir.path(),
    )
    .unwrap_err();
    assert!(e.message.contains("give one of them"), "{e}");
    let mut o = options();
    o.source = Source::Git("https://github.com/kube-markers/kube-markers".into());
    o.license = None;
    let mut plan = Plan::new(dir.path());
    plan_files(&mut plan, &o).unwrap();
    plan.write().unwrap();
    let text = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert!(text.contains(
        r#"kube-markers = { git = "https://github.com/kube-markers/kube-markers", default-features = false }"#
    ));
    assert!(!text.contains("license"));
    let op = std::fs::read_to_string(dir.path().join("my-operator/Cargo.toml")).unwrap();
    assert!(!op.contains("license"));
}

/// The versions the project gets are kube-markers' own (its workspace and toolchain).
#[test]
fn versions_are_this_workspace_s() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let workspace: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let deps = &workspace["workspace"]["dependencies"];
    assert_eq!(deps["kube"]["version"].as_str(), Some(KUBE));
    assert_eq!(deps["k8s-openapi"]["version"].as_str(), Some(K8S_OPENAPI));
    assert_eq!(deps["schemars"]["version"].as_str(), Some(SCHEMARS));
    assert!(
        workspace["profile"]["dev"]["package"]
            .as_table()
            .unwrap()
            .contains_key(&format!("syn@{SYN3}"))
    );
    assert_eq!(
        workspace["workspace"]["package"]["rust-version"].as_str(),
        Some(RUST)
    );
    assert!(
        matches!(Source::default_for_this_build(), Source::Path(p) if Path::new(&p).join("runtime").is_dir())
    );
}
