//! Every file a command writes, planned before any is written: a new file never replaces one
//! on disk, an edit happens only at a `+kube-markers:scaffold:<name>` marker of a file the
//! scaffold wrote, and one refusal leaves the project as it was.

use crate::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The comment token and prefix of every insertion marker (kubebuilder's
/// `+kubebuilder:scaffold:<name>`).
pub const MARKER: &str = "+kube-markers:scaffold:";

/// The files a command will write, by path relative to the project's root.
pub struct Plan {
    root: PathBuf,
    files: BTreeMap<PathBuf, Planned>,
    /// What the command says after its summary.
    notes: Vec<String>,
}

struct Planned {
    text: String,
    new: bool,
}

impl Plan {
    pub fn new(root: &Path) -> Plan {
        Plan {
            root: root.to_path_buf(),
            files: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// The project's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether `rel` exists, on disk or in the plan.
    pub fn exists(&self, rel: &str) -> bool {
        self.files.contains_key(Path::new(rel)) || self.root.join(rel).exists()
    }

    /// The text `rel` will have: planned, else on disk.
    pub fn read(&self, rel: &str) -> Option<String> {
        match self.files.get(Path::new(rel)) {
            Some(p) => Some(p.text.clone()),
            None => std::fs::read_to_string(self.root.join(rel)).ok(),
        }
    }

    /// Plans the new file `rel`; refuses, naming it, if it exists.
    pub fn create(&mut self, rel: &str, text: String, what: &str) -> Result<(), Error> {
        if self.exists(rel) {
            return Err(Error::new(format!(
                "{} exists already: {what} is not written over a file it did not write.\n\
                 Move it away (or delete it) and run the command again.",
                self.root.join(rel).display()
            )));
        }
        self.files.insert(rel.into(), Planned { text, new: true });
        Ok(())
    }

    /// Plans `rel` if it does not exist (a module file shared by several kinds).
    pub fn create_if_absent(&mut self, rel: &str, text: impl FnOnce() -> String) {
        if !self.exists(rel) {
            self.files.insert(
                rel.into(),
                Planned {
                    text: text(),
                    new: true,
                },
            );
        }
    }

    /// Whether `rel` (planned, else on disk) holds the marker `name`.
    pub fn has_marker(&self, rel: &str, name: &str) -> bool {
        self.read(rel).is_some_and(|text| has_marker(&text, name))
    }

    /// Inserts `block` before the line of marker `name` in `rel` (indented as that line),
    /// unless the block's first line is there already: inserting twice changes nothing.
    pub fn insert(&mut self, rel: &str, name: &str, block: &str) -> Result<(), Error> {
        let text = self.marked_file(rel, name)?;
        let updated = insert_at_marker(&text, name, block);
        self.files.insert(
            rel.into(),
            Planned {
                new: self.files.get(Path::new(rel)).is_some_and(|p| p.new),
                text: updated,
            },
        );
        Ok(())
    }

    /// Replaces the line of marker `name` in `rel` by `edit` of it; refuses, naming the line
    /// and `fix` (what to make of it by hand), when `edit` cannot read it.
    pub fn edit_marked_line(
        &mut self,
        rel: &str,
        name: &str,
        edit: impl Fn(&str) -> Option<String>,
        fix: &str,
    ) -> Result<(), Error> {
        let text = self.marked_file(rel, name)?;
        let mut updated = Vec::new();
        for (n, line) in (1..).zip(text.lines()) {
            if !is_marker_line(line, name) {
                updated.push(line.to_string());
                continue;
            }
            let Some(edited) = edit(line) else {
                return Err(Error::new(format!(
                    "{}:{n}: the scaffold cannot edit `{}` (nothing was written).\n{fix}, \
                     keeping its `{MARKER}{name}` comment, then run the command again.",
                    self.root.join(rel).display(),
                    line.trim()
                )));
            };
            updated.push(edited);
        }
        let new = self.files.get(Path::new(rel)).is_some_and(|p| p.new);
        self.files.insert(
            rel.into(),
            Planned {
                text: updated.join("\n") + "\n",
                new,
            },
        );
        Ok(())
    }

    /// The text of `rel`, which must hold the marker `name`.
    fn marked_file(&self, rel: &str, name: &str) -> Result<String, Error> {
        let path = self.root.join(rel);
        let text = self.read(rel).ok_or_else(|| {
            let or_create = crate::markers::module_marker_line(rel, name)
                .map_or(String::new(), |line| {
                    format!(", or create it holding the line\n{line}\nand")
                });
            Error::new(format!(
                "{} is missing: the scaffold adds to it at its `{MARKER}{name}` marker (nothing \
                 was written).\nRestore it with `git checkout -- {rel}` in {} if it is \
                 committed{or_create} then run the command again (or make the change by hand).",
                path.display(),
                self.root.display()
            ))
        })?;
        if !has_marker(&text, name) {
            return Err(Error::new(format!(
                "{} has no `{MARKER}{name}` marker: the scaffold edits a shared file only at \
                 its markers, and nothing was written.\nPut the marker back: {}\nthen run the \
                 command again (or make the change by hand).",
                path.display(),
                // Line numbers of the file as it is on disk, not as planned.
                crate::markers::way_back(
                    &path,
                    rel,
                    name,
                    &std::fs::read_to_string(&path).unwrap_or(text)
                )
            )));
        }
        Ok(text)
    }

    /// A note printed after the summary, once the files are written.
    pub fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    /// The paths planned, new files first, for the command's summary.
    pub fn summary(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .files
            .iter()
            .map(|(p, f)| {
                format!(
                    "{} {}",
                    if f.new { "create" } else { "update" },
                    p.display()
                )
            })
            .collect();
        lines.sort_by_key(|l| !l.starts_with("create"));
        lines
    }

    /// Writes every planned file, then formats the Rust ones with `rustfmt` (as the project's
    /// CI checks them: a line's breaks depend on the names filled in); returns the summary,
    /// then the notes.
    pub fn write(self) -> Result<Vec<String>, Error> {
        let mut summary = self.summary();
        summary.extend(self.notes.iter().cloned());
        let rust: Vec<PathBuf> = self
            .files
            .keys()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .map(|p| self.root.join(p))
            .collect();
        for (rel, file) in &self.files {
            let path = self.root.join(rel);
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, &file.text));
            written.map_err(|e| {
                Error::new(format!(
                    "cannot write {}: {e}\nMake the directory writable and run the command \
                     again (files already written stay; the command refuses them next time, so \
                     remove them first).",
                    path.display()
                ))
            })?;
        }
        format_rust(&rust);
        Ok(summary)
    }
}

/// `rustfmt --edition 2024 files`; without rustfmt, a note says what to run.
fn format_rust(files: &[PathBuf]) {
    if files.is_empty() {
        return;
    }
    let formatted = std::process::Command::new("rustfmt")
        .args(["--edition", "2024"])
        .args(files)
        .status();
    if !formatted.is_ok_and(|s| s.success()) {
        eprintln!(
            "note: rustfmt did not format the Rust files written (install it with `rustup \
             component add rustfmt`, then run `cargo fmt --all`)"
        );
    }
}

/// Whether a line of `text` ends with marker `name` (not a longer marker's name).
pub(crate) fn has_marker(text: &str, name: &str) -> bool {
    text.lines().any(|l| is_marker_line(l, name))
}

/// Whether `line` ends with marker `name`.
pub(crate) fn is_marker_line(line: &str, name: &str) -> bool {
    line.trim_end()
        .strip_suffix(name)
        .is_some_and(|l| l.ends_with(MARKER))
}

/// `text` with `block` inserted before the line holding marker `name`.
fn insert_at_marker(text: &str, name: &str, block: &str) -> String {
    let first = block.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if text.lines().any(|l| l.trim() == first.trim()) {
        return text.to_string();
    }
    let mut out = String::new();
    for line in text.lines() {
        if is_marker_line(line, name) {
            let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
            for b in block.lines() {
                if b.is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&format!("{indent}{b}\n"));
                }
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertion_is_indented_and_idempotent() {
        let text = "fn main() {\n    // +kube-markers:scaffold:controllers\n}\n";
        let once = insert_at_marker(text, "controllers", "run_a();\nrun_b();");
        assert_eq!(
            once,
            "fn main() {\n    run_a();\n    run_b();\n    // +kube-markers:scaffold:controllers\n}\n"
        );
        assert_eq!(insert_at_marker(&once, "controllers", "run_a();"), once);
    }

    #[test]
    fn an_existing_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Dockerfile"), "FROM mine").unwrap();
        let mut plan = Plan::new(dir.path());
        let e = plan
            .create("Dockerfile", "FROM ours".into(), "`kube-markers init`")
            .unwrap_err();
        assert!(e.message.contains("Dockerfile exists already"), "{e}");
        assert!(e.message.contains("Move it away"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("Dockerfile")).unwrap(),
            "FROM mine"
        );
    }

    #[test]
    fn a_file_without_its_marker_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.rs"), "fn main() {}\n").unwrap();
        let mut plan = Plan::new(dir.path());
        let e = plan.insert("main.rs", "controllers", "x();").unwrap_err();
        assert!(
            e.message
                .contains("has no `+kube-markers:scaffold:controllers` marker"),
            "{e}"
        );
        let e = plan.insert("lib.rs", "modules", "x();").unwrap_err();
        assert!(e.message.contains("lib.rs is missing"), "{e}");
    }
}
