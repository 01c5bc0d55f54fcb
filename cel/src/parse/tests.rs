use super::*;

fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

fn error_of(source: &str) -> Option<ParseError> {
    parse(source).err()
}

/// cel-go's parse listener: more than 250 nested `expr` rules (the whole expression is
/// one, each list, parenthesis, argument or `:` branch one more).
#[test]
fn nesting_beyond_cel_gos_limit_is_refused_as_cel_go_refuses_it() {
    crate::on_large_stack(nesting_beyond_the_limit);
}

fn nesting_beyond_the_limit() {
    let limit = format!("expression recursion limit exceeded: {MAX_RECURSION_DEPTH}");
    for (open, close) in [("[", "]"), ("(", ")"), ("f(", ")"), ("{1: ", "}")] {
        let at_limit = nested(open, "1", close, 249);
        assert_eq!(error_of(&at_limit), None, "{open}: 249 levels");
        let over = nested(open, "1", close, 250);
        assert_eq!(
            error_of(&over),
            Some(ParseError {
                at: NO_LOCATION,
                message: limit.clone()
            }),
            "{open}: 250 levels"
        );
    }
    let ternaries = |n: usize| format!("{}1", "true ? 1 : ".repeat(n));
    assert_eq!(error_of(&ternaries(249)), None);
    assert_eq!(error_of(&ternaries(250)).unwrap().message, limit);
}

/// cel-go's tree builder: more than 250 operators, selections, calls or indexes on one
/// path of the tree, chains included.
#[test]
fn chains_beyond_cel_gos_limit_are_refused_as_cel_go_refuses_them() {
    crate::on_large_stack(chains_beyond_the_limit);
}

fn chains_beyond_the_limit() {
    let max = MAX_RECURSION_DEPTH as usize;
    type Chain = (&'static str, fn(usize) -> String);
    let chains: [Chain; 6] = [
        ("sum", |n| format!("1{}", " + 1".repeat(n))),
        ("relation", |n| format!("1{}", " < 1".repeat(n))),
        ("select", |n| format!("a{}", ".b".repeat(n))),
        ("index", |n| format!("a{}", "[0]".repeat(n))),
        ("member call", |n| format!("a{}", ".f()".repeat(n))),
        // Lists do not count, their operators do, along the whole path.
        ("mixed", |n| {
            let inner = if n % 2 == 1 { "1 + 1" } else { "1" };
            nested("[", inner, " + 1 + 1]", n / 2)
        }),
    ];
    for (what, chain) in chains {
        assert_eq!(error_of(&chain(max)), None, "{what}: {max}");
        assert_eq!(
            error_of(&chain(max + 1)),
            Some(ParseError {
                at: NO_LOCATION,
                message: "max recursion depth exceeded".into()
            }),
            "{what}: {}",
            max + 1
        );
    }
    // `has()` keeps its selection's count; `&&` and `||` are balanced and do not count.
    assert!(error_of(&format!("has(a{})", ".b".repeat(max + 1))).is_some());
    assert_eq!(error_of(&vec!["a"; 5000].join(" && ")), None);
}

/// cel-go's macros refuse both accumulator names, at the variable, with its texts.
#[test]
fn macro_variables_as_cel_go_checks_them() {
    let overwrites = "iteration variable overwrites accumulator variable";
    for (source, at, message) in [
        ("[1].all(__result__, true)", 8, overwrites),
        ("[1].map(__result__, 1)", 8, overwrites),
        ("[1].all(i, __result__, true)", 11, overwrites),
        ("[1].all(i, i, true)", 11, "duplicate variable name: i"),
        ("[1].map(1, 1)", 8, "argument is not an identifier"),
        ("[1].exists(1, true)", 11, "argument must be a simple name"),
    ] {
        assert_eq!(
            error_of(source),
            Some(ParseError {
                at,
                message: message.into()
            }),
            "{source}"
        );
    }
    assert_eq!(error_of("[1].all(result, true)"), None);
}

#[test]
fn expressions_over_100000_code_points_are_refused() {
    let fits = format!("'{}'", "é".repeat(MAX_CODE_POINTS - 2));
    assert_eq!(error_of(&fits), None);
    let over = format!("'{}'", "é".repeat(MAX_CODE_POINTS - 1));
    assert_eq!(
        error_of(&over).unwrap().message,
        "expression code point size exceeds limit: size: 100001, limit 100000"
    );
}

/// The deepest expressions the limits let through parse on the large stack, unoptimized.
#[test]
fn the_deepest_accepted_nesting_fits_the_large_stack() {
    let deepest = [
        nested("[", "1", "]", 249),
        nested("(", "1", ")", 249),
        nested("!f(-1, ", "1", ")", 249),
        nested("{a: ", "1", "}", 249),
        nested("[1 + ", "1", "]", 249),
    ];
    crate::on_large_stack(move || {
        for source in deepest {
            assert!(parse(&source).is_ok(), "{source}");
        }
    });
}
