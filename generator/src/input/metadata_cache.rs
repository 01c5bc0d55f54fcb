//! `cargo metadata --no-deps`, kept beside the generator binary between runs.
//!
//! Asking cargo costs a process (and cargo's own start-up and manifest loading) on every run:
//! most of a generator run on a small workspace. Its answer depends only on the workspace's
//! manifests and on which source files and directories exist (cargo discovers `src/main.rs`,
//! `src/bin/*`, `examples/`, ... by looking), so the copy is used while none of these has
//! changed: every package's `Cargo.toml`, the root's, any `Cargo.toml` from where cargo was
//! asked up to `/`, the directories cargo looks into and the directories workspace member
//! globs expand in (by the names in them: a file saved by renaming a new one over it leaves
//! them as they are), plus the question itself (working directory, `--manifest-path`, the cargo and
//! toolchain asked, the target directory). Anything else, or any doubt, asks cargo again.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

/// Where the copy is kept, and what makes it valid.
pub(crate) struct MetadataCache {
    file: PathBuf,
    /// Where cargo would look for the workspace and which cargo answers, as text.
    question: String,
    /// The directory cargo starts looking for manifests from.
    asked_from: PathBuf,
}

/// A file modified this close to (or after) the moment cargo was asked may have been read
/// before the change: such an answer is not kept. Generous, for file systems whose
/// modification times are coarse.
const RACY: Duration = Duration::from_secs(2);

impl MetadataCache {
    /// The copy for this generator binary: a file beside it, in the build's target directory.
    pub(crate) fn for_this_binary(manifest_path: Option<&Path>) -> Option<Self> {
        let exe = crate::invocation::executable()?;
        let name = exe.file_name()?.to_string_lossy().into_owned();
        Some(Self::at(
            exe.with_file_name(format!(".{name}.kube-markers-metadata.json")),
            manifest_path,
        ))
    }

    /// A copy kept in `file`, or rather beside it: one file per question, so that runs under
    /// `cargo run` (which sets `CARGO` and the toolchain) and of the built binary itself
    /// (`--rbac-from-source`, in the edit loop) do not take each other's copy away.
    pub(crate) fn at(file: PathBuf, manifest_path: Option<&Path>) -> Self {
        let cwd = std::env::current_dir().unwrap_or_default();
        let env = |name: &str| std::env::var(name).unwrap_or_default();
        let question = format!(
            "cwd={} manifest-path={} cargo={} toolchain={} target-dir={}|{}",
            cwd.display(),
            manifest_path
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            env("CARGO"),
            env("RUSTUP_TOOLCHAIN"),
            env("CARGO_TARGET_DIR"),
            env("CARGO_BUILD_TARGET_DIR"),
        );
        let asked_from = match manifest_path.and_then(Path::parent) {
            Some(dir) if dir.is_absolute() => dir.to_path_buf(),
            Some(dir) => cwd.join(dir),
            None => cwd,
        };
        let file = {
            use sha2::Digest;
            let digest = sha2::Sha256::digest(question.as_bytes());
            let tag: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
            let stem = file.file_stem().unwrap_or_default().to_string_lossy();
            file.with_file_name(format!("{stem}-{tag}.json"))
        };
        MetadataCache {
            file,
            question,
            asked_from,
        }
    }

    /// The kept answer, if it is still cargo's answer.
    pub(crate) fn load(&self) -> Option<Value> {
        let text = std::fs::read(&self.file).ok()?;
        let mut kept: Value = serde_json::from_slice(&text).ok()?;
        if kept["question"] != self.question.as_str() {
            return None;
        }
        let metadata = kept.get_mut("metadata")?.take();
        let (stamps, _) = self.stamps(&metadata)?;
        (kept["stamps"] == stamps).then_some(metadata)
    }

    /// Keeps cargo's answer, obtained by asking at `asked_at`. Best effort: a copy that
    /// cannot be written, or an answer that a file changed since (or just before) `asked_at`
    /// may have outdated, is not kept, and cargo is asked again next time.
    pub(crate) fn store(&self, metadata: &Value, asked_at: SystemTime) {
        let Some((stamps, newest)) = self.stamps(metadata) else {
            return;
        };
        if newest + RACY >= asked_at {
            return;
        }
        let kept = json!({"question": self.question, "stamps": stamps, "metadata": metadata});
        // One temporary file per writer (threads of a test binary share the process id).
        static WRITERS: AtomicUsize = AtomicUsize::new(0);
        let writer = WRITERS.fetch_add(1, Ordering::Relaxed);
        let tmp = self
            .file
            .with_extension(format!("{}-{writer}.tmp", std::process::id()));
        if std::fs::write(&tmp, kept.to_string()).is_ok() {
            let _ = std::fs::rename(&tmp, &self.file);
        }
    }

    /// What the answer depends on, each path with its modification time and size (or `-`
    /// when it does not exist), and the newest of these modification times. `None` when the
    /// answer's shape, or the workspace's member globs, are not understood.
    fn stamps(&self, metadata: &Value) -> Option<(Value, SystemTime)> {
        let root = Path::new(metadata["workspace_root"].as_str()?);
        let root_manifest = root.join("Cargo.toml");
        let mut paths = vec![root_manifest.clone(), root.to_path_buf()];
        // A manifest created between where cargo was asked and `/` changes which workspace
        // it finds.
        paths.extend(self.asked_from.ancestors().map(|d| d.join("Cargo.toml")));
        paths.extend(member_glob_dirs(
            root,
            &std::fs::read_to_string(&root_manifest).ok()?,
        )?);
        for package in metadata["packages"].as_array()? {
            let manifest = Path::new(package["manifest_path"].as_str()?);
            let dir = manifest.parent()?;
            paths.push(manifest.to_path_buf());
            paths.push(dir.to_path_buf());
            paths.push(dir.join("src"));
            // Targets discovered by looking: `src/bin/<name>.rs` and `src/bin/<name>/main.rs`,
            // the same for examples, tests and benches.
            for sub in ["src/bin", "examples", "tests", "benches"] {
                let discovered = dir.join(sub);
                if let Ok(entries) = std::fs::read_dir(&discovered) {
                    paths.extend(
                        entries
                            .flatten()
                            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                            .map(|e| e.path()),
                    );
                }
                paths.push(discovered);
            }
            // Targets at paths of their own (`[lib] path = ...`, `[[bin]] path = ...`): their
            // directory changes when the file is removed or renamed.
            for target in package["targets"].as_array()? {
                let src = Path::new(target["src_path"].as_str()?);
                paths.extend(src.parent().map(Path::to_path_buf));
            }
        }
        paths.sort();
        paths.dedup();
        let mut newest = SystemTime::UNIX_EPOCH;
        let stamped: serde_json::Map<String, Value> = paths
            .into_iter()
            .map(|p| {
                let stamp = match std::fs::metadata(&p) {
                    // A directory by the names in it: an editor that saves a file by
                    // renaming a new one over it changes the directory's time, not what
                    // cargo finds there. (Its time still guards `store` against a race.)
                    Ok(m) if m.is_dir() => {
                        newest = newest.max(m.modified().unwrap_or(SystemTime::UNIX_EPOCH));
                        let mut names: Vec<String> = std::fs::read_dir(&p)
                            .into_iter()
                            .flatten()
                            .flatten()
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .collect();
                        names.sort_unstable();
                        format!("dir:{}", names.join("/"))
                    }
                    Ok(m) => {
                        let modified = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                        newest = newest.max(modified);
                        let nanos = modified
                            .duration_since(SystemTime::UNIX_EPOCH)
                            .map_or(0, |d| d.as_nanos());
                        format!("{nanos}:{}", m.len())
                    }
                    Err(_) => "-".to_string(),
                };
                (p.display().to_string(), Value::String(stamp))
            })
            .collect();
        Some((Value::Object(stamped), newest))
    }
}

/// The directories where the root manifest's globs (`members = ["crates/*"]`) look for
/// members: a member added there shows in that directory's modification time. Read from the
/// manifest's text, any quoted string with a glob character counts (more directories than
/// needed at worst); `None` for a glob outside the last path segment, or a `**`, whose
/// expansion one directory's time does not show: then the copy is never used.
fn member_glob_dirs(root: &Path, manifest: &str) -> Option<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for quoted in manifest.split('"').skip(1).step_by(2) {
        if !quoted.contains(['*', '?', '[']) {
            continue;
        }
        let (parent, last) = quoted.rsplit_once('/').unwrap_or(("", quoted));
        // `**` expands below its directory too.
        if parent.contains(['*', '?', '[']) || last.is_empty() || last.contains("**") {
            return None;
        }
        dirs.push(root.join(parent));
    }
    Some(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A moment of asking well after every change the tests make.
    fn later() -> SystemTime {
        SystemTime::now() + RACY + Duration::from_secs(1)
    }

    #[test]
    fn the_copy_is_used_until_something_cargo_reads_changes() {
        let ws = tempfile::tempdir().unwrap();
        let pkg = ws.path().join("op");
        std::fs::create_dir_all(pkg.join("src/bin")).unwrap();
        std::fs::create_dir_all(ws.path().join("crates")).unwrap();
        std::fs::write(
            ws.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"op\", \"crates/*\"]\n",
        )
        .unwrap();
        std::fs::write(pkg.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(pkg.join("src/lib.rs"), "").unwrap();
        let metadata = json!({
            "workspace_root": ws.path(),
            "packages": [{
                "manifest_path": pkg.join("Cargo.toml"),
                "targets": [{"src_path": pkg.join("src/lib.rs")}],
            }],
        });
        // Kept outside the stamped directories, as in a target directory.
        let kept = tempfile::tempdir().unwrap();
        // Asked from op/src (as from a working directory there).
        let cache = MetadataCache::at(
            kept.path().join("cache.json"),
            Some(&pkg.join("src/Cargo.toml")),
        );
        assert_eq!(cache.load(), None);
        cache.store(&metadata, later());
        assert_eq!(cache.load(), Some(metadata.clone()));
        // Asked from elsewhere: not the same question.
        let elsewhere = MetadataCache::at(kept.path().join("cache.json"), Some(Path::new("x")));
        assert_eq!(elsewhere.load(), None);
        // Its own copy does not take this one's away.
        elsewhere.store(&metadata, later());
        assert_eq!(elsewhere.load(), Some(metadata.clone()));
        assert_eq!(cache.load(), Some(metadata.clone()));

        // A manifest edited (features), a binary added to src/bin, a member added by a glob
        // in a directory that held none, a manifest created where cargo starts looking:
        // each asks cargo again.
        let changes: [&dyn Fn(); 5] = [
            &|| std::fs::write(pkg.join("Cargo.toml"), "[package]\n[features]\nx = []\n").unwrap(),
            &|| std::fs::write(pkg.join("src/bin/tool.rs"), "fn main() {}").unwrap(),
            &|| std::fs::create_dir_all(pkg.join("examples/demo")).unwrap(),
            &|| std::fs::create_dir_all(ws.path().join("crates/new-member")).unwrap(),
            &|| std::fs::write(ws.path().join("op/src/Cargo.toml"), "").unwrap(),
        ];
        for (i, change) in changes.iter().enumerate() {
            cache.store(&metadata, later());
            assert!(cache.load().is_some(), "change {i}");
            // Modification times can be coarse: make sure the change is a later tick.
            std::thread::sleep(Duration::from_millis(20));
            change();
            assert_eq!(cache.load(), None, "change {i}");
        }
        // A source file edited changes nothing cargo metadata says.
        cache.store(&metadata, later());
        std::fs::write(pkg.join("src/lib.rs"), "fn f() {}").unwrap();
        assert!(cache.load().is_some());
        // Nor does one an editor saves by renaming a new file over it, which changes the
        // directory's modification time (`--rbac-from-source` runs right after such saves).
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(pkg.join("src/.lib.rs.swp"), "fn g() {}").unwrap();
        std::fs::rename(pkg.join("src/.lib.rs.swp"), pkg.join("src/lib.rs")).unwrap();
        assert!(cache.load().is_some());
    }

    /// Against cargo itself: after each change a user may make, the kept copy is either
    /// refused or still exactly what `cargo metadata --no-deps` answers.
    #[test]
    fn a_kept_copy_is_never_a_stale_answer_of_cargo() {
        let ws = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = ws.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let package = |name: &str| {
            format!("[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n")
        };
        write(
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"3\"\n",
        );
        write("crates/a/Cargo.toml", &package("a"));
        write("crates/a/src/lib.rs", "");
        let manifest = ws.path().join("Cargo.toml");
        let ask = || {
            crate::input::cargo::cargo_metadata(Some(&manifest), &["--no-deps", "--offline"])
                .expect("cargo metadata")
        };
        let kept = tempfile::tempdir().unwrap();
        let cache = MetadataCache::at(kept.path().join("cache.json"), Some(&manifest));
        let changes: [(&str, &dyn Fn()); 5] = [
            ("a member added by the glob", &|| {
                write("crates/b/Cargo.toml", &package("b"));
                write("crates/b/src/lib.rs", "");
            }),
            ("a binary added", &|| {
                write("crates/a/src/bin/tool.rs", "fn main() {}")
            }),
            ("a binary added in a directory", &|| {
                write("crates/a/src/bin/other/main.rs", "fn main() {}")
            }),
            ("a feature added", &|| {
                write(
                    "crates/a/Cargo.toml",
                    &format!("{}\n[features]\nextra = []\n", package("a")),
                )
            }),
            ("an example added", &|| {
                write("crates/b/examples/demo.rs", "fn main() {}")
            }),
        ];
        for (what, change) in changes {
            cache.store(&ask(), later());
            assert!(cache.load().is_some(), "before {what}");
            std::thread::sleep(Duration::from_millis(20));
            change();
            let fresh = ask();
            assert!(
                cache.load().is_none_or(|copy| copy == fresh),
                "after {what}, the kept copy is stale"
            );
        }
    }

    #[test]
    fn an_answer_a_change_may_have_overtaken_is_not_kept() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("Cargo.toml"), "[workspace]\n").unwrap();
        let metadata = json!({"workspace_root": ws.path(), "packages": []});
        let kept = tempfile::tempdir().unwrap();
        let cache = MetadataCache::at(kept.path().join("cache.json"), None);
        // The manifest was written just now: cargo, asked now, may have read it before.
        cache.store(&metadata, SystemTime::now());
        assert_eq!(cache.load(), None);
    }

    #[test]
    fn member_globs_name_the_directories_they_expand_in() {
        let root = Path::new("/ws");
        let manifest = "[workspace]\nmembers = [\"crates/*\", \"tools/gen-?\", \"op\"]\n\
                        [workspace.dependencies]\nx = \"*\"\n";
        assert_eq!(
            member_glob_dirs(root, manifest),
            Some(vec![
                PathBuf::from("/ws/crates"),
                PathBuf::from("/ws/tools"),
                PathBuf::from("/ws/"),
            ])
        );
        assert_eq!(member_glob_dirs(root, "members = [\"*/crates/x\"]"), None);
        assert_eq!(member_glob_dirs(root, "members = [\"crates/**\"]"), None);
    }
}
