//! Where a deleted `+kube-markers:scaffold:<name>` marker goes back: the line the scaffold
//! wrote, placed by the lines its template wrote around it, as they stand in the file now.

use crate::plan::{MARKER, has_marker, is_marker_line};
use crate::templates::{api, init};
use std::path::Path;

/// The template that writes the marker `name` of the file `rel`.
fn template(rel: &str, name: &str) -> Option<&'static str> {
    if rel.ends_with("src/main.rs") {
        return Some(init::OPERATOR_MAIN).filter(|t| has_marker(t, name));
    }
    [
        init::OPERATOR_MANIFEST,
        init::CODEGEN_MANIFEST,
        init::API_MOD,
        init::CONTROLLERS_MOD,
        init::WEBHOOKS_MOD,
        api::GROUP_MOD,
        api::VERSION_MOD,
    ]
    .into_iter()
    .find(|t| has_marker(t, name))
}

/// The marker's line when it is all a module file of the scaffold needs (`api/mod.rs`,
/// `controllers/mod.rs`, `webhooks/mod.rs`: the modules the scaffold adds, one a line, above it).
pub(crate) fn module_marker_line(rel: &str, name: &str) -> Option<String> {
    let template = template(rel, name)?;
    let is_module = [init::API_MOD, init::CONTROLLERS_MOD, init::WEBHOOKS_MOD].contains(&template)
        && rel.ends_with("/mod.rs");
    is_module.then(|| format!("// {MARKER}{name}"))
}

/// What to paste where in `text` (the file `path`, `rel` in the project) to put the marker
/// `name` back: a line to add after or before a numbered line, or at the end of the file, or
/// the marker's comment to append to the line it ends (a TOML key's line).
pub(crate) fn way_back(path: &Path, rel: &str, name: &str, text: &str) -> String {
    let file = path.display();
    let Some(template) = template(rel, name) else {
        return format!(
            "add the line\n// {MARKER}{name}\nwhere the scaffold wrote it (kube-markers' \
             docs/start.md)"
        );
    };
    let lines: Vec<&str> = template.lines().collect();
    let Some(at) = lines.iter().position(|l| is_marker_line(l, name)) else {
        unreachable!("template() returns a template holding the marker");
    };
    let marker_line = lines[at];
    let ours: Vec<&str> = text.lines().collect();
    // The 1-based number of the one line of the file that reads `wanted` (spacing aside).
    let unique = |wanted: &str| -> Option<usize> {
        let wanted = wanted.trim();
        if wanted.is_empty() || wanted.contains("{{") {
            return None;
        }
        let mut hits = (1..).zip(&ours).filter(|(_, l)| l.trim() == wanted);
        match (hits.next(), hits.next()) {
            (Some((n, _)), None) => Some(n),
            _ => None,
        }
    };

    // A marker that ends a line of content (`webhooks = false # +...`): that line again.
    let comment_at = marker_line.find(MARKER).unwrap_or(0);
    let before_comment = marker_line[..comment_at].trim_end();
    let content = before_comment
        .strip_suffix('#')
        .or_else(|| before_comment.strip_suffix("//"))
        .unwrap_or(before_comment)
        .trim_end();
    if !content.trim().is_empty() {
        let key = content.split('=').next().unwrap_or(content).trim();
        let mut hits = (1..).zip(&ours).filter(|(_, l)| {
            l.trim()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        });
        if let (Some((n, line)), None) = (hits.next(), hits.next()) {
            return format!(
                "append `{}` to the end of {file}:{n} (`{}`)",
                &marker_line[content.len()..],
                line.trim()
            );
        }
    }

    if at + 1 == lines.len() {
        return format!("at the end of {file}, add the line\n{marker_line}");
    }
    // The nearest line of the template around the marker that the file has once.
    let before = lines[..at].iter().rev().map(|l| (l, "after"));
    let after = lines[at + 1..].iter().map(|l| (l, "before"));
    let mut nearest: Vec<(&&str, &str)> = before.zip(after).flat_map(|(b, a)| [b, a]).collect();
    nearest.extend(
        lines[..at]
            .iter()
            .rev()
            .skip(lines.len() - at - 1)
            .map(|l| (l, "after")),
    );
    nearest.extend(lines[at + 1..].iter().skip(at).map(|l| (l, "before")));
    for (anchor, side) in nearest {
        if let Some(n) = unique(anchor) {
            return format!(
                "{side} {file}:{n} (`{}`), add the line\n{marker_line}",
                anchor.trim()
            );
        }
    }
    let neighbour = lines[..at]
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map_or(String::new(), |l| format!(" after `{}`", l.trim()));
    format!("add the line\n{marker_line}\nwhere the scaffold wrote it{neighbour}")
}
