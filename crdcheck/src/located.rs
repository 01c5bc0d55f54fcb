//! Where in a CRD's file each finding is: its file and line, what a CI annotation needs.

use kube_markers_registry::crd::SchemaProblem;
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// Whether the API server (or kubectl, reading the file) refuses what a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Refused: the file cannot be read, or the API server refuses the CRD.
    Error,
    /// Taken, but worth a warning: the API server's own warnings, what it takes silently
    /// though it looks wrong, YAML 1.1 readings kubectl makes.
    Warning,
}

/// One finding with where it is: what a CI annotation needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Located {
    /// The file, as it was named to the check.
    pub file: String,
    /// The 1-based line of what it is about: the key of the schema node, field or version it
    /// names, else the first line of its document. `None` only when the file could not be read
    /// at all, or the reader's message names no line.
    pub line: Option<usize>,
    /// The 1-based column of that key (or list item), in characters, where the line is a
    /// node's: none for the file's own findings and a document's first line.
    pub column: Option<usize>,
    /// The CRD it is about (`metadata.name`, or `document N`); `None` for the file's own
    /// errors and warnings.
    pub crd: Option<String>,
    pub severity: Severity,
    /// The message as `check-crds` prints it after the file and CRD names.
    pub message: String,
}

impl Located {
    pub(crate) fn new(
        file: &str,
        (line, column): (Option<usize>, Option<usize>),
        crd: Option<&str>,
        severity: Severity,
        message: &str,
    ) -> Located {
        Located {
            file: file.to_string(),
            line,
            column,
            crd: crd.map(str::to_string),
            severity,
            message: message.to_string(),
        }
    }
}

/// `file:line: error: crd: message`, as compilers print a diagnostic.
impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {severity}: ")?;
        if let Some(crd) = &self.crd {
            write!(f, "{crd}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// The JSON pointer, in `crd`, of the node a finding is about (`problem`, in `version`, or
/// about the CRD as a whole): the schema node its path names (or the nearest node above it
/// that exists), the field a CRD-wide finding's message starts with, the name of the version
/// it is in.
pub(crate) fn pointer_of(crd: &Value, version: Option<&str>, problem: &SchemaProblem) -> String {
    let Some(version) = version else {
        let message = &problem.message;
        let path = message
            .split([' ', ':'])
            .next()
            .filter(|p| p.starts_with("spec") || p.starts_with("metadata"))
            .unwrap_or("");
        return field_pointer(crd, path);
    };
    let versions = crd["spec"]["versions"].as_array();
    let Some(index) = versions
        .into_iter()
        .flatten()
        .position(|v| v["name"] == version)
    else {
        return String::new();
    };
    let at = format!("/spec/versions/{index}");
    let schema = &crd["spec"]["versions"][index]["schema"]["openAPIV3Schema"];
    match &problem.path {
        Some(path) if !schema.is_null() => {
            format!(
                "{at}/schema/openAPIV3Schema{}",
                schema_pointer(schema, path)
            )
        }
        // The version as a whole: where it is named.
        _ => format!("{at}/name"),
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The longest key of `node` that `rest` starts with, followed by its end, `.` or `[`.
fn longest_key<'v>(node: &'v Value, rest: &str) -> Option<(&'v String, &'v Value)> {
    node.as_object()?
        .iter()
        .filter(|(k, _)| {
            rest.starts_with(k.as_str())
                && matches!(rest[k.len()..].chars().next(), None | Some('.' | '['))
        })
        .max_by_key(|(k, _)| k.len())
}

/// The pointer of a field path (`spec.versions[0].name`, keys with dots matched whole), as far
/// as its nodes exist.
fn field_pointer(value: &Value, path: &str) -> String {
    let (mut pointer, mut node, mut rest) = (String::new(), value, path);
    loop {
        rest = rest.strip_prefix('.').unwrap_or(rest);
        if rest.is_empty() {
            return pointer;
        }
        if let Some(r) = rest.strip_prefix('[') {
            let Some((index, after)) = r.split_once(']') else {
                return pointer;
            };
            let Some(next) = index.parse::<usize>().ok().and_then(|i| node.get(i)) else {
                return pointer;
            };
            pointer.push_str(&format!("/{index}"));
            (node, rest) = (next, after);
            continue;
        }
        let Some((key, next)) = longest_key(node, rest) else {
            return pointer;
        };
        pointer.push_str(&format!("/{}", escape(key)));
        (node, rest) = (next, &rest[key.len()..]);
    }
}

/// The pointer, under a schema, of a schema path as the checks name nodes
/// (`spec.conditions[*].type`, `spec.labels[<key>]`, `<root>`), as far as its nodes exist.
pub(crate) fn schema_pointer(schema: &Value, path: &str) -> String {
    let (mut pointer, mut node) = (String::new(), schema);
    let mut rest = if path == "<root>" { "" } else { path };
    loop {
        rest = rest.strip_prefix('.').unwrap_or(rest);
        if let Some(r) = rest.strip_prefix("[*]") {
            if node["items"].is_null() {
                return pointer;
            }
            pointer.push_str("/items");
            (node, rest) = (&node["items"], r);
        } else if let Some(r) = rest
            .strip_prefix("[<key>]")
            // The compatibility checks spell a map's values as a list's items.
            .or_else(|| rest.strip_prefix("[*]"))
        {
            if !node["additionalProperties"].is_object() {
                return pointer;
            }
            pointer.push_str("/additionalProperties");
            (node, rest) = (&node["additionalProperties"], r);
        } else if let Some((key, next)) = longest_key(&node["properties"], rest) {
            pointer.push_str(&format!("/properties/{}", escape(key)));
            (node, rest) = (next, &rest[key.len()..]);
        } else {
            return pointer;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_text;

    const CRD: &str = "\
# a comment
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example
  names: {plural: widgets, singular: widget, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a.b:
                type: object
                properties:
                  xs:
                    type: array
                    items:
                      type: string
                      format: colour
              size: {type: integer, minimum: 5, maximum: 1}
";

    /// Each finding carries the file and the line of the node it names: the group, a node
    /// under a property whose name has a dot, a node in flow style, the version.
    #[test]
    fn each_finding_names_its_file_and_line() {
        let report = check_text("crds/widgets.yaml", CRD);
        let found: Vec<String> = report.findings().iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                "crds/widgets.yaml:7: error: widgets.example.com: spec.group `example`: it has \
                 no dot",
                "crds/widgets.yaml:5: error: widgets.example.com: metadata.name: must be \
                 `widgets.example` (spec.names.plural.spec.group)",
                "crds/widgets.yaml:26: warning: widgets.example.com: version v1: \
                 spec.a.b.xs[*]: unrecognized format \"colour\", which the API server ignores \
                 (the API server warns of it)",
                "crds/widgets.yaml:29: warning: widgets.example.com: version v1: spec.size: \
                 `minimum` (5) and `maximum` (1) leave no value between them (the API server \
                 accepts it)",
            ],
            "{found:#?}"
        );
    }

    /// Each finding carries the column of the key it is placed at; a finding about a version
    /// as a whole (a printer column whose path leads nowhere) is placed at the version's
    /// `name`; the file's own findings have a line at most.
    #[test]
    fn each_finding_names_the_column_of_its_key() {
        let columns = |text: &str| -> Vec<(Option<usize>, Option<usize>)> {
            check_text("x.yaml", text)
                .findings()
                .iter()
                .map(|f| (f.line, f.column))
                .collect()
        };
        assert_eq!(
            columns(CRD),
            [
                (Some(7), Some(3)),
                (Some(5), Some(3)),
                (Some(26), Some(21)),
                (Some(29), Some(15)),
            ]
        );
        let printer = CRD.replace(
            "    served: true\n",
            "    served: true\n    additionalPrinterColumns: \
             [{name: Size, type: integer, jsonPath: .spec.nope}]\n",
        );
        let report = check_text("y.yaml", &printer);
        let found = report
            .findings()
            .iter()
            .find(|f| f.message.contains("printer column"))
            .expect("the printer column's warning");
        assert_eq!((found.line, found.column), (Some(11), Some(5)), "{found}");
        let broken = check_text("z.yaml", "a: 1\nb: [\n");
        assert_eq!(broken.findings()[0].column, None);
    }

    /// Lines hold in the other shapes of a file: CRLF line ends, a CRD after another
    /// document, inside a `List`, and a node reached through an alias (placed at the alias).
    #[test]
    fn lines_hold_across_line_ends_documents_lists_and_aliases() {
        let lines = |text: &str| -> Vec<Option<usize>> {
            check_text("x.yaml", text)
                .findings()
                .iter()
                .map(|f| f.line)
                .collect()
        };
        let plain = lines(CRD);
        assert_eq!(plain, [Some(7), Some(5), Some(26), Some(29)]);
        assert_eq!(lines(&CRD.replace('\n', "\r\n")), plain);
        let after = lines(&format!("kind: ConfigMap\n---\n{CRD}"));
        assert_eq!(
            after,
            plain.iter().map(|l| l.map(|l| l + 2)).collect::<Vec<_>>()
        );
        let indented: String = CRD
            .lines()
            .skip(1)
            .enumerate()
            .map(|(i, l)| {
                let lead = if i == 0 { "- " } else { "  " };
                format!("{lead}{l}\n")
            })
            .collect();
        let list = lines(&format!("apiVersion: v1\nkind: List\nitems:\n{indented}"));
        assert_eq!(
            list,
            plain.iter().map(|l| l.map(|l| l + 2)).collect::<Vec<_>>()
        );
        let aliased = CRD.replace("              a.b:\n", "              a.b: &ab\n")
            + "              c: *ab\n";
        let found: Vec<String> = check_text("y.yaml", &aliased)
            .findings()
            .iter()
            .filter(|f| f.message.contains("colour"))
            .map(|f| format!("{}: {}", f.line.unwrap_or(0), f.message))
            .collect();
        assert_eq!(
            found,
            [
                "26: version v1: spec.a.b.xs[*]: unrecognized format \"colour\", which the API \
                 server ignores (the API server warns of it)",
                "30: version v1: spec.c.xs[*]: unrecognized format \"colour\", which the API \
                 server ignores (the API server warns of it)",
            ],
            "{found:#?}"
        );
    }

    /// The file's own findings: a YAML error at its line, a file without a CRD at line 1,
    /// a reading of a key kubectl makes at its line; a CRD in a JSON file at its
    /// document's first line.
    #[test]
    fn the_files_own_findings_are_placed_too() {
        let broken = check_text("a.yaml", "a: 1\nb: [\n");
        assert_eq!(broken.findings()[0].severity, Severity::Error);
        assert!(
            broken.findings()[0].line.is_some(),
            "{:?}",
            broken.findings()
        );
        let none = check_text("b.yaml", "kind: ConfigMap\n");
        assert_eq!(none.findings()[0].line, Some(1));
        let key = check_text(
            "c.yaml",
            &CRD.replace(
                "      openAPIV3Schema:",
                "      on: 1\n      openAPIV3Schema:",
            ),
        );
        let warning = &key.findings()[0];
        assert_eq!(
            (warning.line, warning.severity),
            (Some(15), Severity::Warning),
            "{warning}"
        );
        let json = check_text(
            "d.json",
            "\n\n{\"apiVersion\": \"apiextensions.k8s.io/v1\", \"kind\": \"CustomResourceDefinition\", \
             \"metadata\": {\"name\": \"x\"}}",
        );
        assert!(
            json.findings().iter().all(|f| f.line == Some(3)),
            "{:?}",
            json.findings()
        );
    }
}
