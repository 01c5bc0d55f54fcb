//! `--output github`: findings as GitHub Actions workflow commands
//! (`::error file=PATH,line=N,col=C,title=...::message`), which a workflow run shows as
//! annotations on the file's line.
//!
//! Escaping is GitHub's (`@actions/core`'s `escapeData` and `escapeProperty`): in the message,
//! `%`, `\r` and `\n`; in a property, also `:` and `,`, which end a property or the list.

use std::path::Path;

/// `error` or `warning`: the annotation's level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Error,
    Warning,
}

/// Where an annotation points: a file, and a line and column in it when known (1-based).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Place {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub col: Option<usize>,
}

/// One workflow command, with its newline.
pub(crate) fn annotation(level: Level, place: &Place, title: &str, message: &str) -> String {
    let mut props = Vec::new();
    if let Some(file) = &place.file {
        props.push(format!("file={}", escape_property(file)));
    }
    if let Some(line) = place.line {
        props.push(format!("line={line}"));
        if let Some(col) = place.col {
            props.push(format!("col={col}"));
        }
    }
    if !title.is_empty() {
        props.push(format!("title={}", escape_property(title)));
    }
    let name = match level {
        Level::Error => "error",
        Level::Warning => "warning",
    };
    let props = if props.is_empty() {
        String::new()
    } else {
        format!(" {}", props.join(","))
    };
    format!("::{name}{props}::{}\n", escape_data(message))
}

/// A message (the text after `::`).
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property's value.
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The `line N` a reader's message starts with (`line 4: duplicate mapping key`), if any.
pub(crate) fn line_in_message(message: &str) -> Option<usize> {
    let rest = message
        .strip_prefix("not YAML: ")
        .unwrap_or(message)
        .strip_prefix("line ")?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..digits].parse().ok().filter(|n| *n > 0)
}

/// Where the CRD `name` stands in the YAML text `text`: the line and column of its
/// `metadata.name`; with `version`, of that version's entry in its `spec.versions`; with
/// `path` (`spec.size`, `spec.items[*].name`) too, of that property in the version's schema,
/// as deep as it is found.
///
/// The checks' findings name a CRD, a version and a schema path, not a line: this reads the
/// line from the text as written (a `name:` key with the CRD's name, the `- name: VERSION`
/// entry after it in the same document, then each path segment as a key indented below the
/// one before). The one place that maps a finding to a line.
pub(crate) fn crd_position(
    text: &str,
    name: &str,
    version: Option<&str>,
    path: Option<&str>,
) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| key_value(l, "name") == Some(name))?;
    let position = |i: usize| {
        (
            i + 1,
            lines[i]
                .find(|c: char| c != ' ' && c != '-')
                .map_or(1, |c| c + 1),
        )
    };
    let Some(version) = version else {
        return Some(position(at));
    };
    // The document's other end: the next `---` line, or the end of the text.
    let end = lines[at..]
        .iter()
        .position(|l| l.starts_with("---"))
        .map_or(lines.len(), |n| at + n);
    let start = lines[..at]
        .iter()
        .rposition(|l| l.starts_with("---"))
        .map_or(0, |n| n + 1);
    let Some(versions) = (start..end).find(|&i| key_value(lines[i], "versions") == Some("")) else {
        return Some(position(at));
    };
    let Some(entry) = (versions + 1..end).find(|&i| key_value(lines[i], "name") == Some(version))
    else {
        return Some(position(at));
    };
    let indent = |l: &str| l.len() - l.trim_start_matches([' ', '-']).len();
    // The version's entry ends at the next line indented as the list's `- `, or less.
    let spaces = |l: &str| l.len() - l.trim_start().len();
    let list_indent = (versions + 1..end)
        .find(|&i| lines[i].trim_start().starts_with('-'))
        .map_or(0, |i| spaces(lines[i]));
    let entry_end = (entry + 1..end)
        .find(|&i| !lines[i].trim().is_empty() && spaces(lines[i]) <= list_indent)
        .unwrap_or(end);
    let mut found = entry;
    if let Some(path) = path {
        let mut from = entry + 1;
        let mut depth = indent(lines[entry]);
        for segment in path.split('.').map(|s| s.split('[').next().unwrap_or(s)) {
            let Some(i) = (from..entry_end)
                .find(|&i| indent(lines[i]) > depth && key_value(lines[i], segment) == Some(""))
            else {
                break;
            };
            found = i;
            from = i + 1;
            depth = indent(lines[i]);
        }
    }
    Some(position(found))
}

/// The value of `key: value` on one line (`- ` before it allowed), unquoted; `Some("")` for a
/// key with its value on the next lines.
fn key_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.trim_start().trim_start_matches("- ").trim_start();
    let rest = rest
        .strip_prefix(key)
        .or_else(|| rest.strip_prefix(&format!("\"{key}\"")))?;
    let value = rest.strip_prefix(':')?;
    let value = value.split(" #").next().unwrap_or(value).trim();
    Some(value.trim_matches('"').trim_matches('\''))
}

/// `file` as an annotation names it: relative to the current directory when it is inside it
/// (a workflow runs from the repository's root, and GitHub matches the path to the checkout).
pub(crate) fn file_name(file: &str) -> String {
    let path = Path::new(file);
    if let Ok(cwd) = std::env::current_dir()
        && let Ok(inside) = path.strip_prefix(&cwd)
    {
        return inside.display().to_string();
    }
    file.strip_prefix("./").unwrap_or(file).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_github_does() {
        assert_eq!(escape_data("50%\r\nnext: a, b"), "50%25%0D%0Anext: a, b");
        assert_eq!(escape_property("a: b, c%\n"), "a%3A b%2C c%25%0A");
        let place = Place {
            file: Some("crds/a,b:c.yaml".into()),
            line: Some(4),
            col: Some(3),
        };
        assert_eq!(
            annotation(Level::Error, &place, "CRD x: refused", "spec: 100%\nbad"),
            "::error file=crds/a%2Cb%3Ac.yaml,line=4,col=3,title=CRD x%3A refused::spec: 100%25%0Abad\n"
        );
        assert_eq!(
            annotation(Level::Warning, &Place::default(), "", "m"),
            "::warning::m\n"
        );
    }

    #[test]
    fn finds_a_crd_its_version_and_a_property() {
        let text = "kind: ConfigMap\nmetadata:\n  name: other\n---\nkind: CustomResourceDefinition\n\
                    metadata:\n  name: \"widgets.example.com\"\nspec:\n  versions:\n  - name: v1alpha1\n  \
                    - served: true\n    name: v1 # the stored one\n    schema:\n      openAPIV3Schema:\n        \
                    properties:\n          spec:\n            properties:\n              type:\n                \
                    type: string\n              size:\n                type: integer\n---\nmetadata:\n  name: v1\n";
        let at = |version, path| crd_position(text, "widgets.example.com", version, path);
        assert_eq!(at(None, None), Some((7, 3)));
        assert_eq!(at(Some("v1alpha1"), None), Some((10, 5)));
        assert_eq!(at(Some("v1"), None), Some((12, 5)));
        assert_eq!(at(Some("v1"), Some("spec.size")), Some((20, 15)));
        // A property named as a keyword is found as the property.
        assert_eq!(at(Some("v1"), Some("spec.type")), Some((18, 15)));
        // As deep as found; a version not found points at the CRD.
        assert_eq!(at(Some("v1"), Some("spec.color")), Some((16, 11)));
        assert_eq!(at(Some("v1alpha1"), Some("spec.size")), Some((10, 5)));
        assert_eq!(at(Some("v2"), None), Some((7, 3)));
        assert_eq!(crd_position(text, "gadgets.example.com", None, None), None);
    }

    #[test]
    fn reads_the_line_of_a_reader_message() {
        assert_eq!(line_in_message("not YAML: line 12: did not find"), Some(12));
        assert_eq!(line_in_message("line 3: duplicate mapping key"), Some(3));
        assert_eq!(line_in_message("cannot read it: denied"), None);
    }
}
