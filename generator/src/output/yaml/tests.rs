use super::key_order::{go_less, sort_keys};
use super::number::{format_go_float, format_number};
use super::*;
use serde_json::json;

fn scalar(s: &str) -> String {
    let out = render_yaml(&json!({ "k": s }));
    out.strip_prefix("k:")
        .unwrap()
        .trim_end_matches('\n')
        .to_string()
}

#[test]
fn quoting_matches_go_yaml_v2() {
    // Plain.
    for s in [
        "get", "apps", "/metrics", "a-b", "x:y", "a#b", "-a", "a b", "<<", "yess", "0x", "1a",
    ] {
        assert_eq!(scalar(s), format!(" {s}"), "{s:?}");
    }
    // Double-quoted: YAML 1.1 would read another type.
    for s in [
        "",
        "true",
        "True",
        "yes",
        "Y",
        "n",
        "NO",
        "on",
        "off",
        "null",
        "~",
        "123",
        "-1",
        "+1",
        "0x1F",
        "0o17",
        "017",
        "08",
        "1_000",
        "1.5",
        ".5",
        "1e3",
        ".inf",
        "-.Inf",
        ".nan",
        "1:20",
        "-1:20:30.5",
        "2024-01-01",
        "2024-1-2",
        "2001-12-14t21:59:43.10-05:00",
        "2024-1-2 10:00:00",
        "0b101",
    ] {
        assert_eq!(
            scalar(s),
            format!(" {}", serde_json::to_string(s).unwrap()),
            "{s:?}"
        );
    }
    // Single-quoted: indicators.
    for s in [
        "*", "#c", "@at", "%p", "{a}", "[b]", "foo: bar", " lead", "trail ", "-", "- x", "? x",
        "a #b", "---x", "!x", "&a", "|", ">", "'q'", "`b`", "\"d\"",
    ] {
        let expected = format!(" '{}'", s.replace('\'', "''"));
        assert_eq!(scalar(s), expected, "{s:?}");
    }
    // Not timestamps or numbers after all.
    for s in [
        "2024-13-01",
        "2023-02-29",
        "2024-01-01T10:00:00",
        "1.2.3",
        "1__0x",
        "12:60",
        "+",
        "-",
        ".",
        "...",
    ] {
        let out = scalar(s);
        assert!(!out.starts_with(" \""), "{s:?} → {out}");
    }
    assert_eq!(scalar("2024-02-29"), " \"2024-02-29\"");
}

#[test]
fn escapes_and_control_characters() {
    assert_eq!(scalar("tab\there"), " \"tab\\there\"");
    assert_eq!(scalar("bell\u{7}"), " \"bell\\a\"");
    assert_eq!(scalar("nul\0"), " \"nul\\0\"");
    assert_eq!(scalar("esc\u{1b}"), " \"esc\\e\"");
    assert_eq!(scalar("del\u{7f}"), " \"del\\x7F\"");
    assert_eq!(scalar("bom\u{feff}"), " \"bom\\uFEFF\"");
    assert_eq!(scalar("emoji \u{1F600}"), " \"emoji \\U0001F600\"");
    assert_eq!(scalar("quote\" and \\ \t"), " \"quote\\\" and \\\\ \\t\"");
    // Printable non-ASCII stays as it is.
    assert_eq!(scalar("café ü"), " café ü");
}

#[test]
fn literal_blocks() {
    let out = render_yaml(
        &json!({ "a": "line1\nline2", "b": "x\n", "c": "x\n\n", "d": " lead\nx", "e": "x\n\ny" }),
    );
    assert_eq!(
        out,
        "a: |-\n  line1\n  line2\nb: |\n  x\nc: |+\n  x\n\nd: |2-\n   lead\n  x\ne: |-\n  x\n\n  y\n"
    );
    // A line ending in a space before the break cannot be a block scalar.
    assert_eq!(scalar("a \nb"), " \"a \\nb\"");
}

#[test]
fn long_lines_fold_like_go() {
    let long = "Specifies how to treat concurrent executions of a Job. Valid values are: - \"Allow\" (default): allows CronJobs to run concurrently";
    let out = render_yaml(&json!({ "spec": { "description": long } }));
    assert_eq!(
        out,
        "spec:\n  description: 'Specifies how to treat concurrent executions of a Job. Valid values\n    are: - \"Allow\" (default): allows CronJobs to run concurrently'\n"
    );
    let plain = "word ".repeat(30);
    let plain = plain.trim_end();
    let out = render_yaml(&json!({ "d": plain }));
    for line in out.lines() {
        assert!(line.chars().count() <= 85, "{line}");
    }
    assert_eq!(out.replace("\n  ", " "), format!("d: {plain}\n"));
}

#[test]
fn structure() {
    let v = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": { "name": "manager-role" },
        "rules": [
            { "apiGroups": [""], "resources": ["pods"], "verbs": ["get", "*"] },
            { "nonResourceURLs": ["/metrics"], "verbs": ["get"] }
        ],
        "empty": {},
        "none": [],
        "nested": [[1, 2], [], {}],
        "n": null, "t": true, "f": 1.5, "i": -3, "big": 1e21, "g": 1234567.0, "small": 0.00001,
        "h": 1234567.5
    });
    let expected = "\
apiVersion: rbac.authorization.k8s.io/v1
big: 1e+21
empty: {}
f: 1.5
g: 1234567
h: 1.2345675e+06
i: -3
kind: ClusterRole
metadata:
  name: manager-role
\"n\": null
nested:
- - 1
  - 2
- []
- {}
none: []
rules:
- apiGroups:
  - \"\"
  resources:
  - pods
  verbs:
  - get
  - '*'
- nonResourceURLs:
  - /metrics
  verbs:
  - get
small: 1e-05
t: true
";
    assert_eq!(render_yaml(&v), expected);
}

fn sorted<'a>(keys: &[&'a str]) -> Vec<&'a str> {
    let mut keys = keys.to_vec();
    sort_keys(&mut keys, |k| k);
    keys
}

fn less(a: &str, b: &str) -> bool {
    go_less(
        &a.chars().collect::<Vec<_>>(),
        &b.chars().collect::<Vec<_>>(),
    )
}

#[test]
fn keys_sort_like_go_yaml_v2() {
    let keys = sorted(&[
        "v10", "ab", "a.b", "B", "v9", "alpha", "_a", "Zeta", "a-b", "x01", "x1", "x001",
    ]);
    assert_eq!(
        keys,
        [
            "_a", "B", "Zeta", "a-b", "a.b", "ab", "alpha", "v9", "v10", "x1", "x01", "x001"
        ]
    );
    // Only the first differing character counts: `0` is not a letter and `N` is, so `port10`
    // comes first although 1 < 10.
    assert_eq!(
        sorted(&["port1Name", "portA", "port10", "port1", "port_"]),
        ["port_", "port1", "port10", "port1Name", "portA"]
    );
    // A zero after non-zero digits counts (`x100` after `x12`); leading zeros do not.
    assert_eq!(
        sorted(&["x100", "x12", "x1000", "x012", "x0012", "x2"]),
        ["x2", "x12", "x012", "x0012", "x100", "x1000"]
    );
    // Non-letters before letters, whatever their code points; non-digits before digits.
    assert_eq!(
        sorted(&["a~", "a0", "aZ", "a_", "a-", "aé", "a日", "a\u{2160}"]),
        ["a-", "a_", "a~", "a\u{2160}", "a0", "aZ", "aé", "a日"]
    );
    // Go's int64 arithmetic wraps: 19 nines overflow to a negative number, less than 1.
    let wrapped = format!("k{}", "9".repeat(19));
    assert!(less(&wrapped, "k1"), "{wrapped}");
    // Non-ASCII digits are digits, worth their code point minus '0'.
    assert!(less("k9", "k\u{663}"));
    assert!(less("k\u{663}", "k1600"));
}

#[test]
fn key_order_is_deterministic_even_where_go_cycles() {
    // Go's comparator: a12 < a1b < a2 < a12. Go's output then depends on its random map order;
    // ours must not depend on the input order.
    assert!(less("a12", "a1b") && less("a1b", "a2") && less("a2", "a12"));
    let keys = [
        "a2", "a1b", "a12", "a01", "a1", "a", "a-", "a_", "aB", "ab", "a0",
    ];
    let expected = sorted(&keys);
    let mut rotated = keys;
    for _ in 0..keys.len() {
        rotated.rotate_left(1);
        assert_eq!(sorted(&rotated), expected);
        let mut reversed = rotated;
        reversed.reverse();
        assert_eq!(sorted(&reversed), expected);
    }
    // Keys outside the cycle keep Go's order.
    assert_eq!(&expected[..5], ["a", "a-", "a_", "a0", "a1"]);
    assert_eq!(&expected[9..], ["aB", "ab"]);
    // For distinct keys exactly one of the two is less.
    for a in &keys {
        for b in &keys {
            assert!(!(less(a, b) && less(b, a)), "{a} {b}");
            assert_eq!(a != b, less(a, b) || less(b, a), "{a} {b}");
        }
    }
}

#[test]
fn floats_format_like_go() {
    for (f, s) in [
        (1.0, "1"),
        (0.1, "0.1"),
        (100000.0, "100000"),
        (1e6, "1e+06"),
        (1.5e-5, "1.5e-05"),
        (0.0001, "0.0001"),
        (-2.5, "-2.5"),
        (123456.789, "123456.789"),
    ] {
        assert_eq!(format_go_float(f), s);
    }
}

#[test]
fn numbers_as_controller_gens_json_round_trip_leaves_them() {
    let number = |v: Value| match v {
        Value::Number(n) => format_number(&n),
        _ => unreachable!(),
    };
    for (value, text) in [
        // Whole floats become integers: encoding/json writes no fraction, go-yaml reads an int.
        (json!(1.0), "1"),
        (json!(1048576.0), "1048576"),
        (json!(1e6), "1000000"),
        (json!(-0.0), "0"),
        (json!(-5.0), "-5"),
        (json!(1e20), "1e+20"),
        (json!(1e21), "1e+21"),
        (json!(123456789012345680000.0), "1.2345678901234568e+20"),
        // Integers go through a float64 too.
        (json!(0), "0"),
        (json!(-3), "-3"),
        (json!(9007199254740993i64), "9007199254740992"),
        (json!(i64::MAX), "9223372036854776000"),
        (json!(i64::MIN), "-9.223372036854776e+18"),
        (json!(u64::MAX), "1.8446744073709552e+19"),
        (json!(1u64 << 60), "1152921504606847000"),
        // Fractions are go-yaml floats, written with %g.
        (json!(0.5), "0.5"),
        (json!(0.1 + 0.2), "0.30000000000000004"),
        (json!(1234567.5), "1.2345675e+06"),
        (json!(123456.789), "123456.789"),
        (json!(0.0001), "0.0001"),
        (json!(0.00001), "1e-05"),
        (json!(1e-7), "1e-07"),
        (json!(-2.5e-300), "-2.5e-300"),
        (json!(5e-324), "5e-324"),
        (json!(f64::MAX), "1.7976931348623157e+308"),
    ] {
        assert_eq!(number(value.clone()), text, "{value}");
    }
}

#[test]
fn documents_get_separators_and_header() {
    let docs = [json!({"a": 1}), json!({"b": 2})];
    assert_eq!(
        render_documents("# hi\n", &docs),
        "# hi\n---\na: 1\n---\nb: 2\n"
    );
}
