//! The parsed expression, shaped as cel-go's parser shapes it: macros are already expanded into
//! comprehensions, and every node has an id whose source offset the checker's errors point at.

/// A literal value, as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    Null,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub id: u32,
    pub kind: ExprKind,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Literal(Literal),
    Ident(String),
    /// `operand.field`; `test` is the presence test of `has(operand.field)`.
    Select {
        operand: Box<Expr>,
        field: String,
        test: bool,
    },
    Call {
        function: String,
        target: Option<Box<Expr>>,
        args: Vec<Expr>,
    },
    List {
        elements: Vec<Expr>,
        /// Indices of `?elem` entries.
        optional: Vec<usize>,
    },
    Map {
        entries: Vec<MapEntry>,
    },
    Struct {
        type_name: String,
        fields: Vec<StructField>,
    },
    Comprehension(Box<Comprehension>),
}

#[derive(Clone, Debug)]
pub struct MapEntry {
    pub id: u32,
    pub key: Expr,
    pub value: Expr,
    pub optional: bool,
}

#[derive(Clone, Debug)]
pub struct StructField {
    pub id: u32,
    pub name: String,
    pub value: Expr,
    pub optional: bool,
}

#[derive(Clone, Debug)]
pub struct Comprehension {
    pub iter_range: Expr,
    pub iter_var: String,
    pub iter_var2: Option<String>,
    pub accu_var: String,
    pub accu_init: Expr,
    pub loop_condition: Expr,
    pub loop_step: Expr,
    pub result: Expr,
}

/// The accumulator of the standard macros (cel-go's `parser.AccumulatorName`).
pub const ACCUMULATOR: &str = "@result";

/// An expression with the source offsets (in characters) of its nodes.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub expr: Expr,
    /// Offset, in characters from the start of the source, of node `id`.
    pub offsets: Vec<u32>,
    pub source: String,
    /// The node count, for the checker's per-node tables.
    pub node_count: u32,
}

impl Expr {
    /// Visits this node and every node under it.
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select { operand, .. } => operand.walk(f),
            ExprKind::Call { target, args, .. } => {
                if let Some(t) = target {
                    t.walk(f);
                }
                for a in args {
                    a.walk(f);
                }
            }
            ExprKind::List { elements, .. } => elements.iter().for_each(|e| e.walk(f)),
            ExprKind::Map { entries } => {
                for e in entries {
                    e.key.walk(f);
                    e.value.walk(f);
                }
            }
            ExprKind::Struct { fields, .. } => fields.iter().for_each(|e| e.value.walk(f)),
            ExprKind::Comprehension(c) => {
                c.iter_range.walk(f);
                c.accu_init.walk(f);
                c.loop_condition.walk(f);
                c.loop_step.walk(f);
                c.result.walk(f);
            }
        }
    }
}
