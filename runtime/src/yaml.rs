//! A YAML writer that produces exactly what controller-gen writes.
//!
//! controller-gen marshals objects with `gopkg.in/yaml.v2` (a port of libyaml's emitter) after
//! a round trip through JSON. No Rust YAML crate reproduces its choices (which strings are
//! plain, single- or double-quoted; where long lines fold; key order), and a reviewer diffing
//! our output against controller-gen's must see nothing. So this module re-implements that
//! emitter's observable behaviour over a [`serde_json::Value`]:
//!
//! - keys sorted as yaml.v2 sorts them (letters before other characters, runs of digits by
//!   numeric value: `v9` before `v10`);
//! - block style, two-space indent, sequences inside mappings not indented;
//! - a string is plain unless YAML 1.1 would read it back as something else (`"true"`,
//!   `"123"`, `"yes"`, `"1:20"`, `"2024-01-01"`, `""` → double quotes), or an indicator makes
//!   plain impossible (`'*'`, `'- x'`, `'a: b'` → single quotes), or it has characters only
//!   double quotes can escape;
//! - multi-line strings as literal blocks (`|`, `|-`, `|+`, with an indent hint when they start
//!   with a space);
//! - plain and quoted scalars folded at the first space past column 80.
//!
//! Written from the behaviour of the Go emitter (`emitterc.go`, `encode.go`, `resolve.go`,
//! `sorter.go`) and verified against controller-gen's golden files.

use serde_json::Value;
use std::cmp::Ordering;

const BEST_INDENT: i32 = 2;
const BEST_WIDTH: usize = 80;
const MAX_SIMPLE_KEY_LENGTH: usize = 128;

/// One YAML document for `value`, as yaml.v2's `Marshal` writes it (no `---`).
pub fn render_yaml(value: &Value) -> String {
    let mut e = Emitter::new();
    e.emit_node(value, Context::ROOT);
    e.end_document();
    e.out
}

/// A file as controller-gen's `WriteYAML` writes it: the header, then each object preceded by
/// `---\n`.
pub fn render_documents<'a>(
    header: &str,
    documents: impl IntoIterator<Item = &'a Value>,
) -> String {
    let mut out = String::from(header);
    for doc in documents {
        out.push_str("---\n");
        out.push_str(&render_yaml(doc));
    }
    out
}

#[derive(Clone, Copy, Default)]
struct Context {
    mapping: bool,
    simple_key: bool,
}

impl Context {
    const ROOT: Context = Context {
        mapping: false,
        simple_key: false,
    };
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// The emitter's state, as in libyaml: where the cursor is and what was just written.
struct Emitter {
    out: String,
    column: usize,
    /// The last character written was white space (or nothing was written on the line).
    whitespace: bool,
    /// Only indentation has been written on the current line.
    indention: bool,
    indent: i32,
    indents: Vec<i32>,
}

impl Emitter {
    fn new() -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::new(),
        }
    }

    // ---- low-level writing ----

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_str(&mut self, s: &str) {
        for c in s.chars() {
            self.put(c);
        }
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.write_str(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    /// The document ends with a line break unless a block scalar already wrote one. (libyaml
    /// would add `...` after an open-ended root scalar; our documents are never scalars.)
    fn end_document(&mut self) {
        self.write_indent();
    }

    // ---- nodes ----

    fn emit_node(&mut self, value: &Value, ctx: Context) {
        match value {
            Value::Object(map) if map.is_empty() => self.emit_empty_flow("{", "}"),
            Value::Array(seq) if seq.is_empty() => self.emit_empty_flow("[", "]"),
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| key_order(a.0, b.0));
                self.emit_block_mapping(&entries);
            }
            Value::Array(seq) => self.emit_block_sequence(seq, ctx),
            Value::String(s) => self.emit_string(s, ctx),
            Value::Null => self.emit_scalar("null", Style::Plain, ctx),
            Value::Bool(b) => {
                self.emit_scalar(if *b { "true" } else { "false" }, Style::Plain, ctx)
            }
            Value::Number(n) => {
                let text = format_number(n);
                self.emit_scalar(&text, Style::Plain, ctx)
            }
        }
    }

    fn emit_empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn emit_block_sequence(&mut self, seq: &[Value], ctx: Context) {
        self.increase_indent(false, ctx.mapping && !self.indention);
        for item in seq {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.emit_node(item, Context::default());
        }
        self.pop_indent();
    }

    fn emit_block_mapping(&mut self, entries: &[(&String, &Value)]) {
        self.increase_indent(false, false);
        let value_ctx = Context {
            mapping: true,
            simple_key: false,
        };
        for (key, value) in entries {
            self.write_indent();
            if is_simple_key(key) {
                self.emit_string(
                    key,
                    Context {
                        mapping: true,
                        simple_key: true,
                    },
                );
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.emit_string(key, value_ctx);
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.emit_node(value, value_ctx);
        }
        self.pop_indent();
    }

    /// yaml.v2's `stringv`: the style a Go string asks for before the emitter's own checks.
    fn emit_string(&mut self, s: &str, ctx: Context) {
        let style = if s.contains('\n') {
            Style::Literal
        } else if resolves_to_string(s) && !is_base60_float(s) {
            Style::Plain
        } else {
            Style::DoubleQuoted
        };
        self.emit_scalar(s, style, ctx);
    }

    fn emit_scalar(&mut self, value: &str, requested: Style, ctx: Context) {
        let analysis = analyze(value);
        let style = self.select_style(value, requested, &analysis, ctx);
        self.increase_indent(true, false);
        let allow_breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.write_plain(value, allow_breaks),
            Style::SingleQuoted => self.write_single_quoted(value, allow_breaks),
            Style::DoubleQuoted => self.write_double_quoted(value, allow_breaks),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn select_style(&self, value: &str, requested: Style, a: &Analysis, ctx: Context) -> Style {
        let mut style = requested;
        if ctx.simple_key && a.multiline {
            style = Style::DoubleQuoted;
        }
        // Everything is written in block style (empty collections aside, which hold no
        // scalars), so the flow-context rules of libyaml never apply.
        if style == Style::Plain && (!a.block_plain_allowed || (value.is_empty() && ctx.simple_key))
        {
            style = Style::SingleQuoted;
        }
        if style == Style::SingleQuoted && !a.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal && (!a.block_allowed || ctx.simple_key) {
            style = Style::DoubleQuoted;
        }
        style
    }

    // ---- scalar writers ----

    fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_is_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !next_is_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                // Plain scalars never contain line breaks: those strings are literal blocks.
                self.put(c);
                self.indention = false;
                spaces = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_is_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < chars.len() - 1
                    && !next_is_space
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        // go-yaml's `is_bom` looks at the start of the value, not at the current character:
        // a value starting with a byte-order mark has every character escaped.
        let starts_with_bom = value.starts_with('\u{FEFF}');
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if starts_with_bom || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\u{07}' => self.put('a'),
                    '\u{08}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{0B}' => self.put('v'),
                    '\u{0C}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1B}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{A0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    _ => {
                        let v = c as u32;
                        let (tag, width) = if v <= 0xFF {
                            ('x', 2)
                        } else if v <= 0xFFFF {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(tag);
                        self.write_str(&format!("{v:0width$X}"));
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i != 0
                    && i != chars.len() - 1
                {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // Block scalar hints: an explicit indent when the text starts with white space, and
        // the chomping that reproduces its trailing line breaks.
        let first = value.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.write_indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let mut rev = value.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(prev)) if is_break(prev) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

// ---- scalar analysis (libyaml's yaml_emitter_analyze_scalar) ----

struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank_or_end(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => c == ' ' || c == '\t' || is_break(c) || c == '\0',
    }
}

/// libyaml's `IS_PRINTABLE` (tab and carriage return are not).
fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0A
        || (0x20..=0x7E).contains(&v)
        || (0xA0..=0xD7FF).contains(&v)
        || ((0xE000..=0xFFFD).contains(&v) && v != 0xFEFF)
}

fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = value.chars().collect();
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    let (mut line_breaks, mut special_characters) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;

    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = is_blank_or_end(chars.get(i + 1).copied());
        let last = i + 1 == chars.len();
        if i == 0 {
            // (Flow-only indicators such as `,` are irrelevant: we only write block style.)
            if "#,[]{}&*!|>'\"%@`".contains(c)
                || ((c == '?' || c == ':' || c == '-') && followed_by_whitespace)
            {
                block_indicators = true;
            }
        } else if (c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace) {
            block_indicators = true;
        }
        // The encoder enables unicode output, so only non-printable characters are special.
        if !is_printable(c) {
            special_characters = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if last {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            if i == 0 {
                leading_break = true;
            }
            if last {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blank_or_end(Some(c));
    }

    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks {
        a.block_plain_allowed = false;
    }
    if block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

fn is_simple_key(key: &str) -> bool {
    !key.chars().any(is_break) && key.len() <= MAX_SIMPLE_KEY_LENGTH
}

// ---- YAML 1.1 resolution (yaml.v2's resolve.go) ----

/// Whether a plain scalar with this text would read back as a string.
fn resolves_to_string(s: &str) -> bool {
    let Some(first) = s.bytes().next() else {
        return false; // "" is null
    };
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "~", "null", "Null", "NULL",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    let hinted =
        matches!(first, b'+' | b'-' | b'0'..=b'9' | b'.') || b"yYnNtTfFoO~".contains(&first);
    if !hinted {
        return true;
    }
    if SPECIAL.contains(&s) {
        return false;
    }
    match first {
        b'.' => !go_parse_float(s),
        b'+' | b'-' | b'0'..=b'9' => {
            if is_timestamp(s) {
                return false;
            }
            let plain = s.replace('_', "");
            if go_parse_int(&plain) || (is_yaml_float(&plain) && go_parse_float(&plain)) {
                return false;
            }
            if let Some(bin) = plain.strip_prefix("0b") {
                return !is_binary_digits(bin);
            }
            if let Some(bin) = plain.strip_prefix("-0b") {
                return !is_binary_digits(bin);
            }
            true
        }
        _ => true,
    }
}

fn is_binary_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b == b'0' || b == b'1')
}

/// Go's `strconv.ParseInt(s, 0, 64)` (or `ParseUint`) succeeding; underscores already removed.
/// Overflowing values fail in Go and are then tried as floats, so only syntax matters here
/// except for that fallback, which `is_yaml_float` covers for decimal digits.
fn go_parse_int(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() {
        return false;
    }
    let (digits, radix) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (h, 16)
        } else if let Some(o) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (o, 8)
        } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (b, 2)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return false;
    }
    // Range: ParseInt for signed 64-bit, else ParseUint (no sign) for unsigned 64-bit.
    let negative = s.starts_with('-');
    match u128::from_str_radix(digits, radix) {
        Ok(v) => {
            if negative {
                v <= 1u128 << 63
            } else if s.starts_with('+') {
                v < 1u128 << 63
            } else {
                v <= u64::MAX as u128
            }
        }
        Err(_) => false,
    }
}

/// yaml.v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat(s, 64)` accepting the text: decimal floats (with optional
/// exponent), `inf`/`infinity`/`nan` in any case, and hexadecimal floats. Out-of-range values
/// are an error in Go, but still parse as ±Inf there, with an error; yaml.v2 then keeps the
/// string, so we check the range too.
fn go_parse_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" || lower == "nan" {
        return true;
    }
    if lower.starts_with("0x") {
        // Hex floats need a `p` exponent; they cannot appear in the strings that reach here
        // with a '.' hint, and with a digit hint `ParseInt` or the float regex decided first.
        return false;
    }
    if body.contains('_') || !is_yaml_float(body) {
        return false;
    }
    body.parse::<f64>().is_ok_and(f64::is_finite)
}

/// yaml.v2's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        // [0-5]?[0-9]: one or two digits, a leading one being at most 5.
        let d = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if d == 0 {
            return false;
        }
        let take = if d >= 2 && b[i] <= b'5' { 2 } else { 1 };
        i += take;
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// yaml.v2's `parseTimestamp`: a `YYYY-` prefix, then one of Go's layouts
/// `2006-1-2T15:4:5.999999999Z07:00` (also with `t` or a space and no zone) or `2006-1-2`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let year_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if year_digits != 4 || b.get(4) != Some(&b'-') {
        return false;
    }
    let year: i32 = s[..4].parse().unwrap_or(0);
    let mut p = Parser { b, i: 5 };
    let Some(month) = p.num(1, 2) else {
        return false;
    };
    if !p.lit(b'-') {
        return false;
    }
    let Some(day) = p.num(1, 2) else { return false };
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return false;
    }
    if p.done() {
        return true;
    }
    // `T`/`t` layouts end in a zone (`Z` or ±hh:mm); the space layout has none.
    let zone_required = match p.next() {
        Some(b'T' | b't') => true,
        Some(b' ') => false,
        _ => return false,
    };
    let Some(hour) = p.num(1, 2) else {
        return false;
    };
    if !p.lit(b':') {
        return false;
    }
    let Some(minute) = p.num(1, 2) else {
        return false;
    };
    if !p.lit(b':') {
        return false;
    }
    let Some(second) = p.num(1, 2) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    // Optional fractional seconds, after `.` or `,` as Go's parser allows.
    if matches!(p.peek(), Some(b'.' | b',')) && p.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
        p.i += 1;
        while p.peek().is_some_and(|c| c.is_ascii_digit()) {
            p.i += 1;
        }
    }
    if !zone_required {
        return p.done();
    }
    match p.next() {
        Some(b'Z') => p.done(),
        Some(b'+' | b'-') => {
            let hours = p.fixed(2).is_some_and(|h| h <= 24);
            let ok = hours && p.lit(b':') && p.fixed(2).is_some_and(|m| m <= 60);
            ok && p.done()
        }
        _ => false,
    }
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn done(&self) -> bool {
        self.i == self.b.len()
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.i += 1;
        c
    }
    fn lit(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn num(&mut self, min: usize, max: usize) -> Option<u32> {
        let n = self.b[self.i.min(self.b.len())..]
            .iter()
            .take(max)
            .take_while(|c| c.is_ascii_digit())
            .count();
        if n < min {
            return None;
        }
        let v = std::str::from_utf8(&self.b[self.i..self.i + n])
            .ok()?
            .parse()
            .ok()?;
        self.i += n;
        Some(v)
    }
    fn fixed(&mut self, n: usize) -> Option<u32> {
        let start = self.i;
        let v = self.num(n, n)?;
        (self.i - start == n).then_some(v)
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// ---- numbers ----

fn format_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    format_go_float(n.as_f64().unwrap_or(f64::NAN))
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` with yaml.v2's names for the specials.
fn format_go_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-tripping digits, as Go's shortest mode does.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (head, tail) = digits.split_at(1);
        let frac = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{head}{frac}e{esign}{:02}", exp.abs());
    }
    let point = exp + 1; // digits before the decimal point
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

// ---- key order (yaml.v2's sorter.go) ----

/// One unit of yaml.v2's key comparison: a letter, a run of ASCII digits, or anything else.
#[derive(Clone, Copy)]
enum KeyToken<'a> {
    Other(char),
    Digits(&'a str),
    Letter(char),
}

fn key_tokens(key: &str) -> Vec<KeyToken<'_>> {
    let mut tokens = Vec::new();
    let mut rest = key;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            tokens.push(KeyToken::Digits(&rest[..end]));
            rest = &rest[end..];
        } else {
            tokens.push(if c.is_alphabetic() {
                KeyToken::Letter(c)
            } else {
                KeyToken::Other(c)
            });
            rest = &rest[c.len_utf8()..];
        }
    }
    tokens
}

/// Digit runs by numeric value (without overflow), then the shorter run (fewer leading zeros).
fn cmp_digits(a: &str, b: &str) -> Ordering {
    let (ta, tb) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    ta.len()
        .cmp(&tb.len())
        .then_with(|| ta.cmp(tb))
        .then_with(|| a.len().cmp(&b.len()))
}

/// yaml.v2's key order (`keyList.Less`) as a total order: other characters before digit runs
/// before letters; letters and other characters by code point; digit runs by value, so `v9`
/// sorts before `v10`; a key before its extensions.
///
/// Go's comparator is not transitive when a digit run in one key meets a letter in the other
/// mid-run (`a12`, `a1b`, `a2` form a cycle); Go's output then depends on its random map
/// order, so no order reproduces it, and we keep a deterministic one. (A Rust sort must have a
/// total order anyway.)
fn key_order(a: &str, b: &str) -> Ordering {
    let (ta, tb) = (key_tokens(a), key_tokens(b));
    for (x, y) in ta.iter().zip(&tb) {
        let ord = match (x, y) {
            (KeyToken::Letter(x), KeyToken::Letter(y))
            | (KeyToken::Other(x), KeyToken::Other(y)) => x.cmp(y),
            (KeyToken::Digits(x), KeyToken::Digits(y)) => cmp_digits(x, y),
            (KeyToken::Other(_), _) | (KeyToken::Digits(_), KeyToken::Letter(_)) => Ordering::Less,
            (_, KeyToken::Other(_)) | (KeyToken::Letter(_), KeyToken::Digits(_)) => {
                Ordering::Greater
            }
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    ta.len().cmp(&tb.len())
}

#[cfg(test)]
mod tests;
