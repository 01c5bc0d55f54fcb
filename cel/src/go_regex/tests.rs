use super::valid;

/// Each pattern refused with Go's text, or (`None`) taken, as Go's `regexp.Compile` did.
fn as_go_says(cases: &[(&str, Option<&str>)]) {
    for (pattern, refusal) in cases {
        let want = refusal.map(|m| format!("error parsing regexp: {m}"));
        assert_eq!(super::error(pattern), want, "{pattern}");
    }
}

/// `\p` classes: Go's names (case and `_`, `-`, spaces ignored; multi-word scripts out of
/// reach in Go 1.26), its negations, and its texts (`regexp.Compile`, Go 1.26.8).
#[test]
fn unicode_classes_as_go_reads_them() {
    as_go_says(&[
        (r"\pL", None),
        (r"\pl", None),
        (r"\p", Some(r"invalid character class range: `\p`")),
        (r"\pZ", None),
        (r"\pA", Some(r"invalid character class range: `\pA`")),
        (r"\p{", Some(r"invalid character class range: `\p{`")),
        (r"\p{}", Some(r"invalid character class range: `\p{}`")),
        (r"\p{^Greek}", None),
        (r"[\p{L}a]", None),
        (r"[\pL-z]", None),
        (r"[a-\pL]", Some(r"invalid escape sequence: `\p`")),
        (r"\P{^L}", None),
        (r"(?i)\p{Lu}", None),
        (r"\p{greek}", None),
        (r"\p{GREEK}", None),
        (
            r"\p{Old_Italic}",
            Some(r"invalid character class range: `\p{Old_Italic}`"),
        ),
        (r"\p{Cased_Letter}", None),
        (r"\p{casedletter}", None),
        (
            r"\p{Lowercase}",
            Some(r"invalid character class range: `\p{Lowercase}`"),
        ),
        (r"\p{ascii}", None),
        (
            r"\p{Latin-1}",
            Some(r"invalid character class range: `\p{Latin-1}`"),
        ),
        (r"\p{L", Some(r"invalid character class range: `\p{L`")),
        (r"\pé", Some(r"invalid character class range: `\pé`")),
        (r"\p{Han}x{", None),
        (r"[\P{Greek}]", None),
        (r"\p{Any}", None),
        (r"\p{Assigned}", None),
        (r"\p{LC}", None),
        (r"\p{lc}", None),
        (r"\p{L&}", Some(r"invalid character class range: `\p{L&}`")),
        (r"\p{Letter}", None),
        (r"\p{Decimal_Number}", None),
        (
            r"\p{Zzzz}",
            Some(r"invalid character class range: `\p{Zzzz}`"),
        ),
        (r"\p{Common}", None),
        (r"\P", Some(r"invalid character class range: `\P`")),
        (r"[\p]", Some(r"invalid character class range: `\p]`")),
        (r"\p{ L }", None),
        (r"\p{Greek}{2}", None),
    ]);
}

/// Escapes, POSIX classes and group names where Go and regex-syntax part (`regexp.Compile`,
/// Go 1.26.8).
#[test]
fn hex_escapes_posix_classes_and_names_as_go_reads_them() {
    as_go_says(&[
        (r"\x{10FFFF}", None),
        (r"\x{D800}", None),
        (r"\x{110000}", Some(r"invalid escape sequence: `\x{110000`")),
        (r"\x{}", Some(r"invalid escape sequence: `\x{}`")),
        (r"\x{12", Some(r"invalid escape sequence: `\x{12`")),
        (r"\x{zz}", Some(r"invalid escape sequence: `\x{z`")),
        (
            "[[:foo:]]",
            Some("invalid character class range: `[:foo:]`"),
        ),
        (
            "[[:^foo:]]",
            Some("invalid character class range: `[:^foo:]`"),
        ),
        (
            "[[:ALPHA:]]",
            Some("invalid character class range: `[:ALPHA:]`"),
        ),
        ("[[::]]", Some("invalid character class range: `[::]`")),
        ("[[:alpha]]", None),
        ("[[:]]", None),
        ("[[:a]", None),
        (r"[\d-z]", None),
        ("(?P<n>a)(?P<n>b)", None),
        ("(?P<1n>a)", None),
        (r"[\w-]", None),
        (r"\d-", None),
        ("[[:^alpha:]x]", None),
        (r"[\s-\d]", None),
    ]);
}

/// Counted repetitions inside counted repetitions, multiplied as Go 1.26.8 multiplies them.
#[test]
fn nested_repeat_counts_as_go_limits_them() {
    as_go_says(&[
        ("(a{100}){100}", Some("invalid repeat count: `{100}`")),
        ("(a{10}){100}", None),
        ("(a{10}){101}", Some("invalid repeat count: `{101}`")),
        ("((a{2}){3}){4}", None),
        ("(a*){1000}", None),
        ("(a{2,}){501}", Some("invalid repeat count: `{501}`")),
        ("(a{1,2}){600}", Some("invalid repeat count: `{600}`")),
        ("(a{0,1}){1000}", None),
        ("a{1000}b{1000}", None),
        ("(?:a{100}|b){11}", Some("invalid repeat count: `{11}`")),
        ("(a{100}){11}?", Some("invalid repeat count: `{11}?`")),
        ("(a{0}){1000}", None),
        ("((a{10}){10}){10}", None),
        ("((a{10}){10}){11}", Some("invalid repeat count: `{11}`")),
        ("(a{10}b{101}){10}", Some("invalid repeat count: `{10}`")),
        ("(a{2}){1,}", None),
        ("(a{600}){2,}", Some("invalid repeat count: `{2,}`")),
        ("(a{600}){0,2}", Some("invalid repeat count: `{0,2}`")),
    ]);
}

/// The table is sorted, for its binary search, and holds only canonical spellings.
#[test]
fn the_class_table_is_sorted_and_canonical() {
    let table = super::unicode_classes::CLASSES;
    assert!(table.windows(2).all(|w| w[0] < w[1]));
    assert!(table.iter().all(|n| super::canonical(n) == *n), "{table:?}");
    assert!(table.len() > 150, "{}", table.len());
}

/// Go's texts (`regexp.Compile`, Go 1.26).
#[test]
fn errors_as_go_words_them() {
    for (pattern, message) in [
        ("(", "missing closing ): `(`"),
        ("a)", "unexpected ): `a)`"),
        ("[a", "missing closing ]: `[a`"),
        ("a{1001}", "invalid repeat count: `{1001}`"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("a*??", "invalid nested repetition operator: `*??`"),
        ("a{2}*", "invalid nested repetition operator: `{2}*`"),
        ("*a", "missing argument to repetition operator: `*`"),
        ("a|+", "missing argument to repetition operator: `+`"),
        (r"\8", r"invalid escape sequence: `\8`"),
        ("(?x)a", "invalid or unsupported Perl syntax: `(?x`"),
        ("(?i-)a", "invalid or unsupported Perl syntax: `(?i-)`"),
        ("(?P<a.b>x)", "invalid named capture: `(?P<a.b>`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("a\\", "trailing backslash at end of expression: ``"),
    ] {
        assert_eq!(
            super::error(pattern).as_deref(),
            Some(format!("error parsing regexp: {message}").as_str()),
            "{pattern}"
        );
    }
}

/// Go's verdicts (`regexp.Compile`, Go 1.26).
#[test]
fn as_go_regexp_compiles() {
    for accepted in [
        r"\Qa.b\E",
        r"\Qa.b",
        r"x\Q*\Ey*",
        r"\0",
        r"\012",
        r"\12",
        r"[\0-\177]",
        "a{,3}",
        "a{x}",
        "a{",
        "a{2}",
        "a{2,}",
        "a{1000}",
        "a*?",
        "a{2}?",
        "(?i)a",
        "(?i-s:a)",
        "(?:a)",
        "(?)a",
        "(?U)a+",
        "(?P<name>a)",
        "(?<name>a)",
        "[[:alpha:]]",
        "[a[]",
        "[a&&b]",
        "[]a]",
        r"\pL",
        r"\z",
        "a|b",
        "a{,}",
        "}",
        "x{2}{,3}",
        "[a~~b]",
        r"\b{start}",
        r"\<",
        r"\_",
        r"\ ",
        "(?i)(?)",
    ] {
        assert!(valid(accepted), "Go accepts {accepted}");
    }
    for refused in [
        r"\1",
        r"\8",
        r"\u0041",
        "a{1001}",
        "a{3,2}",
        "a**",
        "a+*",
        "a*??",
        "a{2}*",
        "(?x)a",
        "(?i-)a",
        "(?P<a.b>x)",
        "(?P<>x)",
        r"\C",
        r"\Z",
        "[a",
        "(a",
        "*a",
        "(?=a)",
        "a{2}{3}",
        "[a--b]",
        r"[\Q]",
        r"\e",
    ] {
        assert!(!valid(refused), "Go refuses {refused}");
    }
}
