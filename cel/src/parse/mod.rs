//! CEL's grammar (cel-go's `CEL.g4`) as a recursive-descent parser, with the macros of the
//! Kubernetes CRD environment expanded as cel-go expands them: `has`, `all`, `exists`,
//! `exists_one`, `map`, `filter`, the two-variable forms of `ext.TwoVarComprehensions`, and
//! `optMap`/`optFlatMap` of the optional types.
//!
//! Written here rather than reusing the `cel` crate's parser: that parser keeps no source
//! offsets for an expression that parses (the checker's errors need them), and knows neither
//! backtick identifiers nor the two-variable macros.

use crate::ast::{Expr, ExprKind, Literal, MapEntry, Parsed, StructField};
use crate::lex::{Tok, Token, lex};

mod macros;

/// A parse error: the character offset and the message (cel-go's wording where it has one;
/// syntax errors are worded after ANTLR's but not identically).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub at: u32,
    pub message: String,
}

/// The words cel-go's grammar reserves: the escaping list less `true`, `false`, `null` and
/// `in`, which the grammar reads as tokens of their own.
const RESERVED: &[&str] = crate::schema::RESERVED.split_at(4).1;

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
mod tests;
