//! One CRD's reference page, rendered from the CRD object as the generator writes it.

use super::fields::{self, Field, Rule};
use super::markdown::{anchor, cell, code};
use serde_json::Value;
use std::fmt::Write;

/// The page of `crd` (a `CustomResourceDefinition` as JSON); `notice` is its first line.
pub(crate) fn render(crd: &Value, file_name: &str, notice: &str) -> String {
    let spec = &crd["spec"];
    let names = &spec["names"];
    let kind = str_at(names, "kind");
    let group = str_at(spec, "group");
    let mut page = String::new();
    let _ = writeln!(page, "{notice}\n\n# {kind}\n");
    let _ = writeln!(
        page,
        "{} in the group {}, from the CRD {}.\n",
        code(str_at(&crd["metadata"], "name")),
        code(group),
        code(file_name)
    );
    page.push_str("| | |\n|---|---|\n");
    let mut row = |name: &str, value: String| {
        if !value.is_empty() {
            let _ = writeln!(page, "| {name} | {value} |");
        }
    };
    row("Group", code(group));
    row(
        "Kind",
        match names.get("listKind").and_then(Value::as_str) {
            Some(list) => format!("{} (list: {})", code(kind), code(list)),
            None => code(kind),
        },
    );
    row("Plural", code(str_at(names, "plural")));
    row(
        "Singular",
        names
            .get("singular")
            .and_then(Value::as_str)
            .map(code)
            .unwrap_or_default(),
    );
    row("Short names", code_list(names.get("shortNames")));
    row("Categories", code_list(names.get("categories")));
    row("Scope", str_at(spec, "scope").to_string());
    let versions: Vec<&Value> = spec["versions"]
        .as_array()
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let listed: Vec<String> = versions
        .iter()
        .map(|v| {
            let name = str_at(v, "name");
            let notes = version_notes(v);
            let link = format!("[{}](#{})", code(name), anchor(&version_heading(v)));
            if notes.is_empty() {
                link
            } else {
                format!("{link} ({})", notes.join(", "))
            }
        })
        .collect();
    row("Versions", listed.join(", "));
    page.push('\n');
    for version in versions {
        render_version(&mut page, group, kind, version);
    }
    page
}

/// `served`, `storage`, `deprecated`, `not served`: what a version's list entry says of it.
fn version_notes(version: &Value) -> Vec<&'static str> {
    let flag = |key: &str| version.get(key).and_then(Value::as_bool) == Some(true);
    let mut notes = Vec::new();
    if flag("storage") {
        notes.push("storage");
    }
    if !flag("served") {
        notes.push("not served");
    }
    if flag("deprecated") {
        notes.push("deprecated");
    }
    notes
}

/// A version's heading, `v1` or `v1alpha1 (deprecated)`: the anchor the index links to.
fn version_heading(version: &Value) -> String {
    let name = str_at(version, "name");
    if version.get("deprecated").and_then(Value::as_bool) == Some(true) {
        format!("{name} (deprecated)")
    } else {
        name.to_string()
    }
}

fn render_version(page: &mut String, group: &str, kind: &str, version: &Value) {
    let name = str_at(version, "name");
    let _ = writeln!(page, "## {}\n", version_heading(version));
    let flag = |key: &str| version.get(key).and_then(Value::as_bool) == Some(true);
    let mut about = vec![format!("`apiVersion: {group}/{name}`, `kind: {kind}`")];
    about.push(
        if flag("served") {
            "served"
        } else {
            "not served"
        }
        .to_string(),
    );
    if flag("storage") {
        about.push("the storage version".to_string());
    }
    if flag("deprecated") {
        about.push("deprecated".to_string());
    }
    let _ = writeln!(page, "{}.\n", about.join("; "));
    if version.get("deprecated").and_then(Value::as_bool) == Some(true) {
        let warning = version
            .get("deprecationWarning")
            .and_then(Value::as_str)
            .map(cell)
            .unwrap_or_else(|| format!("{group}/{name} {kind} is deprecated."));
        let _ = writeln!(page, "> [!WARNING]\n> Deprecated: {warning}\n");
    }
    render_subresources(page, version);
    render_selectable_fields(page, version);
    render_columns(page, name, version);
    let schema = &version["schema"]["openAPIV3Schema"];
    let (fields, rules) = fields::flatten(schema);
    render_fields(page, name, schema, &fields);
    render_rules(page, name, &rules);
}

fn render_subresources(page: &mut String, version: &Value) {
    let Some(subresources) = version.get("subresources").and_then(Value::as_object) else {
        return;
    };
    let mut parts = Vec::new();
    if subresources.contains_key("status") {
        parts.push("`status`".to_string());
    }
    if let Some(scale) = subresources.get("scale") {
        let paths: Vec<String> = [
            ("specReplicasPath", "spec replicas"),
            ("statusReplicasPath", "status replicas"),
            ("labelSelectorPath", "label selector"),
        ]
        .iter()
        .filter_map(|(key, what)| {
            scale
                .get(*key)
                .and_then(Value::as_str)
                .map(|p| format!("{what} {}", code(p)))
        })
        .collect();
        parts.push(format!("`scale` ({})", paths.join(", ")));
    }
    let _ = writeln!(page, "Subresources: {}.\n", parts.join(", "));
}

fn render_selectable_fields(page: &mut String, version: &Value) {
    let Some(selectable) = version.get("selectableFields").and_then(Value::as_array) else {
        return;
    };
    let paths: Vec<String> = selectable
        .iter()
        .filter_map(|f| f.get("jsonPath").and_then(Value::as_str))
        .map(code)
        .collect();
    let _ = writeln!(page, "Selectable fields: {}.\n", paths.join(", "));
}

fn render_columns(page: &mut String, name: &str, version: &Value) {
    let Some(columns) = version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
    else {
        return;
    };
    let _ = writeln!(page, "### Printer columns of {name}\n");
    page.push_str("| Name | Type | JSONPath | Priority | Description |\n|---|---|---|---|---|\n");
    for column in columns {
        let format = column
            .get("format")
            .and_then(Value::as_str)
            .map(|f| format!(" ({f})"))
            .unwrap_or_default();
        let _ = writeln!(
            page,
            "| {} | {} | {} | {} | {} |",
            cell(str_at(column, "name")),
            cell(&format!("{}{format}", str_at(column, "type"))),
            code(str_at(column, "jsonPath")),
            column.get("priority").and_then(Value::as_i64).unwrap_or(0),
            cell(str_at(column, "description")),
        );
    }
    page.push('\n');
}

/// kube-rs's description of the root of a `#[derive(CustomResource)]` type that has no
/// `#[kube(doc = "...")]`: it names the Rust type, and says nothing of the kind to a reader.
fn derived_placeholder(description: &str) -> bool {
    description
        .strip_prefix("Auto-generated derived type for ")
        .and_then(|rest| rest.strip_suffix(" via `CustomResource`"))
        .is_some_and(|name| !name.contains(char::is_whitespace))
}

fn render_fields(page: &mut String, name: &str, schema: &Value, fields: &[Field]) {
    let _ = writeln!(page, "### Fields of {name}\n");
    if let Some(description) = schema.get("description").and_then(Value::as_str)
        && !derived_placeholder(description)
    {
        let _ = writeln!(page, "{}\n", cell(description));
    }
    if fields.is_empty() {
        page.push_str("No fields.\n\n");
        return;
    }
    page.push_str(
        "`a.b` is the field `b` of `a`, `a[*]` each item of the list `a`, `a.*` each value of \
         the map `a`.\n\n",
    );
    page.push_str("| Field | Type | Required | Constraints | Description |\n");
    page.push_str("|---|---|---|---|---|\n");
    for field in fields {
        let required = match field.required {
            Some(true) => "required",
            Some(false) => "optional",
            None => "",
        };
        let _ = writeln!(
            page,
            "| {} | {} | {required} | {} | {} |",
            code(&field.path),
            cell(&fields::type_of(field.schema)),
            fields::constraints(field.schema).join("<br>"),
            cell(str_at(field.schema, "description")),
        );
    }
    page.push('\n');
}

fn render_rules(page: &mut String, name: &str, rules: &[Rule]) {
    if rules.is_empty() {
        return;
    }
    let _ = writeln!(page, "### Validation rules of {name}\n");
    page.push_str(
        "CEL rules the API server checks on every write; `self` is the field they apply to.\n\n",
    );
    page.push_str("| Applies to | Rule | Message | Details |\n|---|---|---|---|\n");
    for Rule { path, rule } in rules {
        let applies_to = if path.is_empty() {
            "the object".to_string()
        } else {
            code(path)
        };
        let message = match (
            rule.get("message").and_then(Value::as_str),
            rule.get("messageExpression").and_then(Value::as_str),
        ) {
            (_, Some(expression)) => format!("computed by {}", code(expression)),
            (Some(message), None) => cell(message),
            (None, None) => format!("failed rule: {}", code(str_at(rule, "rule"))),
        };
        let mut details = Vec::new();
        if let Some(reason) = rule.get("reason").and_then(Value::as_str) {
            details.push(format!("reason {}", code(reason)));
        }
        if let Some(field_path) = rule.get("fieldPath").and_then(Value::as_str) {
            details.push(format!("reported at {}", code(field_path)));
        }
        if rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true) {
            details.push("also on create (`oldSelf` optional)".to_string());
        }
        let _ = writeln!(
            page,
            "| {applies_to} | {} | {message} | {} |",
            code(str_at(rule, "rule")),
            details.join("; "),
        );
    }
    page.push('\n');
}

/// The string at `key`, or `""`.
pub(crate) fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `` `a`, `b` `` for a list of strings; empty for none.
fn code_list(list: Option<&Value>) -> String {
    list.and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(Value::as_str)
                .map(code)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}
