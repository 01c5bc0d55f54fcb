//! Upgrade safety from outside this workspace (a workspace made as the README's quick start
//! tells, `outside/mod.rs`): generate, then make each kind of breaking change in the Rust
//! type; `cargo run -p codegen` refuses each one, naming the field and the check, and so does
//! `--check`; a compatible change (a new optional field, a loosened maximum) passes.

#[allow(dead_code)] // shared with the other outside-workspace tests
mod outside;
use outside::{quick_start_workspace, run_generator};
use std::process::Output;

/// The user's type; each change below edits one line of it.
const LIB: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "shop.example.com", version = "v1", kind = "Widget", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    #[k8s(minimum = 1, maximum = 10)]
    pub size: i32,
    pub colour: String,
    #[serde(default)]
    pub note: Option<String>,
}
"#;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn each_breaking_change_is_refused_naming_its_field_and_a_compatible_one_passes() {
    let ws = quick_start_workspace("upgrade-outside", LIB);
    let lib = ws.join("my-operator/src/lib.rs");
    let first = run_generator(&ws, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let crd = ws.join("rbac-out/crd/shop.example.com_widgets.yaml");
    let written = std::fs::read_to_string(&crd).unwrap();

    let breaking = [
        (
            "    pub colour: String,\n",
            "",
            "field `spec.colour`: [existingFieldRemoval]",
        ),
        (
            "    pub colour: String,",
            "    pub colour: i64,",
            "field `spec.colour`: [type] type changed: \"string\" → \"integer\"",
        ),
        (
            "maximum = 10",
            "maximum = 5",
            "field `spec.size`: [maximum] maximum decreased: 10 → 5",
        ),
        (
            "    #[serde(default)]\n    pub note: Option<String>,",
            "    pub note: String,",
            "field `spec`: [required] newly required: note",
        ),
    ];
    for (from, to, expected) in breaking {
        std::fs::write(&lib, LIB.replace(from, to)).unwrap();
        for args in [&[][..], &["--check"][..]] {
            let out = run_generator(&ws, args);
            let text = stderr(&out);
            assert!(!out.status.success(), "{to:?} {args:?} passed:\n{text}");
            assert!(
                text.contains("breaking the CRDs written before (nothing was written)")
                    && text.contains(expected)
                    && text.contains("my-operator/src/lib.rs:5: Widget v1"),
                "{to:?} {args:?}: no `{expected}` in:\n{text}"
            );
            assert!(text.contains("--allow-breaking"), "{text}");
        }
        assert_eq!(std::fs::read_to_string(&crd).unwrap(), written, "{to:?}");
    }

    // Compatible: a loosened maximum and a new optional field.
    let compatible = LIB.replace("maximum = 10", "maximum = 20").replace(
        "    pub note: Option<String>,",
        "    pub note: Option<String>,\n    #[serde(default)]\n    pub label: Option<String>,",
    );
    std::fs::write(&lib, &compatible).unwrap();
    let out = run_generator(&ws, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run_generator(&ws, &["--check"]);
    assert!(out.status.success(), "{}", stderr(&out));

    // Back to maximum = 10 is a tightening of what was just written; --allow-breaking lets it
    // through once.
    std::fs::write(&lib, LIB).unwrap();
    let out = run_generator(&ws, &["--allow-breaking"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(summary.contains("allowed by --allow-breaking"), "{summary}");
    assert_eq!(std::fs::read_to_string(&crd).unwrap(), written);
}
