//! The generator's ledger: in each directory it writes to, the files it wrote there and the
//! SHA-256 of what it wrote, so that it removes only files it provably wrote and nobody
//! changed since, and never another generator's or a person's.
//!
//! The ledger of generator `NAME` is `.kube-markers-NAME.sha256`, in `sha256sum`'s format
//! (`sha256sum -c` checks it) after a comment header. It lists only plain file names of its own
//! directory, sorted, so its text depends on nothing but the generated files.

use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

const PREFIX: &str = ".kube-markers-";
const SUFFIX: &str = ".sha256";

/// The ledger's file name for generator `generator`.
pub(crate) fn file_name(generator: &str) -> String {
    format!("{PREFIX}{generator}{SUFFIX}")
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
}

impl Ledger {
    /// Parses a ledger. Lines that are not `<sha256>  <file name>` (or `#` comments) are
    /// returned as problems, (1-based line, why), and their files count as not ours.
    pub(crate) fn parse(text: &str) -> (Ledger, Vec<(usize, &'static str)>) {
        let mut ledger = Ledger::default();
        let mut problems = Vec::new();
        for (i, line) in text.lines().enumerate() {
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

/// The ledger text for `files` (file name → content) written by `generator`.
pub(crate) fn render<'a>(
    generator: &str,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let sorted: BTreeMap<&str, &str> = files.into_iter().collect();
    let mut text = format!(
        "# Files the kube-markers generator `{generator}` wrote to this directory, with their SHA-256\n\
         # (`sha256sum -c` checks them). It removes a listed file it no longer generates only while\n\
         # the file still has this content, and never touches files not listed. Commit this file.\n"
    );
    for (name, content) in sorted {
        text.push_str(&format!("{}  {name}\n", sha256_hex(content.as_bytes())));
    }
    text
}
