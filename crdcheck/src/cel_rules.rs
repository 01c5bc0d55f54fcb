//! CEL rules and message expressions type-checked and costed as kube-apiserver 1.37 checks
//! them when a CRD is created (kube-markers-cel), each problem at its schema node with the
//! server's own text and, for a rule over the cost budget, the bound that fixes it.

use kube_markers_cel::{Fix, SchemaReport, check_schema};
use kube_markers_registry::crd::SchemaProblem;
use serde_json::Value;

/// How a fix is spelled: as the marker on the Rust field, or as the schema keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixes {
    /// `#[k8s(max_items = 48)]` on `xs`: the generator's own CRDs.
    Attributes,
    /// `maxItems: 48` at `spec.xs`: any CRD file (`check-crds`).
    Yaml,
}

/// The type check and cost estimate of one version's `openAPIV3Schema`.
pub fn report(root: &Value) -> SchemaReport {
    check_schema(root, "openAPIV3Schema")
}

/// [`report`], with what bounds each expression's cost (for the cost report; slower).
pub fn report_with_bounds(root: &Value) -> SchemaReport {
    kube_markers_cel::check_schema_with_bounds(root, "openAPIV3Schema")
}

/// The CEL problems of one version's `openAPIV3Schema`.
#[cfg(test)]
pub fn problems(root: &Value, fixes: Fixes) -> Vec<SchemaProblem> {
    problems_of(&report(root), fixes)
}

/// The problems of a report, each at its node, with its fix spelled as `fixes` says.
pub fn problems_of(report: &SchemaReport, fixes: Fixes) -> Vec<SchemaProblem> {
    report
        .problems
        .iter()
        .map(|p| {
            let (node, what) = split(&p.path);
            let subject = match (&p.expression, what) {
                (Some(e), Some(w)) => format!("{} `{e}`", describe(w)),
                _ => "the schema's CEL rules".to_string(),
            };
            let fix = match &p.fix {
                Some(f) => fix_text(f, fixes),
                None if p.detail.contains("cost exceeds budget") => "; no single maxItems, \
                    maxProperties or maxLength brings it under budget: a value without a size \
                    estimate (such as string() of a number) costs as if unbounded; simplify it"
                    .to_string(),
                None => String::new(),
            };
            SchemaProblem::at(
                &node,
                format!("{subject}: the API server refuses it: {}{fix}", p.detail),
            )
        })
        .collect()
}

/// `openAPIV3Schema.properties[spec].properties[xs].x-kubernetes-validations[0].rule` →
/// (`spec.xs`, `x-kubernetes-validations[0].rule`), in the generator's path style.
fn split(path: &str) -> (String, Option<&str>) {
    let (node, what) = match path.find(".x-kubernetes-validations") {
        Some(i) => (&path[..i], Some(&path[i + 1..])),
        None => (path, None),
    };
    (generator_path(node), what)
}

/// A schema path as the other checks name nodes: `spec.conditions[*].type`, `<root>`.
pub fn generator_path(schema_path: &str) -> String {
    let rest = schema_path
        .strip_prefix("openAPIV3Schema")
        .unwrap_or(schema_path);
    let mut out = String::new();
    let mut rest = rest;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix(".properties[") {
            let end = r.find(']').unwrap_or(r.len());
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&r[..end]);
            rest = r.get(end + 1..).unwrap_or("");
        } else if let Some(r) = rest.strip_prefix(".items") {
            out.push_str("[*]");
            rest = r;
        } else if let Some(r) = rest.strip_prefix(".additionalProperties") {
            out.push_str("[<key>]");
            rest = r;
        } else {
            break;
        }
    }
    if out.is_empty() { "<root>".into() } else { out }
}

fn describe(what: &str) -> &'static str {
    if what.ends_with(".messageExpression") {
        "message_expression"
    } else if what.ends_with(".optionalOldSelf") {
        "the optional_old_self of rule"
    } else {
        "rule"
    }
}

/// "; fix: add `#[k8s(max_items = 48)]` on `xs` (…)" or "; fix: set `maxItems: 48` at spec.xs".
fn fix_text(fix: &Fix, fixes: Fixes) -> String {
    let node = generator_path(&fix.schema_path);
    let max = fix.max;
    let keyword = fix.keyword;
    match fixes {
        Fixes::Attributes => {
            let attr = match keyword {
                "maxItems" => "max_items",
                "maxProperties" => "max_properties",
                _ => "max_length",
            };
            let on = fix
                .property
                .as_deref()
                .map(|p| format!(" on `{p}`"))
                .unwrap_or_default();
            format!(
                "; fix: add `#[k8s({attr} = {max})]`{on} (`{keyword}: {max}` at {node}; a bound ≤ {max} keeps it under budget)"
            )
        }
        Fixes::Yaml => {
            format!(
                "; fix: set `{keyword}: {max}` at {node} (a bound ≤ {max} keeps it under budget)"
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::problems;
    use serde_json::{Value, json};

    fn spec(rules: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "x-kubernetes-validations": rules,
            "properties": {
                "count": {"type": "integer"},
                "xs": {"type": "array", "items": {"type": "string", "maxLength": 16}},
            },
        }}})
    }

    fn messages(rules: Value) -> Vec<String> {
        problems(&spec(rules), super::Fixes::Attributes)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The four rules kube-apiserver 1.37.2 refuses at create time, each named at its node.
    #[test]
    fn the_four_refused_rules_are_refused_at_their_node() {
        let undefined = messages(json!([{"rule": "self.nope == 1"}]));
        assert_eq!(
            undefined,
            [
                "spec: rule `self.nope == 1`: the API server refuses it: compilation failed: ERROR: \
              <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^"
            ]
        );
        let overload = messages(json!([{"rule": "self.count == 'a'"}]));
        assert!(
            overload[0]
                .contains("found no matching overload for '_==_' applied to '(int, string)'"),
            "{overload:?}"
        );

        let nested = messages(json!([{"rule": "self.xs.all(x, self.xs.all(y, x == y))"}]));
        assert!(nested[0].starts_with("spec: rule `self.xs.all(x, self.xs.all(y, x == y))`: the API server refuses it: estimated rule cost exceeds budget by factor of more than 100x"), "{nested:?}");
        assert!(
            nested[0].contains("fix: add `#[k8s(max_items = "),
            "{nested:?}"
        );
        assert!(nested[0].contains(")]` on `xs`"), "{nested:?}");

        let message = messages(
            json!([{"rule": "self.count >= 0", "messageExpression": "'got ' + string(self.count)"}]),
        );
        assert!(message[0].starts_with("spec: message_expression `'got ' + string(self.count)`: the API server refuses it: estimated messageExpression cost exceeds budget by factor of more than 100x"), "{message:?}");
        assert!(message.iter().any(|m| m.starts_with("<root>: the schema's CEL rules: the API server refuses it: x-kubernetes-validations estimated rule cost total")), "{message:?}");
    }

    #[test]
    fn rules_the_server_accepts_pass() {
        for rule in [
            "self.count >= 0",
            "self.xs.all(x, x.size() < 10)",
            "!has(self.count) || self.count < 5",
        ] {
            assert_eq!(
                messages(json!([{"rule": rule}])),
                Vec::<String>::new(),
                "{rule}"
            );
        }
        let bounded = json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [{"rule": "self.xs.all(x, self.xs.all(y, x == y))"}],
            "properties": {"xs": {"type": "array", "maxItems": 48, "items": {"type": "string", "maxLength": 16}}}}}});
        assert_eq!(problems(&bounded, super::Fixes::Attributes).len(), 0);
    }
}
