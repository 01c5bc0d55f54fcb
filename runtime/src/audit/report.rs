//! What an [`Audit`](super::Audit) saw: requests no rule covers, with the attribute that would,
//! and declared rules no request used.

use super::permissions::{Declared, Permission};
use kube_markers_core::model::SuggestedRbac;
use kube_markers_rbac::authorize::RequestAttributes;
use serde::Serialize;
use std::fmt;

/// An audit's findings. `Display` is for people, `Serialize` (JSON) for tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Report {
    /// How many requests went through the layer.
    pub requests: u64,
    /// Requests the roles do not allow, one per distinct verb, resource and namespace (object
    /// names aside), in the order first seen.
    pub uncovered: Vec<Uncovered>,
    /// Declared rules with verbs no request used, in declaration order.
    pub unused: Vec<Unused>,
    /// Rules of the roles with verbs no request needed alone: never used (generated rules
    /// only; a manifest's rules are in `unused`), or another rule also allowed each request
    /// made with them, so without this rule (or verb) nothing made would have been denied.
    /// With no `unused` and no `unneeded`, every verb of every rule was needed.
    pub unneeded: Vec<Unused>,
}

/// Requests that no rule allows (they differ at most in the object's name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Uncovered {
    /// What the API server authorizes, in its own wording:
    /// `"list" resource "pods" in namespace "ns"`.
    pub request: String,
    /// The first such request: HTTP method.
    pub method: String,
    /// The first such request: path and query.
    pub url: String,
    /// How many such requests were made.
    pub count: u64,
    /// The `#[rbac(...)]` attribute that would allow them, ready to paste (`None` for a
    /// request no attribute can name, such as an unknown HTTP method on a resource).
    pub suggestion: Option<String>,
}

/// A declared rule whose permission was never used for some of its verbs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Unused {
    /// Where it was declared: `file:line (item)` of the attribute, or the role's rule.
    pub declared: String,
    /// The attribute's file (`None` for a rule read from manifests).
    pub file: Option<String>,
    /// The attribute's line.
    pub line: Option<u32>,
    /// The rule, written as an attribute.
    pub attribute: String,
    /// Its verbs no request used.
    pub verbs: Vec<String>,
    /// Why this is expected, when the caller said so ([`Report::expect_unused`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
}

impl Unused {
    pub(crate) fn new(permission: &Permission, verbs: Vec<String>) -> Self {
        let (file, line) = match &permission.declared {
            Declared::Attribute(source) => (Some(source.file.to_string()), Some(source.line)),
            Declared::Rule { .. } => (None, None),
        };
        Unused {
            declared: permission.declared.to_string(),
            file,
            line,
            attribute: permission.attribute_text(),
            verbs,
            expected: None,
        }
    }
}

impl Report {
    /// Whether every request was covered and every declared verb used (expected-unused ones
    /// aside).
    pub fn is_clean(&self) -> bool {
        self.uncovered.is_empty()
            && self.unexpected_unused().next().is_none()
            && self.unneeded.is_empty()
    }

    /// Marks `verb` of the attribute at `file:line` as expected to be unused, with the reason
    /// (shown in the report). Returns `false` if the report lists no such unused verb, so a
    /// stale expectation is noticed.
    pub fn expect_unused(&mut self, file_line: &str, verb: &str, reason: &str) -> bool {
        let Some(unused) = self.unused.iter_mut().find(|u| {
            u.file
                .as_ref()
                .zip(u.line)
                .map(|(f, l)| format!("{f}:{l}"))
                .as_deref()
                == Some(file_line)
                && u.verbs.iter().any(|v| v == verb)
        }) else {
            return false;
        };
        let note = format!("{verb}: {reason}");
        unused.expected = Some(match unused.expected.take() {
            Some(earlier) => format!("{earlier}; {note}"),
            None => note,
        });
        true
    }

    /// Unused rules not marked as expected.
    pub fn unexpected_unused(&self) -> impl Iterator<Item = &Unused> {
        self.unused.iter().filter(|u| u.expected.is_none())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "kube-markers audit: {} requests, {} not covered by the roles, {} declared rules with unused verbs, {} rules with verbs never needed alone",
            self.requests,
            self.uncovered.len(),
            self.unused.len(),
            self.unneeded.len()
        )?;
        if !self.uncovered.is_empty() {
            writeln!(f, "not covered:")?;
            for u in &self.uncovered {
                writeln!(
                    f,
                    "  {} ({}×, first {} {})",
                    u.request, u.count, u.method, u.url
                )?;
                match &u.suggestion {
                    Some(attribute) => writeln!(f, "    {attribute}")?,
                    None => writeln!(f, "    (no attribute can grant this)")?,
                }
            }
        }
        if !self.unused.is_empty() {
            writeln!(f, "never used:")?;
            for u in &self.unused {
                writeln!(
                    f,
                    "  {}: {} of {}",
                    u.declared,
                    u.verbs.join(", "),
                    u.attribute
                )?;
                if let Some(reason) = &u.expected {
                    writeln!(f, "    expected: {reason}")?;
                }
            }
        }
        if !self.unneeded.is_empty() {
            writeln!(
                f,
                "never needed alone (unused, or another rule allowed each request):"
            )?;
            for u in &self.unneeded {
                writeln!(
                    f,
                    "  {}: {} of {}",
                    u.declared,
                    u.verbs.join(", "),
                    u.attribute
                )?;
            }
        }
        Ok(())
    }
}

/// The attribute that grants `request`: its group as written in an attribute (`""` for the
/// core group), `resource[/subresource]`, the verb, and `namespace = ".."` when the declared
/// rules grant this resource only through Roles of the request's namespace (so the new verb
/// lands in that Role rather than in a new cluster-wide grant).
pub(crate) fn suggestion(request: &RequestAttributes, declared: &[Permission]) -> Option<String> {
    let verb = &request.verb;
    if verb.is_empty() {
        return None;
    }
    if !request.resource_request {
        let url = SuggestedRbac {
            url: Some(&request.path),
            verbs: verb,
            ..Default::default()
        };
        return Some(url.to_string());
    }
    let resource = if request.subresource.is_empty() {
        request.resource.clone()
    } else {
        format!("{}/{}", request.resource, request.subresource)
    };
    let mut attribute = SuggestedRbac {
        group: &request.api_group,
        resource: &resource,
        verbs: verb,
        ..Default::default()
    };
    let same_target = |p: &&Permission| {
        let groups = p.rule.api_groups.as_deref().unwrap_or_default();
        let resources = p.rule.resources.as_deref().unwrap_or_default();
        groups.contains(&request.api_group) && resources.contains(&resource)
    };
    let mut targets = declared.iter().filter(same_target).peekable();
    if !request.namespace.is_empty()
        && targets.peek().is_some()
        && targets.all(|p| p.namespace.as_deref() == Some(request.namespace.as_str()))
    {
        attribute.namespace = Some(&request.namespace);
    }
    Some(attribute.to_string())
}
