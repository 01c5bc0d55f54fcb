//! CEL's grammar (cel-go's `CEL.g4`) as a recursive-descent parser, with the macros of the
//! Kubernetes CRD environment expanded as cel-go expands them: `has`, `all`, `exists`,
//! `exists_one`, `map`, `filter`, the two-variable forms of `ext.TwoVarComprehensions`, and
//! `optMap`/`optFlatMap` of the optional types.
//!
//! Written here rather than reusing the `cel` crate's parser: that parser keeps no source
//! offsets for an expression that parses (the checker's errors need them), and knows neither
//! backtick identifiers nor the two-variable macros.

use crate::ast::{
    ACCUMULATOR, Comprehension, Expr, ExprKind, Literal, MapEntry, Parsed, StructField,
};
use crate::lex::{Tok, Token, lex};

/// A parse error: the character offset and the message (cel-go's wording where it has one;
/// syntax errors are worded after ANTLR's but not identically).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub at: u32,
    pub message: String,
}

const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// cel-go's default maximum recursion depth (`parser.MaxRecursionDepth`), which the API
/// server keeps: the nesting of `expr` rules while parsing, and the nesting of operators,
/// selections, calls and indexes while building the tree.
pub const MAX_RECURSION_DEPTH: u32 = 250;

/// cel-go's default limit on an expression's size, in code points, which the API server keeps.
pub const MAX_CODE_POINTS: usize = 100_000;

/// The offset of an error that has no place in the source (cel-go's `NoLocation`, shown as
/// `<input>:-1:0` without a snippet).
pub const NO_LOCATION: u32 = u32::MAX;

pub fn parse(source: &str) -> Result<Parsed, ParseError> {
    let size = source.chars().count();
    if size > MAX_CODE_POINTS {
        return Err(ParseError {
            at: NO_LOCATION,
            message: format!(
                "expression code point size exceeds limit: size: {size}, limit {MAX_CODE_POINTS}"
            ),
        });
    }
    let tokens = lex(source).map_err(|(at, message)| ParseError { at, message })?;
    let mut p = Parser {
        tokens,
        pos: 0,
        offsets: Vec::new(),
        nesting: Vec::new(),
        depth: 0,
    };
    let expr = p.expr()?;
    if p.peek() != &Tok::Eof {
        return Err(p.unexpected("<EOF>"));
    }
    if p.nesting[expr.id as usize - 1] > MAX_RECURSION_DEPTH {
        return Err(ParseError {
            at: NO_LOCATION,
            message: "max recursion depth exceeded".into(),
        });
    }
    let node_count = p.offsets.len() as u32;
    Ok(Parsed {
        expr,
        offsets: p.offsets,
        source: source.to_string(),
        node_count,
    })
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    offsets: Vec<u32>,
    /// By node id: how many of cel-go's depth-counted parse nodes (`?:`, relations,
    /// arithmetic, selections, member calls, indexes) nest on the deepest path through the
    /// node, the node included. cel-go counts them while it builds the tree from the parse
    /// tree; chains (`a.b.c`, `1 + 2 + 3`) nest to the left there, so they count here too
    /// although this parser reads them in a loop.
    nesting: Vec<u32>,
    /// The nesting of `expr` rules (cel-go's parse listener's count).
    depth: u32,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }
    fn at(&self) -> u32 {
        self.tokens[self.pos].at
    }
    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        t
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str) -> Result<u32, ParseError> {
        if self.is(p) {
            Ok(self.bump().at)
        } else {
            Err(self.unexpected(&format!("'{p}'")))
        }
    }
    fn unexpected(&self, expecting: &str) -> ParseError {
        let found = match self.peek() {
            // ANTLR quotes the end of input as any token.
            Tok::Eof => "'<EOF>'".to_string(),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Escaped(s) => format!("'`{s}`'"),
            Tok::Punct(p) => format!("'{p}'"),
            Tok::Lit(l) => format!("'{}'", literal_text(l)),
        };
        ParseError {
            at: self.at(),
            message: format!("Syntax error: mismatched input {found} expecting {expecting}"),
        }
    }
    fn node(&mut self, at: u32, kind: ExprKind) -> Expr {
        let nesting = self.children_nesting(&kind);
        self.offsets.push(at);
        self.nesting.push(nesting);
        Expr {
            id: self.offsets.len() as u32,
            kind,
        }
    }
    fn id(&mut self, at: u32) -> u32 {
        self.offsets.push(at);
        self.nesting.push(0);
        self.offsets.len() as u32
    }
    fn nesting_of(&self, e: &Expr) -> u32 {
        self.nesting[e.id as usize - 1]
    }
    /// The deepest nesting among a new node's children.
    fn children_nesting(&self, kind: &ExprKind) -> u32 {
        let of = |e: &Expr| self.nesting_of(e);
        match kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => 0,
            ExprKind::Select { operand, .. } => of(operand),
            ExprKind::Call { target, args, .. } => target
                .iter()
                .map(|t| of(t))
                .chain(args.iter().map(of))
                .max()
                .unwrap_or(0),
            ExprKind::List { elements, .. } => elements.iter().map(of).max().unwrap_or(0),
            ExprKind::Map { entries } => entries
                .iter()
                .map(|e| of(&e.key).max(of(&e.value)))
                .max()
                .unwrap_or(0),
            ExprKind::Struct { fields, .. } => {
                fields.iter().map(|f| of(&f.value)).max().unwrap_or(0)
            }
            ExprKind::Comprehension(c) => [
                &c.iter_range,
                &c.accu_init,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ]
            .into_iter()
            .map(of)
            .max()
            .unwrap_or(0),
        }
    }
    /// Counts `e` as one of cel-go's depth-counted parse nodes.
    fn counted(&mut self, e: Expr) -> Expr {
        self.nesting[e.id as usize - 1] += 1;
        e
    }
    fn call(&mut self, at: u32, function: &str, target: Option<Expr>, args: Vec<Expr>) -> Expr {
        let kind = ExprKind::Call {
            function: function.into(),
            target: target.map(Box::new),
            args,
        };
        self.node(at, kind)
    }
    fn deeper(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_RECURSION_DEPTH {
            return Err(ParseError {
                at: NO_LOCATION,
                message: format!("expression recursion limit exceeded: {MAX_RECURSION_DEPTH}"),
            });
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        self.deeper()?;
        let cond = self.logical("||", Self::and)?;
        let e = if self.is("?") {
            let at = self.bump().at;
            let t = self.logical("||", Self::and)?;
            self.expect(":")?;
            let f = self.expr()?;
            let e = self.call(at, "_?_:_", None, vec![cond, t, f]);
            self.counted(e)
        } else {
            cond
        };
        self.depth -= 1;
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        self.logical("&&", Self::relation)
    }

    /// A chain of `&&` or `||`, balanced as cel-go's logic manager balances it.
    fn logical(
        &mut self,
        op: &str,
        next: fn(&mut Self) -> Result<Expr, ParseError>,
    ) -> Result<Expr, ParseError> {
        let mut terms = vec![next(self)?];
        let mut ops = Vec::new();
        while self.is(op) {
            ops.push(self.bump().at);
            terms.push(next(self)?);
        }
        if terms.len() == 1 {
            return Ok(terms.pop().unwrap());
        }
        let function = if op == "&&" { "_&&_" } else { "_||_" };
        let mut terms: Vec<Option<Expr>> = terms.into_iter().map(Some).collect();
        let hi = ops.len() - 1;
        Ok(self.balanced(function, &mut terms, &ops, 0, hi))
    }

    /// cel-go's `balancedTree` over the operators `lo..=hi` (operator `i` joins terms `i`, `i+1`).
    fn balanced(
        &mut self,
        function: &str,
        terms: &mut [Option<Expr>],
        ops: &[u32],
        lo: usize,
        hi: usize,
    ) -> Expr {
        let mid = (lo + hi).div_ceil(2);
        let left = if mid == lo {
            terms[mid].take().expect("each term is used once")
        } else {
            self.balanced(function, terms, ops, lo, mid - 1)
        };
        let right = if mid == hi {
            terms[mid + 1].take().expect("each term is used once")
        } else {
            self.balanced(function, terms, ops, mid + 1, hi)
        };
        self.call(ops[mid], function, None, vec![left, right])
    }

    fn relation(&mut self) -> Result<Expr, ParseError> {
        const OPS: &[(&str, &str)] = &[
            ("<", "_<_"),
            ("<=", "_<=_"),
            (">", "_>_"),
            (">=", "_>=_"),
            ("==", "_==_"),
            ("!=", "_!=_"),
            ("in", "@in"),
        ];
        self.left_associative(OPS, Self::additive)
    }

    fn additive(&mut self) -> Result<Expr, ParseError> {
        self.left_associative(&[("+", "_+_"), ("-", "_-_")], Self::multiplicative)
    }

    fn multiplicative(&mut self) -> Result<Expr, ParseError> {
        self.left_associative(&[("*", "_*_"), ("/", "_/_"), ("%", "_%_")], Self::unary)
    }

    /// `operand (op operand)*`, folded to the left: each `op` is called as its function.
    fn left_associative(
        &mut self,
        ops: &[(&str, &'static str)],
        operand: fn(&mut Self) -> Result<Expr, ParseError>,
    ) -> Result<Expr, ParseError> {
        let mut lhs = operand(self)?;
        loop {
            let next = self.peek();
            let Some(&(_, function)) = ops
                .iter()
                .find(|(op, _)| matches!(next, Tok::Punct(p) if p == op))
            else {
                return Ok(lhs);
            };
            let at = self.bump().at;
            let rhs = operand(self)?;
            let e = self.call(at, function, None, vec![lhs, rhs]);
            lhs = self.counted(e);
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        for (op, function) in [("!", "!_"), ("-", "-_")] {
            if self.is(op) {
                // A minus directly before a number is part of the literal (`-1`, `-9223372036854775808`).
                if op == "-"
                    && let Some(Token {
                        tok: Tok::Lit(l @ (Literal::Int(_) | Literal::Double(_))),
                        ..
                    }) = self.tokens.get(self.pos + 1).cloned()
                {
                    let at = self.bump().at;
                    self.bump();
                    let lit = match l {
                        Literal::Int(v) => Literal::Int((v as u64).wrapping_neg() as i64),
                        Literal::Double(v) => Literal::Double(-v),
                        _ => unreachable!(),
                    };
                    let e = self.node(at, ExprKind::Literal(lit));
                    return self.member_suffix(e);
                }
                let mut ats = Vec::new();
                while self.is(op) {
                    ats.push(self.bump().at);
                }
                let operand = self.member()?;
                // An even count of the same operator cancels out, as in cel-go.
                if ats.len() % 2 == 0 {
                    return Ok(operand);
                }
                return Ok(self.call(ats[0], function, None, vec![operand]));
            }
        }
        if let Tok::Lit(Literal::Int(v)) = self.peek()
            && (*v as u64) > i64::MAX as u64
        {
            return Err(ParseError {
                at: self.at(),
                message: "invalid int literal".into(),
            });
        }
        self.member()
    }

    fn member(&mut self) -> Result<Expr, ParseError> {
        let primary = self.primary()?;
        self.member_suffix(primary)
    }

    fn member_suffix(&mut self, mut e: Expr) -> Result<Expr, ParseError> {
        loop {
            if self.is(".") {
                let at = self.bump().at;
                let optional = self.eat("?");
                let field = match self.bump().tok {
                    Tok::Ident(s) | Tok::Escaped(s) => s,
                    _ => {
                        self.pos -= 1;
                        return Err(self.unexpected("IDENTIFIER"));
                    }
                };
                let selected = if optional {
                    let name = self.node(at, ExprKind::Literal(Literal::String(field)));
                    self.call(at, "_?._", None, vec![e, name])
                } else if self.is("(") {
                    let open = self.bump().at;
                    let args = self.list_until(")")?;
                    self.receiver_call_or_macro(open, &field, e, args)?
                } else {
                    self.node(
                        at,
                        ExprKind::Select {
                            operand: Box::new(e),
                            field,
                            test: false,
                        },
                    )
                };
                e = self.counted(selected);
            } else if self.is("[") {
                let at = self.bump().at;
                let optional = self.eat("?");
                let index = self.expr()?;
                self.expect("]")?;
                let function = if optional { "_[?_]" } else { "_[_]" };
                let indexed = self.call(at, function, None, vec![e, index]);
                e = self.counted(indexed);
            } else {
                return Ok(e);
            }
        }
    }

    /// Comma-separated expressions up to `close` (consumed), with a trailing comma allowed.
    fn list_until(&mut self, close: &str) -> Result<Vec<Expr>, ParseError> {
        let mut out = Vec::new();
        while !self.is(close) {
            out.push(self.expr()?);
            if !self.eat(",") {
                break;
            }
        }
        self.expect(close)?;
        Ok(out)
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let at = self.at();
        match self.peek().clone() {
            Tok::Lit(l) => {
                self.bump();
                Ok(self.node(at, ExprKind::Literal(l)))
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("[") => {
                self.bump();
                let mut elements = Vec::new();
                let mut optional = Vec::new();
                while !self.is("]") {
                    if self.eat("?") {
                        optional.push(elements.len());
                    }
                    elements.push(self.expr()?);
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect("]")?;
                Ok(self.node(at, ExprKind::List { elements, optional }))
            }
            Tok::Punct("{") => {
                self.bump();
                let mut entries = Vec::new();
                while !self.is("}") {
                    let optional = self.eat("?");
                    let key = self.expr()?;
                    let colon = self.expect(":")?;
                    let value = self.expr()?;
                    let id = self.id(colon);
                    entries.push(MapEntry { id, key, value, optional });
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect("}")?;
                Ok(self.node(at, ExprKind::Map { entries }))
            }
            Tok::Punct(".") | Tok::Ident(_) => {
                let leading_dot = self.eat(".");
                let Tok::Ident(name) = self.peek().clone() else {
                    return Err(self.unexpected("IDENTIFIER"));
                };
                let at = self.bump().at;
                if RESERVED.contains(&name.as_str()) {
                    return Err(ParseError { at, message: format!("reserved identifier: {name}") });
                }
                let name = if leading_dot { format!(".{name}") } else { name };
                if self.is("(") {
                    let open = self.bump().at;
                    let args = self.list_until(")")?;
                    return self.global_call_or_macro(open, &name, args);
                }
                // A message literal `a.b.C{...}`: the qualified name then braces.
                let save = self.pos;
                let mut qualified = name.clone();
                while self.is(".") && matches!(self.tokens.get(self.pos + 1).map(|t| &t.tok), Some(Tok::Ident(_))) {
                    self.bump();
                    if let Tok::Ident(s) = self.bump().tok {
                        qualified = format!("{qualified}.{s}");
                    }
                }
                if self.is("{") {
                    let open = self.bump().at;
                    let mut fields = Vec::new();
                    while !self.is("}") {
                        let optional = self.eat("?");
                        let name = match self.bump().tok {
                            Tok::Ident(s) | Tok::Escaped(s) => s,
                            _ => {
                                self.pos -= 1;
                                return Err(self.unexpected("IDENTIFIER"));
                            }
                        };
                        let colon = self.expect(":")?;
                        let value = self.expr()?;
                        let id = self.id(colon);
                        fields.push(StructField { id, name, value, optional });
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect("}")?;
                    return Ok(self.node(open, ExprKind::Struct { type_name: qualified, fields }));
                }
                self.pos = save;
                Ok(self.node(at, ExprKind::Ident(name)))
            }
            _ => Err(self.unexpected("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}")),
        }
    }

    fn global_call_or_macro(
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

    fn receiver_call_or_macro(
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

fn literal_text(l: &Literal) -> String {
    match l {
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Uint(u) => format!("{u}u"),
        Literal::Double(d) => d.to_string(),
        Literal::String(s) => format!("{s:?}"),
        Literal::Bytes(_) => "b\"...\"".into(),
        Literal::Null => "null".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    }

    fn error_of(source: &str) -> Option<ParseError> {
        parse(source).err()
    }

    /// cel-go's parse listener: more than 250 nested `expr` rules (the whole expression is
    /// one, each list, parenthesis, argument or `:` branch one more).
    #[test]
    fn nesting_beyond_cel_gos_limit_is_refused_as_cel_go_refuses_it() {
        crate::on_large_stack(nesting_beyond_the_limit);
    }

    fn nesting_beyond_the_limit() {
        let limit = format!("expression recursion limit exceeded: {MAX_RECURSION_DEPTH}");
        for (open, close) in [("[", "]"), ("(", ")"), ("f(", ")"), ("{1: ", "}")] {
            let at_limit = nested(open, "1", close, 249);
            assert_eq!(error_of(&at_limit), None, "{open}: 249 levels");
            let over = nested(open, "1", close, 250);
            assert_eq!(
                error_of(&over),
                Some(ParseError {
                    at: NO_LOCATION,
                    message: limit.clone()
                }),
                "{open}: 250 levels"
            );
        }
        let ternaries = |n: usize| format!("{}1", "true ? 1 : ".repeat(n));
        assert_eq!(error_of(&ternaries(249)), None);
        assert_eq!(error_of(&ternaries(250)).unwrap().message, limit);
    }

    /// cel-go's tree builder: more than 250 operators, selections, calls or indexes on one
    /// path of the tree, chains included.
    #[test]
    fn chains_beyond_cel_gos_limit_are_refused_as_cel_go_refuses_them() {
        crate::on_large_stack(chains_beyond_the_limit);
    }

    fn chains_beyond_the_limit() {
        let max = MAX_RECURSION_DEPTH as usize;
        type Chain = (&'static str, fn(usize) -> String);
        let chains: [Chain; 6] = [
            ("sum", |n| format!("1{}", " + 1".repeat(n))),
            ("relation", |n| format!("1{}", " < 1".repeat(n))),
            ("select", |n| format!("a{}", ".b".repeat(n))),
            ("index", |n| format!("a{}", "[0]".repeat(n))),
            ("member call", |n| format!("a{}", ".f()".repeat(n))),
            // Lists do not count, their operators do, along the whole path.
            ("mixed", |n| {
                let inner = if n % 2 == 1 { "1 + 1" } else { "1" };
                nested("[", inner, " + 1 + 1]", n / 2)
            }),
        ];
        for (what, chain) in chains {
            assert_eq!(error_of(&chain(max)), None, "{what}: {max}");
            assert_eq!(
                error_of(&chain(max + 1)),
                Some(ParseError {
                    at: NO_LOCATION,
                    message: "max recursion depth exceeded".into()
                }),
                "{what}: {}",
                max + 1
            );
        }
        // `has()` keeps its selection's count; `&&` and `||` are balanced and do not count.
        assert!(error_of(&format!("has(a{})", ".b".repeat(max + 1))).is_some());
        assert_eq!(error_of(&vec!["a"; 5000].join(" && ")), None);
    }

    /// cel-go's macros refuse both accumulator names, at the variable, with its texts.
    #[test]
    fn macro_variables_as_cel_go_checks_them() {
        let overwrites = "iteration variable overwrites accumulator variable";
        for (source, at, message) in [
            ("[1].all(__result__, true)", 8, overwrites),
            ("[1].map(__result__, 1)", 8, overwrites),
            ("[1].all(i, __result__, true)", 11, overwrites),
            ("[1].all(i, i, true)", 11, "duplicate variable name: i"),
            ("[1].map(1, 1)", 8, "argument is not an identifier"),
            ("[1].exists(1, true)", 11, "argument must be a simple name"),
        ] {
            assert_eq!(
                error_of(source),
                Some(ParseError {
                    at,
                    message: message.into()
                }),
                "{source}"
            );
        }
        assert_eq!(error_of("[1].all(result, true)"), None);
    }

    #[test]
    fn expressions_over_100000_code_points_are_refused() {
        let fits = format!("'{}'", "é".repeat(MAX_CODE_POINTS - 2));
        assert_eq!(error_of(&fits), None);
        let over = format!("'{}'", "é".repeat(MAX_CODE_POINTS - 1));
        assert_eq!(
            error_of(&over).unwrap().message,
            "expression code point size exceeds limit: size: 100001, limit 100000"
        );
    }

    /// The deepest expressions the limits let through parse on the large stack, unoptimized.
    #[test]
    fn the_deepest_accepted_nesting_fits_the_large_stack() {
        let deepest = [
            nested("[", "1", "]", 249),
            nested("(", "1", ")", 249),
            nested("!f(-1, ", "1", ")", 249),
            nested("{a: ", "1", "}", 249),
            nested("[1 + ", "1", "]", 249),
        ];
        crate::on_large_stack(move || {
            for source in deepest {
                assert!(parse(&source).is_ok(), "{source}");
            }
        });
    }
}
