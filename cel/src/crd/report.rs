//! What the CRD check reports: each problem the API server would report, and each
//! expression's cost.

use crate::bounds::SizeBound;

/// How the API server reports a problem (`field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Severity {
    Invalid,
    Forbidden,
    Required,
    InternalError,
}

/// A way to bring an over-budget expression under the limit: bound one list, map or string.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fix {
    /// The schema path of the node to bound (`openAPIV3Schema.properties[spec].properties[xs]`).
    pub schema_path: String,
    /// The property's name, when the node is a property (`xs`).
    pub property: Option<String>,
    /// `maxItems`, `maxProperties` or `maxLength`.
    pub keyword: &'static str,
    /// The largest bound that keeps the expression under the limit.
    pub max: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// The field path the API server names (`…x-kubernetes-validations[0].rule`).
    pub path: String,
    pub severity: Severity,
    /// The API server's own text.
    pub detail: String,
    /// For a cost error: how to fix it.
    pub fix: Option<Fix>,
    /// The rule or message expression at fault, if one is.
    pub expression: Option<String>,
}

/// One expression's cost, for the cost report.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExpressionCost {
    pub path: String,
    pub expression: String,
    /// The estimated cost of one evaluation (the estimate's maximum).
    pub per_call: u64,
    /// How many times the rule may run per object: the product of the bounds of the lists and
    /// maps above it, or `MaxCardinality` from the request size when one is unbounded.
    pub cardinality: u64,
    /// Whether the cardinality was derived from the request size.
    pub cardinality_unbounded: bool,
    /// `per_call × cardinality` (message expressions are not multiplied).
    pub cost: u64,
    /// What bounds the cost: the lists and maps above the node that multiply it, and the
    /// lists, maps and strings whose size one evaluation's estimate depends on. Filled by
    /// [`check_schema_with_bounds`](super::check_schema_with_bounds) only (it compiles each expression again per candidate).
    pub bounds: Vec<SizeBound>,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SchemaReport {
    pub problems: Vec<Problem>,
    pub costs: Vec<ExpressionCost>,
    pub total: u64,
}

/// The API server's factor wording (`getCostErrorMessage`).
pub fn cost_error_message(name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}
