//! The completeness check, written apart from the renderer: it walks the CRD and asks the
//! page for each name, path and value as a reader would look for it.

use serde_json::Value;

/// What of `crd` (a CRD object as its YAML reads back) `page` does not show.
pub fn check_page(crd: &Value, page: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let spec = &crd["spec"];
    let names = &spec["names"];
    let head = page.split("\n## ").next().unwrap_or("");
    let mut expect_in_head = vec![
        format!("# {}", text(&names["kind"])),
        format!("`{}`", text(&spec["group"])),
        format!("`{}`", text(&names["plural"])),
        text(&spec["scope"]),
    ];
    for key in ["shortNames", "categories"] {
        for name in names[key].as_array().into_iter().flatten() {
            expect_in_head.push(format!("`{}`", text(name)));
        }
    }
    for needle in expect_in_head {
        if !head.contains(&needle) {
            problems.push(format!("the page's head lacks {needle}"));
        }
    }
    for version in spec["versions"].as_array().into_iter().flatten() {
        check_version(version, page, &mut problems);
    }
    problems
}

fn check_version(version: &Value, page: &str, problems: &mut Vec<String>) {
    let name = text(&version["name"]);
    let deprecated = version["deprecated"].as_bool() == Some(true);
    let heading = if deprecated {
        format!("## {name} (deprecated)\n")
    } else {
        format!("## {name}\n")
    };
    let Some(start) = page.find(&heading) else {
        problems.push(format!("no heading `{}`", heading.trim()));
        return;
    };
    let rest = &page[start + heading.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let mut want = |needle: String, what: &str| {
        if !section.contains(&needle) {
            problems.push(format!("{name}: {what}: {needle} is not on the page"));
        }
    };
    if deprecated {
        want("Deprecated".into(), "deprecation");
        if let Some(warning) = version["deprecationWarning"].as_str() {
            for word in words_of(warning) {
                want(word, "the deprecation warning");
            }
        }
    }
    for column in version["additionalPrinterColumns"]
        .as_array()
        .into_iter()
        .flatten()
    {
        want(format!("| {} |", text(&column["name"])), "printer column");
        want(
            format!("`{}`", escape_pipes(&text(&column["jsonPath"]))),
            "printer column path",
        );
    }
    for field in version["selectableFields"].as_array().into_iter().flatten() {
        want(
            format!("`{}`", text(&field["jsonPath"])),
            "selectable field",
        );
    }
    let schema = &version["schema"]["openAPIV3Schema"];
    let mut expected = Vec::new();
    let mut rules = Vec::new();
    walk(schema, "", None, &mut expected, &mut rules);
    for field in &expected {
        check_row(&name, section, field, problems);
    }
    for (path, rule) in &rules {
        check_rule(&name, section, path, rule, problems);
    }
}

/// A field the page must show: its path, its schema, required (`Some`) or neither (items).
struct Expected<'a> {
    path: String,
    schema: &'a Value,
    required: Option<bool>,
}

fn walk<'a>(
    node: &'a Value,
    path: &str,
    required: Option<bool>,
    out: &mut Vec<Expected<'a>>,
    rules: &mut Vec<(String, &'a Value)>,
) {
    if !path.is_empty() {
        out.push(Expected {
            path: path.to_string(),
            schema: node,
            required,
        });
    }
    for rule in node["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
    {
        rules.push((path.to_string(), rule));
    }
    let listed: Vec<&str> = node["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (name, child) in node["properties"].as_object().into_iter().flatten() {
        let child_path = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        walk(
            child,
            &child_path,
            Some(listed.contains(&name.as_str())),
            out,
            rules,
        );
    }
    for (key, suffix) in [("items", "[*]"), ("additionalProperties", ".*")] {
        let inner = &node[key];
        if !inner.is_object() {
            continue;
        }
        let inner_path = format!("{path}{suffix}");
        if has_constraints(inner) {
            walk(inner, &inner_path, None, out, rules);
        } else {
            // Nothing to show of its own: only its children and rules.
            let mut children = Vec::new();
            walk(inner, &inner_path, None, &mut children, rules);
            out.extend(children.into_iter().filter(|e| e.path != inner_path));
        }
    }
}

const CONSTRAINT_KEYS: [&str; 18] = [
    "description",
    "default",
    "enum",
    "format",
    "minimum",
    "maximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "nullable",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-preserve-unknown-fields",
];

fn has_constraints(schema: &Value) -> bool {
    CONSTRAINT_KEYS.iter().any(|k| schema.get(*k).is_some())
        || schema.get("x-kubernetes-int-or-string").is_some()
        || schema.get("x-kubernetes-embedded-resource").is_some()
}

fn check_row(version: &str, section: &str, field: &Expected, problems: &mut Vec<String>) {
    let start = format!("| `{}` |", field.path);
    let Some(row) = section.lines().find(|l| l.starts_with(&start)) else {
        problems.push(format!("{version}: no row for `{}`", field.path));
        return;
    };
    let cells = cells(row);
    let [_, ty, required, constraints, description] = cells.as_slice() else {
        problems.push(format!(
            "{version}: `{}`: not five cells: {row}",
            field.path
        ));
        return;
    };
    let mut fail = |what: &str, needle: &str, cell: &str| {
        problems.push(format!(
            "{version}: `{}`: {what}: {needle:?} not in {cell:?}",
            field.path
        ));
    };
    let s = field.schema;
    let expected_required = match field.required {
        Some(true) => "required",
        Some(false) => "optional",
        None => "",
    };
    if required.trim() != expected_required {
        fail("required", expected_required, required);
    }
    let type_word = match (s["type"].as_str(), s.get("x-kubernetes-int-or-string")) {
        (_, Some(_)) => "int or string".to_string(),
        (Some("array"), _) => "[]".to_string(),
        (Some("object"), _) if s["additionalProperties"].is_object() => "map[string]".into(),
        (Some(t), _) => t.to_string(),
        (None, _) => "any".to_string(),
    };
    if !ty.contains(&type_word) {
        fail("type", &type_word, ty);
    }
    if let Some(format) = s["format"].as_str()
        && !ty.contains(&format!("({format})"))
    {
        fail("format", format, ty);
    }
    if s["x-kubernetes-embedded-resource"].as_bool() == Some(true)
        && !ty.contains("embedded resource")
    {
        fail("embedded resource", "embedded resource", ty);
    }
    for key in [
        "minimum",
        "maximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    ] {
        if let Some(value) = s.get(key) {
            let mut needle = format!("{key}: `{value}`");
            let exclusive = format!("exclusive{}", &key[..1].to_uppercase()) + &key[1..];
            if s[&exclusive].as_bool() == Some(true) {
                needle.push_str(" (exclusive)");
            }
            if !constraints.contains(&needle) {
                fail(key, &needle, constraints);
            }
        }
    }
    if let Some(default) = s.get("default") {
        let needle = format!("default: `{}`", escape_pipes(&default.to_string()));
        if !constraints.contains(&needle) {
            fail("default", &needle, constraints);
        }
    }
    for value in s["enum"].as_array().into_iter().flatten() {
        let needle = format!("`{}`", escape_pipes(&value.to_string()));
        if !constraints.contains("enum: ") || !constraints.contains(&needle) {
            fail("enum", &needle, constraints);
        }
    }
    if let Some(pattern) = s["pattern"].as_str() {
        let needle = format!("pattern: `{}`", escape_pipes(pattern));
        if !constraints.contains(&needle) {
            fail("pattern", &needle, constraints);
        }
    }
    for (key, shown) in [
        ("nullable", "nullable"),
        (
            "x-kubernetes-preserve-unknown-fields",
            "preserves unknown fields",
        ),
    ] {
        if s[key].as_bool() == Some(true) && !constraints.contains(shown) {
            fail(key, shown, constraints);
        }
    }
    for (key, shown) in [
        ("x-kubernetes-list-type", "list type"),
        ("x-kubernetes-map-type", "map type"),
    ] {
        if let Some(value) = s[key].as_str() {
            let needle = format!("{shown}: `{value}`");
            if !constraints.contains(&needle) {
                fail(key, &needle, constraints);
            }
        }
    }
    for key in s["x-kubernetes-list-map-keys"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let needle = format!("`{}`", text(key));
        if !constraints.contains("map keys: ") || !constraints.contains(&needle) {
            fail("list map keys", &needle, constraints);
        }
    }
    if let Some(words) = s["description"].as_str().map(words_of) {
        let mut rest: &str = description;
        for word in words {
            match rest.find(&word) {
                Some(at) => rest = &rest[at + word.len()..],
                None => {
                    fail("description", &word, description);
                    break;
                }
            }
        }
    }
}

fn check_rule(version: &str, section: &str, path: &str, rule: &Value, problems: &mut Vec<String>) {
    let applies_to = if path.is_empty() {
        "the object".to_string()
    } else {
        format!("`{path}`")
    };
    let rule_text = format!("`{}`", escape_pipes(&text(&rule["rule"])));
    let found = section.lines().filter(|l| l.starts_with('|')).any(|row| {
        let cells = cells(row);
        cells.len() == 4
            && cells[0].trim() == applies_to
            && cells[1].contains(&rule_text)
            && rule["message"]
                .as_str()
                .is_none_or(|m| words_of(m).iter().all(|w| cells[2].contains(w)))
            && rule["messageExpression"]
                .as_str()
                .is_none_or(|m| cells[2].contains(&escape_pipes(m)))
            && rule["reason"].as_str().is_none_or(|r| cells[3].contains(r))
            && rule["fieldPath"]
                .as_str()
                .is_none_or(|f| cells[3].contains(f))
    });
    if !found {
        problems.push(format!(
            "{version}: no rule row for {applies_to} with {rule_text} and its message, reason \
             and field path"
        ));
    }
}

/// A row's cells, split at the `|`s that are not escaped, without the outer ones.
fn cells(row: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut chars = row.trim().trim_start_matches('|').chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push_str("\\|");
                chars.next();
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    if cells.last().is_some_and(|c| c.trim().is_empty()) {
        cells.pop();
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The runs of letters and digits of a text: what must survive any escaping.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn escape_pipes(text: &str) -> String {
    text.replace('|', "\\|")
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}
