//! The static cost estimate of a checked expression: cel-go's `checker/cost.go`, with the
//! overload estimators of ext.Lists v3 and ext.Sets and Kubernetes' `library.CostEstimator`
//! over the schema's sizes (apiextensions' `sizeEstimator`).

use crate::ast::{ACCUMULATOR, Comprehension, Expr, ExprKind, Literal};
use crate::check::Checked;
use crate::schema::DeclType;
use crate::types::Type;
use std::collections::HashMap;

mod calls;

const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_STRING_LENGTH: f64 = 0.25;
const LIST_CREATE: u64 = 10;
const MAP_CREATE: u64 = 30;
const STRUCT_CREATE: u64 = 40;
/// Kubernetes' `MaxNameFormatRegexSize`.
const MAX_NAME_FORMAT_REGEX_SIZE: f64 = 128.0;
/// Kubernetes' `MaxFormatSize`.
const MAX_FORMAT_SIZE: u64 = 253;

/// A `{min, max}` estimate, of a size or of a cost; arithmetic saturates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    pub min: u64,
    pub max: u64,
}

const UNKNOWN: Estimate = Estimate {
    min: 0,
    max: u64::MAX,
};

impl Estimate {
    pub const fn fixed(v: u64) -> Self {
        Estimate { min: v, max: v }
    }
    fn add(self, o: Estimate) -> Self {
        Estimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
    fn mul(self, o: Estimate) -> Self {
        Estimate {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }
    fn factor(self, f: f64) -> Self {
        Estimate {
            min: by_factor(self.min, f),
            max: by_factor(self.max, f),
        }
    }
    fn union(self, o: Estimate) -> Self {
        Estimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

/// cel-go's `multiplyByCostFactor`: the product rounded up, saturating.
fn by_factor(x: u64, f: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && f > 0.0 && xf > u64::MAX as f64 / f {
        return u64::MAX;
    }
    let c = (xf * f).ceil();
    if c >= 18446744073709551616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Container {
    List,
    Map,
}

#[derive(Clone, Copy, Debug)]
struct EntrySize {
    container: Container,
    key: Estimate,
    val: Estimate,
}

fn union_entries(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
    let (a, b) = (a?, b?);
    Some(EntrySize {
        container: a.container,
        key: a.key.union(b.key),
        val: a.val.union(b.val),
    })
}

#[derive(Clone, Debug)]
struct Local {
    path: Vec<String>,
    size: Option<Estimate>,
    entry: Option<EntrySize>,
}

/// An argument or target of a call, as the estimators see it (cel-go's `AstNode`).
struct Node<'e> {
    path: Vec<String>,
    ty: Type,
    expr: Option<&'e Expr>,
    computed: Option<Estimate>,
}

/// The estimate of `expr`'s cost; sizes come from `root`, the rule's node.
pub fn estimate(expr: &Expr, checked: &Checked, root: &DeclType) -> Estimate {
    let mut c = Coster {
        checked,
        root,
        paths: HashMap::new(),
        locals: HashMap::new(),
        sizes: HashMap::new(),
        entries: HashMap::new(),
    };
    c.cost(expr)
}

struct Coster<'a> {
    checked: &'a Checked,
    root: &'a DeclType,
    paths: HashMap<u32, Vec<String>>,
    locals: HashMap<String, Vec<Local>>,
    sizes: HashMap<u32, Estimate>,
    entries: HashMap<u32, EntrySize>,
}

impl<'a> Coster<'a> {
    fn ty(&self, e: &Expr) -> &'a Type {
        &self.checked.types[e.id as usize]
    }
    fn local(&self, name: &str) -> Option<&Local> {
        self.locals.get(name).and_then(|v| v.last())
    }
    fn path(&self, e: &Expr) -> Vec<String> {
        if let ExprKind::Ident(n) = &e.kind
            && let Some(l) = self.local(n)
        {
            return l.path.clone();
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }
    fn push(&mut self, name: &str, local: Local) {
        self.locals.entry(name.to_string()).or_default().push(local);
    }
    fn pop(&mut self, name: &str) {
        if let Some(v) = self.locals.get_mut(name) {
            v.pop();
        }
    }

    /// apiextensions' `sizeEstimator.EstimateSize`: `{0, MaxElements}` of the node a path names.
    fn estimate_size(&self, path: &[String]) -> Option<Estimate> {
        if path.is_empty() {
            return None;
        }
        let node = self.root.at_path(path)?;
        // Go's `uint64(MaxElements)`: a bound that wrapped negative (below) reads as huge.
        Some(Estimate {
            min: 0,
            max: node.max_elements as u64,
        })
    }

    fn compute_size(&mut self, e: &Expr) -> Option<Estimate> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = literal_size(e) {
            return Some(s);
        }
        let path = self.path(e);
        if let Some(s) = self.estimate_size(&path) {
            self.sizes.insert(e.id, s);
            return Some(s);
        }
        if self.ty(e).is_scalar() {
            return Some(Estimate::fixed(1));
        }
        if let ExprKind::Ident(n) = &e.kind
            && let Some(s) = self.local(n).and_then(|l| l.size)
        {
            return Some(s);
        }
        None
    }

    fn size_or_unknown(&mut self, e: &Expr) -> Estimate {
        self.compute_size(e).unwrap_or(UNKNOWN)
    }

    fn entry_size(&self, e: &Expr) -> Option<EntrySize> {
        if let Some(s) = self.entries.get(&e.id) {
            return Some(*s);
        }
        if let ExprKind::Ident(n) = &e.kind {
            return self.local(n).and_then(|l| l.entry);
        }
        None
    }

    fn node<'e>(&mut self, e: &'e Expr) -> Node<'e> {
        let mut path = self.path(e);
        if path
            .first()
            .is_some_and(|p| p == ACCUMULATOR || p == "__result__")
        {
            path.clear();
        }
        let computed = self.compute_size(e);
        Node {
            path,
            ty: self.ty(e).clone(),
            expr: Some(e),
            computed,
        }
    }

    fn node_size(&self, n: &Node<'_>) -> Estimate {
        n.computed
            .or_else(|| self.estimate_size(&n.path))
            .unwrap_or(UNKNOWN)
    }

    fn cost(&mut self, e: &Expr) -> Estimate {
        match &e.kind {
            ExprKind::Literal(_) => Estimate::fixed(0),
            ExprKind::Ident(name) => {
                let path = match self.local(name) {
                    Some(l) => l.path.clone(),
                    None => vec![name.clone()],
                };
                self.paths.insert(e.id, path);
                Estimate::fixed(1)
            }
            ExprKind::Select {
                operand,
                field,
                test,
            } => {
                if *test {
                    // PresenceTestHasCost(false) in Kubernetes.
                    return self.cost(operand);
                }
                let mut sum = self.cost(operand);
                if matches!(
                    self.ty(operand),
                    Type::Map(..) | Type::Struct(_) | Type::TypeParam(_)
                ) {
                    sum = sum.add(Estimate::fixed(1));
                }
                let mut path = self.path(operand);
                path.push(field.clone());
                self.paths.insert(e.id, path);
                sum
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => match self.checked.qualified_calls.get(&e.id) {
                Some(qualified) => self.cost_call(e, qualified, None, args),
                None => self.cost_call(e, function, target.as_deref(), args),
            },
            ExprKind::List { elements, .. } => {
                let mut sum = Estimate::fixed(0);
                let mut item = Estimate {
                    min: if elements.is_empty() { 0 } else { u64::MAX },
                    max: 0,
                };
                for el in elements {
                    sum = sum.add(self.cost(el));
                    let s = self.size_or_unknown(el);
                    item = item.union(s);
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        container: Container::List,
                        key: Estimate::fixed(1),
                        val: item,
                    },
                );
                sum.add(Estimate::fixed(LIST_CREATE))
            }
            ExprKind::Map { entries } => {
                let mut sum = Estimate::fixed(0);
                let empty = if entries.is_empty() { 0 } else { u64::MAX };
                let (mut key, mut val) = (
                    Estimate { min: empty, max: 0 },
                    Estimate { min: empty, max: 0 },
                );
                for entry in entries {
                    sum = sum.add(self.cost(&entry.key));
                    sum = sum.add(self.cost(&entry.value));
                    let k = self.size_or_unknown(&entry.key);
                    key = key.union(k);
                    let v = self.size_or_unknown(&entry.value);
                    val = val.union(v);
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        container: Container::Map,
                        key,
                        val,
                    },
                );
                sum.add(Estimate::fixed(MAP_CREATE))
            }
            ExprKind::Struct { fields, .. } => {
                let mut sum = Estimate::fixed(0);
                for f in fields {
                    sum = sum.add(self.cost(&f.value));
                }
                sum.add(Estimate::fixed(STRUCT_CREATE))
            }
            ExprKind::Comprehension(comp) => {
                if is_bind(comp) {
                    self.cost_bind(e, comp)
                } else {
                    self.cost_comprehension(e, comp)
                }
            }
        }
    }

    fn cost_bind(&mut self, e: &Expr, comp: &Comprehension) -> Estimate {
        let mut sum = self.cost(&comp.iter_range).add(self.cost(&comp.accu_init));
        self.push_local(&comp.accu_var, &comp.accu_init);
        sum = sum.add(self.cost(&comp.result));
        self.pop(&comp.accu_var);
        self.copy_sizes(e, &comp.result);
        sum
    }

    fn push_local(&mut self, name: &str, e: &Expr) {
        let local = Local {
            path: self.path(e),
            entry: self.entry_size(e),
            size: self.compute_size(e),
        };
        self.push(name, local);
    }

    fn copy_sizes(&mut self, dst: &Expr, src: &Expr) {
        if let Some(s) = self.compute_size(src) {
            self.sizes.insert(dst.id, s);
        }
        if let Some(s) = self.entry_size(src) {
            self.entries.insert(dst.id, s);
        }
    }

    fn container(&self, range: &Expr, entry: Option<EntrySize>) -> Option<Container> {
        entry.map(|e| e.container).or(match self.ty(range) {
            Type::List(_) => Some(Container::List),
            Type::Map(..) => Some(Container::Map),
            _ => None,
        })
    }

    fn cost_comprehension(&mut self, e: &Expr, comp: &Comprehension) -> Estimate {
        let mut sum = self.cost(&comp.iter_range).add(self.cost(&comp.accu_init));
        self.push_local(&comp.accu_var, &comp.accu_init);
        let range = &comp.iter_range;
        let entry = self.entry_size(range);
        let is_list = self.container(range, entry) == Some(Container::List);
        let mut range_path = self.path(range);
        if let Some(v2) = &comp.iter_var2 {
            let mut kp = range_path.clone();
            kp.push(if is_list { "@indices" } else { "@keys" }.into());
            self.push(
                &comp.iter_var,
                Local {
                    path: kp,
                    size: entry.map(|e| e.key),
                    entry: None,
                },
            );
            range_path.push(if is_list { "@items" } else { "@values" }.into());
            self.push(
                v2,
                Local {
                    path: range_path,
                    size: entry.map(|e| e.val),
                    entry: None,
                },
            );
        } else {
            let size = if is_list {
                entry.map(|e| e.val)
            } else {
                entry.map(|e| e.key)
            };
            range_path.push(if is_list { "@items" } else { "@keys" }.into());
            self.push(
                &comp.iter_var,
                Local {
                    path: range_path,
                    size,
                    entry: None,
                },
            );
        }
        let loop_cost = self.cost(&comp.loop_condition);
        let step_cost = self.cost(&comp.loop_step);
        self.pop(&comp.iter_var);
        if let Some(v2) = &comp.iter_var2 {
            self.pop(v2);
        }
        sum = sum.add(self.cost(&comp.result));
        self.pop(&comp.accu_var);
        let count = self.size_or_unknown(range);
        sum = sum.add(count.mul(step_cost.add(loop_cost)));
        match &comp.accu_init.kind {
            ExprKind::Literal(_) => {
                if let Some(s) = self.compute_size(&comp.accu_init) {
                    self.sizes.insert(e.id, s);
                }
            }
            ExprKind::List { .. } | ExprKind::Map { .. } => {
                self.sizes.insert(e.id, count);
                if let Some(s) = self.entry_size(&comp.loop_step) {
                    self.entries.insert(e.id, s);
                }
            }
            _ => {}
        }
        sum
    }

    fn cost_call(
        &mut self,
        e: &Expr,
        function: &str,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Estimate {
        if function == "dyn" && args.len() == 1 {
            let c = self.cost(&args[0]);
            self.copy_sizes(e, &args[0]);
            return Estimate::fixed(1).add(c);
        }
        let mut arg_costs = Vec::with_capacity(args.len());
        let mut arg_nodes = Vec::with_capacity(args.len());
        for a in args {
            arg_costs.push(self.cost(a));
            arg_nodes.push(self.node(a));
        }
        let overloads = self.checked.overloads[e.id as usize].clone();
        if overloads.is_empty() {
            return Estimate::fixed(0);
        }
        let mut sum = Estimate::fixed(0);
        let target_node = match target {
            Some(t) => {
                sum = sum.add(self.cost(t));
                Some(self.node(t))
            }
            None => None,
        };
        let mut fn_cost = Estimate {
            min: u64::MAX,
            max: 0,
        };
        let mut result: Option<Estimate> = None;
        for overload in overloads {
            let (c, size) = self.function_cost(
                e,
                function,
                overload,
                target_node.as_ref(),
                &arg_nodes,
                &arg_costs,
            );
            fn_cost = fn_cost.union(c);
            if let Some(s) = size {
                result = Some(result.map_or(s, |r| r.union(s)));
            }
            if (overload == "index_list" || overload == "index_map") && !args.is_empty() {
                result = self.entry_size(&args[0]).map(|s| s.val);
                let mut path = self.path(&args[0]);
                path.push(
                    if overload == "index_list" {
                        "@items"
                    } else {
                        "@values"
                    }
                    .into(),
                );
                self.paths.insert(e.id, path);
            }
            if result.is_none() {
                result = self.compute_size(e);
            }
        }
        if let Some(s) = result {
            self.sizes.insert(e.id, s);
        }
        sum.add(fn_cost)
    }
}

/// Kubernetes' `listElementNode`: the first type parameter and the `@items` path.
fn list_element(list: &Node<'_>) -> Option<(Vec<String>, Type)> {
    let elem = match &list.ty {
        Type::List(e) => (**e).clone(),
        Type::Map(k, _) => (**k).clone(),
        Type::Opaque(_, p) if !p.is_empty() => p[0].clone(),
        Type::TypeOf(Some(t)) => (**t).clone(),
        _ => return None,
    };
    let mut path = list.path.clone();
    if !path.is_empty() {
        path.push("@items".into());
    }
    Some((path, elem))
}

/// cel-go's `nodeAsUintValue`: an int literal's value, a negative one as 0; anything else,
/// a uint literal included, is `default`.
fn uint_literal(n: &Node<'_>, default: u64) -> u64 {
    match n.expr.map(|e| &e.kind) {
        Some(ExprKind::Literal(Literal::Int(i))) => (*i).max(0) as u64,
        _ => default,
    }
}

fn literal_size(e: &Expr) -> Option<Estimate> {
    let v = match &e.kind {
        ExprKind::Literal(Literal::String(s)) => s.chars().count() as u64,
        ExprKind::Literal(Literal::Bytes(b)) => b.len() as u64,
        ExprKind::Literal(_) => 1,
        ExprKind::List { elements, .. } => elements.len() as u64,
        ExprKind::Map { entries } => entries.len() as u64,
        _ => return None,
    };
    Some(Estimate::fixed(v))
}

fn is_bind(comp: &Comprehension) -> bool {
    matches!(&comp.iter_range.kind, ExprKind::List { elements, .. } if elements.is_empty())
        && matches!(
            comp.loop_condition.kind,
            ExprKind::Literal(Literal::Bool(false))
        )
        && comp.accu_var != ACCUMULATOR
}
