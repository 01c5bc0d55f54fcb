//! The string formats the API server checks in a CRD (kube-openapi's format registry), for
//! the defaults a CRD carries.
//!
//! Each format's rule restated exactly (kube-openapi's validators and the Go parsers they call),
//! so that a default is refused here exactly when the API server refuses it
//! (`tests/check_crds/default_values.json`). One leniency is kept: an IPv4 octet with a
//! leading zero, which Kubernetes' sloppy parser takes and Rust's does not, is left to the API
//! server.

/// The formats kube-apiserver 1.37 recognizes on a string (or untyped) node, written without
/// `-` as it compares them (apiextensions-apiserver's `supportedVersionedFormats`, with 1.34's
/// Kubernetes names), each with whether it checks a value against it (kube-openapi's format
/// registry, which [`refused`] restates): `password` and the two Kubernetes names constrain
/// nothing.
const STRING_FORMATS: [(&str, bool); 26] = [
    ("bsonobjectid", true),
    ("uri", true),
    ("email", true),
    ("hostname", true),
    ("ipv4", true),
    ("ipv6", true),
    ("cidr", true),
    ("mac", true),
    ("uuid", true),
    ("uuid3", true),
    ("uuid4", true),
    ("uuid5", true),
    ("isbn", true),
    ("isbn10", true),
    ("isbn13", true),
    ("creditcard", true),
    ("ssn", true),
    ("hexcolor", true),
    ("rgbcolor", true),
    ("byte", true),
    ("password", false),
    ("date", true),
    ("duration", true),
    ("datetime", true),
    ("k8sshortname", false),
    ("k8slongname", false),
];

/// The string formats whose values the API server checks, written without `-`.
pub(super) fn checked() -> impl Iterator<Item = &'static str> {
    STRING_FORMATS
        .iter()
        .filter(|(_, checked)| *checked)
        .map(|(name, _)| *name)
}

/// Whether the API server checks a string's value against `format` (any spelling with `-`).
pub(super) fn is_checked(format: &str) -> bool {
    let name = format.replace('-', "");
    checked().any(|f| f == name)
}

/// Whether the API server recognizes `format` on a node of type `ty` (`GetUnrecognizedFormats`):
/// of any other it warns `unrecognized format "..."` on every create and update of the CRD,
/// and it ignores it. An integer's formats are `int32` and `int64`, a number's `float` and
/// `double`; no other type has one.
pub(super) fn recognized(format: &str, ty: Option<&str>) -> bool {
    match ty.unwrap_or_default() {
        "" | "string" => {
            let name = format.replace('-', "");
            STRING_FORMATS.iter().any(|(f, _)| *f == name)
        }
        "integer" => matches!(format, "int32" | "int64"),
        "number" => matches!(format, "float" | "double"),
        _ => false,
    }
}

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
        "datetime" => !date_time(value),
        "byte" => !base64(value),
        "email" => !super::email::address(value),
        "uri" => !super::uri::request_uri(value),
        "cidr" => !cidr(value),
        "duration" => !(go_duration(value) || loose_duration(value)),
        "mac" => !mac(value),
        "hexcolor" => !hex_color(value),
        "hostname" => !hostname(value),
        "bsonobjectid" => !(value.len() == 24 && value.bytes().all(|b| b.is_ascii_hexdigit())),
        "isbn10" => !isbn10(value),
        "isbn13" => !isbn13(value),
        "isbn" => !(isbn10(value) || isbn13(value)),
        "creditcard" => !credit_card(value),
        "ssn" => !ssn(value),
        "rgbcolor" => !rgb_color(value),
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

/// Kubernetes' `ParseCIDRSloppy`: an address, `/`, and a prefix length of decimal digits no
/// longer than the address. An IPv4 part with a leading zero (which the sloppy parser takes)
/// is judged on its prefix length only.
fn cidr(value: &str) -> bool {
    let Some((address, prefix)) = value.split_once('/') else {
        return false;
    };
    let bits = if address.contains(':') { 128 } else { 32 };
    let prefix_ok = !prefix.is_empty()
        && prefix.bytes().all(|b| b.is_ascii_digit())
        && prefix.parse::<u32>().is_ok_and(|n| n <= bits);
    let address_ok = leading_zero_octet(address)
        || match bits {
            32 => address.parse::<std::net::Ipv4Addr>().is_ok(),
            _ => address.parse::<std::net::Ipv6Addr>().is_ok(),
        };
    prefix_ok && address_ok
}

/// Go's `time.ParseDuration`: an optional sign, then numbers (with an optional fraction) each
/// with a unit (`ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`), at most 2^63-1 ns; or `0`.
fn go_duration(value: &str) -> bool {
    const LIMIT: u128 = 1 << 63;
    let (negative, mut s) = match value.as_bytes().first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut total: u128 = 0;
    while !s.is_empty() {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let (whole, rest) = s.split_at(digits);
        let mut v: u128 = 0;
        for d in whole.bytes() {
            v = v * 10 + u128::from(d - b'0');
            if v > LIMIT {
                return false;
            }
        }
        s = rest;
        let (mut fraction, mut scale, mut post) = (0u64, 1f64, false);
        if let Some(rest) = s.strip_prefix('.') {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for d in rest[..digits].bytes() {
                if overflow || fraction > (1 << 63) / 10 {
                    overflow = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(d - b'0');
                if next > 1 << 63 {
                    overflow = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            post = digits > 0;
            s = &rest[digits..];
        }
        if digits == 0 && !post {
            return false;
        }
        let unit_len = s
            .bytes()
            .take_while(|b| *b != b'.' && !b.is_ascii_digit())
            .count();
        let (unit, rest) = s.split_at(unit_len);
        s = rest;
        let nanos: u128 = match unit {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return false,
        };
        if v > LIMIT / nanos {
            return false;
        }
        v *= nanos;
        if fraction > 0 {
            v += (fraction as f64 * (nanos as f64 / scale)) as u128;
            if v > LIMIT {
                return false;
            }
        }
        total += v;
        if total > LIMIT {
            return false;
        }
    }
    negative || total < LIMIT
}

/// kube-openapi's fallback when Go's parser refuses: some `digits, spaces, letters` in the
/// text (found anywhere) whose letters name a unit (`d`, `day`, `days`, `wk`, `1 hour`...); an
/// integer beyond int64 in any of them refuses the whole.
fn loose_duration(value: &str) -> bool {
    const UNITS: [&[&str]; 8] = [
        &["ns", "nano"],
        &["us", "\u{b5}s", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let letter = |c: char| c.is_ascii_alphabetic() || c == '\u{b5}';
    let chars: Vec<(usize, char)> = value.char_indices().collect();
    let mut ok = false;
    let mut i = 0;
    while i < chars.len() {
        let digits_end = chars[i..]
            .iter()
            .take_while(|(_, c)| c.is_ascii_digit())
            .count()
            + i;
        let spaces_end = chars[digits_end..]
            .iter()
            .take_while(|(_, c)| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c'))
            .count()
            + digits_end;
        let letters_end = chars[spaces_end..]
            .iter()
            .take_while(|(_, c)| letter(*c))
            .count()
            + spaces_end;
        if digits_end == i || letters_end == spaces_end {
            i += 1;
            continue;
        }
        let at = |k: usize| chars.get(k).map_or(value.len(), |(b, _)| *b);
        let digits = &value[at(i)..at(digits_end)];
        if digits.trim_start_matches('0').len() > 19
            || digits
                .parse::<u128>()
                .map_or(true, |n| n > i64::MAX as u128)
        {
            return false;
        }
        let unit = value[at(spaces_end)..at(letters_end)].to_lowercase();
        for variants in UNITS {
            let last = variants.len() - 1;
            if variants
                .iter()
                .enumerate()
                .any(|(k, v)| (k == last && unit.starts_with(v)) || unit == *v)
            {
                ok = true;
            }
        }
        i = letters_end;
    }
    ok
}

/// Go's `net.ParseMAC`: 6, 8 or 20 bytes as two-digit hex groups joined by `:` or `-`, or as
/// four-digit groups joined by `.`.
fn mac(value: &str) -> bool {
    let b = value.as_bytes();
    let hex2 = |s: &[u8]| s.len() >= 2 && s[..2].iter().all(u8::is_ascii_hexdigit);
    if b.len() < 14 {
        return false;
    }
    if b[2] == b':' || b[2] == b'-' {
        let sep = b[2];
        if !(b.len() + 1).is_multiple_of(3) || ![6, 8, 20].contains(&((b.len() + 1) / 3)) {
            return false;
        }
        b.chunks(3)
            .all(|g| hex2(g) && (g.len() == 2 || g[2] == sep))
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) || ![6, 8, 20].contains(&(2 * (b.len() + 1) / 5)) {
            return false;
        }
        b.chunks(5)
            .all(|g| hex2(g) && hex2(&g[2..]) && (g.len() == 4 || g[4] == b'.'))
    } else {
        false
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
    days_in_month(year, month).is_some_and(|days| (1..=days).contains(&day))
}

/// How many days `month` (1 to 12) of `year` has, in the Gregorian calendar; `None` for no
/// such month. Shared by the `date` format and go-yaml's timestamps.
pub(super) fn days_in_month(year: u32, month: u32) -> Option<u32> {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 if leap => Some(29),
        2 => Some(28),
        _ => None,
    }
}

/// kube-openapi's `IsDateTime`: of the value in lower case split at each `t`, the first part a
/// full date and the second `hh:mm:ss`, an optional fraction (any one character, then digits)
/// and `z` or an offset, with hours up to 23 and minutes and seconds up to 59. Parts after a
/// second `t` are not looked at.
fn date_time(value: &str) -> bool {
    if value.len() < 4 {
        return false;
    }
    // Go lowers each rune to one rune; only `T` and `Z` matter here.
    let lower = value.to_ascii_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !full_date(date) {
        return false;
    }
    let two_digits = |s: &str| s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit());
    let (Some(hh), Some(mm), Some(ss)) = (time.get(0..2), time.get(3..5), time.get(6..8)) else {
        return false;
    };
    if !(two_digits(hh) && two_digits(mm) && two_digits(ss))
        || time.as_bytes()[2] != b':'
        || time.as_bytes()[5] != b':'
    {
        return false;
    }
    let zone = |s: &str| {
        let b = s.as_bytes();
        s == "z"
            || (b.len() == 6
                && matches!(b[0], b'+' | b'-')
                && b[3] == b':'
                && [1, 2, 4, 5].iter().all(|&i| b[i].is_ascii_digit()))
    };
    let rest = &time[8..];
    let rest_ok = zone(rest) || {
        // `(.[0-9]+)?`: one character but a newline, then digits, then the zone.
        let mut chars = rest.chars();
        match chars.next() {
            Some(c) if c != '\n' => {
                let after = chars.as_str();
                let digits = after.bytes().take_while(u8::is_ascii_digit).count();
                digits > 0 && zone(&after[digits..])
            }
            _ => false,
        }
    };
    rest_ok && hh <= "23" && mm <= "59" && ss <= "59"
}

/// govalidator's base64 pattern: groups of 4 of `A-Za-z0-9+/`, the last one `xx==` or `xxx=`
/// if padded; at least one group.
fn base64(value: &str) -> bool {
    !value.is_empty() && super::base64::decoded_len(value.as_bytes()).is_some()
}

/// `#?` and 3 or 6 hex digits.
fn hex_color(value: &str) -> bool {
    let digits = value.strip_prefix('#').unwrap_or(value);
    matches!(digits.len(), 3 | 6) && digits.chars().all(|c| c.is_ascii_hexdigit())
}

/// kube-openapi's host-name pattern (its letters and symbols Unicode's `L` and `S`), at most
/// 255 bytes and no dot-separated part over 63.
fn hostname(value: &str) -> bool {
    static PATTERN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        regex::Regex::new(
            r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
        )
        .expect("the host-name pattern compiles")
    });
    pattern.is_match(value) && value.len() <= 255 && value.split('.').all(|p| p.len() <= 63)
}

/// Go's `\s`: the ASCII spaces RE2 knows.
fn go_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0c' | '\r')
}

/// govalidator's ISBN-10: without spaces and `-`, nine digits and a digit or `X`, whose
/// weighted sum is a multiple of 11.
fn isbn10(value: &str) -> bool {
    let s: String = value
        .chars()
        .filter(|c| !go_space(*c) && *c != '-')
        .collect();
    let b = s.as_bytes();
    if b.len() != 10 || !b[..9].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let last = match b[9] {
        b'X' => 10,
        d if d.is_ascii_digit() => u32::from(d - b'0'),
        _ => return false,
    };
    let sum: u32 = (1..)
        .zip(&b[..9])
        .map(|(weight, d)| weight * u32::from(d - b'0'))
        .sum::<u32>()
        + 10 * last;
    sum.is_multiple_of(11)
}

/// govalidator's ISBN-13: without spaces and `-`, thirteen digits with the EAN check digit.
fn isbn13(value: &str) -> bool {
    let s: String = value
        .chars()
        .filter(|c| !go_space(*c) && *c != '-')
        .collect();
    if s.len() != 13 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let d: Vec<u32> = s.bytes().map(|b| u32::from(b - b'0')).collect();
    let sum: u32 = d[..12]
        .iter()
        .enumerate()
        .map(|(i, v)| if i % 2 == 0 { *v } else { 3 * v })
        .sum();
    d[12] == (10 - sum % 10) % 10
}

/// govalidator's credit card: the digits (anything else dropped) of a known issuer's length and
/// prefix, with a valid Luhn sum.
fn credit_card(value: &str) -> bool {
    let d: String = value.chars().filter(char::is_ascii_digit).collect();
    let starts = |p: &str| d.starts_with(p);
    let issuer = match d.len() {
        13 => starts("4"),
        16 => {
            starts("4")
                || (d.as_bytes()[0] == b'5' && (b'1'..=b'5').contains(&d.as_bytes()[1]))
                || starts("6011")
                || (starts("65"))
                || starts("35")
        }
        15 => starts("34") || starts("37") || starts("2131") || starts("1800"),
        14 => {
            starts("300")
                || starts("301")
                || starts("302")
                || starts("303")
                || starts("304")
                || starts("305")
                || starts("36")
                || starts("38")
        }
        _ => false,
    };
    if !issuer {
        return false;
    }
    let sum: u32 = d
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let v = u32::from(b - b'0');
            if i % 2 == 1 {
                let doubled = v * 2;
                if doubled >= 10 {
                    doubled % 10 + 1
                } else {
                    doubled
                }
            } else {
                v
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// govalidator's SSN: 11 bytes, `ddd`, a `-` or space, `dd`, a `-` or space, `dddd`.
fn ssn(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() == 11
        && [0, 1, 2, 4, 5, 7, 8, 9, 10]
            .iter()
            .all(|&i| b[i].is_ascii_digit())
        && matches!(b[3], b'-' | b' ')
        && matches!(b[6], b'-' | b' ')
}

/// govalidator's `rgb(r, g, b)`: each 0 to 255 without a leading zero, spaces (Go's `\s`)
/// around each.
fn rgb_color(value: &str) -> bool {
    let Some(inner) = value.strip_prefix("rgb(").and_then(|v| v.strip_suffix(')')) else {
        return false;
    };
    let parts: Vec<&str> = inner.split(',').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            let n = p.trim_matches(go_space);
            !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && (n == "0" || !n.starts_with('0'))
                && n.len() <= 3
                && n.parse::<u32>().is_ok_and(|v| v <= 255)
        })
}

#[cfg(test)]
mod tests;
