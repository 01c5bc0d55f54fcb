//! Differential test of `kube_markers::yaml` against the library controller-gen writes YAML
//! with (sigs.k8s.io/yaml → go-yaml v2, built by `scripts/yaml-oracle.sh`): hand-picked edge
//! cases plus thousands of random strings, as keys and values at several depths.
//!
//! Needs Go. Set `KUBE_MARKERS_SKIP_ORACLE=1` to skip it knowingly; it never skips silently.

use kube_markers_tests::Rng;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

fn oracle(docs: &[Value]) -> Option<String> {
    let bin = kube_markers_tests::oracle("yaml-oracle.sh")?;
    let mut child = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for doc in docs {
        input.push_str(&json_for_go_yaml(doc));
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// JSON text that go-yaml's parser (which JSONToYAML reads JSON with) takes back verbatim:
/// characters it rejects raw (DEL, C1 controls, U+FFFE/F) or reads as line breaks (U+0085,
/// U+2028, U+2029) are written as `\uXXXX` escapes, so the oracle gets exactly our strings.
fn json_for_go_yaml(doc: &Value) -> String {
    serde_json::to_string(doc)
        .unwrap()
        .chars()
        .map(|c| match c as u32 {
            0x7F..=0x9F | 0x2028 | 0x2029 | 0xFEFF | 0xFFFE | 0xFFFF => {
                format!("\\u{:04x}", c as u32)
            }
            _ => c.to_string(),
        })
        .collect()
}

/// Compares document by document so a failure names the input.
fn assert_same(docs: &[Value]) {
    let Some(theirs) = oracle(docs) else { return };
    let ours = kube_markers::yaml::render_documents("", docs);
    if ours == theirs {
        return;
    }
    let split = |s: &str| -> Vec<String> {
        s.strip_prefix("---\n")
            .unwrap_or(s)
            .split("\n---\n")
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (split(&theirs), split(&ours));
    for (i, doc) in docs.iter().enumerate() {
        if a.get(i) != b.get(i) {
            let (x, y) = (
                a.get(i).cloned().unwrap_or_default(),
                b.get(i).cloned().unwrap_or_default(),
            );
            let first = x
                .lines()
                .zip(y.lines())
                .position(|(l, r)| l != r)
                .unwrap_or(0);
            let window = |t: &str| {
                t.lines()
                    .skip(first.saturating_sub(2))
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "document {i} differs from line {}.\ninput: {}\n--- go-yaml v2 (from line {})\n{}\n--- kube-markers\n{}",
                first + 1,
                serde_json::to_string(doc).unwrap(),
                first.saturating_sub(2) + 1,
                window(&x),
                window(&y)
            );
        }
    }
    panic!("outputs differ but no document does (separator?)");
}

const EDGE_STRINGS: &[&str] = &[
    "",
    " ",
    "  ",
    "a",
    "a  b",
    "a\tb",
    "\t",
    "\n",
    "a\n",
    "a\n\n",
    "\na",
    " \n",
    "a \nb",
    "a\n b",
    "a\r\nb",
    "a\rb",
    "#",
    "a#b",
    "a #b",
    "a# b",
    "a: b",
    "a:b",
    ":a",
    "a:",
    ": a",
    "- a",
    "-a",
    "-",
    "--",
    "---",
    "--- a",
    "...",
    ".... a",
    "@",
    "`",
    "%",
    "!",
    "&",
    "*",
    "*a",
    "|",
    ">",
    "'",
    "\"",
    "?",
    "? a",
    "?a",
    ",a",
    "a,b",
    "[a]",
    "{a}",
    "a]",
    "a}",
    "y",
    "Y",
    "yes",
    "Yes",
    "n",
    "NO",
    "on",
    "Off",
    "true",
    "TRUE",
    "tRue",
    "~",
    "null",
    "NULL",
    "Null",
    "nULL",
    "0",
    "-0",
    "+0",
    "00",
    "012",
    "019",
    "0x1F",
    "0X1F",
    "0x",
    "0o17",
    "0O17",
    "0b101",
    "-0b101",
    "0b",
    "0b2",
    "1_000",
    "1__0",
    "_1",
    "1_",
    "1.5",
    "1.",
    ".5",
    ".",
    "..",
    "1e3",
    "1E-3",
    "1e",
    "e3",
    "1.5e+300",
    "1e400",
    ".inf",
    "-.INF",
    "+.inf",
    ".NaN",
    ".nan",
    "inf",
    "nan",
    "Infinity",
    "1:20",
    "1:60",
    "1:2:3",
    "190:20:30",
    "-1:20",
    "+1:20",
    "1:20.5",
    "1:20:",
    "2024-01-01",
    "2024-1-1",
    "2024-02-30",
    "2024-02-29",
    "2023-02-29",
    "2024-13-01",
    "24-01-01",
    "2024-01-01x",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14T21:59:43Z",
    "2001-12-14T21:59:43",
    "2001-12-14 21:59:43.10",
    "2001-12-14 21:59:43",
    "2001-12-14 21:59:43.10 -5",
    "2001-12-14T21:59:43+24:00",
    "2001-12-14T25:59:43Z",
    "12:30",
    "<<",
    "=",
    "café",
    "日本語のテキスト",
    "emoji 😀",
    "\u{85}",
    "a\u{85}b",
    "\u{a0}",
    "a\u{a0}",
    "\u{2028}",
    "\u{feff}bom",
    "\u{7f}",
    "\u{1b}",
    "\0",
    "\u{e000}",
    "\u{fffd}",
    "\u{fffe}",
    "a\\b",
    "C:\\path",
    "it's",
    "say \"hi\"",
    "'quoted'",
    "\"dq\"",
    "a'",
    "%x",
    "@x",
    "!x",
    "&x",
    ">x",
    "|x",
    "{}",
    "[]",
    "a # b",
    "a #",
    "#a b",
    "key:value",
    "http://example.com/a?b=c#d",
    "/healthz*",
    "system:masters",
    "get;list",
    "x-kubernetes-list-map-keys",
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    "self.replicas <= 10 && self.image.startsWith('nginx')",
    "has(self.x) ? self.x : 'y'",
];

fn long_texts() -> Vec<String> {
    let words = "Specifies how to treat concurrent executions of a Job. Valid values are: \
                 - \"Allow\" (default): allows CronJobs to run concurrently; - \"Forbid\": \
                 forbids concurrent runs, skipping next run if previous run hasn't finished \
                 yet; - \"Replace\": cancels currently running job and replaces it with a new one";
    let mut v = vec![
        words.to_string(),
        words.replace('"', ""),
        words.replace(['"', '\'', ':', '-', ';'], ""),
        format!("*{words}"),
        format!("{words} "),
        words.replace(' ', "  "),
        words.replace(' ', "   "),
        "x".repeat(200),
        format!("{} {}", "y".repeat(90), "z".repeat(90)),
        format!("first line\n{words}\nlast line"),
        format!("{words}\n\n{words}\n"),
        format!("  indented start\n{words}"),
        format!("{}\ttab", words),
        words.replace(' ', "\u{a0}"),
        "日本語 ".repeat(40),
        "a ".repeat(80),
        format!("{} #comment-like {}", &words[..70], &words[70..]),
        format!("{}: {}", &words[..81], &words[81..]),
    ];
    v.push(v[0].to_uppercase());
    v
}

/// Random strings over the characters YAML cares about.
trait RandomString {
    fn string(&mut self) -> String;
}

impl RandomString for Rng {
    fn string(&mut self) -> String {
        const ALPHABET: &[char] = &[
            'a', 'b', 'y', 'n', 'e', 'x', 'Z', '0', '1', '5', '9', ' ', ' ', ' ', ':', '#', '-',
            '.', '_', '+', '\'', '"', '\\', '\n', '\t', '*', '&', '!', '|', '>', '?', ',', '[',
            '{', '%', '@', '`', '~', '/', 'é', '日', '\u{a0}', '\u{85}', '\u{2028}', '😀',
        ];
        let len = match self.below(10) {
            0 => 0,
            1..=6 => 1 + self.below(8),
            7 | 8 => 8 + self.below(40),
            _ => 60 + self.below(140),
        };
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len())])
            .collect()
    }
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn edge_case_strings_as_values_at_several_depths() {
    let docs: Vec<Value> = EDGE_STRINGS
        .iter()
        .map(|s| {
            json!({
                "value": s,
                "list": [s, [s], { "k": s }],
                "spec": { "validation": { "openAPIV3Schema": { "description": s, "enum": [s] } } },
            })
        })
        .collect();
    assert_same(&docs);
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn edge_case_strings_as_keys() {
    let mut map = serde_json::Map::new();
    // Keys whose digits are not a trailing run are left out: there go-yaml's comparator is not
    // transitive (`a12` < `a1b` < `a2` < `a12`) and its order follows Go's random map order.
    let trailing_digits_only = |s: &str| {
        let body = s.trim_end_matches(|c: char| c.is_ascii_digit());
        !body.contains(|c: char| c.is_ascii_digit())
    };
    for s in EDGE_STRINGS.iter().filter(|s| trailing_digits_only(s)) {
        map.insert(s.to_string(), json!(s));
    }
    map.insert("k".repeat(129), json!("long key"));
    map.insert("k".repeat(128), json!("simple key at the limit"));
    for k in [
        "v10", "v9", "x01", "x1", "x001", "B", "_a", "Zeta", "a-b", "a.b", "ab", "10", "9", "a_9",
        "a-10",
    ] {
        map.insert(k.to_string(), json!(1));
    }
    assert_same(&[
        Value::Object(map.clone()),
        json!({ "nested": { "deeper": Value::Object(map) } }),
    ]);
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn long_text_folds_like_go_at_every_indent() {
    let mut docs = Vec::new();
    for text in long_texts() {
        let mut v = json!(text);
        for _depth in 0..7 {
            docs.push(json!({ "d": v.clone(), "seq": [v.clone()] }));
            v = json!({ "description": v, "items": [v] });
        }
    }
    assert_same(&docs);
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn numbers_bools_nulls_and_empties() {
    let docs = vec![
        json!({
            "ints": [0, 1, -1, 42, i64::MIN, i64::MAX, u64::MAX],
            "floats": [0.5, 1.5, -2.25, 0.1, 1e-7, 1e-5, 0.0001, 123456.0, 1234567.0, 1e21, 1.5e300, 2.5e-300],
            "f": 1.0,
            "bools": [true, false],
            "null": null,
            "emptyMap": {},
            "emptyList": [],
            "nested": [[], {}, [[]], [{}], { "a": [] }],
        }),
        json!({ "a": [[1, [2, [3]]], { "b": [{ "c": {} }] }] }),
    ];
    assert_same(&docs);
}

#[test]
#[cfg_attr(skip_oracle, ignore = "KUBE_MARKERS_SKIP_ORACLE=1: needs a Go oracle")]
fn thousands_of_random_strings() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut docs = Vec::new();
    for _ in 0..400 {
        let mut map = serde_json::Map::new();
        for _ in 0..5 {
            let key = rng.string();
            let value = rng.string();
            let nested =
                json!({ "description": rng.string(), "list": [rng.string(), rng.string()] });
            map.insert(key, json!(value));
            map.insert(rng.string(), nested);
        }
        docs.push(Value::Object(map));
    }
    assert_same(&docs);
}
