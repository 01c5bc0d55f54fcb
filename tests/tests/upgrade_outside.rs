//! Upgrade safety from outside this workspace (a workspace made as the README's quick start
//! tells, `outside/mod.rs`): generate, then make each kind of breaking change in the Rust
//! type; `cargo run -p codegen` refuses each one, naming the field and the check, and so does
//! `--check` (a field removed or retyped, a maximum lowered, a field newly required, an enum
//! value dropped, a default changed, a pattern changed, a list type changed, nullable removed,
//! the scope switched); a compatible change (a new optional field, a loosened maximum) passes; and
//! `#[k8s(allow(CHECK, reason))]` on the field, or on the kind, accepts that check's change.

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
    #[serde(default)]
    pub tier: Tier,
    #[serde(default = "two")]
    pub replicas: i32,
    #[k8s(pattern = "^[a-z]+$")]
    #[serde(default)]
    pub slug: Option<String>,
    #[k8s(list_type = "set")]
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub nick: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub enum Tier {
    #[default]
    Basic,
    Premium,
}

fn two() -> i32 {
    2
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
        // A removed field has no line of its own: the kind's.
        (
            "    pub colour: String,\n",
            "",
            "my-operator/src/lib.rs:5: Widget v1 field `spec.colour`: [existingFieldRemoval]",
        ),
        (
            "    pub colour: String,",
            "    pub colour: i64,",
            "my-operator/src/lib.rs:12: WidgetSpec.colour v1 field `spec.colour`: [type] type \
             changed: \"string\" → \"integer\"",
        ),
        (
            "maximum = 10",
            "maximum = 5",
            "my-operator/src/lib.rs:11: WidgetSpec.size v1 field `spec.size`: [maximum] maximum \
             decreased: 10 → 5",
        ),
        (
            "    #[serde(default)]\n    pub note: Option<String>,",
            "    pub note: String,",
            "my-operator/src/lib.rs:5: Widget v1 field `spec`: [required] newly required: note",
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
                    && text.contains(expected),
                "{to:?} {args:?}: no `{expected}` in:\n{text}"
            );
            assert!(text.contains("--allow-breaking"), "{text}");
        }
        assert_eq!(std::fs::read_to_string(&crd).unwrap(), written, "{to:?}");
    }

    // The other kinds of breaking change, all at once: each is reported, at its field.
    let many = LIB
        .replace("    Premium,\n", "")
        .replace("    2\n", "    3\n")
        .replace("^[a-z]+$", "^[a-z]{1,8}$")
        .replace("list_type = \"set\"", "list_type = \"atomic\"")
        .replace("pub nick: Option<String>", "pub nick: String")
        .replace("kind = \"Widget\", namespaced)", "kind = \"Widget\")");
    std::fs::write(&lib, &many).unwrap();
    for args in [&[][..], &["--check"][..]] {
        let out = run_generator(&ws, args);
        let text = stderr(&out);
        assert!(!out.status.success(), "{args:?} passed:\n{text}");
        for expected in [
            "my-operator/src/lib.rs:16: WidgetSpec.tier v1 field `spec.tier`: [enum]",
            "my-operator/src/lib.rs:18: WidgetSpec.replicas v1 field `spec.replicas`: [default]",
            "my-operator/src/lib.rs:21: WidgetSpec.slug v1 field `spec.slug`: [pattern]",
            "my-operator/src/lib.rs:24: WidgetSpec.tags v1 field `spec.tags`: [listType]",
            "my-operator/src/lib.rs:26: WidgetSpec.nick v1 field `spec.nick`: [nullable]",
            "[scope]",
        ] {
            assert!(
                text.contains(expected),
                "{args:?}: no `{expected}` in:\n{text}"
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&crd).unwrap(), written);

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

    // An allow of the check on the field accepts its change there, and says so; an allow of
    // another check, or of this one on another field, does not.
    let tightened = LIB.replace("maximum = 10", "maximum = 5");
    let wrong = [
        tightened.replace(
            "    pub size: i32,",
            "    #[k8s(allow(minimum, reason = \"not this check\"))]\n    pub size: i32,",
        ),
        tightened.replace(
            "    pub colour: String,",
            "    #[k8s(allow(maximum, reason = \"not this field\"))]\n    pub colour: String,",
        ),
    ];
    for lib_text in &wrong {
        std::fs::write(&lib, lib_text).unwrap();
        let out = run_generator(&ws, &[]);
        let text = stderr(&out);
        assert!(!out.status.success(), "{lib_text}\npassed:\n{text}");
        assert!(
            text.contains("[maximum] maximum decreased: 10 → 5"),
            "{text}"
        );
    }
    let on_field = tightened.replace(
        "    pub size: i32,",
        "    #[k8s(allow(maximum, reason = \"no Widget was ever above 5\"))]\n    pub size: i32,",
    );
    std::fs::write(&lib, &on_field).unwrap();
    for args in [&["--check"][..], &[][..]] {
        let out = run_generator(&ws, args);
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
        if args.is_empty() {
            assert!(out.status.success(), "{text}");
            assert!(
                text.contains("1 CRD change(s) accepted by #[k8s(allow(...))]:")
                    && text.contains("[maximum] maximum decreased: 10 → 5")
                    && text.contains(
                        "allowed at my-operator/src/lib.rs:11: no Widget was ever above 5"
                    ),
                "{text}"
            );
        } else {
            // `--check` still fails, as the file on disk is stale, but not for the change.
            assert!(!text.contains("breaking the CRDs written before"), "{text}");
        }
    }
    assert!(
        std::fs::read_to_string(&crd)
            .unwrap()
            .contains("maximum: 5")
    );

    // On the kind, for a change that has no field left to stand on.
    let removed = on_field
        .replace("    pub colour: String,\n", "")
        .replace(
            "#[serde(rename_all = \"camelCase\")]",
            "#[serde(rename_all = \"camelCase\")]\n#[k8s(allow(existingFieldRemoval, reason = \"colour was never set\"))]",
        );
    std::fs::write(&lib, &removed).unwrap();
    let out = run_generator(&ws, &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("[existingFieldRemoval]") && text.contains("colour was never set"),
        "{text}"
    );
    assert!(!std::fs::read_to_string(&crd).unwrap().contains("colour"));
}
