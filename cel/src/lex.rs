//! CEL's tokens (the lexer of cel-go's `CEL.g4`), with the character offset of each.

use crate::ast::Literal;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// A backtick-quoted identifier: only a field name after `.` or in a struct literal.
    Escaped(String),
    Lit(Literal),
    Punct(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    /// Offset in characters.
    pub at: u32,
}

/// A lexical error: the offset and the message.
pub type LexError = (u32, String);

const PUNCTS: &[&str] = &[
    "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",",
    "(", ")", "[", "]", "{", "}", "=",
];

pub fn lex(source: &str) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}') {
            i += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let at = i as u32;
        // String and bytes literals, with their r/b prefixes.
        let mut j = i;
        let (mut raw, mut bytes) = (false, false);
        while j < chars.len() && j < i + 2 {
            match chars[j] {
                'r' | 'R' if !raw => raw = true,
                'b' | 'B' if !bytes => bytes = true,
                _ => break,
            }
            j += 1;
        }
        if j < chars.len() && (chars[j] == '"' || chars[j] == '\'') {
            let (lit, end) = string_literal(&chars, j, raw, bytes)?;
            out.push(Token {
                tok: Tok::Lit(lit),
                at,
            });
            i = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let tok = match word.as_str() {
                "true" => Tok::Lit(Literal::Bool(true)),
                "false" => Tok::Lit(Literal::Bool(false)),
                "null" => Tok::Lit(Literal::Null),
                "in" => Tok::Punct("in"),
                _ => Tok::Ident(word),
            };
            out.push(Token { tok, at });
            i = j;
            continue;
        }
        if c == '`' {
            let mut j = i + 1;
            while j < chars.len()
                && (chars[j].is_ascii_alphanumeric()
                    || matches!(chars[j], '_' | '.' | '-' | '/' | ' '))
            {
                j += 1;
            }
            if j == i + 1 || chars.get(j) != Some(&'`') {
                return Err((at, "Syntax error: token recognition error at: '`'".into()));
            }
            out.push(Token {
                tok: Tok::Escaped(chars[i + 1..j].iter().collect()),
                at,
            });
            i = j + 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (lit, end) = number(&chars, i)?;
            out.push(Token {
                tok: Tok::Lit(lit),
                at,
            });
            i = end;
            continue;
        }
        let rest: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            Some(p) => {
                out.push(Token {
                    tok: Tok::Punct(p),
                    at,
                });
                i += p.len();
            }
            None => {
                return Err((
                    at,
                    format!("Syntax error: token recognition error at: '{c}'"),
                ));
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        at: chars.len() as u32,
    });
    Ok(out)
}

fn number(chars: &[char], start: usize) -> Result<(Literal, usize), LexError> {
    let at = start as u32;
    let digits = |mut j: usize, hex: bool| {
        while j < chars.len()
            && (chars[j].is_ascii_digit() || (hex && chars[j].is_ascii_hexdigit()))
        {
            j += 1;
        }
        j
    };
    if chars[start] == '0' && matches!(chars.get(start + 1), Some('x' | 'X')) {
        let end = digits(start + 2, true);
        let text: String = chars[start + 2..end].iter().collect();
        if matches!(chars.get(end), Some('u' | 'U')) {
            let v = u64::from_str_radix(&text, 16)
                .map_err(|_| (at, "invalid uint literal".to_string()))?;
            return Ok((Literal::Uint(v), end + 1));
        }
        let v =
            u64::from_str_radix(&text, 16).map_err(|_| (at, "invalid int literal".to_string()))?;
        return Ok((Literal::Int(v as i64), end));
    }
    let mut j = digits(start, false);
    let mut is_double = false;
    if chars.get(j) == Some(&'.') && chars.get(j + 1).is_some_and(|d| d.is_ascii_digit()) {
        is_double = true;
        j = digits(j + 1, false);
    }
    if matches!(chars.get(j), Some('e' | 'E')) {
        let mut k = j + 1;
        if matches!(chars.get(k), Some('+' | '-')) {
            k += 1;
        }
        if chars.get(k).is_some_and(|d| d.is_ascii_digit()) {
            is_double = true;
            j = digits(k, false);
        }
    }
    let text: String = chars[start..j].iter().collect();
    if is_double {
        let v: f64 = text
            .parse()
            .map_err(|_| (at, "invalid double literal".to_string()))?;
        return Ok((Literal::Double(v), j));
    }
    if matches!(chars.get(j), Some('u' | 'U')) {
        let v: u64 = text
            .parse()
            .map_err(|_| (at, "invalid uint literal".to_string()))?;
        return Ok((Literal::Uint(v), j + 1));
    }
    // The magnitude may be 2^63 when a minus sign precedes; the parser negates it.
    let v: u64 = text
        .parse()
        .map_err(|_| (at, "invalid int literal".to_string()))?;
    if v > i64::MAX as u64 + 1 {
        return Err((at, "invalid int literal".into()));
    }
    Ok((Literal::Int(v as i64), j))
}

fn string_literal(
    chars: &[char],
    open: usize,
    raw: bool,
    bytes: bool,
) -> Result<(Literal, usize), LexError> {
    let q = chars[open];
    let triple = chars.get(open + 1) == Some(&q) && chars.get(open + 2) == Some(&q);
    let mut i = open + if triple { 3 } else { 1 };
    let at = open as u32;
    let mut text = Vec::<u8>::new();
    let push_char = |text: &mut Vec<u8>, c: char| {
        let mut buf = [0u8; 4];
        text.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    };
    loop {
        let Some(&c) = chars.get(i) else {
            return Err((
                at,
                "Syntax error: token recognition error at: unterminated string".into(),
            ));
        };
        if triple {
            if c == q && chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q) {
                i += 3;
                break;
            }
        } else if c == q {
            i += 1;
            break;
        } else if c == '\n' || c == '\r' {
            return Err((
                at,
                "Syntax error: token recognition error at: newline in string".into(),
            ));
        }
        if c == '\\' && !raw {
            let e = *chars
                .get(i + 1)
                .ok_or((at, "Syntax error: unterminated escape".to_string()))?;
            i += 2;
            let simple = match e {
                'a' => Some(7u8),
                'b' => Some(8),
                'f' => Some(12),
                'n' => Some(b'\n'),
                'r' => Some(b'\r'),
                't' => Some(b'\t'),
                'v' => Some(11),
                '\\' => Some(b'\\'),
                '\'' => Some(b'\''),
                '"' => Some(b'"'),
                '`' => Some(b'`'),
                '?' => Some(b'?'),
                _ => None,
            };
            if let Some(b) = simple {
                text.push(b);
                continue;
            }
            let hex = |n: usize, i: usize| -> Result<u32, LexError> {
                let s: String = chars
                    .get(i..i + n)
                    .ok_or((at, "invalid escape".to_string()))?
                    .iter()
                    .collect();
                u32::from_str_radix(&s, 16).map_err(|_| (at, "invalid escape sequence".to_string()))
            };
            match e {
                'x' | 'X' => {
                    let v = hex(2, i)?;
                    i += 2;
                    if bytes {
                        text.push(v as u8);
                    } else {
                        push_char(
                            &mut text,
                            char::from_u32(v).ok_or((at, "invalid escape".to_string()))?,
                        );
                    }
                }
                'u' | 'U' => {
                    if bytes {
                        return Err((at, "Syntax error: \\u escape in bytes literal".into()));
                    }
                    let n = if e == 'u' { 4 } else { 8 };
                    let v = hex(n, i)?;
                    i += n;
                    push_char(
                        &mut text,
                        char::from_u32(v).ok_or((at, "invalid unicode code point".to_string()))?,
                    );
                }
                '0'..='3' => {
                    let s: String = chars
                        .get(i - 1..i + 2)
                        .ok_or((at, "invalid escape".to_string()))?
                        .iter()
                        .collect();
                    let v = u32::from_str_radix(&s, 8)
                        .map_err(|_| (at, "invalid octal escape".to_string()))?;
                    i += 2;
                    if bytes {
                        text.push(v as u8);
                    } else {
                        push_char(&mut text, char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                }
                _ => {
                    return Err((
                        at,
                        format!("Syntax error: token recognition error at: '\\{e}'"),
                    ));
                }
            }
            continue;
        }
        push_char(&mut text, c);
        i += 1;
    }
    if bytes {
        Ok((Literal::Bytes(text), i))
    } else {
        Ok((
            Literal::String(String::from_utf8_lossy(&text).into_owned()),
            i,
        ))
    }
}
