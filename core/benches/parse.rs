//! Attribute-argument parsing, the per-attribute cost of the workspace scan (which parses
//! every `#[rbac]` of the workspace) and of each macro expansion:
//! `cargo bench -p kube-markers-core --features parse --bench parse`.
//!
//! Each bench parses and validates 10,000 attributes whose tokens are built beforehand, as the
//! scan holds them after reading the files; divide the median by 10,000 for one attribute.

use proc_macro2::TokenStream;
use std::str::FromStr;

fn main() {
    divan::main();
}

const N: usize = 10_000;

/// `#[rbac]` arguments in the forms users write: semicolon strings, arrays, controller-gen's
/// spellings, namespaces, role names, `allow(...)`.
fn rbac_args() -> Vec<TokenStream> {
    let groups = [
        "\"\"",
        "\"apps\"",
        "\"cache.example.com\"",
        "[\"\", \"apps\"]",
    ];
    let resources = [
        "\"deployments\"",
        "\"pods/status\"",
        "\"memcacheds;memcacheds/status;memcacheds/finalizers\"",
        "[\"configmaps\", \"secrets\"]",
    ];
    let verbs = [
        "\"get;list;watch\"",
        "\"get;list;watch;create;update;patch;delete\"",
        "[\"get\", \"update\"]",
        "\"patch\"",
    ];
    (0..N)
        .map(|i| {
            let mut text = format!(
                "groups = {}, resources = {}, verbs = {}",
                groups[i % 4],
                resources[(i / 4) % 4],
                verbs[(i / 16) % 4]
            );
            match i % 10 {
                0 => text.push_str(", namespace = \"tenant\", role_name = \"tenant-reader\""),
                1 => text.push_str(", resourceNames = \"leader-lock\""),
                2 => {
                    text.push_str(", allow(cluster-secrets-read, reason = \"mirrors TLS Secrets\")")
                }
                _ => {}
            }
            if i % 10 == 2 {
                text = text.replace(resources[(i / 4) % 4], "\"secrets\"");
            }
            TokenStream::from_str(&text).expect("bench input tokenizes")
        })
        .collect()
}

fn webhook_args() -> Vec<TokenStream> {
    (0..N)
        .map(|i| {
            let text = format!(
                "name = \"v{i}.db.example.com\", mutating = {}, path = \"/validate-{i}\", \
                 failure_policy = \"Fail\", sideEffects = \"None\", groups = \"db.example.com\", \
                 resources = \"mydatabases\", verbs = \"create;update\", versions = [\"v1\"], \
                 admission_review_versions = \"v1\"",
                i % 2 == 0
            );
            TokenStream::from_str(&text).expect("bench input tokenizes")
        })
        .collect()
}

#[divan::bench(sample_count = 10)]
fn rbac_10000(bencher: divan::Bencher) {
    let inputs = rbac_args();
    bencher.bench_local(|| {
        for args in &inputs {
            let marker = kube_markers_core::rbac::parse_marker(args.clone());
            divan::black_box(marker.expect("valid bench input"));
        }
    });
}

#[divan::bench(sample_count = 10)]
fn webhook_10000(bencher: divan::Bencher) {
    let inputs = webhook_args();
    bencher.bench_local(|| {
        for args in &inputs {
            let marker = kube_markers_core::webhook::parse_marker(args.clone());
            divan::black_box(marker.expect("valid bench input"));
        }
    });
}

/// `#[k8s]` markers through `#[kube_markers::schema]`: 1,000 structs of 10 marked fields.
#[divan::bench(sample_count = 10)]
fn k8s_10000(bencher: divan::Bencher) {
    let fields = [
        "#[k8s(minimum = 1, maximum = 10)] a: i32",
        "#[k8s(min_length = 1, max_length = 63, pattern = \"^[a-z]+$\")] b: String",
        "#[k8s(min_items = 1, items(min_length = 1, enum = [\"a\", \"b\"]))] c: Vec<String>",
        "#[k8s(enum = [\"Allow\", \"Forbid\"])] d: String",
        "#[k8s(list_type = \"map\", list_map_keys = [\"name\"])] e: Vec<Item>",
        "#[k8s(map_type = \"atomic\", min_properties = 1)] f: BTreeMap<String, String>",
        "#[k8s(required, immutable)] g: String",
        "#[k8s(nullable, multiple_of = 2, exclusive_minimum)] h: Option<i64>",
        "#[k8s(format = \"date-time\", optional)] i: Option<String>",
        "#[k8s(preserve_unknown_fields)] j: serde_json::Value",
    ];
    let inputs: Vec<TokenStream> = (0..N / fields.len())
        .map(|i| {
            let text = format!(
                "#[derive(JsonSchema)] pub struct S{i} {{ {} }}",
                fields.join(", ")
            );
            TokenStream::from_str(&text).expect("bench input tokenizes")
        })
        .collect();
    let out = kube_markers_core::schema::expand_schema(TokenStream::new(), inputs[0].clone());
    assert!(
        !out.to_string().contains("compile_error"),
        "bench input must be valid: {out}"
    );
    bencher.bench_local(|| {
        for item in &inputs {
            let out = kube_markers_core::schema::expand_schema(TokenStream::new(), item.clone());
            divan::black_box(out);
        }
    });
}

/// The argument syntax alone, on the `#[k8s(...)]` lists of `k8s_10000`.
#[divan::bench(sample_count = 10)]
fn k8s_syntax_10000(bencher: divan::Bencher) {
    let lists = [
        "minimum = 1, maximum = 10",
        "min_length = 1, max_length = 63, pattern = \"^[a-z]+$\"",
        "min_items = 1, items(min_length = 1, enum = [\"a\", \"b\"])",
        "enum = [\"Allow\", \"Forbid\"]",
        "list_type = \"map\", list_map_keys = [\"name\"]",
        "map_type = \"atomic\", min_properties = 1",
        "required, immutable",
        "nullable, multiple_of = 2, exclusive_minimum",
        "format = \"date-time\", optional",
        "preserve_unknown_fields",
    ];
    let inputs: Vec<TokenStream> = (0..N)
        .map(|i| TokenStream::from_str(lists[i % lists.len()]).expect("bench input tokenizes"))
        .collect();
    bencher.bench_local(|| {
        for args in &inputs {
            let mut cx = kube_markers_core::ctxt::Ctxt::new();
            divan::black_box(parse_k8s_syntax(args.clone(), &mut cx));
            assert!(cx.check().is_ok());
        }
    });
}

fn parse_k8s_syntax(
    tokens: TokenStream,
    cx: &mut kube_markers_core::ctxt::Ctxt,
) -> Vec<kube_markers_core::args::Arg> {
    // `items(...)` is parsed when the model reads it: parse it here too, as the model does.
    let args = kube_markers_core::args::parse_args(tokens, "expected a marker", cx);
    for arg in &args {
        divan::black_box(arg.nested("expected a marker", cx));
    }
    args
}
