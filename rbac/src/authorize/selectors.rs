//! The parts of the API server's list-option decoding that decide a [`RequestInfo`]'s name:
//! field selectors (apimachinery `pkg/fields/selector.go`), label selectors (only whether they
//! parse: `pkg/labels/selector.go`), and the integer options.
//!
//! kube-apiserver decodes every list option of a collection GET at once; if *any* of them is
//! malformed, it forgets them all (except `watch`), so a perfectly good
//! `fieldSelector=metadata.name=x` next to a bad `labelSelector` or `limit` does not name the
//! object. To be exact, we have to know which options fail to decode.
//!
//! [`RequestInfo`]: super::RequestInfo

/// The value a field selector requires `field` to equal exactly (`field=v` or `field==v`), the
/// first such term in sorted order, as `fields.Selector.RequiresExactMatch`. `Err` when the
/// selector does not parse.
pub(crate) fn field_selector_exact_match(
    selector: &str,
    field: &str,
) -> Result<Option<String>, String> {
    let mut terms = split_field_terms(selector);
    // Go sorts the raw terms (bytewise) before parsing them.
    terms.sort_unstable();
    let mut found = None;
    for term in terms {
        if term.is_empty() {
            continue;
        }
        let (lhs, op, rhs) = split_field_term(term).ok_or_else(|| {
            format!("invalid field selector `{selector}`: cannot understand `{term}`")
        })?;
        let value = unescape_field_value(rhs)?;
        if found.is_none() && op != "!=" && lhs == field {
            found = Some(value);
        }
    }
    Ok(found)
}

/// Comma-separated terms; a backslash escapes the next character (kept in the term).
fn split_field_terms(selector: &str) -> Vec<&str> {
    if selector.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in selector.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' {
            terms.push(&selector[start..i]);
            start = i + 1;
        }
    }
    terms.push(&selector[start..]);
    terms
}

/// The first operator occurrence splits the term; at one position `!=` beats `==` beats `=`.
fn split_field_term(term: &str) -> Option<(&str, &'static str, &str)> {
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        for op in ["!=", "==", "="] {
            if let Some(rhs) = rest.strip_prefix(op) {
                return Some((&term[..i], op, rhs));
            }
        }
    }
    None
}

/// `\\`, `\,` and `\=` are the only escapes; unescaped `,` and `=` are errors.
fn unescape_field_value(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(format!(
                    "invalid field selector: invalid escape sequence `\\{c}`"
                ));
            }
            out.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            ',' | '=' => {
                return Err(format!(
                    "invalid field selector: unescaped `{c}` in value `{raw}`"
                ));
            }
            _ => out.push(c),
        }
    }
    if escaped {
        return Err("invalid field selector: value ends with a lone `\\`".into());
    }
    Ok(out)
}

/// Whether a label selector parses (`labels.Parse`): the grammar
/// `[!]KEY [(in|notin) (V,...) | (=|==|!=|>|<) V]`, comma-separated, with keys checked as
/// qualified names, values as label values, and `>`/`<` values as integers.
pub(crate) fn label_selector_is_valid(selector: &str) -> bool {
    LabelParser {
        tokens: lex_labels(selector.as_bytes()),
        at: 0,
    }
    .parse()
    .is_some()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    End,
    ClosePar,
    Comma,
    Not,
    DoubleEquals,
    Equals,
    Greater,
    In,
    Less,
    NotEquals,
    NotIn,
    OpenPar,
    Ident(&'a [u8]),
}

fn is_label_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_label_symbol(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The label lexer works on bytes and, like Go's, takes a NUL byte for the end of input
/// wherever a token starts (inside an identifier it only ends the identifier).
fn lex_labels(s: &[u8]) -> Vec<Tok<'_>> {
    let mut tokens = Vec::new();
    let mut pos = 0;
    loop {
        while pos < s.len() && is_label_whitespace(s[pos]) {
            pos += 1;
        }
        if pos >= s.len() || s[pos] == 0 {
            tokens.push(Tok::End);
            return tokens;
        }
        if is_label_symbol(s[pos]) {
            // Maximal munch over the two-character operators.
            let two = s.get(pos..pos + 2);
            let (tok, len) = match (s[pos], two) {
                (_, Some(b"==")) => (Tok::DoubleEquals, 2),
                (_, Some(b"!=")) => (Tok::NotEquals, 2),
                (b'=', _) => (Tok::Equals, 1),
                (b'!', _) => (Tok::Not, 1),
                (b'(', _) => (Tok::OpenPar, 1),
                (b')', _) => (Tok::ClosePar, 1),
                (b',', _) => (Tok::Comma, 1),
                (b'>', _) => (Tok::Greater, 1),
                _ => (Tok::Less, 1),
            };
            tokens.push(tok);
            pos += len;
            if s.get(pos) == Some(&0) {
                pos += 1; // Go's reader consumed the NUL that ended the operator.
            }
            continue;
        }
        let start = pos;
        while pos < s.len()
            && s[pos] != 0
            && !is_label_symbol(s[pos])
            && !is_label_whitespace(s[pos])
        {
            pos += 1;
        }
        let word = &s[start..pos];
        if pos < s.len() && s[pos] == 0 {
            pos += 1; // Go's reader consumed the NUL that ended the identifier.
        }
        tokens.push(match word {
            b"in" => Tok::In,
            b"notin" => Tok::NotIn,
            _ => Tok::Ident(word),
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LabelOp {
    Exists,
    DoesNotExist,
    In,
    NotIn,
    Exact,
    Ordered,
}

struct LabelParser<'a> {
    tokens: Vec<Tok<'a>>,
    at: usize,
}

impl<'a> LabelParser<'a> {
    /// In value position `in` and `notin` are ordinary identifiers.
    fn as_value(tok: Tok<'a>) -> Tok<'a> {
        match tok {
            Tok::In => Tok::Ident(b"in"),
            Tok::NotIn => Tok::Ident(b"notin"),
            t => t,
        }
    }

    fn peek(&self) -> Tok<'a> {
        Self::as_value(self.tokens[self.at.min(self.tokens.len() - 1)])
    }

    fn next_raw(&mut self) -> Tok<'a> {
        let tok = self.tokens[self.at.min(self.tokens.len() - 1)];
        self.at += 1;
        tok
    }

    fn next(&mut self) -> Tok<'a> {
        Self::as_value(self.next_raw())
    }

    fn parse(&mut self) -> Option<()> {
        loop {
            match self.peek() {
                Tok::Ident(_) | Tok::Not => {
                    self.requirement()?;
                    match self.next() {
                        Tok::End => return Some(()),
                        Tok::Comma => {
                            if !matches!(self.peek(), Tok::Ident(_) | Tok::Not) {
                                return None;
                            }
                        }
                        _ => return None,
                    }
                }
                Tok::End => return Some(()),
                _ => return None,
            }
        }
    }

    fn requirement(&mut self) -> Option<()> {
        let mut op = None;
        let mut tok = self.next();
        if tok == Tok::Not {
            op = Some(LabelOp::DoesNotExist);
            tok = self.next();
        }
        let Tok::Ident(key) = tok else { return None };
        if !is_qualified_name(key) {
            return None;
        }
        if matches!(self.peek(), Tok::End | Tok::Comma) && op.is_none() {
            op = Some(LabelOp::Exists);
        }
        if op.is_some() {
            // `!key` is complete whatever follows; the caller rejects leftovers.
            return Some(());
        }
        let op = match self.next_raw() {
            Tok::In => LabelOp::In,
            Tok::NotIn => LabelOp::NotIn,
            Tok::Equals | Tok::DoubleEquals | Tok::NotEquals => LabelOp::Exact,
            Tok::Greater | Tok::Less => LabelOp::Ordered,
            _ => return None,
        };
        let values = match op {
            LabelOp::In | LabelOp::NotIn => self.value_set()?,
            _ => vec![self.exact_value()?],
        };
        let is_integer = |v: &[u8]| std::str::from_utf8(v).is_ok_and(|s| s.parse::<i64>().is_ok());
        if op == LabelOp::Ordered && !values.iter().all(|v| is_integer(v)) {
            return None;
        }
        values.iter().all(|v| is_label_value(v)).then_some(())
    }

    fn exact_value(&mut self) -> Option<&'a [u8]> {
        if matches!(self.peek(), Tok::End | Tok::Comma) {
            return Some(b"");
        }
        match self.next() {
            Tok::Ident(v) => Some(v),
            _ => None,
        }
    }

    fn value_set(&mut self) -> Option<Vec<&'a [u8]>> {
        if self.next() != Tok::OpenPar {
            return None;
        }
        match self.peek() {
            Tok::ClosePar => {
                self.next();
                Some(vec![b""])
            }
            Tok::Ident(_) | Tok::Comma => {
                let values = self.value_list()?;
                (self.next() == Tok::ClosePar).then_some(values)
            }
            _ => None,
        }
    }

    /// `a,b`, `,a`, `a,,b`, `a,`: empty elements are the empty value.
    fn value_list(&mut self) -> Option<Vec<&'a [u8]>> {
        let mut values: Vec<&'a [u8]> = Vec::new();
        loop {
            match self.next() {
                Tok::Ident(v) => {
                    values.push(v);
                    match self.peek() {
                        Tok::Comma => continue,
                        Tok::ClosePar => return Some(values),
                        _ => return None,
                    }
                }
                Tok::Comma => {
                    values.push(b"");
                    match self.peek() {
                        Tok::ClosePar => return Some(values),
                        Tok::Comma => {
                            self.next();
                        }
                        _ => {}
                    }
                }
                _ => return None,
            }
        }
    }
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`, at most 63 bytes (a label key's name part, and a
/// non-empty label value).
fn is_qualified_name_part(s: &[u8]) -> bool {
    let edge = |b: &u8| b.is_ascii_alphanumeric();
    !s.is_empty()
        && s.len() <= 63
        && s.first().is_some_and(edge)
        && s.last().is_some_and(edge)
        && s.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// apimachinery's `IsQualifiedName`: `[prefix/]name`, the prefix a DNS-1123 subdomain.
fn is_qualified_name(s: &[u8]) -> bool {
    let parts: Vec<&[u8]> = s.split(|b| *b == b'/').collect();
    match parts.as_slice() {
        [name] => is_qualified_name_part(name),
        [prefix, name] => is_dns1123_subdomain(prefix) && is_qualified_name_part(name),
        _ => false,
    }
}

/// apimachinery's `IsValidLabelValue`: empty, or a qualified-name part.
fn is_label_value(s: &[u8]) -> bool {
    s.is_empty() || is_qualified_name_part(s)
}

/// apimachinery's `IsDNS1123Subdomain`.
pub(crate) fn is_dns1123_subdomain(s: &[u8]) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split(|b| *b == b'.').all(is_dns1123_label_chars)
}

/// apimachinery's `IsDNS1123Label`.
pub(crate) fn is_dns1123_label(s: &[u8]) -> bool {
    s.len() <= 63 && is_dns1123_label_chars(s)
}

fn is_dns1123_label_chars(s: &[u8]) -> bool {
    let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    s.first().is_some_and(edge)
        && s.last().is_some_and(edge)
        && s.iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

/// apimachinery's `IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`.
pub(crate) fn is_valid_path_segment_name(name: &str) -> bool {
    name != "." && name != ".." && !name.contains(['/', '%'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_selector_exact_match_follows_apimachinery() {
        let name = |s| field_selector_exact_match(s, "metadata.name");
        assert_eq!(name("metadata.name=a"), Ok(Some("a".into())));
        assert_eq!(name("metadata.name==a"), Ok(Some("a".into())));
        assert_eq!(name("metadata.name!=a"), Ok(None));
        assert_eq!(name("foo=bar"), Ok(None));
        assert_eq!(name(""), Ok(None));
        assert_eq!(name(",,"), Ok(None));
        // Sorted terms: the first exact metadata.name term in byte order wins.
        assert_eq!(
            name("metadata.name=b,metadata.name=a"),
            Ok(Some("a".into()))
        );
        // Escapes: `\,` and `\=` are data; the term is not split there.
        assert_eq!(name(r"metadata.name=a\,b"), Ok(Some("a,b".into())));
        assert_eq!(name(r"metadata.name=a\=b\\"), Ok(Some(r"a=b\".into())));
        assert!(name(r"metadata.name=a\b").is_err());
        assert!(name(r"metadata.name=a\").is_err());
        assert!(name("metadata.name=a=b").is_err());
        assert!(name("metadata.name=name1,foo").is_err());
        // The first operator position wins; at one position `!=` is tried first.
        assert!(name("metadata.name!==a").is_err());
        // The left-hand side is not trimmed.
        assert_eq!(name(" metadata.name=a"), Ok(None));
    }

    #[test]
    fn label_selectors_parse_as_labels_parse_does() {
        for ok in [
            "",
            "a",
            "!a",
            "a=b",
            "a==b",
            "a!=b",
            "a=",
            "a in (b,c)",
            "a notin ()",
            "x in (foo,,baz),y,z notin ()",
            "a in (,)",
            "example.com/a=b",
            "a>5",
            "a<5",
            " a = b , c ",
            "in in (in)",
            // A NUL byte where a token starts ends the input; one that ends a token is skipped.
            "a=b \0garbage",
            "a=\0b",
        ] {
            assert!(label_selector_is_valid(ok), "{ok:?} should parse");
        }
        for bad in [
            "a=b=c",
            "a b",
            "=a",
            "a,",
            ",a",
            "!a=b",
            "a in b",
            "a in (b",
            "a in (b c)",
            "a>b",
            // A `<`/`>` value is an integer *and* a label value, so never negative.
            "a<-5",
            "a>",
            "-a=b",
            "a=-b",
            "Example.com/a=b",
            "a/b/c",
            "/a",
            "a=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
            "a\0b",
            "a=b\0c",
            "a=\0b c",
            "!",
            "a in",
        ] {
            assert!(!label_selector_is_valid(bad), "{bad:?} should not parse");
        }
    }

    #[test]
    fn names_and_path_segments() {
        assert!(is_dns1123_subdomain(b"a.b-c.d"));
        assert!(!is_dns1123_subdomain(b"a..b"));
        assert!(!is_dns1123_subdomain(b"A"));
        assert!(is_dns1123_label(b"kube-system"));
        assert!(!is_dns1123_label(b"a.b"));
        assert!(is_valid_path_segment_name("name1"));
        assert!(is_valid_path_segment_name(""));
        for bad in [".", "..", "a/b", "a%2F"] {
            assert!(!is_valid_path_segment_name(bad));
        }
    }
}
