//! kube-apiserver's compile-time checks of CRD validation rules, without an API server: CEL
//! expressions parsed, type-checked against the schema and costed exactly as kube-apiserver 1.37
//! does when a CRD is created, with the server's own error texts.
//!
//! The path of the data: [`parse`](parse::parse) → [`check`](check::check) against the
//! schema's declared types ([`schema`]) → [`cost`](cost::estimate) → the CRD's limits
//! ([`crd::check_schema`]).

pub mod ast;
mod bounds;
pub mod check;
pub mod cost;
pub mod crd;
pub mod env;
mod field_path;
mod fold;
mod format;
mod go_regex;
mod lex;
mod literals;
pub mod parse;
pub mod schema;
mod stack;
pub mod types;

pub use bounds::SizeBound;
pub use crd::{
    ExpressionCost, Fix, PER_EXPRESSION_LIMIT, PER_SCHEMA_LIMIT, Problem, SchemaReport, Severity,
    check_schema, check_schema_with_bounds,
};
pub use stack::{LARGE_STACK, map_on_large_stacks, on_large_stack};

use ast::Parsed;
use cost::Estimate;
use schema::DeclType;
use std::fmt;
use types::Type;

/// A compiled expression: its type, its cost estimate, whether it reads `oldSelf`.
#[derive(Debug)]
pub struct Compiled {
    pub output: Type,
    pub cost: Estimate,
    pub uses_old_self: bool,
    /// Why the API server's `env.Program` fails on it, though it type-checks: a conversion
    /// of a constant that fails (`int('x')`), which cel-go evaluates while planning.
    pub instantiation_error: Option<String>,
}

/// cel-go's issues: each error at its line and column, with the source line and a caret.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    source: String,
    /// (character offset, message), sorted by position as cel-go sorts them.
    errors: Vec<(u32, String)>,
}

impl CompileError {
    pub fn messages(&self) -> impl Iterator<Item = &str> {
        self.errors.iter().map(|(_, m)| m.as_str())
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (at, message)) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            if *at == parse::NO_LOCATION {
                // cel-go's `NoLocation`: line -1, column -1 shown as 0, no snippet.
                write!(f, "ERROR: <input>:-1:0: {message}")?;
                continue;
            }
            let (line, column, text) = locate(&self.source, *at);
            write!(f, "ERROR: <input>:{line}:{}: {message}", column + 1)?;
            let snippet = text.replace('\t', " ");
            write!(f, "\n | {snippet}\n | ")?;
            let mut chars = snippet.chars();
            for _ in 0..column {
                match chars.next() {
                    Some(c) if c.len_utf8() > 1 => f.write_str("\u{FF0E}")?,
                    Some(_) => f.write_str(".")?,
                    None => break,
                }
            }
            match chars.next() {
                Some(c) if c.len_utf8() > 1 => f.write_str("\u{FF3E}")?,
                _ => f.write_str("^")?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for CompileError {}

/// Line (1-based), column (0-based, in characters) and the line's text of a character offset.
fn locate(source: &str, at: u32) -> (usize, usize, &str) {
    let mut line_start_char = 0usize;
    let mut line = 1;
    let mut line_text = source.split('\n');
    let mut text = line_text.next().unwrap_or("");
    for (count, c) in source.chars().enumerate() {
        if count as u32 >= at {
            break;
        }
        if c == '\n' {
            line += 1;
            line_start_char = count + 1;
            text = line_text.next().unwrap_or("");
        }
    }
    (
        line,
        at as usize - line_start_char,
        text.trim_end_matches('\r'),
    )
}

/// Compiles `expr` as a rule (or message expression) on a node of type `decl`: `self` is the
/// node, `oldSelf` the same or, with `optional_old_self`, `optional_type` of it. Runs on a
/// [`LARGE_STACK`].
pub fn compile(
    expr: &str,
    decl: &DeclType,
    optional_old_self: bool,
) -> Result<Compiled, CompileError> {
    on_large_stack(|| compile_here(expr, decl, optional_old_self))
}

/// Go's `regexp.Compile` error for `pattern` (`error parsing regexp: missing closing ): `(``),
/// if it fails: the API server compiles a schema's `pattern` with it, as cel-go compiles a
/// `matches()` argument.
pub fn go_regexp_error(pattern: &str) -> Option<String> {
    go_regex::error(pattern)
}

/// `expr` with every use of the variable `name` (not a field `.name` or `.?name`, nothing
/// inside a string) replaced by the expression `with`; `None` when `expr` does not lex.
pub fn substitute_variable(expr: &str, name: &str, with: &str) -> Option<String> {
    let tokens = lex::lex(expr).ok()?;
    let chars: Vec<char> = expr.chars().collect();
    let mut out = String::with_capacity(expr.len());
    let mut copied = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        let lex::Tok::Ident(ident) = &token.tok else {
            continue;
        };
        let punct = |back: usize| match i.checked_sub(back).map(|j| &tokens[j].tok) {
            Some(lex::Tok::Punct(p)) => Some(*p),
            _ => None,
        };
        let selected = punct(1) == Some(".") || (punct(1) == Some("?") && punct(2) == Some("."));
        if ident != name || selected {
            continue;
        }
        let at = token.at as usize;
        out.extend(&chars[copied..at]);
        out.push_str(with);
        copied = at + ident.chars().count();
    }
    out.extend(&chars[copied..]);
    Some(out)
}

/// Why `expr` does not parse as cel-go parses it (syntax, and cel-go's size and recursion
/// limits), if it does not; without a type check. Runs on a [`LARGE_STACK`].
pub fn parse_error(expr: &str) -> Option<CompileError> {
    on_large_stack(|| {
        parse::parse(expr).err().map(|e| CompileError {
            source: expr.to_string(),
            errors: vec![(e.at, e.message)],
        })
    })
}

/// [`compile`] on the caller's stack: for callers already on a [`LARGE_STACK`].
pub(crate) fn compile_here(
    expr: &str,
    decl: &DeclType,
    optional_old_self: bool,
) -> Result<Compiled, CompileError> {
    let parsed: Parsed = parse::parse(expr).map_err(|e| CompileError {
        source: expr.to_string(),
        errors: vec![(e.at, e.message)],
    })?;
    let self_type = decl.cel_type(SELF_TYPE);
    let old = if optional_old_self {
        Type::optional(self_type.clone())
    } else {
        self_type.clone()
    };
    let vars = [("self", self_type), ("oldSelf", old)];
    let provider = check::Provider {
        root: SELF_TYPE,
        decl,
    };
    let checked =
        check::check(&parsed, &provider, &check::Variables { vars: &vars }).map_err(|errors| {
            let mut errors: Vec<(u32, String)> = errors
                .into_iter()
                .map(|e| (parsed.offsets[e.id as usize - 1], e.message))
                .collect();
            let source = expr.to_string();
            errors.sort_by_key(|(at, _)| {
                let (l, c, _) = locate(&source, *at);
                (l, c)
            });
            CompileError { source, errors }
        })?;
    let cost = crd::estimate_of(&parsed, &checked, decl);
    Ok(Compiled {
        output: checked.output.clone(),
        cost,
        uses_old_self: checked.uses_old_self,
        instantiation_error: fold::instantiation_error(&parsed.expr),
    })
}

/// The name of the rule's node type. kube-apiserver appends the clock's nanoseconds
/// (`selfType123456`); a fixed name keeps the output deterministic.
pub const SELF_TYPE: &str = "selfType";

#[cfg(test)]
mod tests {
    use super::substitute_variable;

    #[test]
    fn a_variable_is_substituted_where_it_is_the_variable() {
        let none = "optional.none()";
        for (expr, want) in [
            (
                "self <= oldSelf.orValue(0)",
                "self <= optional.none().orValue(0)",
            ),
            (
                "!oldSelf.hasValue() || oldSelf.value() == self",
                "!optional.none().hasValue() || optional.none().value() == self",
            ),
            // A field of that name, a string, a longer name: not the variable.
            (
                "self.oldSelf == 'oldSelf' && self.?oldSelf.hasValue() && oldSelfish",
                "self.oldSelf == 'oldSelf' && self.?oldSelf.hasValue() && oldSelfish",
            ),
            (
                "x ? oldSelf : [oldSelf][0]",
                "x ? optional.none() : [optional.none()][0]",
            ),
            ("'é' + oldSelf", "'é' + optional.none()"),
        ] {
            assert_eq!(
                substitute_variable(expr, "oldSelf", none).as_deref(),
                Some(want),
                "{expr}"
            );
        }
        assert_eq!(substitute_variable("'unclosed", "oldSelf", none), None);
    }
}
