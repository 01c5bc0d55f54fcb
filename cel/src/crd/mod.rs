//! The CEL part of kube-apiserver's CRD validation: every `x-kubernetes-validations` rule and
//! message expression of a version's schema compiled, typed and costed, with the per-expression
//! and per-schema limits (apiextensions `validation.go`, `cel_validation.go`, `compilation.go`).

use crate::cost::{Estimate, estimate};
use crate::schema::{DeclKind, DeclType, MAX_REQUEST_SIZE_BYTES, decl_type};
use crate::types::Type;
use crate::{Compiled, compile_here};
use serde_json::Value;

mod report;
pub use report::{ExpressionCost, Fix, Problem, SchemaReport, Severity, cost_error_message};

/// `StaticEstimatedCostLimit`: the most one expression may cost.
pub const PER_EXPRESSION_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the most a version schema's expressions may cost together.
pub const PER_SCHEMA_LIMIT: u64 = 100_000_000;

/// Checks the rules of one version's `openAPIV3Schema`; `path` names it in messages
/// (`spec.versions[0].schema.openAPIV3Schema`).
pub fn check_schema(schema: &Value, path: &str) -> SchemaReport {
    crate::on_large_stack(|| check(schema, path, false))
}

/// [`check_schema`], with each expression's [`ExpressionCost::bounds`]: for a cost report.
pub fn check_schema_with_bounds(schema: &Value, path: &str) -> SchemaReport {
    crate::on_large_stack(|| check(schema, path, true))
}

fn check(schema: &Value, path: &str, with_bounds: bool) -> SchemaReport {
    let mut report = SchemaReport::default();
    let Some(root) = decl_type(schema, true) else {
        return report;
    };
    let mut walk = Walk {
        report: &mut report,
        most_expensive: Vec::new(),
        with_bounds,
    };
    walk.node(schema, Some(&root), path, Some(1), None, &mut Vec::new());
    let most_expensive = std::mem::take(&mut walk.most_expensive);
    if report.total > PER_SCHEMA_LIMIT {
        for (p, _, e) in most_expensive {
            report.problems.push(Problem {
                path: p,
                severity: Severity::Forbidden,
                detail: "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema".into(),
                fix: None,
                expression: Some(e),
            });
        }
        report.problems.push(Problem {
            path: path.to_string(),
            severity: Severity::Forbidden,
            detail: cost_error_message(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                report.total,
                PER_SCHEMA_LIMIT,
            ),
            fix: None,
            expression: None,
        });
    }
    report
}

/// An ancestor list or map that multiplies a rule's cardinality.
#[derive(Clone)]
pub(crate) struct Ancestor {
    pub(crate) schema_path: String,
    property: Option<String>,
    pub(crate) keyword: &'static str,
    pub(crate) bound: Option<u64>,
}

struct Walk<'r> {
    report: &'r mut SchemaReport,
    most_expensive: Vec<(String, u64, String)>,
    with_bounds: bool,
}

impl Walk<'_> {
    /// `cardinality` is `None` when unbounded; `uncorrelatable` is the first ancestor under
    /// which `oldSelf` cannot be used.
    fn node(
        &mut self,
        s: &Value,
        decl: Option<&DeclType>,
        path: &str,
        cardinality: Option<u64>,
        uncorrelatable: Option<&str>,
        ancestors: &mut Vec<Ancestor>,
    ) -> bool {
        // The API server validates the children first, and compiles no rule of a node with a
        // schema error at or below it.
        let mut schema_errors = false;
        // The child's cardinality: the parent's times its bound (`extractMaxElements`).
        let child_card = |bound: Option<u64>| match (cardinality, bound) {
            (Some(c), Some(b)) => Some(c.saturating_mul(b)),
            _ => None,
        };
        let uint = |k: &str| s.get(k).and_then(Value::as_i64).map(|v| v.max(0) as u64);
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            // apiextensions' `MapIsCorrelatable`: granular and atomic maps correlate.
            let map_type_uncorrelatable = s
                .get("x-kubernetes-map-type")
                .and_then(Value::as_str)
                .is_some_and(|t| t != "granular" && t != "atomic");
            for (name, prop) in props {
                let child_decl =
                    match (decl.map(|d| &d.kind), crate::schema::escape(name).ok_or(())) {
                        (Some(DeclKind::Object(fields)), Ok(escaped)) => fields.get(&escaped),
                        _ => None,
                    };
                let child_path = format!("{path}.properties[{name}]");
                let unc = uncorrelatable.or(if map_type_uncorrelatable {
                    Some(path)
                } else {
                    None
                });
                let card = if s.get("additionalProperties").is_some() {
                    child_card(uint("maxProperties"))
                } else {
                    child_card(Some(1))
                };
                schema_errors |= self.node(prop, child_decl, &child_path, card, unc, ancestors);
            }
        }
        if let Some(items) = s.get("items").filter(|i| i.is_object()) {
            let child_decl = match decl.map(|d| &d.kind) {
                Some(DeclKind::List(e)) => Some(&**e),
                _ => None,
            };
            let map_list = s.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
            let unc = uncorrelatable.or(if map_list { None } else { Some(path) });
            ancestors.push(Ancestor {
                schema_path: path.to_string(),
                property: property_of(path),
                keyword: "maxItems",
                bound: uint("maxItems"),
            });
            schema_errors |= self.node(
                items,
                child_decl,
                &format!("{path}.items"),
                child_card(uint("maxItems")),
                unc,
                ancestors,
            );
            ancestors.pop();
        }
        if let Some(props) = s.get("additionalProperties").filter(|i| i.is_object()) {
            let child_decl = match decl.map(|d| &d.kind) {
                Some(DeclKind::Map(e)) => Some(&**e),
                _ => None,
            };
            ancestors.push(Ancestor {
                schema_path: path.to_string(),
                property: property_of(path),
                keyword: "maxProperties",
                bound: uint("maxProperties"),
            });
            let p = format!("{path}.additionalProperties");
            schema_errors |= self.node(
                props,
                child_decl,
                &p,
                child_card(uint("maxProperties")),
                uncorrelatable,
                ancestors,
            );
            ancestors.pop();
        }
        let rules = s.get("x-kubernetes-validations").and_then(Value::as_array);
        if let Some(rules) = rules {
            schema_errors |= self.rule_schema_errors(rules, s, path);
            if !schema_errors {
                self.rules(rules, s, decl, path, cardinality, uncorrelatable, ancestors);
            }
        }
        schema_errors
    }

    /// The rules' schema errors (`validateCustomResourceDefinitionOpenAPISchema`), which stop
    /// their compilation: an empty rule, a multi-line rule without a message, an empty
    /// message expression, a `fieldPath` that leads nowhere.
    fn rule_schema_errors(&mut self, rules: &[Value], s: &Value, path: &str) -> bool {
        let mut found = false;
        for (i, rule) in rules.iter().enumerate() {
            let base = format!("{path}.x-kubernetes-validations[{i}]");
            let text = rule.get("rule").and_then(Value::as_str).unwrap_or("");
            let message = rule.get("message").and_then(Value::as_str).unwrap_or("");
            let mut push = |field: &str, severity, detail: &str| {
                self.report.problems.push(Problem {
                    path: format!("{base}.{field}"),
                    severity,
                    detail: detail.into(),
                    fix: None,
                    expression: Some(text.to_string()),
                });
                found = true;
            };
            // apiextensions' order: one of these per rule, on the trimmed texts.
            let (rule_text, msg) = (text.trim(), message.trim());
            let has_newlines = |s: &str| s.contains(['\n', '\r']);
            if rule_text.is_empty() {
                push("rule", Severity::Required, "rule is not specified");
            } else if !message.is_empty() && msg.is_empty() {
                push(
                    "message",
                    Severity::Invalid,
                    "must be non-empty if specified",
                );
            } else if has_newlines(msg) {
                push("message", Severity::Invalid, "must not contain line breaks");
            } else if has_newlines(rule_text) && msg.is_empty() {
                push(
                    "message",
                    Severity::Required,
                    "message must be specified if rule contains line breaks",
                );
            }
            if let Some(field_path) = rule.get("fieldPath").and_then(Value::as_str) {
                let (has_newlines, valid) = (
                    field_path.contains(['\n', '\r']),
                    field_path.is_empty() || crate::field_path::valid(field_path, s),
                );
                if !field_path.is_empty() && field_path.trim().is_empty() {
                    push(
                        "fieldPath",
                        Severity::Invalid,
                        "must be non-empty if specified",
                    );
                }
                if has_newlines {
                    push(
                        "fieldPath",
                        Severity::Invalid,
                        "must not contain line breaks",
                    );
                }
                if !valid {
                    push("fieldPath", Severity::Invalid, "must be a valid path");
                }
            }
            if let Some(m) = rule.get("messageExpression").and_then(Value::as_str)
                && !m.is_empty()
                && m.trim().is_empty()
            {
                push(
                    "messageExpression",
                    Severity::Required,
                    "messageExpression must be non-empty if specified",
                );
            }
        }
        found
    }

    #[allow(clippy::too_many_arguments)]
    fn rules(
        &mut self,
        rules: &[Value],
        s: &Value,
        decl: Option<&DeclType>,
        path: &str,
        cardinality: Option<u64>,
        uncorrelatable: Option<&str>,
        ancestors: &[Ancestor],
    ) {
        let Some(decl) = decl else {
            self.report.problems.push(Problem {
                path: format!("{path}.x-kubernetes-validations"),
                severity: Severity::InternalError,
                detail: "failed to convert to declType for CEL validation rules".into(),
                fix: None,
                expression: None,
            });
            return;
        };
        let max_cardinality = (MAX_REQUEST_SIZE_BYTES / (decl.min_serialized_size + 1)) as u64;
        for (i, rule) in rules.iter().enumerate() {
            let base = format!("{path}.x-kubernetes-validations[{i}]");
            let text = rule.get("rule").and_then(Value::as_str).unwrap_or("");
            let optional_old_self = rule.get("optionalOldSelf").and_then(Value::as_bool);
            let message_expression = rule.get("messageExpression").and_then(Value::as_str);
            if text.trim().is_empty() {
                continue;
            }
            let compiled = compile_here(text, decl, optional_old_self == Some(true));
            let rule_path = format!("{base}.rule");
            let (per_call, uses_old_self) = match &compiled {
                Ok(Compiled {
                    output,
                    cost,
                    uses_old_self,
                    instantiation_error,
                }) => {
                    if *output != Type::Bool {
                        self.problem(
                            &rule_path,
                            text,
                            Severity::Invalid,
                            "cel expression must evaluate to a bool".into(),
                        );
                        (0, *uses_old_self)
                    } else if let Some(why) = instantiation_error {
                        // The server stops before the cost estimate: the rule costs 0.
                        self.problem(
                            &rule_path,
                            text,
                            Severity::Invalid,
                            format!("program instantiation failed: {why}"),
                        );
                        (0, *uses_old_self)
                    } else {
                        (cost.max, *uses_old_self)
                    }
                }
                Err(e) => {
                    self.problem(
                        &rule_path,
                        text,
                        Severity::Invalid,
                        format!("compilation failed: {e}"),
                    );
                    (0, false)
                }
            };
            let (card, unbounded) = match cardinality {
                Some(c) => (c, false),
                None => (max_cardinality, true),
            };
            let cost = multiply_guarded(per_call, card);
            if cost > PER_EXPRESSION_LIMIT {
                let fix = self.fix(
                    text,
                    decl,
                    s,
                    path,
                    cardinality,
                    ancestors,
                    optional_old_self == Some(true),
                    false,
                );
                self.report.problems.push(Problem {
                    path: rule_path.clone(),
                    severity: Severity::Forbidden,
                    detail: cost_error_message("estimated rule cost", cost, PER_EXPRESSION_LIMIT),
                    fix,
                    expression: Some(text.to_string()),
                });
            }
            self.observe(&rule_path, text, cost);
            if compiled.is_ok() {
                let mut bounds = Vec::new();
                if self.with_bounds {
                    bounds = crate::bounds::multipliers(ancestors, card);
                    bounds.extend(crate::bounds::per_call(
                        text,
                        decl,
                        s,
                        path,
                        optional_old_self == Some(true),
                        per_call,
                    ));
                }
                self.report.costs.push(ExpressionCost {
                    path: rule_path.clone(),
                    expression: text.to_string(),
                    per_call,
                    cardinality: card,
                    cardinality_unbounded: unbounded,
                    cost,
                    bounds,
                });
            }
            if let Some(msg) = message_expression.filter(|m| !m.is_empty()) {
                let msg_path = format!("{base}.messageExpression");
                let rule_ok = matches!(&compiled,
                    Ok(c) if c.output == Type::Bool && c.instantiation_error.is_none());
                if !rule_ok {
                    // The server stops at the rule's error (compile, type or program).
                } else {
                    match compile_here(msg, decl, optional_old_self == Some(true)) {
                        Err(e) => self.problem(
                            &msg_path,
                            msg,
                            Severity::Invalid,
                            format!("messageExpression compilation failed: {e}"),
                        ),
                        Ok(c) if c.output != Type::String => self.problem(
                            &msg_path,
                            msg,
                            Severity::Invalid,
                            "messageExpression must evaluate to a string".into(),
                        ),
                        Ok(Compiled {
                            instantiation_error: Some(why),
                            ..
                        }) => self.problem(
                            &msg_path,
                            msg,
                            Severity::Invalid,
                            format!("messageExpression instantiation failed: {why}"),
                        ),
                        Ok(c) => {
                            let cost = c.cost.max;
                            if cost > PER_EXPRESSION_LIMIT {
                                let fix = self.fix(
                                    msg,
                                    decl,
                                    s,
                                    path,
                                    Some(1),
                                    &[],
                                    optional_old_self == Some(true),
                                    true,
                                );
                                self.report.problems.push(Problem {
                                    path: msg_path.clone(),
                                    severity: Severity::Forbidden,
                                    detail: cost_error_message(
                                        "estimated messageExpression cost",
                                        cost,
                                        PER_EXPRESSION_LIMIT,
                                    ),
                                    fix,
                                    expression: Some(msg.to_string()),
                                });
                            }
                            self.observe(&msg_path, msg, cost);
                            let bounds = if self.with_bounds {
                                crate::bounds::per_call(
                                    msg,
                                    decl,
                                    s,
                                    path,
                                    optional_old_self == Some(true),
                                    cost,
                                )
                            } else {
                                Vec::new()
                            };
                            self.report.costs.push(ExpressionCost {
                                path: msg_path,
                                expression: msg.to_string(),
                                per_call: cost,
                                cardinality: 1,
                                cardinality_unbounded: false,
                                cost,
                                bounds,
                            });
                        }
                    }
                }
            }
            // `UsesOldSelf` is known only of a rule that compiled; `optionalOldSelf` without it
            // is refused either way.
            {
                if uses_old_self {
                    if let Some(u) = uncorrelatable {
                        self.problem(
                            &rule_path,
                            text,
                            Severity::Invalid,
                            format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {u}"),
                        );
                    }
                } else if optional_old_self.is_some() {
                    self.problem(
                        &format!("{base}.optionalOldSelf"),
                        text,
                        Severity::Invalid,
                        "may not be set if oldSelf is not used in rule".into(),
                    );
                }
            }
        }
    }

    fn problem(&mut self, path: &str, expr: &str, severity: Severity, detail: String) {
        self.report.problems.push(Problem {
            path: path.to_string(),
            severity,
            detail,
            fix: None,
            expression: Some(expr.to_string()),
        });
    }

    /// `TotalCost.ObserveExpressionCost`: the sum, and the four costliest above 1% of the limit.
    fn observe(&mut self, path: &str, expr: &str, cost: u64) {
        self.report.total = self.report.total.saturating_add(cost);
        if cost < PER_SCHEMA_LIMIT / 100 {
            return;
        }
        self.most_expensive
            .push((path.to_string(), cost, expr.to_string()));
        self.most_expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.most_expensive.truncate(4);
    }

    /// The bound that brings an over-budget expression under the limit, trying each list, map
    /// or string that its estimate or its cardinality depends on, with the largest feasible bound.
    #[allow(clippy::too_many_arguments)]
    fn fix(
        &self,
        expr: &str,
        decl: &DeclType,
        schema: &Value,
        path: &str,
        cardinality: Option<u64>,
        ancestors: &[Ancestor],
        optional_old_self: bool,
        message: bool,
    ) -> Option<Fix> {
        let cost_with = |d: &DeclType, card: u64| -> u64 {
            match compile_here(expr, d, optional_old_self) {
                Ok(c) if message => c.cost.max,
                Ok(c) => multiply_guarded(c.cost.max, card),
                Err(_) => u64::MAX,
            }
        };
        let card_now =
            cardinality.unwrap_or((MAX_REQUEST_SIZE_BYTES / (decl.min_serialized_size + 1)) as u64);
        let mut best: Option<Fix> = None;
        let mut consider = |fix: Fix| {
            if best.as_ref().is_none_or(|b| fix.max > b.max) {
                best = Some(fix);
            }
        };
        // Nodes inside the rule's own schema.
        for (sub, keyword, current) in bounded_nodes(decl, &mut Vec::new()) {
            let feasible = largest_bound(current, |n| {
                let mut d = decl.clone();
                set_bound(&mut d, &sub, keyword, n);
                cost_with(&d, card_now) <= PER_EXPRESSION_LIMIT
            });
            if let Some(max) = feasible {
                let (schema_path, property) = schema_path_of(schema, path, &sub);
                consider(Fix {
                    schema_path,
                    property,
                    keyword,
                    max,
                });
            }
        }
        // Lists and maps above the rule, which multiply its cardinality.
        if !message {
            let known: Vec<Option<u64>> = ancestors.iter().map(|a| a.bound).collect();
            for (i, a) in ancestors.iter().enumerate() {
                let current = a.bound.unwrap_or(MAX_REQUEST_SIZE_BYTES as u64);
                let feasible = largest_bound(current, |n| {
                    let mut bounds = known.clone();
                    bounds[i] = Some(n);
                    let card = bounds
                        .iter()
                        .try_fold(1u64, |acc, b| b.map(|b| acc.saturating_mul(b)));
                    match card {
                        Some(c) => cost_with(decl, c) <= PER_EXPRESSION_LIMIT,
                        None => false,
                    }
                });
                if let Some(max) = feasible {
                    let keyword = a.keyword;
                    consider(Fix {
                        schema_path: a.schema_path.clone(),
                        property: a.property.clone(),
                        keyword,
                        max,
                    });
                }
            }
        }
        best
    }
}

fn multiply_guarded(cost: u64, cardinality: u64) -> u64 {
    if cost == 0 {
        0
    } else {
        cost.saturating_mul(cardinality)
    }
}

/// The largest `n` in `0..=current` for which `ok(n)` holds (monotone), if any `n ≥ 1` does.
fn largest_bound(current: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    if !ok(1) {
        return None;
    }
    let (mut lo, mut hi) = (1u64, current.max(1));
    if ok(hi) {
        return None; // already within budget at its current size: not the driver
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { lo = mid } else { hi = mid }
    }
    Some(lo)
}

/// Every list, map and string under `d`, by CEL path (`["xs"]`, `["a", "@items"]`).
pub(crate) fn bounded_nodes(
    d: &DeclType,
    path: &mut Vec<String>,
) -> Vec<(Vec<String>, &'static str, u64)> {
    let mut out = Vec::new();
    match &d.kind {
        DeclKind::Scalar(Type::String | Type::Bytes | Type::Dyn) => {
            out.push((
                path.clone(),
                "maxLength",
                (d.max_elements.max(0) as u64).div_ceil(4),
            ));
        }
        DeclKind::Scalar(_) => {}
        DeclKind::List(e) | DeclKind::Map(e) => {
            let keyword = if matches!(d.kind, DeclKind::List(_)) {
                "maxItems"
            } else {
                "maxProperties"
            };
            out.push((path.clone(), keyword, d.max_elements.max(0) as u64));
            path.push("@items".into());
            out.extend(bounded_nodes(e, path));
            path.pop();
        }
        DeclKind::Object(fields) => {
            for (name, f) in fields {
                path.push(name.clone());
                out.extend(bounded_nodes(f, path));
                path.pop();
            }
        }
    }
    out
}

pub(crate) fn set_bound(d: &mut DeclType, path: &[String], keyword: &str, n: u64) {
    let mut node = d;
    for p in path {
        node = match (&mut node.kind, p.as_str()) {
            (DeclKind::List(e) | DeclKind::Map(e), "@items") => e,
            (DeclKind::Object(fields), name) => match fields.get_mut(name) {
                Some(f) => f,
                None => return,
            },
            _ => return,
        };
    }
    node.max_elements =
        if keyword == "maxLength" && !matches!(node.kind, DeclKind::Scalar(Type::Bytes)) {
            (n as i64).saturating_mul(4)
        } else {
            n as i64
        };
}

/// The schema path and property name of the node at CEL path `sub` under the rule's node.
fn schema_path_of(schema: &Value, path: &str, sub: &[String]) -> (String, Option<String>) {
    let (p, property, _) = node_at(schema, path, sub);
    (p, property)
}

/// The schema path, property name and schema node (`None` when the schema does not declare
/// it, as the root's `metadata.name`) of the node at CEL path `sub` under the rule's node.
pub(crate) fn node_at<'s>(
    schema: &'s Value,
    path: &str,
    sub: &[String],
) -> (String, Option<String>, Option<&'s Value>) {
    let mut s = schema;
    let mut p = path.to_string();
    let mut property = property_of(path);
    for name in sub {
        if name == "@items" {
            if let Some(items) = s.get("items") {
                s = items;
                p.push_str(".items");
            } else if let Some(ap) = s.get("additionalProperties") {
                s = ap;
                p.push_str(".additionalProperties");
            } else {
                return (p, property, None);
            }
            continue;
        }
        let props = s.get("properties").and_then(Value::as_object);
        let found = props.and_then(|props| {
            props
                .iter()
                .find(|(k, _)| crate::schema::escape(k).as_deref() == Some(name.as_str()))
        });
        match found {
            Some((k, v)) => {
                s = v;
                p = format!("{p}.properties[{k}]");
                property = Some(k.clone());
            }
            None => return (p, property, None),
        }
    }
    (p, property, Some(s))
}

fn property_of(path: &str) -> Option<String> {
    let last = path.rsplit_once(".properties[")?.1;
    last.strip_suffix(']')
        .filter(|l| !l.contains('.'))
        .map(str::to_string)
}

impl Estimate {
    /// For the report: whether the estimate is bounded by the schema.
    pub fn is_unknown(&self) -> bool {
        self.max == u64::MAX
    }
}

/// The estimate of a parsed and checked expression against a node's declared type.
pub(crate) fn estimate_of(
    parsed: &crate::ast::Parsed,
    checked: &crate::check::Checked,
    decl: &DeclType,
) -> Estimate {
    estimate(&parsed.expr, checked, decl)
}
