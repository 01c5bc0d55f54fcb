//! The string formats the API server checks in a CRD (kube-openapi's format registry), for
//! the defaults a CRD carries.
//!
//! Only what is certain is refused: the empty string (which every checked format refuses),
//! and values of the formats whose rule is simple enough to restate exactly here (UUIDs, IP
//! addresses, dates, hex colours, ASCII host names). Anything else is left to the API server.

/// Whether the API server refuses `value` as a string of `format` (a name without `-`, one of
/// the formats it checks).
pub(super) fn refused(format: &str, value: &str) -> bool {
    if value.is_empty() {
        return true;
    }
    match format {
        "uuid" => !uuid(value, None),
        "uuid3" => !uuid(value, Some('3')),
        "uuid4" => !uuid(value, Some('4')),
        "uuid5" => !uuid(value, Some('5')),
        // An IP address as Kubernetes parses one, and a `.` (IPv4) or a `:` (IPv6) in the
        // text. Kubernetes' parser is "sloppy": it takes an octet with a leading zero
        // (`01.2.3.4`, accepted by kube-apiserver 1.37), which Rust's refuses; such a value is
        // left to the API server.
        "ipv4" | "ipv6" if leading_zero_octet(value) => false,
        "ipv4" => !(value.contains('.') && value.parse::<std::net::IpAddr>().is_ok()),
        "ipv6" => !(value.contains(':') && value.parse::<std::net::IpAddr>().is_ok()),
        "date" => !full_date(value),
        "hexcolor" => !hex_color(value),
        // Non-ASCII host names involve Unicode categories: the API server's call.
        "hostname" => value.is_ascii() && !ascii_hostname(value),
        _ => false,
    }
}

/// Whether the dotted part of an address has an octet of two digits or more starting with 0.
fn leading_zero_octet(value: &str) -> bool {
    let dotted = value.rsplit(':').next().unwrap_or(value);
    dotted.contains('.')
        && dotted
            .split('.')
            .any(|octet| octet.len() > 1 && octet.starts_with('0'))
}

/// `[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}`, any case; the
/// version digit `V` and the variant only for versioned UUIDs.
fn uuid(value: &str, version: Option<char>) -> bool {
    let mut groups = Vec::new();
    let mut rest = value;
    for (i, len) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        if i > 0 {
            rest = rest.strip_prefix('-').unwrap_or(rest);
        }
        let Some(group) = rest.get(..len) else {
            return false;
        };
        if !group.chars().all(|c| c.is_ascii_hexdigit()) {
            return false;
        }
        groups.push(group);
        rest = &rest[len..];
    }
    if !rest.is_empty() {
        return false;
    }
    match version {
        None => true,
        Some(v) => {
            groups[2].starts_with(v)
                && (v == '3' || groups[3].starts_with(['8', '9', 'a', 'b', 'A', 'B']))
        }
    }
}

/// RFC 3339 `full-date`, as Go's `time.Parse("2006-01-02", ...)`: the day must exist.
fn full_date(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = &value[range];
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `#?` and 3 or 6 hex digits.
fn hex_color(value: &str) -> bool {
    let digits = value.strip_prefix('#').unwrap_or(value);
    matches!(digits.len(), 3 | 6) && digits.chars().all(|c| c.is_ascii_hexdigit())
}

/// A host-name character of kube-openapi's pattern (letters, digits, symbols), for ASCII.
fn host_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "$+<=>^`|~".contains(c)
}

/// kube-openapi's host-name rule, for ASCII text: either one label (a character, then
/// optionally one `-` and up to 62 characters), or dot-separated labels (1 to 63 characters,
/// `-` inside only) ending in a last label of 2 to 63 characters with no `--` and no `-` at
/// either end; at most 255 bytes, no part longer than 63.
fn ascii_hostname(value: &str) -> bool {
    if value.len() > 255 || value.split('.').any(|part| part.len() > 63) {
        return false;
    }
    let chars: Vec<char> = value.chars().collect();
    let parts: Vec<&str> = value.split('.').collect();
    if parts.len() == 1 {
        let Some((first, rest)) = chars.split_first() else {
            return false;
        };
        let rest = rest.strip_prefix(&['-']).unwrap_or(rest);
        return host_char(*first) && rest.len() <= 62 && rest.iter().all(|c| host_char(*c));
    }
    let (last, labels) = parts.split_last().expect("two parts or more");
    let label_ok = |label: &str| {
        let c: Vec<char> = label.chars().collect();
        match c.as_slice() {
            [only] => host_char(*only),
            [first, middle @ .., end] => {
                host_char(*first)
                    && host_char(*end)
                    && middle.iter().all(|m| host_char(*m) || *m == '-')
            }
            [] => false,
        }
    };
    if !labels.iter().all(|l| label_ok(l)) {
        return false;
    }
    let c: Vec<char> = last.chars().collect();
    let Some((first, mut rest)) = c.split_first() else {
        return false;
    };
    if !host_char(*first) {
        return false;
    }
    let mut units = 0;
    while !rest.is_empty() {
        rest = rest.strip_prefix(&['-']).unwrap_or(rest);
        match rest.split_first() {
            Some((c, tail)) if host_char(*c) => {
                units += 1;
                rest = tail;
            }
            _ => return false,
        }
    }
    (1..=62).contains(&units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_string_is_refused_by_every_checked_format() {
        for format in [
            "uri", "email", "hostname", "datetime", "byte", "uuid", "ipv4",
        ] {
            assert!(refused(format, ""), "{format}");
        }
    }

    #[test]
    fn uuids() {
        assert!(!refused("uuid", "123e4567-e89b-12d3-a456-426614174000"));
        assert!(!refused("uuid", "123E4567E89B12D3A456426614174000"));
        assert!(refused("uuid", "123e4567-e89b-12d3-a456-42661417400"));
        assert!(refused("uuid", "123e4567-e89b-12d3-a456-4266141740000"));
        assert!(refused("uuid", "g23e4567-e89b-12d3-a456-426614174000"));
        assert!(!refused("uuid4", "123e4567-e89b-42d3-a456-426614174000"));
        assert!(refused("uuid4", "123e4567-e89b-42d3-c456-426614174000"));
        assert!(refused("uuid4", "123e4567-e89b-12d3-a456-426614174000"));
        assert!(!refused("uuid3", "123e4567-e89b-32d3-c456-426614174000"));
    }

    #[test]
    fn ips_dates_colours() {
        assert!(!refused("ipv4", "10.0.0.1"));
        assert!(!refused("ipv4", "::ffff:10.0.0.1"));
        assert!(refused("ipv4", "::1"));
        assert!(refused("ipv4", "10.0.0.256"));
        // Kubernetes' sloppy parser takes leading zeros: the API server accepts these.
        assert!(!refused("ipv4", "01.2.3.4"));
        assert!(!refused("ipv6", "::ffff:010.0.0.1"));
        assert!(!refused("ipv6", "::1"));
        assert!(refused("ipv6", "10.0.0.1"));
        assert!(!refused("date", "2024-02-29"));
        assert!(refused("date", "2023-02-29"));
        assert!(refused("date", "2023-13-01"));
        assert!(refused("date", "2023-1-01"));
        assert!(!refused("hexcolor", "#fFf"));
        assert!(!refused("hexcolor", "00ff00"));
        assert!(refused("hexcolor", "#ffff"));
    }

    #[test]
    fn host_names_as_kube_openapi_matches_them() {
        for ok in [
            "example.com",
            "a.b.c.io",
            "localhost",
            "a-b",
            "a-",
            "x",
            "my-host.example.com",
        ] {
            assert!(!refused("hostname", ok), "{ok}");
        }
        // One label takes a single `-`, right after its first character; a last label has two
        // characters or more.
        for bad in [
            "my-host",
            "-a",
            "a..b",
            ".a",
            "a.",
            "a.b-",
            "a.b--c",
            "a.b",
            "under_score.io",
            "-a.io",
            "a-.io",
            "1.2.3.4",
        ] {
            assert!(refused("hostname", bad), "{bad}");
        }
        assert!(!refused("hostname", "mañana.io"), "non-ASCII is not judged");
        assert!(refused("hostname", &format!("{}.io", "a".repeat(64))));
    }
}
