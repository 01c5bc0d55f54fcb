//! The `email` format as the API server checks it: an RFC 5322 address that Go's
//! `net/mail.ParseAddress` reads as exactly one mailbox (`a@b.io`, `Name <a@b.io>`,
//! `a@b.io (Name)`, `[1.2.3.4]` domains, a group holding one address). The grammar is Go's,
//! quirks included (a display name of dotted atoms, comments anywhere CFWS may stand), and so
//! are its only semantic checks: an IP address in a domain literal, and the charset of an
//! RFC 2047 encoded word in a display name (UTF-8, ISO-8859-1 and US-ASCII are known).
//!
//! The parser works on bytes, as Go's does.

/// Whether Go's `mail.ParseAddress(value)` succeeds.
pub(super) fn address(value: &str) -> bool {
    Parser {
        s: value.as_bytes(),
    }
    .single_address()
    .is_some()
}

struct Parser<'a> {
    s: &'a [u8],
}

/// One rune at the start of `s` and its length; `None` with length 1 for invalid UTF-8, and
/// length 0 at the end.
fn rune(s: &[u8]) -> (Option<char>, usize) {
    let Some(&first) = s.first() else {
        return (None, 0);
    };
    let width = match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return (None, 1),
    };
    match s.get(..width).map(std::str::from_utf8) {
        Some(Ok(text)) => (text.chars().next(), width),
        _ => (None, 1),
    }
}

fn vchar(r: char) -> bool {
    ('!'..='~').contains(&r) || !r.is_ascii()
}

fn wsp(r: char) -> bool {
    r == ' ' || r == '\t'
}

fn atext(r: char, dot: bool) -> bool {
    match r {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => vchar(r),
    }
}

fn qtext(r: char) -> bool {
    r != '\\' && r != '"' && vchar(r)
}

fn dtext(r: char) -> bool {
    r != '[' && r != ']' && r != '\\' && vchar(r)
}

/// What an atom of a display name is as an RFC 2047 encoded word.
enum Word {
    Plain,
    /// Well formed, in a known charset; whether it decodes to any text.
    Encoded(bool),
    /// Well formed, in a charset Go does not know: an error.
    UnknownCharset,
}

/// Go's `strings.EqualFold` against a lower-case ASCII name: ASCII case, plus the two
/// non-ASCII runes that fold onto ASCII letters (`ſ` onto `s`, the Kelvin sign onto `k`).
fn equal_fold(bytes: &[u8], name: &str) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let folded: String = text
        .chars()
        .map(|c| match c {
            'ſ' => 's',
            '\u{212a}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    folded == name
}

/// The length of what `text` decodes to under the encoding letter, if it decodes.
fn decoded_len(encoding: u8, text: &[u8]) -> Option<usize> {
    match encoding {
        b'B' | b'b' => super::base64::decoded_len(text),
        b'Q' | b'q' => {
            let mut len = 0;
            let mut i = 0;
            while i < text.len() {
                match text[i] {
                    b'=' => {
                        let hex = text.get(i + 1..i + 3)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i += 2;
                    }
                    b'_' | b' '..=b'~' | b'\n' | b'\r' | b'\t' => {}
                    _ => return None,
                }
                len += 1;
                i += 1;
            }
            Some(len)
        }
        _ => None,
    }
}

/// `mime.WordDecoder.Decode` as `net/mail` calls it: only an unknown charset is an error.
fn rfc2047(word: &[u8]) -> Word {
    if word.len() < 8
        || !word.starts_with(b"=?")
        || !word.ends_with(b"?=")
        || word.iter().filter(|c| **c == b'?').count() != 4
    {
        return Word::Plain;
    }
    let inner = &word[2..word.len() - 2];
    let mut parts = inner.splitn(3, |c| *c == b'?');
    let (Some(charset), Some(encoding), Some(text)) = (parts.next(), parts.next(), parts.next())
    else {
        return Word::Plain;
    };
    if charset.is_empty() || encoding.len() != 1 {
        return Word::Plain;
    }
    let Some(len) = decoded_len(encoding[0], text) else {
        return Word::Plain;
    };
    if ["utf-8", "iso-8859-1", "us-ascii"]
        .iter()
        .any(|name| equal_fold(charset, name))
    {
        Word::Encoded(len > 0)
    } else {
        Word::UnknownCharset
    }
}

impl Parser<'_> {
    fn empty(&self) -> bool {
        self.s.is_empty()
    }

    fn peek(&self) -> Option<u8> {
        self.s.first().copied()
    }

    fn consume(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.s = &self.s[1..];
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.s = &self.s[1..];
        }
    }

    /// Spaces and parenthesised comments; `false` for a comment never closed.
    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if self.comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// The rest of a comment whose `(` is consumed, without its escapes; `None` if unclosed.
    fn comment(&mut self) -> Option<Vec<u8>> {
        let mut depth = 1;
        let mut text = Vec::new();
        while depth > 0 {
            let &c = self.s.first()?;
            if c == b'\\' && self.s.len() > 1 {
                self.s = &self.s[1..];
            } else if c == b'(' {
                depth += 1;
            } else if c == b')' {
                depth -= 1;
            }
            if depth > 0 {
                text.push(self.s[0]);
            }
            self.s = &self.s[1..];
        }
        Some(text)
    }

    /// A quoted string, its opening `"` next; the number of runes it holds.
    fn quoted_string(&mut self) -> Option<usize> {
        let mut i = 1;
        let mut runes = 0;
        let mut escaped = false;
        loop {
            let (r, size) = rune(&self.s[i..]);
            let r = r?;
            if escaped {
                if !vchar(r) && !wsp(r) {
                    return None;
                }
                runes += 1;
                escaped = false;
            } else if qtext(r) || wsp(r) {
                runes += 1;
            } else if r == '"' {
                break;
            } else if r == '\\' {
                escaped = true;
            } else {
                return None;
            }
            i += size;
        }
        self.s = &self.s[i + 1..];
        Some(runes)
    }

    /// An atom (a dot-atom with `dot`); without `permissive`, no dot may lead, trail or
    /// double. On failure the input may be consumed, as in Go.
    fn atom(&mut self, dot: bool, permissive: bool) -> Option<&[u8]> {
        let mut i = 0;
        loop {
            match rune(&self.s[i..]) {
                (None, 1) => return None,
                (Some(r), size) if atext(r, dot) => i += size,
                _ => break,
            }
        }
        if i == 0 {
            return None;
        }
        let (atom, rest) = self.s.split_at(i);
        self.s = rest;
        if !permissive
            && (atom.starts_with(b".")
                || atom.ends_with(b".")
                || atom.windows(2).any(|w| w == b".."))
        {
            return None;
        }
        Some(atom)
    }

    fn domain_literal(&mut self) -> Option<()> {
        if !self.consume(b'[') {
            return None;
        }
        let start = self.s;
        let mut len = 0;
        while self.peek()? != b']' {
            let (r, size) = rune(self.s);
            if !dtext(r?) {
                return None;
            }
            len += size;
            self.s = &self.s[size..];
        }
        self.consume(b']');
        let ip = std::str::from_utf8(&start[..len]).ok()?;
        ip.parse::<std::net::IpAddr>().ok().map(|_| ())
    }

    /// An addr-spec; on failure the input is left as it was.
    fn addr_spec(&mut self) -> Option<()> {
        let before = self.s;
        let parsed = self.addr_spec_here();
        if parsed.is_none() {
            self.s = before;
        }
        parsed
    }

    fn addr_spec_here(&mut self) -> Option<()> {
        self.skip_space();
        match self.peek()? {
            b'"' => {
                if self.quoted_string()? == 0 {
                    return None;
                }
            }
            _ => {
                self.atom(true, false)?;
            }
        }
        if !self.consume(b'@') {
            return None;
        }
        self.skip_space();
        match self.peek()? {
            b'[' => self.domain_literal(),
            _ => self.atom(true, false).map(|_| ()),
        }
    }

    fn display_name_comment(&mut self) -> Option<()> {
        if !self.consume(b'(') {
            return None;
        }
        let comment = self.comment()?;
        let unknown = comment
            .split(|c| *c == b' ' || *c == b'\t')
            .filter(|word| !word.is_empty())
            .any(|word| matches!(rfc2047(word), Word::UnknownCharset));
        (!unknown).then_some(())
    }

    /// A phrase (a display name); Go keeps it if it has a word before any error.
    fn phrase(&mut self) -> Option<()> {
        let mut words = 0;
        let mut encoded_text = false;
        let mut failed = false;
        loop {
            if words > 0 && !self.skip_cfws() {
                return None;
            }
            self.skip_space();
            if self.empty() {
                break;
            }
            let word = if self.peek() == Some(b'"') {
                self.quoted_string().map(|_| Word::Plain)
            } else {
                self.atom(true, true).and_then(|atom| match rfc2047(atom) {
                    Word::UnknownCharset => None,
                    word => Some(word),
                })
            };
            match word {
                None => {
                    failed = true;
                    break;
                }
                Some(Word::Encoded(text)) => encoded_text |= text,
                Some(_) if encoded_text => {
                    words += 2;
                    encoded_text = false;
                }
                Some(_) => words += 1,
            }
        }
        if encoded_text {
            words += 1;
        }
        (!failed || words > 0).then_some(())
    }

    /// The addresses of a group, its `:` consumed.
    fn group_list(&mut self) -> Option<usize> {
        self.skip_space();
        if self.consume(b';') {
            return self.skip_cfws().then_some(0);
        }
        let mut count = 0;
        loop {
            self.skip_space();
            count += self.address(false)?;
            if !self.skip_cfws() {
                return None;
            }
            if self.consume(b';') {
                return self.skip_cfws().then_some(count);
            }
            if !self.consume(b',') {
                return None;
            }
        }
    }

    /// A mailbox, or a group when `group`; the number of addresses.
    fn address(&mut self, group: bool) -> Option<usize> {
        self.skip_space();
        if self.empty() {
            return None;
        }
        if self.addr_spec().is_some() {
            self.skip_space();
            if self.peek() == Some(b'(') {
                self.display_name_comment()?;
            }
            return Some(1);
        }
        if self.peek() != Some(b'<') {
            self.phrase()?;
        }
        self.skip_space();
        if group && self.consume(b':') {
            return self.group_list();
        }
        if !self.consume(b'<') {
            return None;
        }
        self.addr_spec()?;
        self.consume(b'>').then_some(1)
    }

    fn single_address(&mut self) -> Option<()> {
        let count = self.address(true)?;
        (self.skip_cfws() && self.empty() && count == 1).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::address;

    // Each verdict is Go 1.26's `net/mail.ParseAddress` (kube-apiserver 1.37.2 is built with it).
    #[test]
    fn addresses_go_reads() {
        for ok in [
            "a@b",
            "a.b@c.io",
            "  a@b.io",
            "a@b.io (Name)",
            "a@b.io (Name (nested))",
            "Name <a@b.io>",
            "\"Quoted Name\" <a@b.io>",
            "<a@b.io>",
            "a. b <a@b.io>",
            "\"x y\"@b.io",
            "a@[1.2.3.4]",
            "a@[::1]",
            "g: a@b.io;",
            "g: Name <a@b.io> ;  (c)",
            "=?utf-8?q?J=C3=B6rg?= <a@b.io>",
            "=?UTF-8?B?SsO2cmc=?= <a@b.io>",
            "=?x-unknown?q?bad=ZZ?= <a@b.io>",
            "Jörg <jörg@b.io>",
            "a@b.io(c)",
            "Name (c) <a@b.io>",
            "a =?x-unknown?q?J?= <a@b.io>",
        ] {
            assert!(address(ok), "{ok}");
        }
        for bad in [
            "",
            "x",
            "a",
            "a@",
            "@b",
            "a@b@c",
            ".a@b",
            "a.@b",
            "a..b@c",
            "a@b..c",
            "a @b",
            "\"\"@b",
            "Name",
            "Name <a@b.io",
            "a@b.io, c@d.io",
            "g: a@b.io, c@d.io;",
            "g: ;",
            "a@[1.2.3]",
            "a@[01.2.3.4]",
            "a@b.io (unclosed",
            "a@b.io (=?x-unknown?q?J?=)",
            "=?x-unknown?q?J?= <a@b.io>",
            "a@b.io x",
            "<a@b.io> x",
            "\"a\nb\"@c",
        ] {
            assert!(!address(bad), "{bad}");
        }
    }

    #[test]
    fn agrees_with_go_on_the_recorded_corpus() {
        let recorded = include_str!("../tests/check_crds/email_addresses.tsv");
        let mut cases = 0;
        let mut differ = Vec::new();
        for line in recorded.lines().filter(|l| !l.starts_with('#')) {
            let (verdict, quoted) = line.split_once('\t').expect("verdict, tab, string");
            let value: String = serde_json::from_str(quoted).expect("a JSON string");
            cases += 1;
            if address(&value) != (verdict == "true") {
                differ.push(format!("{quoted}: Go {verdict}"));
            }
        }
        assert!(cases > 4000, "{cases} cases");
        assert!(
            differ.is_empty(),
            "{} differ:\n{}",
            differ.len(),
            differ.join("\n")
        );
    }
}
