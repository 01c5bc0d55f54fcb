use super::key_order::key_order;
use super::number::format_go_float;
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
        "n": null, "t": true, "f": 1.5, "i": -3, "big": 1e21, "g": 1234567.0, "small": 0.00001
    });
    let expected = "\
apiVersion: rbac.authorization.k8s.io/v1
big: 1e+21
empty: {}
f: 1.5
g: 1.234567e+06
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

#[test]
fn keys_sort_like_go_yaml_v2() {
    let mut keys = vec![
        "v10", "ab", "a.b", "B", "v9", "alpha", "_a", "Zeta", "a-b", "x01", "x1", "x001",
    ];
    keys.sort_by(|a, b| key_order(a, b));
    assert_eq!(
        keys,
        [
            "_a", "B", "Zeta", "a-b", "a.b", "ab", "alpha", "v9", "v10", "x1", "x01", "x001"
        ]
    );
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
fn documents_get_separators_and_header() {
    let docs = [json!({"a": 1}), json!({"b": 2})];
    assert_eq!(
        render_documents("# hi\n", &docs),
        "# hi\n---\na: 1\n---\nb: 2\n"
    );
}

#[test]
fn key_order_is_total_even_where_go_cycles() {
    // Go's comparator: a12 < a1b < a2 < a12. Ours must still be a total order.
    let mut keys = vec![
        "a2", "a1b", "a12", "a01", "a1", "a", "a-", "a_", "aB", "ab", "a0",
    ];
    keys.sort_by(|a, b| key_order(a, b));
    assert_eq!(
        keys,
        [
            "a", "a-", "a_", "a0", "a1", "a1b", "a01", "a2", "a12", "aB", "ab"
        ]
    );
    for a in &keys {
        for b in &keys {
            assert_eq!(key_order(a, b), key_order(b, a).reverse(), "{a} {b}");
        }
    }
}
