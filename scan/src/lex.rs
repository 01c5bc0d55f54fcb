//! A byte lexer for Rust source: a flat token list with matched delimiters, enough for the
//! token-level scan ([`super::walk`]) to find attributes, `mod`s, `include!`s and macro
//! invocations without building syn's syntax tree.
//!
//! It splits tokens as `proc_macro2` does (punctuation one character at a time, lifetimes
//! apart from identifiers) so that a walk over macro input sees the same trees the syn-based
//! scan sees. Anything it does not understand (an unterminated literal or comment, a stray
//! character, unbalanced delimiters) is an error: the caller then falls back to syn, which
//! reports the problem as before.

/// A delimiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delim {
    /// `( )`
    Paren,
    /// `[ ]`
    Bracket,
    /// `{ }`
    Brace,
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An identifier or keyword, raw (`r#x`) included.
    Ident,
    /// `'a` (a label or lifetime).
    Lifetime,
    /// A string, byte string, C string, character, byte or number literal, suffix included.
    Literal,
    /// One punctuation character.
    Punct(u8),
    /// `///`, `//!`, `/** */` or `/*! */`: an attribute to the compiler. `inner` for `//!`.
    Doc { inner: bool },
    /// An opening delimiter; `close` is the index of its closing token.
    Open { delim: Delim, close: u32 },
    /// A closing delimiter.
    Close,
}

/// One token: its kind and byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
}

/// Why the text could not be lexed (the caller falls back to syn, which says it better).
#[derive(Debug)]
pub(crate) struct LexError;

/// Lexes `text` from byte `start` (past a shebang line; a BOM is removed by the caller).
pub(crate) fn lex(text: &str, start: usize) -> Result<Vec<Token>, LexError> {
    if text.len() > u32::MAX as usize {
        return Err(LexError);
    }
    let mut lexer = Lexer {
        b: text.as_bytes(),
        text,
        i: start,
        out: Vec::with_capacity(text.len() / 4),
        open: Vec::new(),
    };
    lexer.run()?;
    if !lexer.open.is_empty() {
        return Err(LexError);
    }
    Ok(lexer.out)
}

struct Lexer<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    out: Vec<Token>,
    /// Indices of the open delimiters, innermost last.
    open: Vec<(usize, Delim)>,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The characters beyond ASCII that rustc counts as whitespace (`Pattern_White_Space`): they
/// separate tokens, so `fn\u{85}f` is `fn` and `f`.
fn is_unicode_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{85}' | '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}'
    )
}

impl Lexer<'_> {
    /// Advances over the rest of an identifier (or suffix, or lifetime). Beyond ASCII only
    /// alphanumeric characters continue it: any other (rustc's Unicode whitespace, a combining
    /// mark) ends it, and the main loop skips the whitespace or hands the file to syn.
    fn ident_tail(&mut self) {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            if c < 0x80 {
                if !is_ident_continue(c) {
                    return;
                }
                self.i += 1;
            } else {
                match self.text[self.i..].chars().next() {
                    Some(ch) if ch.is_alphanumeric() => self.i += ch.len_utf8(),
                    _ => return,
                }
            }
        }
    }

    fn peek(&self, at: usize) -> u8 {
        self.b.get(self.i + at).copied().unwrap_or(0)
    }

    fn push(&mut self, kind: Kind, start: usize) {
        self.out.push(Token {
            kind,
            start: start as u32,
            end: self.i as u32,
        });
    }

    fn run(&mut self) -> Result<(), LexError> {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            let start = self.i;
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.i += 1,
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                b'/' if self.peek(1) == b'*' => self.block_comment()?,
                b'(' | b'[' | b'{' => {
                    let delim = match c {
                        b'(' => Delim::Paren,
                        b'[' => Delim::Bracket,
                        _ => Delim::Brace,
                    };
                    self.i += 1;
                    self.open.push((self.out.len(), delim));
                    self.push(Kind::Open { delim, close: 0 }, start);
                }
                b')' | b']' | b'}' => {
                    let want = match c {
                        b')' => Delim::Paren,
                        b']' => Delim::Bracket,
                        _ => Delim::Brace,
                    };
                    let Some((at, delim)) = self.open.pop() else {
                        return Err(LexError);
                    };
                    if delim != want {
                        return Err(LexError);
                    }
                    let close = self.out.len() as u32;
                    self.out[at].kind = Kind::Open { delim, close };
                    self.i += 1;
                    self.push(Kind::Close, start);
                }
                b'"' => {
                    self.i += 1;
                    self.quoted(b'"')?;
                    self.suffix();
                    self.push(Kind::Literal, start);
                }
                b'\'' => self.quote_or_lifetime()?,
                b'0'..=b'9' => {
                    self.number();
                    self.push(Kind::Literal, start);
                }
                b'r' | b'b' | b'c' if self.prefixed_literal()? => {}
                _ if is_ident_start(c) => {
                    if c >= 0x80 {
                        // Beyond ASCII: rustc's whitespace separates tokens; identifiers
                        // start with alphabetic characters only; any other (an emoji, a
                        // non-breaking space) goes to syn for its error.
                        let ch = self.text[self.i..].chars().next().ok_or(LexError)?;
                        if is_unicode_whitespace(ch) {
                            self.i += ch.len_utf8();
                            continue;
                        }
                        if !ch.is_alphabetic() {
                            return Err(LexError);
                        }
                        self.i += ch.len_utf8();
                    }
                    self.ident_tail();
                    self.push(Kind::Ident, start);
                }
                b'~' | b'!' | b'@' | b'#' | b'$' | b'%' | b'^' | b'&' | b'*' | b'-' | b'+'
                | b'=' | b'|' | b'\\' | b':' | b';' | b',' | b'.' | b'<' | b'>' | b'/' | b'?' => {
                    self.i += 1;
                    self.push(Kind::Punct(c), start);
                }
                _ => return Err(LexError),
            }
        }
        Ok(())
    }

    fn line_comment(&mut self) {
        let start = self.i;
        let end = self.b[self.i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.b.len(), |n| self.i + n);
        let body = &self.b[start..end];
        self.i = end;
        // `///x` (not `////`) and `//!` are doc comments.
        if body.starts_with(b"//!") {
            self.push(Kind::Doc { inner: true }, start);
        } else if body.starts_with(b"///") && !body.starts_with(b"////") {
            self.push(Kind::Doc { inner: false }, start);
        }
    }

    fn block_comment(&mut self) -> Result<(), LexError> {
        let start = self.i;
        self.i += 2;
        let mut depth = 1;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (0, _) if self.i >= self.b.len() => return Err(LexError),
                (b'/', b'*') => {
                    depth += 1;
                    self.i += 2;
                }
                (b'*', b'/') => {
                    depth -= 1;
                    self.i += 2;
                }
                _ => self.i += 1,
            }
        }
        let body = &self.b[start..self.i];
        // `/*!` and `/**` (not `/***`, not `/**/`) are doc comments.
        if body.starts_with(b"/*!") {
            self.push(Kind::Doc { inner: true }, start);
        } else if body.starts_with(b"/**") && !body.starts_with(b"/***") && body != b"/**/" {
            self.push(Kind::Doc { inner: false }, start);
        }
        Ok(())
    }

    /// The rest of a `"..."` or `'...'` after its opening quote, escapes included.
    fn quoted(&mut self, quote: u8) -> Result<(), LexError> {
        loop {
            match self.b.get(self.i) {
                None => return Err(LexError),
                Some(b'\\') => self.i += 2,
                Some(&c) if c == quote => {
                    self.i += 1;
                    return Ok(());
                }
                Some(_) => self.i += 1,
            }
        }
    }

    /// A literal's suffix (`1u8`, `"x"suffix`).
    fn suffix(&mut self) {
        if self.i < self.b.len() && is_ident_start(self.b[self.i]) {
            self.ident_tail();
        }
    }

    /// `'a'`, `'\n'`, `'\u{..}'` or a lifetime / label `'a`.
    fn quote_or_lifetime(&mut self) -> Result<(), LexError> {
        let start = self.i;
        self.i += 1;
        if self.peek(0) == b'\\' {
            self.quoted(b'\'')?;
            self.suffix();
            self.push(Kind::Literal, start);
            return Ok(());
        }
        let ch = self.text.get(self.i..).and_then(|s| s.chars().next());
        let Some(ch) = ch else {
            return Err(LexError);
        };
        let after = self.i + ch.len_utf8();
        if self.b.get(after) == Some(&b'\'') {
            self.i = after + 1;
            self.suffix();
            self.push(Kind::Literal, start);
            return Ok(());
        }
        // A lifetime: `'a`, `'static`, `'r#a`.
        if ch == 'r' && self.b.get(after) == Some(&b'#') {
            self.i = after + 1;
        }
        if !is_ident_start(self.peek(0)) {
            return Err(LexError);
        }
        self.ident_tail();
        if self.i == start + 1 {
            // A lifetime starting with a character beyond ASCII that is not alphanumeric.
            return Err(LexError);
        }
        self.push(Kind::Lifetime, start);
        Ok(())
    }

    fn number(&mut self) {
        let hex_like = self.peek(0) == b'0' && matches!(self.peek(1), b'x' | b'o' | b'b');
        let mut point = false;
        // Past the digits, in a suffix (`usize`, `f64`): there `e+` is no exponent, so
        // `1usize+include!(..)` is a literal, `+` and the macro.
        let mut suffix = false;
        loop {
            let c = self.peek(0);
            if is_ident_continue(c) && c < 0x80 {
                let exponent = !hex_like && !suffix && matches!(c, b'e' | b'E');
                // An exponent's sign: `1e-5`, `2.5E+3` (not in `0x1e-5`).
                if exponent && matches!(self.peek(1), b'+' | b'-') {
                    self.i += 2;
                    continue;
                }
                if !exponent && !hex_like && c.is_ascii_alphabetic() {
                    suffix = true;
                }
                self.i += 1;
            } else if c == b'.'
                && self.peek(1) != b'.'
                && !is_ident_start(self.peek(1))
                && !point
                && !hex_like
            {
                // `1.0`, `1.` (not `1..2`, not `1.max(2)`, not a second point).
                point = true;
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// `r"..."`, `r#"..."#`, `b"..."`, `b'x'`, `br"..."`, `c"..."`, `cr#"..."#`, or `r#ident`.
    /// `false` when the text at `self.i` is an identifier after all.
    fn prefixed_literal(&mut self) -> Result<bool, LexError> {
        let start = self.i;
        let mut j = self.i;
        if matches!(self.b[j], b'b' | b'c') {
            j += 1;
            if self.b.get(j) == Some(&b'\'') && self.b[start] == b'b' {
                self.i = j + 1;
                self.quoted(b'\'')?;
                self.suffix();
                self.push(Kind::Literal, start);
                return Ok(true);
            }
            if self.b.get(j) == Some(&b'"') {
                self.i = j + 1;
                self.quoted(b'"')?;
                self.suffix();
                self.push(Kind::Literal, start);
                return Ok(true);
            }
        }
        if self.b.get(j) != Some(&b'r') {
            return Ok(false);
        }
        j += 1;
        let hashes = self.b[j..].iter().take_while(|&&c| c == b'#').count();
        match self.b.get(j + hashes) {
            Some(b'"') => {}
            // `r#ident` (a raw identifier), only right after a bare `r`.
            Some(&c) if hashes == 1 && j == start + 1 && is_ident_start(c) => {
                self.i = j + 1;
                self.ident_tail();
                if self.i == j + 1 {
                    return Err(LexError);
                }
                self.push(Kind::Ident, start);
                return Ok(true);
            }
            _ if hashes == 0 => return Ok(false),
            _ => return Err(LexError),
        }
        let body = j + hashes + 1;
        let mut close = Vec::with_capacity(hashes + 1);
        close.push(b'"');
        close.resize(hashes + 1, b'#');
        let Some(n) = self.b[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
        else {
            return Err(LexError);
        };
        self.i = body + n + close.len();
        self.suffix();
        self.push(Kind::Literal, start);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(String, Kind)> {
        lex(text, 0)
            .unwrap()
            .iter()
            .map(|t| (text[t.start as usize..t.end as usize].to_string(), t.kind))
            .collect()
    }

    fn texts(text: &str) -> Vec<String> {
        kinds(text).into_iter().map(|(s, _)| s).collect()
    }

    #[test]
    fn literals_comments_and_lifetimes() {
        assert_eq!(
            texts(
                r####"a r#"x"# "q\"" 'c' '\'' b'x' br##"y"## c"z" 'a: r#fn 1.0e-5 1..2 x.0.1 /* /* */ */ //! d"####
            ),
            [
                "a",
                "r#\"x\"#",
                "\"q\\\"\"",
                "'c'",
                "'\\''",
                "b'x'",
                "br##\"y\"##",
                "c\"z\"",
                "'a",
                ":",
                "r#fn",
                "1.0e-5",
                "1",
                ".",
                ".",
                "2",
                "x",
                ".",
                "0.1",
                "//! d"
            ]
        );
        assert_eq!(kinds("'a")[0].1, Kind::Lifetime);
        assert_eq!(kinds("'é'")[0].1, Kind::Literal);
        assert_eq!(kinds("1.max(2)")[0].0, "1");
        assert_eq!(
            kinds("/// d\n/**/ //// x\n/** e */")[1].1,
            Kind::Doc { inner: false }
        );
        assert_eq!(kinds("/// d\n/**/ //// x\n/** e */").len(), 2);
    }

    #[test]
    fn delimiters_are_matched() {
        let toks = lex("f(a[b]{c})", 0).unwrap();
        assert!(matches!(
            toks[1].kind,
            Kind::Open {
                delim: Delim::Paren,
                close: 9
            }
        ));
        assert!(matches!(
            toks[3].kind,
            Kind::Open {
                delim: Delim::Bracket,
                close: 5
            }
        ));
        for bad in ["f(", "f)", "(]", "\"x", "/* x", "'", "r#\"x\"", "a ¤ b"] {
            assert!(lex(bad, 0).is_err(), "{bad}");
        }
    }
}
