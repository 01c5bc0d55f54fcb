use super::*;

#[test]
fn the_empty_string_is_refused_by_every_checked_format() {
    for format in [
        "uri", "email", "hostname", "datetime", "byte", "uuid", "ipv4",
    ] {
        assert!(refused(format, ""), "{format}");
    }
}

/// One list: each format the API server checks has a rule here, and each it only
/// recognizes has none (it takes any value).
#[test]
fn the_checked_formats_are_the_ones_with_a_rule() {
    for (format, checked) in STRING_FORMATS {
        assert_eq!(refused(format, "\u{1}?"), checked, "{format}");
        assert_eq!(is_checked(format), checked, "{format}");
        assert!(recognized(format, Some("string")), "{format}");
    }
    assert!(is_checked("date-time") && recognized("date-time", None));
    assert!(!is_checked("int32") && !recognized("int32", Some("string")));
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
    for ok in [
        "0",
        "-0",
        "1h",
        "1.5h",
        "1μs",
        "5 days",
        "abc 10minutes",
        "3wk",
        "5x 3s",
        "00:00:00:00:00:01",
    ] {
        let format = if ok.contains(':') { "mac" } else { "duration" };
        assert!(!refused(format, ok), "{ok}");
    }
    for bad in [
        "a",
        "2020-01-01",
        "5x",
        "1",
        "99999999999999999999h",
        "1.h5",
        "01:02-03:04:05:06",
    ] {
        let format = if bad.contains(':') { "mac" } else { "duration" };
        assert!(refused(format, bad), "{bad}");
    }
    // kube-apiserver 1.37.2's verdicts on `cidr` defaults.
    for ok in [
        "10.0.0.0/8",
        "10.0.0.0/032",
        "::/0",
        "fe80::/10",
        "010.0.0.0/8",
    ] {
        assert!(!refused("cidr", ok), "{ok}");
    }
    for bad in [
        "abc",
        "10.0.0.0",
        "10.0.0.0/33",
        "::/129",
        "10.0.0.0/",
        "10.0.0.0/+8",
        "10.0.0.256/8",
    ] {
        assert!(refused("cidr", bad), "{bad}");
    }
}

// Verdicts of kube-apiserver 1.37.2 on each as the default of a `date-time` or `byte` field.
#[test]
fn date_times_as_kube_openapi_reads_them() {
    for ok in [
        "2020-01-01T00:00:00Z",
        "2020-01-01t00:00:00z",
        "2020-01-01T23:59:59.123456789+05:30",
        "2024-02-29T00:00:00-00:00",
        "2020-01-01T00:00:00x5Z",
        "2020-01-01T00:00:00Zthen anything",
        "2020-01-01T00:00:00é1Z",
    ] {
        assert!(!refused("datetime", ok), "{ok}");
    }
    for bad in [
        "2020-01-01 00:00:00Z",
        "2020-02-30T00:00:00Z",
        "2020-01-01T24:00:00Z",
        "2020-01-01T00:60:00Z",
        "2020-01-01T00:00:60Z",
        "2020-01-01T00:00:00",
        "2020-01-01T00:00:00.Z",
        "2020-01-01T00:00:00+0530",
        "2020-01-01T0:00:00Z",
        "2020-01-01",
        "2020-01-01T00:00:00\n1Z",
    ] {
        assert!(refused("datetime", bad), "{bad}");
    }
}

#[test]
fn base64_as_govalidator_matches_it() {
    for ok in ["AAAA", "AA==", "AAA=", "a+/b", "AAAAAA=="] {
        assert!(!refused("byte", ok), "{ok}");
    }
    for bad in [
        "!!", "A", "AA=", "A===", "AA-_", "AA==AAAA", "AAAA\n", "A=AA",
    ] {
        assert!(refused("byte", bad), "{bad}");
    }
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
    // Unicode letters and symbols, as kube-apiserver 1.37.2 judged them.
    for ok in ["mañana.io", "日本.jp", "😀", "ex😀.com", "é"] {
        assert!(!refused("hostname", ok), "{ok}");
    }
    for bad in ["a.😀😀", "a.b1", "a_b.io"] {
        assert!(refused("hostname", bad), "{bad}");
    }
    for (format, ok, bad) in [
        ("isbn10", "0-306-40615-2", "0306406153"),
        ("isbn13", "978-0-306-40615-7", "9780306406158"),
        ("creditcard", "4111 1111 1111 1111", "4111-1111-1111-1112"),
        ("ssn", "123 45 6789", "123456789"),
        ("rgbcolor", "rgb( 1 , 2 , 3 )", "rgb(01,0,0)"),
        (
            "bsonobjectid",
            "507F1F77BCF86CD799439011",
            "507f1f77bcf86cd79943901g",
        ),
    ] {
        assert!(!refused(format, ok), "{format} {ok}");
        assert!(refused(format, bad), "{format} {bad}");
    }
    assert!(refused("hostname", &format!("{}.io", "a".repeat(64))));
}
