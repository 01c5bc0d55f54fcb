//! The `uri` format as the API server checks it: what Go's `net/url.ParseRequestURI` takes, an
//! absolute URI or an absolute path (Go 1.26's parser, with its default strict colons: an
//! `http` or `https` host with two colons is refused).

/// Whether Go's `url.ParseRequestURI(value)` succeeds.
pub(super) fn request_uri(value: &str) -> bool {
    if value.is_empty() || value.bytes().any(|b| b < b' ' || b == 0x7f) {
        return false;
    }
    if value == "*" {
        return true;
    }
    let Some((scheme, rest)) = scheme(value) else {
        return false;
    };
    let rest = match rest.strip_suffix('?') {
        Some(stripped) if rest.matches('?').count() == 1 => stripped,
        _ => rest.split_once('?').map_or(rest, |(path, _query)| path),
    };
    if !rest.starts_with('/') {
        // `scheme:opaque` is a URI; without a scheme only an absolute path is.
        return !scheme.is_empty();
    }
    let mut path = rest;
    if !scheme.is_empty()
        && let Some(after) = rest.strip_prefix("//")
    {
        let (authority, tail) = after.find('/').map_or((after, ""), |i| after.split_at(i));
        if !authority_ok(&scheme.to_ascii_lowercase(), authority) {
            return false;
        }
        path = tail;
    }
    unescape(path, Mode::Path)
}

/// Go's `getScheme`: the scheme (empty when there is none) and the rest; `None` for a value
/// starting with `:`.
fn scheme(value: &str) -> Option<(&str, &str)> {
    for (i, c) in value.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return None,
            b':' => return Some((&value[..i], &value[i + 1..])),
            _ => return Some(("", value)),
        }
    }
    Some(("", value))
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Path,
    UserPassword,
    Host,
    Zone,
}

/// A byte Go lets stand unescaped in a host (or an IPv6 zone).
fn host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!\"$&'()*+,-.:;<=>[]_~".contains(&b)
}

/// Go's `unescape` as a check: every `%` followed by two hex digits; in a host, an escape of a
/// byte below 0x80 only as `%25`, and no ASCII byte a host cannot hold; in a zone, no escape
/// of a byte a host cannot hold.
fn unescape(s: &str, mode: Mode) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let Some(hex) = b
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            else {
                return false;
            };
            let value = u8::from_str_radix(std::str::from_utf8(hex).unwrap_or("zz"), 16)
                .unwrap_or_default();
            let percent25 = &b[i..i + 3] == b"%25";
            if mode == Mode::Host && value >> 4 < 8 && !percent25 {
                return false;
            }
            if mode == Mode::Zone && !percent25 && value != b' ' && !host_byte(value) {
                return false;
            }
            i += 3;
        } else {
            if matches!(mode, Mode::Host | Mode::Zone) && b[i] < 0x80 && !host_byte(b[i]) {
                return false;
            }
            i += 1;
        }
    }
    true
}

/// `:` and digits, or nothing.
fn optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

fn authority_ok(scheme: &str, authority: &str) -> bool {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    if !host_ok(scheme, host) {
        return false;
    }
    let Some(userinfo) = userinfo else {
        return true;
    };
    userinfo
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&b))
        && userinfo
            .split(':')
            .take(2)
            .all(|part| unescape(part, Mode::UserPassword))
}

fn host_ok(scheme: &str, host: &str) -> bool {
    match host.rfind('[') {
        Some(i) if i > 0 => false,
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return false;
            };
            let port = &host[close + 1..];
            if !optional_port(port) || !unescape(port, Mode::Host) {
                return false;
            }
            let inner = &host[1..close.max(1)];
            let (address, zone) = match inner.find("%25") {
                Some(z) => (&inner[..z], Some(&inner[z..])),
                None => (inner, None),
            };
            if !unescape(address, Mode::Host) || !zone.is_none_or(|z| unescape(z, Mode::Zone)) {
                return false;
            }
            ipv6_literal(address, zone)
        }
        None => {
            if let Some(first) = host.find(':') {
                let last = host.rfind(':').unwrap_or(first);
                // Strict colons (Go 1.26's default) for http and https: the port starts at the
                // first colon, so a second one is no port.
                let at = if last != first && !matches!(scheme, "http" | "https") {
                    last
                } else {
                    first
                };
                if !optional_port(&host[at..]) {
                    return false;
                }
            }
            unescape(host, Mode::Host)
        }
    }
}

/// `netip.ParseAddr` on a bracketed host (escapes undone), refusing an IPv4 address: an IPv6
/// address, with a non-empty zone if any.
fn ipv6_literal(address: &str, zone: Option<&str>) -> bool {
    let Some(address) = percent_decode(address) else {
        return false;
    };
    let zone = zone.and_then(percent_decode);
    if zone.as_deref() == Some("%") {
        return false;
    }
    address.parse::<std::net::Ipv6Addr>().is_ok()
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::request_uri;

    // Each verdict is kube-apiserver 1.37.2's, for the value as the default of a `uri` field.
    #[test]
    fn request_uris_as_go_reads_them() {
        for ok in [
            "foo://a:b:80/",
            "http://a:80/",
            "http://[::1]:80/x",
            "http://[fe80::1%25eth0]/",
            "/abs",
            "*",
            "mailto:x",
            "http://u:p@h/",
            "http://h/a?b=%zz",
            "//h/p",
            "/a#b",
            "http://h/é",
            "http://hé/",
            "x:/path",
            "http:",
            "HTTP://H/",
        ] {
            assert!(request_uri(ok), "{ok}");
        }
        for bad in [
            "http://a:b:80/",
            "http://[1.2.3.4]/",
            "rel",
            "",
            "http://a b/",
            "http://a%20b/",
            "http://a%41/",
            "http://a%zz/",
            "http://u p@h/",
            "http://h/%zz",
            "1http://x",
            ":x",
            "http://h:x/",
            "http://[::1/",
            "http://a[b]/",
        ] {
            assert!(!request_uri(bad), "{bad}");
        }
    }
}
