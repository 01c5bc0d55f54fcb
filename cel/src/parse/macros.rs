//! The macros of the Kubernetes CRD environment, expanded at parse time as cel-go expands
//! them: `has`, the comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`, and their
//! two-variable forms), `sortBy`, and `optMap`/`optFlatMap`.

use super::{ParseError, Parser};
use crate::ast::{ACCUMULATOR, Comprehension, Expr, ExprKind, Literal};

impl Parser {
    pub(super) fn global_call_or_macro(
        &mut self,
        at: u32,
        name: &str,
        mut args: Vec<Expr>,
    ) -> Result<Expr, ParseError> {
        if name == "has" && args.len() == 1 {
            let arg = args.pop().unwrap();
            let nesting = self.nesting_of(&arg);
            return match arg.kind {
                ExprKind::Select {
                    operand,
                    field,
                    test: false,
                } => {
                    let test = self.node(
                        at,
                        ExprKind::Select {
                            operand,
                            field,
                            test: true,
                        },
                    );
                    // The selection inside `has()` counts, as cel-go visits it.
                    self.nesting[test.id as usize - 1] = nesting;
                    Ok(test)
                }
                _ => Err(ParseError {
                    at,
                    message: "invalid argument to has() macro".into(),
                }),
            };
        }
        Ok(self.call(at, name, None, args))
    }

    pub(super) fn receiver_call_or_macro(
        &mut self,
        at: u32,
        name: &str,
        target: Expr,
        args: Vec<Expr>,
    ) -> Result<Expr, ParseError> {
        let n = args.len();
        let one_var = matches!(
            (name, n),
            ("all" | "exists" | "exists_one" | "filter", 2) | ("map", 2 | 3)
        );
        let two_var = matches!(
            (name, n),
            ("all" | "exists" | "existsOne" | "exists_one", 3)
                | (
                    "transformList" | "transformMap" | "transformMapEntry",
                    3 | 4
                )
        );
        if one_var || two_var {
            return self.comprehension_macro(at, name, target, args, two_var);
        }
        if name == "sortBy" && n == 2 {
            return self.sort_by(at, target, args);
        }
        if matches!(name, "optMap" | "optFlatMap") && n == 2 {
            return self.opt_map(at, name, target, args);
        }
        Ok(self.call(at, name, Some(target), args))
    }

    fn simple_name(&self, e: &Expr, at: u32) -> Result<String, ParseError> {
        match &e.kind {
            ExprKind::Ident(s) => Ok(s.clone()),
            _ => Err(ParseError {
                at,
                message: "argument must be a simple name".into(),
            }),
        }
    }

    fn accu(&mut self, at: u32) -> Expr {
        self.node(at, ExprKind::Ident(ACCUMULATOR.into()))
    }
    fn lit(&mut self, at: u32, l: Literal) -> Expr {
        self.node(at, ExprKind::Literal(l))
    }

    fn comprehension_macro(
        &mut self,
        at: u32,
        name: &str,
        target: Expr,
        mut args: Vec<Expr>,
        two_var: bool,
    ) -> Result<Expr, ParseError> {
        let arg_at = |e: &Expr, offsets: &[u32]| offsets[e.id as usize - 1];
        let (at0, at1) = (
            arg_at(&args[0], &self.offsets),
            args.get(1).map(|a| arg_at(a, &self.offsets)),
        );
        let not_a_name = if two_var || !matches!(name, "map" | "filter") {
            "argument must be a simple name"
        } else {
            "argument is not an identifier"
        };
        let name_of = |e: &Expr, at: u32| match &e.kind {
            ExprKind::Ident(s) => Ok(s.clone()),
            _ => Err(ParseError {
                at,
                message: not_a_name.into(),
            }),
        };
        // cel-go refuses the hidden accumulator's name and the traditional one alike.
        let overwrites = |v: &str, at: u32| {
            if v == ACCUMULATOR || v == "__result__" {
                Err(ParseError {
                    at,
                    message: "iteration variable overwrites accumulator variable".into(),
                })
            } else {
                Ok(())
            }
        };
        let v1 = name_of(&args[0], at0)?;
        let v2 = if two_var {
            let at1 = at1.unwrap_or(at);
            let v2 = name_of(&args[1], at1)?;
            if v1 == v2 {
                return Err(ParseError {
                    at: at1,
                    message: format!("duplicate variable name: {v1}"),
                });
            }
            overwrites(&v1, at0)?;
            overwrites(&v2, at1)?;
            Some(v2)
        } else {
            overwrites(&v1, at0)?;
            None
        };
        let rest: Vec<Expr> = args.drain(if two_var { 2.. } else { 1.. }).collect();
        let (init, cond, step, result) = match name {
            "all" => {
                let init = self.lit(at, Literal::Bool(true));
                let a = self.accu(at);
                let cond = self.call(at, "@not_strictly_false", None, vec![a]);
                let a = self.accu(at);
                let pred = rest.into_iter().next().unwrap();
                let step = self.call(at, "_&&_", None, vec![a, pred]);
                (init, cond, step, self.accu(at))
            }
            "exists" => {
                let init = self.lit(at, Literal::Bool(false));
                let a = self.accu(at);
                let not = self.call(at, "!_", None, vec![a]);
                let cond = self.call(at, "@not_strictly_false", None, vec![not]);
                let a = self.accu(at);
                let pred = rest.into_iter().next().unwrap();
                let step = self.call(at, "_||_", None, vec![a, pred]);
                (init, cond, step, self.accu(at))
            }
            "exists_one" | "existsOne" => {
                let init = self.lit(at, Literal::Int(0));
                let cond = self.lit(at, Literal::Bool(true));
                let pred = rest.into_iter().next().unwrap();
                let a = self.accu(at);
                let one = self.lit(at, Literal::Int(1));
                let inc = self.call(at, "_+_", None, vec![a, one]);
                let a = self.accu(at);
                let step = self.call(at, "_?_:_", None, vec![pred, inc, a]);
                let a = self.accu(at);
                let one = self.lit(at, Literal::Int(1));
                let result = self.call(at, "_==_", None, vec![a, one]);
                (init, cond, step, result)
            }
            "map" | "filter" | "transformList" => {
                let mut rest = rest.into_iter();
                let (filter, transform) = match (name, rest.len()) {
                    ("filter", _) => {
                        let p = rest.next().unwrap();
                        let x = self.node(at, ExprKind::Ident(v1.clone()));
                        (Some(p), x)
                    }
                    (_, 2) => (rest.next(), rest.next().unwrap()),
                    _ => (None, rest.next().unwrap()),
                };
                let init = self.node(
                    at,
                    ExprKind::List {
                        elements: vec![],
                        optional: vec![],
                    },
                );
                let cond = self.lit(at, Literal::Bool(true));
                let a = self.accu(at);
                let l = self.node(
                    at,
                    ExprKind::List {
                        elements: vec![transform],
                        optional: vec![],
                    },
                );
                let mut step = self.call(at, "_+_", None, vec![a, l]);
                if let Some(filter) = filter {
                    let a = self.accu(at);
                    step = self.call(at, "_?_:_", None, vec![filter, step, a]);
                }
                (init, cond, step, self.accu(at))
            }
            _ => {
                // transformMap / transformMapEntry
                let mut rest = rest.into_iter();
                let (filter, transform) = if rest.len() == 2 {
                    (rest.next(), rest.next().unwrap())
                } else {
                    (None, rest.next().unwrap())
                };
                let init = self.node(at, ExprKind::Map { entries: vec![] });
                let cond = self.lit(at, Literal::Bool(true));
                let a = self.accu(at);
                let mut step = if name == "transformMap" {
                    let k = self.node(at, ExprKind::Ident(v1.clone()));
                    self.call(at, "cel.@mapInsert", None, vec![a, k, transform])
                } else {
                    self.call(at, "cel.@mapInsert", None, vec![a, transform])
                };
                if let Some(filter) = filter {
                    let a = self.accu(at);
                    step = self.call(at, "_?_:_", None, vec![filter, step, a]);
                }
                (init, cond, step, self.accu(at))
            }
        };
        let comp = Comprehension {
            iter_range: target,
            iter_var: v1,
            iter_var2: v2,
            accu_var: ACCUMULATOR.into(),
            accu_init: init,
            loop_condition: cond,
            loop_step: step,
            result,
        };
        Ok(self.node(at, ExprKind::Comprehension(Box::new(comp))))
    }

    /// ext.Lists' `l.sortBy(e, key)` = `cel.bind(@__sortBy_input__, l,
    /// @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))`.
    fn sort_by(&mut self, at: u32, target: Expr, args: Vec<Expr>) -> Result<Expr, ParseError> {
        const INPUT: &str = "@__sortBy_input__";
        if !matches!(
            target.kind,
            ExprKind::List { .. }
                | ExprKind::Select { .. }
                | ExprKind::Ident(_)
                | ExprKind::Comprehension(_)
                | ExprKind::Call { .. }
        ) {
            return Err(ParseError {
                at,
                message: "sortBy can only be applied to a list, identifier, comprehension, call or select expression".into(),
            });
        }
        let input = self.node(at, ExprKind::Ident(INPUT.into()));
        let keys = self.comprehension_macro(at, "map", input, args, false)?;
        let input = self.node(at, ExprKind::Ident(INPUT.into()));
        let result = self.call(at, "@sortByAssociatedKeys", Some(input), vec![keys]);
        let empty = self.node(
            at,
            ExprKind::List {
                elements: vec![],
                optional: vec![],
            },
        );
        let f = self.lit(at, Literal::Bool(false));
        let step = self.node(at, ExprKind::Ident(INPUT.into()));
        let bind = Comprehension {
            iter_range: empty,
            iter_var: "#unused".into(),
            iter_var2: None,
            accu_var: INPUT.into(),
            accu_init: target,
            loop_condition: f,
            loop_step: step,
            result,
        };
        Ok(self.node(at, ExprKind::Comprehension(Box::new(bind))))
    }

    /// `o.optMap(v, e)` = `o.hasValue() ? optional.of(cel.bind(v, o.value(), e)) : optional.none()`;
    /// `optFlatMap` without the `optional.of`.
    fn opt_map(
        &mut self,
        at: u32,
        name: &str,
        target: Expr,
        mut args: Vec<Expr>,
    ) -> Result<Expr, ParseError> {
        let var_at = self.offsets[args[0].id as usize - 1];
        let var = self.simple_name(&args[0], var_at)?;
        let body = args.pop().unwrap();
        let has = self.call(at, "hasValue", Some(target.clone()), vec![]);
        let value = self.call(at, "value", Some(target), vec![]);
        let empty = self.node(
            at,
            ExprKind::List {
                elements: vec![],
                optional: vec![],
            },
        );
        let f = self.lit(at, Literal::Bool(false));
        let step = self.node(at, ExprKind::Ident(var.clone()));
        let bind = Comprehension {
            iter_range: empty,
            iter_var: "#unused".into(),
            iter_var2: None,
            accu_var: var,
            accu_init: value,
            loop_condition: f,
            loop_step: step,
            result: body,
        };
        let bind = self.node(at, ExprKind::Comprehension(Box::new(bind)));
        let some = if name == "optMap" {
            self.call(at, "optional.of", None, vec![bind])
        } else {
            bind
        };
        let none = self.call(at, "optional.none", None, vec![]);
        Ok(self.call(at, "_?_:_", None, vec![has, some, none]))
    }
}
