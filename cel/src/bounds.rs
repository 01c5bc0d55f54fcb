//! What bounds an expression's estimated cost, for the cost report: the lists and maps above
//! its node, which multiply how many times it runs, and the lists, maps and strings whose sizes
//! one evaluation's estimate reads, each with its declared `maxItems`, `maxProperties` or
//! `maxLength`, or the size the API server derives from the request-size limit without one.

use crate::compile_here;
use crate::crd::{Ancestor, bounded_nodes, node_at, set_bound};
use crate::schema::DeclType;
use serde_json::Value;

/// One list, map or string that bounds an expression's cost.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SizeBound {
    /// The schema path of the node (`openAPIV3Schema.properties[spec].properties[xs]`).
    pub schema_path: String,
    /// `maxItems`, `maxProperties` or `maxLength`.
    pub keyword: &'static str,
    /// The size the estimate takes: the declared bound; without one, for a node above the
    /// rule the count of runs the server derives from the request size (for all unbounded
    /// ancestors together), for a node the rule reads the size it derives for that node
    /// (`maxLength` in characters).
    pub size: u64,
    /// Whether the schema declares `keyword` on the node.
    pub declared: bool,
    /// Whether the node is a list or map above the expression's node, multiplying how many
    /// times it runs, rather than a size one evaluation reads.
    pub multiplies: bool,
}

/// The lists and maps above a rule's node: each multiplies its runs by its bound; when one is
/// unbounded, the server takes `cardinality` (derived from the request size) for them all.
pub(crate) fn multipliers(ancestors: &[Ancestor], cardinality: u64) -> Vec<SizeBound> {
    ancestors
        .iter()
        .map(|a| SizeBound {
            schema_path: a.schema_path.clone(),
            keyword: a.keyword,
            size: a.bound.unwrap_or(cardinality),
            declared: a.bound.is_some(),
            multiplies: true,
        })
        .collect()
}

/// The lists, maps and strings under the expression's node whose size its per-call estimate
/// depends on: those whose halving lowers the estimate (the estimate is monotone in sizes).
/// Only nodes the expression can name are tried: the root of the node, or a path whose first
/// field occurs in its text.
pub(crate) fn per_call(
    expr: &str,
    decl: &DeclType,
    schema: &Value,
    path: &str,
    optional_old_self: bool,
    per_call: u64,
) -> Vec<SizeBound> {
    let mut out = Vec::new();
    for (sub, keyword, size) in bounded_nodes(decl, &mut Vec::new()) {
        if size == 0 {
            continue;
        }
        if let Some(first) = sub.first()
            && first != "@items"
            && !expr.contains(first.as_str())
        {
            continue;
        }
        let mut smaller = decl.clone();
        set_bound(&mut smaller, &sub, keyword, size / 2);
        let lowers =
            compile_here(expr, &smaller, optional_old_self).is_ok_and(|c| c.cost.max < per_call);
        if !lowers {
            continue;
        }
        let (schema_path, _, node) = node_at(schema, path, &sub);
        out.push(SizeBound {
            schema_path,
            keyword,
            size,
            declared: node.is_some_and(|n| n.get(keyword).is_some()),
            multiplies: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::check_schema_with_bounds;
    use serde_json::json;

    fn bounds(schema: serde_json::Value) -> Vec<(String, &'static str, u64, bool, bool)> {
        // Over-budget expressions are reported with their bounds too.
        let report = check_schema_with_bounds(&schema, "openAPIV3Schema");
        report
            .costs
            .iter()
            .flat_map(|c| c.bounds.iter())
            .map(|b| {
                (
                    b.schema_path
                        .trim_start_matches("openAPIV3Schema")
                        .to_string(),
                    b.keyword,
                    b.size,
                    b.declared,
                    b.multiplies,
                )
            })
            .collect()
    }

    /// A rule reading a bounded list of bounded strings names both; an unread string does not
    /// bound it.
    #[test]
    fn the_declared_bounds_the_estimate_reads() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "x-kubernetes-validations": [{"rule": "self.xs.all(x, x.matches('^a'))"}],
        "properties": {
            "xs": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 16}},
            "other": {"type": "string", "maxLength": 99},
        }}}});
        assert_eq!(
            bounds(schema),
            [
                (
                    ".properties[spec].properties[xs]".into(),
                    "maxItems",
                    10,
                    true,
                    false
                ),
                (
                    ".properties[spec].properties[xs].items".into(),
                    "maxLength",
                    16,
                    true,
                    false
                ),
            ]
        );
    }

    /// Under an unbounded list, the runs are the count derived from the request size; a string
    /// without maxLength is read at its derived size.
    #[test]
    fn derived_sizes_when_unbounded() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "object",
                "x-kubernetes-validations": [{"rule": "self.name.matches('^a')"}],
                "properties": {"name": {"type": "string"}}}}}}}});
        let found = bounds(schema);
        assert_eq!(found.len(), 2, "{found:?}");
        let (path, keyword, size, declared, multiplies) = &found[0];
        assert_eq!(
            (path.as_str(), *keyword, *declared, *multiplies),
            (
                ".properties[spec].properties[items]",
                "maxItems",
                false,
                true
            )
        );
        // 3 MiB / (the item's minimum serialized size + 1), as the server derives it.
        assert!(*size > 100_000, "{size}");
        let (path, keyword, _, declared, multiplies) = &found[1];
        assert_eq!(
            (path.as_str(), *keyword, *declared, *multiplies),
            (
                ".properties[spec].properties[items].items.properties[name]",
                "maxLength",
                false,
                false
            )
        );
    }

    /// A constant rule has no bound, and the plain check computes none.
    #[test]
    fn constant_rules_and_the_plain_check() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [{"rule": "self.n > 1"}],
            "properties": {"n": {"type": "integer"}, "s": {"type": "string", "maxLength": 4}}}}});
        assert_eq!(bounds(schema.clone()), []);
        let plain = crate::check_schema(&schema, "openAPIV3Schema");
        assert!(plain.costs.iter().all(|c| c.bounds.is_empty()));
    }
}
