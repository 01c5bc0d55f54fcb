//! The record of the generator's last build: what each file it was built from looked like, so
//! that the next `kube-markers generate` can tell an `#[rbac]`-only edit from any other.
//!
//! Kept in `<target dir>/kube-markers/generate/<package>.json`, written by `kube-markers
//! generate` after the build it ran (never after the fast path: the binary it describes is
//! still the old one). It lists the files of the binary's dep-info (`<bin>.d`, cargo's own
//! list of the sources it was compiled from) outside cargo's registry and the target
//! directory, each package's `Cargo.toml` and whether it has a `build.rs`, the workspace's
//! `Cargo.lock`, `.cargo/config.toml` and `rust-toolchain.toml`, the environment that changes a
//! build (`RUSTFLAGS`, `CARGO_BUILD_*`, `CARGO_PROFILE_*`, ...), and the binary's size and time.

use super::strip::{Stripped, sha256, stripped};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The record of one build.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Record {
    /// The generator's executable.
    pub executable: PathBuf,
    /// Its size and modification time when the record was written.
    pub executable_stamp: Stamp,
    /// The environment variables that change a build, sorted.
    pub env: Vec<(String, String)>,
    /// Every file the build read, or whose appearance would change it.
    pub files: Vec<FileState>,
}

/// A file's size and modification time (nanoseconds since the epoch).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub len: u64,
    pub modified_ns: u128,
}

/// One file as the build saw it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct FileState {
    pub path: PathBuf,
    /// `None`: it did not exist (a `build.rs` that would change the build by appearing).
    pub stamp: Option<Stamp>,
    /// The SHA-256 of its bytes.
    pub sha256: String,
    /// For a `.rs` file, the SHA-256 of its tokens without `#[rbac]` attributes.
    pub without_rbac: Option<String>,
}

/// What changed in one file since the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// Nothing (or only its time: the same bytes).
    None,
    /// Only the `#[rbac]` attributes of this Rust file (comments and spacing aside).
    RbacOnly,
    /// Anything else, in words (`its tokens outside #[rbac] attributes changed`, `it was
    /// removed`).
    Other(&'static str),
}

pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let modified_ns = meta
        .modified()
        .ok()?
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(Stamp {
        len: meta.len(),
        modified_ns,
    })
}

impl FileState {
    /// `path` as it is now.
    pub(crate) fn read(path: &Path) -> FileState {
        let stamp = stamp(path);
        let bytes = stamp.and_then(|_| std::fs::read(path).ok());
        let Some(bytes) = bytes else {
            return FileState {
                path: path.to_path_buf(),
                stamp: None,
                sha256: String::new(),
                without_rbac: None,
            };
        };
        let without_rbac = (path.extension().is_some_and(|e| e == "rs"))
            .then(|| std::str::from_utf8(&bytes).ok().map(stripped))
            .flatten()
            .and_then(|s| match s {
                Stripped::Tokens(hash) => Some(hash),
                Stripped::NotRust => None,
            });
        FileState {
            path: path.to_path_buf(),
            stamp,
            sha256: sha256(&bytes),
            without_rbac,
        }
    }

    /// What changed in the file since `self` was recorded: its size and time first, its bytes
    /// when they differ, its tokens without `#[rbac]` attributes when the bytes differ.
    pub(crate) fn change(&self) -> Change {
        let now = stamp(&self.path);
        match (self.stamp, now) {
            (None, None) => return Change::None,
            (None, Some(_)) => return Change::Other("it was created"),
            (Some(_), None) => return Change::Other("it was removed"),
            (Some(then), Some(now)) if then == now => return Change::None,
            _ => {}
        }
        let now = FileState::read(&self.path);
        if now.sha256 == self.sha256 {
            Change::None
        } else if now.without_rbac.is_some() && now.without_rbac == self.without_rbac {
            Change::RbacOnly
        } else if self.without_rbac.is_some() {
            Change::Other("its tokens outside #[rbac] attributes changed")
        } else {
            Change::Other("its contents changed")
        }
    }
}

/// The environment variables that change what cargo builds, sorted.
pub(crate) fn build_env() -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "RUSTFLAGS"
                    | "CARGO_ENCODED_RUSTFLAGS"
                    | "RUSTC"
                    | "RUSTC_WRAPPER"
                    | "RUSTC_WORKSPACE_WRAPPER"
                    | "RUSTUP_TOOLCHAIN"
                    | "CARGO_TARGET_DIR"
            ) || k.starts_with("CARGO_BUILD_")
                || k.starts_with("CARGO_PROFILE_")
                || k.starts_with("CARGO_TARGET_")
        })
        .collect();
    env.sort();
    env
}

/// The source files of a dep-info file (`<bin>.d`) of `target`: the paths after `TARGET: `,
/// with `\ ` for a space in a path; `None` when it is another file's.
pub(crate) fn dep_info_files(text: &str, target: &Path) -> Option<Vec<PathBuf>> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let (of, deps) = first.split_once(": ")?;
    if Path::new(&of.replace("\\ ", " ")) != target {
        return None;
    }
    let mut files = Vec::new();
    let mut current = String::new();
    let mut chars = deps.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                current.push(' ');
                chars.next();
            }
            ' ' => {
                if !current.is_empty() {
                    files.push(PathBuf::from(std::mem::take(&mut current)));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        files.push(PathBuf::from(current));
    }
    Some(files)
}

/// The files a record of a build lists: the dep-info's files outside `skip` (cargo's registry
/// and the target directory) and outside a build script's `OUT_DIR`, the `Cargo.toml` and (possible) `build.rs` of each package they
/// belong to, and the workspace `root`'s manifest, lock file, cargo configuration and toolchain
/// file.
pub(crate) fn watched_files(dep_info: &[PathBuf], root: &Path, skip: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut packages: Vec<PathBuf> = Vec::new();
    for file in dep_info {
        // What a build script generates (its OUT_DIR, `<build dir>/<profile>/build/<unit>/out`)
        // follows from the files listed.
        if skip.iter().any(|s| file.starts_with(s)) || in_out_dir(file) {
            continue;
        }
        files.push(file.clone());
        let package = file
            .ancestors()
            .skip(1)
            .find(|dir| dir.join("Cargo.toml").is_file());
        if let Some(package) = package
            && !packages.iter().any(|p| p == package)
        {
            packages.push(package.to_path_buf());
        }
    }
    for package in &packages {
        files.push(package.join("Cargo.toml"));
        files.push(package.join("build.rs"));
    }
    for name in [
        "Cargo.toml",
        "Cargo.lock",
        ".cargo/config.toml",
        ".cargo/config",
        "rust-toolchain.toml",
        "rust-toolchain",
    ] {
        files.push(root.join(name));
    }
    files.sort();
    files.dedup();
    files
}

/// Whether `file` is in a build script's `OUT_DIR`: `.../build/<unit>/out/...`.
fn in_out_dir(file: &Path) -> bool {
    file.ancestors().skip(1).any(|dir| {
        dir.file_name().is_some_and(|n| n == "out")
            && dir
                .parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .is_some_and(|n| n == "build")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_dep_info() {
        let text = "/w/target/debug/codegen: /w/codegen/src/main.rs /w/my\\ dir/lib.rs \
                    /home/u/.cargo/registry/src/x/lib.rs\n\n/w/codegen/src/main.rs:\n";
        let exe = Path::new("/w/target/debug/codegen");
        assert_eq!(
            dep_info_files(text, exe).unwrap(),
            [
                PathBuf::from("/w/codegen/src/main.rs"),
                PathBuf::from("/w/my dir/lib.rs"),
                PathBuf::from("/home/u/.cargo/registry/src/x/lib.rs"),
            ]
        );
        // Another binary's (a copied target directory's), or none.
        assert_eq!(
            dep_info_files(text, Path::new("/v/target/debug/codegen")),
            None
        );
        assert_eq!(dep_info_files("", exe), None);
        assert!(in_out_dir(Path::new("/t/debug/build/x-1f/out/gen.rs")));
        assert!(!in_out_dir(Path::new("/w/build/x/src/lib.rs")));
    }

    #[test]
    fn a_file_changes_by_its_tokens() {
        let dir = std::env::temp_dir().join(format!("km-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("lib.rs");
        std::fs::write(&file, "#[rbac(verbs = \"get\")]\nfn f() {}\n").unwrap();
        let then = FileState::read(&file);
        assert_eq!(then.change(), Change::None);
        std::fs::write(&file, "#[rbac(verbs = \"list\")]\nfn f() {}\n").unwrap();
        assert_eq!(then.change(), Change::RbacOnly);
        std::fs::write(&file, "#[rbac(verbs = \"get\")]\nfn f() { g() }\n").unwrap();
        assert_eq!(
            then.change(),
            Change::Other("its tokens outside #[rbac] attributes changed")
        );
        // The same bytes again, with another time: no change.
        std::fs::write(&file, "#[rbac(verbs = \"get\")]\nfn f() {}\n").unwrap();
        assert_eq!(then.change(), Change::None);
        std::fs::remove_file(&file).unwrap();
        assert_eq!(then.change(), Change::Other("it was removed"));
        let absent = FileState::read(&dir.join("build.rs"));
        assert_eq!(absent.change(), Change::None);
        std::fs::write(dir.join("build.rs"), "fn main() {}").unwrap();
        assert_eq!(absent.change(), Change::Other("it was created"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
