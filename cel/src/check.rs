//! The type checker: cel-go's `checker/checker.go` over the environment of `env.rs` and the
//! schema's declared types. Errors are cel-go's, worded and placed as it words and places them.

use crate::ast::{Comprehension, Expr, ExprKind, Literal, Parsed};
use crate::env::{Functions, type_ident};
use crate::types::{Mapping, Type};
use std::collections::HashMap;

/// The message types a rule can see: the objects of the rule's node, named `root` and below
/// it by path (`selfType.spec.@idx`, as apiserver's `MaybeAssignTypeName` names them); a field
/// is found by walking the node's declared type, not from a table of every type.
pub struct Provider<'a> {
    pub root: &'a str,
    pub decl: &'a crate::schema::DeclType,
}

impl Provider<'_> {
    fn field(&self, message: &str, field: &str) -> Result<Option<Type>, ()> {
        use crate::schema::DeclKind;
        if message.starts_with("kubernetes.") {
            return Ok(None);
        }
        let rest = message.strip_prefix(self.root).ok_or(())?;
        let mut node = self.decl;
        for step in rest.split('.').skip(1) {
            node = match (&node.kind, step) {
                (DeclKind::List(e), "@idx") | (DeclKind::Map(e), "@elem") => e,
                (DeclKind::Object(fields), name) => fields.get(name).ok_or(())?,
                _ => return Err(()),
            };
        }
        let DeclKind::Object(fields) = &node.kind else {
            return Err(());
        };
        // From compatibility version 1.31 a reserved word also finds its escaped property
        // (`self.namespace` is `self.__namespace__`).
        let found = fields
            .get(field)
            .map(|t| (field.to_string(), t))
            .or_else(|| {
                let escaped = format!("__{field}__");
                crate::schema::RESERVED
                    .contains(&field)
                    .then(|| fields.get(&escaped).map(|t| (escaped, t)))
                    .flatten()
            });
        Ok(found.map(|(name, t)| t.cel_type(&format!("{message}.{name}"))))
    }
}

/// The variables of a rule: `self` and `oldSelf` with their types.
pub struct Variables<'a> {
    pub vars: &'a [(&'a str, Type)],
}

/// A checked expression: each node's type and each call's matching overloads.
pub struct Checked {
    pub types: Vec<Type>,
    pub overloads: Vec<Vec<&'static str>>,
    pub output: Type,
    /// Whether an identifier resolved to the variable `oldSelf`.
    pub uses_old_self: bool,
    /// Calls written `a.f(x)` that are the global function `a.f` (`strings.quote(s)`): cel-go
    /// rewrites them into global calls, which the cost estimate then sees.
    pub qualified_calls: HashMap<u32, String>,
}

/// A checker error at a node.
#[derive(Clone, Debug)]
pub struct CheckError {
    pub id: u32,
    pub message: String,
}

pub fn check(
    parsed: &Parsed,
    provider: &Provider<'_>,
    vars: &Variables<'_>,
) -> Result<Checked, Vec<CheckError>> {
    let n = parsed.node_count as usize + 1;
    let mut c = Checker {
        provider,
        vars,
        functions: Functions::get(),
        scopes: Vec::new(),
        mapping: Mapping::default(),
        types: vec![Type::Error; n],
        overloads: vec![Vec::new(); n],
        errors: Vec::new(),
        fresh: 0,
        uses_old_self: false,
        qualified_calls: HashMap::new(),
    };
    c.check(&parsed.expr);
    if !c.errors.is_empty() {
        return Err(c.errors);
    }
    let types: Vec<Type> = c
        .types
        .iter()
        .map(|t| c.mapping.substitute(t, true))
        .collect();
    let mut literal_errors = homogeneous_literals(&parsed.expr, &types);
    literal_errors.extend(crate::literals::invalid_literals(
        &parsed.expr,
        &c.overloads,
    ));
    literal_errors.extend(crate::format::invalid_format_calls(
        &parsed.expr,
        &types,
        &c.overloads,
    ));
    if !literal_errors.is_empty() {
        return Err(literal_errors);
    }
    let output = types[parsed.expr.id as usize].clone();
    Ok(Checked {
        types,
        overloads: c.overloads,
        output,
        uses_old_self: c.uses_old_self,
        qualified_calls: c.qualified_calls,
    })
}

struct Checker<'a> {
    provider: &'a Provider<'a>,
    vars: &'a Variables<'a>,
    functions: &'static Functions,
    scopes: Vec<HashMap<String, Type>>,
    mapping: Mapping,
    types: Vec<Type>,
    overloads: Vec<Vec<&'static str>>,
    errors: Vec<CheckError>,
    fresh: u32,
    uses_old_self: bool,
    qualified_calls: HashMap<u32, String>,
}

impl Checker<'_> {
    fn error(&mut self, id: u32, message: String) {
        self.errors.push(CheckError { id, message });
    }
    fn set(&mut self, e: &Expr, t: Type) {
        self.types[e.id as usize] = t;
    }
    fn ty(&self, e: &Expr) -> Type {
        self.types[e.id as usize].clone()
    }
    fn fresh_var(&mut self) -> Type {
        let t = Type::TypeParam(format!("_var{}", self.fresh));
        self.fresh += 1;
        t
    }

    fn check(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Literal(l) => {
                let t = match l {
                    Literal::Bool(_) => Type::Bool,
                    Literal::Int(_) => Type::Int,
                    Literal::Uint(_) => Type::Uint,
                    Literal::Double(_) => Type::Double,
                    Literal::String(_) => Type::String,
                    Literal::Bytes(_) => Type::Bytes,
                    Literal::Null => Type::Null,
                };
                self.set(e, t);
            }
            ExprKind::Ident(name) => self.check_ident(e, name),
            ExprKind::Select {
                operand,
                field,
                test,
            } => {
                if !test && let Some(t) = qualified_name(e).and_then(|q| type_ident(&q)) {
                    self.set(e, t);
                    return;
                }
                let t = self.check_select_field(e, operand, field, false);
                let t = if *test { Type::Bool } else { t };
                let t = self.mapping.substitute(&t, false);
                self.set(e, t);
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => self.check_call(e, function, target.as_deref(), args),
            ExprKind::List { elements, optional } => {
                let mut elem: Option<Type> = None;
                for (i, el) in elements.iter().enumerate() {
                    self.check(el);
                    let mut t = self.ty(el);
                    if optional.contains(&i) {
                        t = self.unwrap_optional_entry(el, t);
                    }
                    elem = Some(self.join(elem, t));
                }
                let elem = elem.unwrap_or_else(|| self.fresh_var());
                self.set(e, Type::list(elem));
            }
            ExprKind::Map { entries } => {
                let (mut key, mut val): (Option<Type>, Option<Type>) = (None, None);
                for entry in entries {
                    self.check(&entry.key);
                    let kt = self.ty(&entry.key);
                    key = Some(self.join(key, kt));
                    self.check(&entry.value);
                    let mut vt = self.ty(&entry.value);
                    if entry.optional {
                        vt = self.unwrap_optional_entry(&entry.value, vt);
                    }
                    val = Some(self.join(val, vt));
                }
                let (k, v) = match (key, val) {
                    (Some(k), Some(v)) => (k, v),
                    _ => (self.fresh_var(), self.fresh_var()),
                };
                self.set(e, Type::map(k, v));
            }
            ExprKind::Struct { type_name, fields } => {
                for f in fields {
                    self.check(&f.value);
                }
                self.error(
                    e.id,
                    format!("undeclared reference to '{type_name}' (in container '')"),
                );
                self.set(e, Type::Error);
            }
            ExprKind::Comprehension(comp) => self.check_comprehension(e, comp),
        }
    }

    fn unwrap_optional_entry(&mut self, e: &Expr, t: Type) -> Type {
        match t.unwrap_optional() {
            Some(inner) => inner.clone(),
            None => {
                if !t.is_dyn() {
                    self.error(
                        e.id,
                        format!(
                            "expected type '{}' but found '{t}'",
                            Type::optional(t.clone())
                        ),
                    );
                }
                t
            }
        }
    }

    /// cel-go's `joinTypes` with dynamic aggregate element types: the checker widens mixed
    /// literals to `dyn`; `HomogeneousAggregateLiterals` is a validator run after it.
    fn join(&mut self, previous: Option<Type>, current: Type) -> Type {
        let Some(previous) = previous else {
            return current;
        };
        if self.mapping.assign(&previous, &current) {
            return crate::types::most_general(&previous, &current).clone();
        }
        Type::Dyn
    }

    fn check_ident(&mut self, e: &Expr, written: &str) {
        // `.self`: a leading dot names the root scope; cel-go looks the rest up as usual
        // (comprehension variables included) and reports the name as written.
        let name = root_scoped(written);
        // Comprehension variables are not in the root scope: `.x` does not find them.
        let scopes = if name == written {
            &self.scopes[..]
        } else {
            &[]
        };
        for scope in scopes.iter().rev() {
            if let Some(t) = scope.get(name) {
                let t = t.clone();
                self.set(e, t);
                return;
            }
        }
        if let Some((_, t)) = self.vars.vars.iter().find(|(n, _)| *n == name) {
            if name == "oldSelf" {
                self.uses_old_self = true;
            }
            let t = t.clone();
            self.set(e, t);
            return;
        }
        if let Some(t) = type_ident(name) {
            self.set(e, t);
            return;
        }
        self.set(e, Type::Error);
        self.error(
            e.id,
            format!("undeclared reference to '{written}' (in container '')"),
        );
    }

    fn check_select_field(
        &mut self,
        e: &Expr,
        operand: &Expr,
        field: &str,
        optional: bool,
    ) -> Type {
        self.check(operand);
        let operand_type = self.mapping.substitute(&self.ty(operand), false);
        let (target, is_opt) = match operand_type.unwrap_optional() {
            Some(inner) => (inner.clone(), true),
            None => (operand_type.clone(), false),
        };
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Struct(name) => match self.provider.field(name, field) {
                Ok(Some(t)) => t,
                Ok(None) => {
                    self.error(e.id, format!("undefined field '{field}'"));
                    Type::Error
                }
                Err(()) => {
                    self.error(e.id, format!("unexpected failed resolution of '{name}'"));
                    Type::Error
                }
            },
            Type::TypeParam(_) => {
                self.mapping.assign(&Type::Dyn, &target);
                Type::Dyn
            }
            t => {
                if !t.is_dyn_or_error() {
                    self.error(e.id, format!("type '{t}' does not support field selection"));
                }
                Type::Dyn
            }
        };
        if is_opt || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    fn check_call(&mut self, e: &Expr, function: &str, target: Option<&Expr>, args: &[Expr]) {
        if function == "_?._" {
            let (Some(operand), Some(field)) = (args.first(), args.get(1)) else {
                return;
            };
            let ExprKind::Literal(Literal::String(name)) = &field.kind else {
                self.error(field.id, "unsupported optional field selection".into());
                return;
            };
            let t = self.check_select_field(e, operand, name, true);
            let t = self.mapping.substitute(&t, false);
            self.set(e, t);
            self.overloads[e.id as usize] = vec!["select_optional_field"];
            return;
        }
        for a in args {
            self.check(a);
        }
        let Some(target) = target else {
            return self.resolve_or_error(e, function, None, args);
        };
        // `strings.quote(x)`, `optional.of(x)`: a qualified global function.
        if let Some(prefix) = qualified_name(target) {
            let qualified = format!("{prefix}.{function}");
            if self.functions.by_name.contains_key(&qualified) {
                self.qualified_calls.insert(e.id, qualified.clone());
                return self.resolve_or_error(e, &qualified, None, args);
            }
        }
        self.check(target);
        self.resolve_or_error(e, function, Some(target), args);
    }

    fn resolve_or_error(&mut self, e: &Expr, function: &str, target: Option<&Expr>, args: &[Expr]) {
        // A global function's name may be root-scoped as an identifier is (`.size(x)`).
        let found = match target {
            None => self.functions.by_name.get(root_scoped(function)),
            Some(_) => self.functions.by_name.get(function),
        };
        let Some(overloads) = found else {
            self.set(e, Type::Error);
            self.error(
                e.id,
                format!("undeclared reference to '{function}' (in container '')"),
            );
            return;
        };
        let mut arg_types: Vec<Type> = target.iter().map(|t| self.ty(t)).collect();
        arg_types.extend(args.iter().map(|a| self.ty(a)));
        let mut result: Option<Type> = None;
        let mut matched = Vec::new();
        for o in overloads {
            if o.member != target.is_some() {
                continue;
            }
            if function == "_&&_" || function == "_||_" {
                let mut ok = true;
                for (i, t) in arg_types.iter().enumerate() {
                    if !self.mapping.assign(t, &Type::Bool) {
                        self.error(args[i].id, format!("expected type 'bool' but found '{t}'"));
                        ok = false;
                    }
                }
                self.overloads[e.id as usize] = vec![leak(&o.id)];
                self.set(e, if ok { Type::Bool } else { Type::Error });
                return;
            }
            let mut subs = Mapping::default();
            let fresh: Vec<(Type, Type)> = o
                .type_params
                .iter()
                .map(|p| (Type::TypeParam(p.clone()), self.fresh_var()))
                .collect();
            for (p, v) in &fresh {
                subs.assign(p, v);
            }
            let instantiate = |t: &Type| {
                if fresh.is_empty() {
                    t.clone()
                } else {
                    substitute_params(t, &fresh)
                }
            };
            let params: Vec<Type> = o.params.iter().map(instantiate).collect();
            let res = instantiate(&o.result);
            if self.mapping.assign_list(&arg_types, &params) {
                matched.push(leak(&o.id));
                let r = self.mapping.substitute(&res, false);
                result = Some(match result {
                    None => r,
                    Some(prev) if !prev.is_dyn() && prev != r => Type::Dyn,
                    Some(prev) => prev,
                });
            }
        }
        match result {
            Some(t) => {
                self.overloads[e.id as usize] = matched;
                self.set(e, t);
            }
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| self.mapping.substitute(t, true).to_string())
                    .collect();
                let signature = if target.is_some() {
                    format!("{}.({})", shown[0], shown[1..].join(", "))
                } else {
                    format!("({})", shown.join(", "))
                };
                self.error(
                    e.id,
                    format!("found no matching overload for '{function}' applied to '{signature}'"),
                );
                self.set(e, Type::Error);
            }
        }
    }

    fn check_comprehension(&mut self, e: &Expr, comp: &Comprehension) {
        self.check(&comp.iter_range);
        self.check(&comp.accu_init);
        let range = self.mapping.substitute(&self.ty(&comp.iter_range), false);
        let accu = self.ty(&comp.accu_init);
        self.scopes
            .push(HashMap::from([(comp.accu_var.clone(), accu.clone())]));
        let two = comp.iter_var2.is_some();
        let (v1, v2) = match &range {
            Type::List(elem) if two => (Type::Int, (**elem).clone()),
            Type::List(elem) => ((**elem).clone(), Type::Error),
            Type::Map(k, v) => ((**k).clone(), (**v).clone()),
            Type::Dyn | Type::Error | Type::TypeParam(_) => {
                self.mapping.assign(&Type::Dyn, &range);
                (Type::Dyn, Type::Dyn)
            }
            other => {
                self.error(
                    comp.iter_range.id,
                    format!(
                        "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                    ),
                );
                (Type::Error, Type::Error)
            }
        };
        let mut scope = HashMap::from([(comp.iter_var.clone(), v1)]);
        if let Some(v) = &comp.iter_var2 {
            scope.insert(v.clone(), v2);
        }
        self.scopes.push(scope);
        self.check(&comp.loop_condition);
        self.assert_type(&comp.loop_condition, &Type::Bool);
        self.check(&comp.loop_step);
        self.assert_type(&comp.loop_step, &accu);
        self.scopes.pop();
        self.check(&comp.result);
        self.scopes.pop();
        let t = self.mapping.substitute(&self.ty(&comp.result), false);
        self.set(e, t);
    }

    fn assert_type(&mut self, e: &Expr, expected: &Type) {
        let actual = self.ty(e);
        if !self.mapping.assign(expected, &actual) {
            self.error(
                e.id,
                format!("expected type '{expected}' but found '{actual}'"),
            );
        }
    }
}

/// The overload ids live as long as the static function table; this returns the same `&str`.
fn leak(id: &'static str) -> &'static str {
    id
}

fn substitute_params(t: &Type, fresh: &[(Type, Type)]) -> Type {
    match t {
        Type::TypeParam(_) => fresh
            .iter()
            .find(|(p, _)| p == t)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| t.clone()),
        Type::List(e) => Type::list(substitute_params(e, fresh)),
        Type::Map(k, v) => Type::map(substitute_params(k, fresh), substitute_params(v, fresh)),
        Type::Opaque(n, p) => Type::Opaque(
            n.clone(),
            p.iter().map(|p| substitute_params(p, fresh)).collect(),
        ),
        Type::TypeOf(Some(p)) => Type::TypeOf(Some(Box::new(substitute_params(p, fresh)))),
        _ => t.clone(),
    }
}

/// A name without the leading dot that scopes it to the root (`.self`, `.size`).
pub(crate) fn root_scoped(name: &str) -> &str {
    name.strip_prefix('.').unwrap_or(name)
}

/// `a.b.c` as a dotted name, when the expression is only identifiers and selections.
fn qualified_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(n) => Some(root_scoped(n).to_string()),
        ExprKind::Select {
            operand,
            field,
            test: false,
        } => Some(format!("{}.{field}", qualified_name(operand)?)),
        _ => None,
    }
}

/// cel-go's `ValidateHomogeneousAggregateLiterals`, which runs on a checked expression: in each
/// list literal the elements, in each map literal the keys and the values, of one type. The
/// literals under a `format` call are exempt (the strings extension exempts them).
fn homogeneous_literals(root: &Expr, types: &[Type]) -> Vec<CheckError> {
    let mut errors = Vec::new();
    let exempt = crate::format::under_format_calls(root);
    let elem_type = |e: &Expr, optional: bool| {
        let t = &types[e.id as usize];
        if optional {
            t.unwrap_optional().unwrap_or(t).clone()
        } else {
            t.clone()
        }
    };
    let mismatch = |id: u32, expected: &Type, found: &Type| CheckError {
        id,
        message: format!("expected type '{expected}' but found '{found}'"),
    };
    root.walk(&mut |e| match &e.kind {
        _ if exempt.contains(&e.id) => {}
        ExprKind::List { elements, optional } => {
            let mut first: Option<Type> = None;
            for (i, el) in elements.iter().enumerate() {
                let t = elem_type(el, optional.contains(&i));
                match &first {
                    None => first = Some(t),
                    Some(f) if *f != t => {
                        errors.push(mismatch(el.id, f, &t));
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
        ExprKind::Map { entries } => {
            let mut first: Option<(Type, Type)> = None;
            for entry in entries {
                let (k, v) = (
                    elem_type(&entry.key, false),
                    elem_type(&entry.value, entry.optional),
                );
                match &first {
                    None => first = Some((k, v)),
                    Some((fk, fv)) => {
                        if *fk != k {
                            errors.push(mismatch(entry.key.id, fk, &k));
                        }
                        if *fv != v {
                            errors.push(mismatch(entry.value.id, fv, &v));
                        }
                    }
                }
            }
        }
        _ => {}
    });
    errors
}
