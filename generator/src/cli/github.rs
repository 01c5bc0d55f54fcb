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
}
