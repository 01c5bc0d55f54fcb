use super::*;
use serde_json::json;

fn read(text: &str) -> Result<Vec<Value>, String> {
    read_stream(text).map(|(docs, _)| docs)
}

/// go-yaml v2 sets a merge key's keys over the ones before it; a later key wins over both.
#[test]
fn merge_keys_as_go_yaml_v2_sets_them() {
    assert_eq!(
        read("a: 1\n<<: {a: 2, b: 2}\n").unwrap(),
        [json!({"a": 2, "b": 2})]
    );
    assert_eq!(
        read("x: &x {a: 1}\ny: &y {a: 2, b: 2}\nz: {<<: [*x, *y], b: 3}\n").unwrap()[0]["z"],
        json!({"a": 1, "b": 3})
    );
    assert!(read("<<: 1\n").is_err());
}

/// Keys become text; a null key, an integer above i64 and NaN values are refused.
#[test]
fn keys_as_sigs_k8s_io_yaml_converts_them() {
    let (docs, warnings) = read_stream("y: 1\n0x10: 2\n1.0: 3\n'n': 4\n").unwrap();
    assert_eq!(docs, [json!({"true": 1, "16": 2, "1": 3, "n": 4})]);
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(read("~: 1\n").is_err());
    assert!(read("18446744073709551615: 1\n").is_err());
    assert!(read("a: .nan\n").is_err());
    assert!(read("? [a]\n: 1\n").is_err());
}

/// A JSON stream; YAML after a first object; documents cut at `---` lines.
#[test]
fn streams_as_kubectl_cuts_them() {
    assert_eq!(
        read("{\"a\":1}{\"b\":2}").unwrap(),
        [json!({"a": 1}), json!({"b": 2})]
    );
    assert_eq!(
        read(" {\"a\":1}\nb: y\n").unwrap(),
        [json!({"a": 1}), json!({"b": true})]
    );
    assert!(read("{\"a\":1}{\"b\":2}\nc: 3\n").is_err());
    assert!(read("a: 1\n--- b\n").is_err());
    assert_eq!(read("a: 1\n...\nb: 2\n").unwrap(), [json!({"a": 1})]);
}

#[test]
fn bytes_as_cli_runtime_decodes_them() {
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("a: é".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    assert_eq!(decode_bytes(&utf16).0, "a: é");
    let (text, warnings) = decode_bytes(b"a: caf\xe9\n");
    assert_eq!(text, "a: caf\u{FFFD}\n");
    assert!(
        warnings[0].starts_with("byte 6 is not UTF-8"),
        "{warnings:?}"
    );
    assert_eq!(decode_bytes(b"\xEF\xBB\xBFa").0, "a");
}
