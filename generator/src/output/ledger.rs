//! The generator's ledger: in each directory it writes to, the files it wrote there and the
//! SHA-256 of what it wrote, so that it removes only files it provably wrote and nobody
//! changed since, and never another generator's or a person's.
//!
//! The ledger of generator `NAME` (its package, as `kube_markers::link!` recorded it) is
//! `.kube-markers-NAME.sha256`, in `sha256sum`'s format (`sha256sum -c` checks it) after a
//! comment header. It lists only plain file names of its own directory, sorted. The header
//! names the generator's package directory, relative to the ledger's (`../codegen`): another
//! workspace's generator of the same name is told from this one by it, and a clone or a moved
//! checkout keeps it. Ledgers written before it was recorded have no such line, and are their
//! name's.

use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

const PREFIX: &str = ".kube-markers-";
const SUFFIX: &str = ".sha256";
/// The header line that names the generator's package directory.
const PACKAGE_LINE: &str = "# The generator's package, from this directory: ";

/// The generator whose ledgers a run reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owner {
    /// Its name (`--generator-name`, else its package).
    pub(crate) name: String,
    /// Names its ledgers had before the package named them (the binary's, where it differs):
    /// such a ledger, of an earlier version, is adopted and renamed.
    pub(crate) earlier_names: Vec<String>,
    /// Its package's directory, when `link!` recorded it.
    pub(crate) package_dir: Option<PathBuf>,
}

impl Owner {
    /// The generator of a run with `opts`.
    pub(crate) fn of(opts: &crate::options::Options) -> Owner {
        let invocation = &opts.invocation;
        let earlier_names = match &invocation.package {
            Some(package) if *package == opts.generator_name && invocation.bin != *package => {
                vec![invocation.bin.clone()]
            }
            _ => Vec::new(),
        };
        Owner {
            name: opts.generator_name.clone(),
            earlier_names: earlier_names
                .into_iter()
                .filter(|n| check_generator_name(n).is_ok())
                .collect(),
            package_dir: invocation.package_dir.clone(),
        }
    }
}

/// The ledger's file name for generator `generator`.
pub(crate) fn file_name(generator: &str) -> String {
    format!("{PREFIX}{generator}{SUFFIX}")
}

/// The files this generator's ledger in `dir` lists, in the ledger's order; none without a
/// ledger there.
pub(crate) fn listed(dir: &Path, generator: &str) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(file_name(generator))) else {
        return Vec::new();
    };
    Ledger::parse(&text).0.files.into_keys().collect()
}

/// The generator whose ledger `file_name` is, if it is one.
pub(crate) fn generator_of(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix(PREFIX)?
        .strip_suffix(SUFFIX)
        .filter(|name| check_generator_name(name).is_ok())
}

/// A generator name must make a plain, visible-after-the-dot file name on every system.
pub(crate) fn check_generator_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("it is empty");
    }
    if name.starts_with('.') {
        return Err("it starts with `.`");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err("only ASCII letters, digits, `-`, `_` and `.` are allowed");
    }
    Ok(())
}

/// Lowercase hex SHA-256, as `sha256sum` prints it.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A ledger as read from disk: for each file name, every hash listed for it (more than one
/// only after a merge of two versions, and then each is content the generator wrote).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Ledger {
    pub(crate) files: BTreeMap<String, BTreeSet<String>>,
    /// The generator's package directory, relative to the ledger's, as written; `None` in a
    /// ledger of an earlier version.
    pub(crate) package: Option<String>,
}

impl Ledger {
    /// Parses a ledger. Lines that are not `<sha256>  <file name>` (or `#` comments) are
    /// returned as problems, (1-based line, why), and their files count as not ours.
    pub(crate) fn parse(text: &str) -> (Ledger, Vec<(usize, &'static str)>) {
        let mut ledger = Ledger::default();
        let mut problems = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if let Some(package) = line.strip_prefix(PACKAGE_LINE) {
                ledger.package = Some(package.to_string());
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match parse_line(line) {
                Ok((hash, name)) => {
                    ledger
                        .files
                        .entry(name.to_string())
                        .or_default()
                        .insert(hash.to_string());
                }
                Err(why) => problems.push((i + 1, why)),
            }
        }
        (ledger, problems)
    }
}

fn parse_line(line: &str) -> Result<(&str, &str), &'static str> {
    // `sha256sum` writes `<hash>  <name>`, or `<hash> *<name>` in binary mode.
    let (hash, name) = line
        .split_once("  ")
        .or_else(|| line.split_once(" *"))
        .ok_or("not `<sha256>  <file name>`")?;
    if hash.len() != 64 || !hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("not a lowercase hex SHA-256");
    }
    if !is_plain_file_name(name) {
        return Err("not a plain file name of this directory");
    }
    Ok((hash, name))
}

/// A name that stays inside its directory.
pub(crate) fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// The ledger text for `files` (file name → content) written by `generator`, whose package
/// directory is `package` from the ledger's directory (none for a generator without `link!`).
pub(crate) fn render<'a>(
    generator: &str,
    package: Option<&str>,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let sorted: BTreeMap<&str, &str> = files.into_iter().collect();
    let mut text = format!(
        "# Files the kube-markers generator `{generator}` wrote to this directory, with their SHA-256\n\
         # (`sha256sum -c` checks them). It removes a listed file it no longer generates only while\n\
         # the file still has this content, and never touches files not listed. Commit this file.\n"
    );
    if let Some(package) = package {
        text.push_str(&format!("{PACKAGE_LINE}{package}\n"));
    }
    for (name, content) in sorted {
        text.push_str(&format!("{}  {name}\n", sha256_hex(content.as_bytes())));
    }
    text
}

/// `path` as absolute and without `.` or `..` (symbolic links left as they are): what the
/// relative path between two places is computed from.
pub(crate) fn lexical_absolute(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut clean = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    clean
}

/// `to` as seen from the directory `from` (`../codegen`), `/`-separated whatever the system:
/// the ledger's text is the same on every machine.
pub(crate) fn relative_path(from: &Path, to: &Path) -> String {
    let (from, to) = (lexical_absolute(from), lexical_absolute(to));
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Whether two paths are one directory: equal, or the same once symbolic links are resolved.
pub(crate) fn same_dir(a: &Path, b: &Path) -> bool {
    lexical_absolute(a) == lexical_absolute(b)
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_line_is_read_back_and_relative_paths_climb() {
        let text = render("codegen", Some("../codegen"), [("role.yaml", "x")]);
        let (ledger, problems) = Ledger::parse(&text);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(ledger.package.as_deref(), Some("../codegen"));
        assert_eq!(ledger.files.len(), 1);
        // An earlier version's ledger has none.
        let (old, _) = Ledger::parse(&render("codegen", None, [("role.yaml", "x")]));
        assert_eq!(old.package, None);
        assert_eq!(
            relative_path(Path::new("/ws/rbac-out/crd"), Path::new("/ws/codegen")),
            "../../codegen"
        );
        assert_eq!(
            relative_path(Path::new("/ws/rbac-out"), Path::new("/ws/./x/../codegen")),
            "../codegen"
        );
        assert_eq!(relative_path(Path::new("/ws"), Path::new("/ws")), ".");
    }
}
