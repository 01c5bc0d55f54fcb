//! One version's checks: its `openAPIV3Schema` (structural rules, defaults, formats, CEL
//! rules), printer columns, selectable fields and the scale subresource.

use crate::cel_rules::{self, Fixes};
use crate::found::Found;
use crate::paths::resolve;
use crate::structural::{Junctor, check_metadata, check_node, root_problems, status_root_problems};
use kube_markers_cel::SchemaReport;
use kube_markers_registry::crd::SchemaProblem;
use serde_json::Value;

/// Checks one version's `openAPIV3Schema`; returns a message per problem.
pub fn check_schema(root: &Value) -> Vec<SchemaProblem> {
    check_schema_found(root).problems().cloned().collect()
}

fn check_schema_found(root: &Value) -> Found {
    let mut problems = Found::default();
    match root.as_object() {
        Some(node) => {
            root_problems(node, &mut problems);
            check_node(node, "", &mut problems, Junctor::Outside, false);
        }
        None => problems.push(SchemaProblem::version("the schema is not an object".into())),
    }
    if let Some(meta) = root["properties"].get("metadata") {
        check_metadata(meta, &mut problems);
    }
    problems
}

/// Checks printer columns, selectable fields and the scale subresource of one version (as
/// JSON) against its schema.
pub fn check_version(version: &Value) -> Vec<SchemaProblem> {
    check_version_as(version, Fixes::Attributes)
}

/// [`check_version`], with fixes of over-budget rules spelled as `fixes` says.
pub fn check_version_as(version: &Value, fixes: Fixes) -> Vec<SchemaProblem> {
    check_version_reporting(version, fixes, cel_rules::report).0
}

/// [`check_version_found`]'s problems, all of them.
pub fn check_version_reporting(
    version: &Value,
    fixes: Fixes,
    cel_check: fn(&Value) -> SchemaReport,
) -> (Vec<SchemaProblem>, Option<SchemaReport>) {
    let (found, report) = check_version_found(version, fixes, cel_check);
    (found.problems().cloned().collect(), report)
}

/// [`check_version_as`], with the CEL report `cel_check` made of the schema (`None` when
/// structural problems stopped it), so that a cost report does not type-check and cost every
/// rule again.
pub fn check_version_found(
    version: &Value,
    fixes: Fixes,
    cel_check: fn(&Value) -> SchemaReport,
) -> (Found, Option<SchemaReport>) {
    let root = &version["schema"]["openAPIV3Schema"];
    let mut problems = check_schema_found(root);
    if version["subresources"]
        .get("status")
        .is_some_and(|s| !s.is_null())
    {
        status_root_problems(root, &mut problems);
    }
    let mut report = None;
    // As the API server, type-check and cost the rules only of a schema without structural
    // problems (a refused default is not one): an invalid schema has no dependable CEL types.
    if !problems.schema_refused {
        let cel_report = cel_check(root);
        for problem in cel_rules::problems_of(&cel_report, fixes) {
            problems.push(problem);
        }
        report = Some(cel_report);
    }
    for column in version["additionalPrinterColumns"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = column["jsonPath"].as_str().unwrap_or_default();
        // The API server checks the path's syntax only.
        if let Err(why) = resolve(root, path) {
            problems.server_accepts(SchemaProblem::version(format!(
                "printer column `{}` path `{path}` does not resolve: {why}",
                column["name"].as_str().unwrap_or("?")
            )));
        }
    }
    for field in version["selectableFields"].as_array().into_iter().flatten() {
        let path = field["jsonPath"].as_str().unwrap_or_default();
        match resolve(root, path) {
            Err(why) => problems.push(SchemaProblem::version(format!(
                "selectable field `{path}` does not resolve: {why}"
            ))),
            Ok(node)
                if !node.is_null()
                    && !matches!(
                        node["type"].as_str(),
                        Some("string" | "integer" | "boolean")
                    ) =>
            {
                problems.push(SchemaProblem::version(format!(
                    "selectable field `{path}` must be a string, integer or boolean"
                )))
            }
            Ok(_) => {}
        }
    }
    if let Some(scale) = version["subresources"]["scale"].as_object() {
        for key in [
            "specReplicasPath",
            "statusReplicasPath",
            "labelSelectorPath",
        ] {
            let Some(path) = scale.get(key).and_then(Value::as_str) else {
                continue;
            };
            let expected_root = if key == "specReplicasPath" {
                ".spec."
            } else {
                ".status."
            };
            if key == "labelSelectorPath" {
                if !path.is_empty() && !path.starts_with(".spec.") && !path.starts_with(".status.")
                {
                    problems.push(SchemaProblem::version(format!(
                        "scale {key} `{path}` must be under `.spec` or `.status`"
                    )));
                }
            } else if !path.starts_with(expected_root) {
                problems.push(SchemaProblem::version(format!(
                    "scale {key} `{path}` must be under `{}`",
                    expected_root.trim_end_matches('.')
                )));
            }
            // The API server checks the prefix and the syntax only.
            match resolve(root, path) {
                Err(why) => problems.server_accepts(SchemaProblem::version(format!(
                    "scale {key} `{path}` does not resolve: {why}"
                ))),
                Ok(node) if key != "labelSelectorPath" && node["type"] != "integer" => problems
                    .server_accepts(SchemaProblem::version(format!(
                        "scale {key} `{path}` must be an integer"
                    ))),
                Ok(_) => {}
            }
        }
    }
    (problems, report)
}
