//! The proc-macro's own time per attribute: the whole expansion (call-site check, parse,
//! validate, read the item, emit) of the 1,000 `#[rbac]` and `#[webhook]` attributes of
//! `scripts/bench-compile-time.sh`, on tokens built beforehand:
//! `cargo bench -p kube-markers-core --features parse --bench expand` (release), or with
//! `--profile dev` for the opt-level a user's build compiles proc-macros at (0).
//! Divide the median by 1,000 for one attribute. Outside a compiler `proc_macro2` runs its own
//! token implementation, so this is the macro's work without rustc's token bridge.

use kube_markers_core::call_site::CallSite;
use proc_macro2::TokenStream;
use std::str::FromStr;

fn main() {
    divan::main();
}

const N: usize = 1_000;

/// (arguments, item, call site), as the compiler hands them to the macro.
type Input = (TokenStream, TokenStream, CallSite);

fn site(text: String, line: usize) -> CallSite {
    CallSite {
        text: Some(text),
        file: Some("src/lib.rs".into()),
        file_name: "src/lib.rs".into(),
        line,
        column: 1,
        out_dir: None,
        test_or_bench_target: false,
    }
}

fn tokens(text: &str) -> TokenStream {
    TokenStream::from_str(text).expect("bench input tokenizes")
}

fn rbac_inputs() -> Vec<Input> {
    (1..=N)
        .map(|i| {
            let args = format!(
                "groups = \"group{}.example.com\", resources = \"resource{i};resource{i}/status\", \
                 verbs = \"get;list;watch;update;patch\"",
                i % 40
            );
            let item = format!("pub async fn reconcile_{i}(x: u32) -> u32 {{ x + {i} }}");
            let text = format!("#[rbac({args})]");
            (tokens(&args), tokens(&item), site(text, 2 * i + 1))
        })
        .collect()
}

fn webhook_inputs() -> Vec<Input> {
    (1..=N)
        .map(|i| {
            let args = format!(
                "name = \"v{i}.bench.example.com\", mutating = false, path = \"/validate-{i}\", \
                 failure_policy = \"Fail\", side_effects = \"None\", groups = \"bench.example.com\", \
                 resources = \"kind{i}s\", verbs = \"create;update\", versions = \"v1\", \
                 admission_review_versions = \"v1\""
            );
            let item = format!("pub struct Webhook{i};");
            let text = format!("#[webhook({args})]");
            (tokens(&args), tokens(&item), site(text, 2 * i + 1))
        })
        .collect()
}

#[divan::bench(sample_count = 10)]
fn rbac_expand_1000(bencher: divan::Bencher) {
    let inputs = rbac_inputs();
    bencher.bench_local(|| {
        for (args, item, site) in &inputs {
            let out = kube_markers_core::rbac::expand(args.clone(), item.clone(), site);
            divan::black_box(out);
        }
    });
}

#[divan::bench(sample_count = 10)]
fn webhook_expand_1000(bencher: divan::Bencher) {
    let inputs = webhook_inputs();
    bencher.bench_local(|| {
        for (args, item, site) in &inputs {
            let out = kube_markers_core::webhook::expand(args.clone(), item.clone(), site);
            divan::black_box(out);
        }
    });
}
