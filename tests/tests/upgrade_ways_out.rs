//! Every way out a breaking change's message names, applied exactly as written, from a crate
//! outside this workspace (made as the README's quick start tells, `outside/mod.rs`).
//!
//! Release 1: a `Widget` kind at v1alpha1 and a `Gadget` kind at v1alpha1, v1beta1 and v1 (the
//! hub, stored), converted by `#[kube_markers::conversion]`s. Release 2 makes every kind of
//! breaking change the generator can see in one edit: each check's finding is reported, on an
//! alpha version as on any other, with the default policy (plus `description = "error"`), and
//! each names the `allow` that accepts it. Then:
//!
//! - every `to accept it:` suggestion, pasted where it says (a `#[k8s(allow(...))]` line above
//!   the field or below the kind's `#[kube_markers::crd]`, or `allow(...)` inside that
//!   attribute), compiles, and the run passes, listing each change as accepted;
//! - from release 1's files again, the `checks = { ... }` the message names, pasted into the
//!   workspace's `Cargo.toml`, makes the run pass with each change a warning.
//!
//! (`storedVersionRemoval` needs the cluster's `status.storedVersions`, which no file the
//! generator compares with has: `check-crds --previous cluster` reports it,
//! `envtest/tests/previous_cluster.rs`.)

#[allow(dead_code)] // shared with the other outside-workspace tests
mod outside;
use outside::{quick_start_workspace, run_generator, tree, write};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

/// Release 1.
const LIB: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "shop.example.com", version = "v1alpha1", kind = "Widget", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// How many.
    #[k8s(minimum = 1, maximum = 10)]
    pub size: i32,
    pub colour: String,
    #[serde(default)]
    pub count: Option<i32>,
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
    #[k8s(max_length = 20)]
    #[serde(default)]
    pub title: Option<String>,
    #[k8s(min_length = 1)]
    #[serde(default)]
    pub code: Option<String>,
    #[k8s(min_items = 0, max_items = 8)]
    #[serde(default)]
    pub ports: Vec<String>,
    #[k8s(min_properties = 0, max_properties = 16)]
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub level: i32,
    #[k8s(list_type = "map", list_map_keys = ["name"])]
    #[serde(default)]
    pub rules: Vec<Rule>,
    #[k8s(map_type = "granular")]
    #[serde(default)]
    pub selector: BTreeMap<String, String>,
    #[serde(default)]
    pub weight: i32,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Rule {
    pub name: String,
    pub port: i32,
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

pub mod v1alpha1 {
    use super::*;

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "shop.example.com", version = "v1alpha1", kind = "Gadget", namespaced)]
    pub struct GadgetSpec {
        pub name: String,
    }

    #[kube_markers::conversion]
    impl kube_markers::conversion::Spoke<crate::v1::Gadget> for Gadget {
        type Error = String;

        fn to_hub(self) -> Result<crate::v1::Gadget, String> {
            Ok(crate::v1::Gadget {
                metadata: self.metadata,
                spec: crate::v1::GadgetSpec { name: self.spec.name },
            })
        }

        fn from_hub(hub: crate::v1::Gadget) -> Result<Self, String> {
            Ok(Gadget {
                metadata: hub.metadata,
                spec: GadgetSpec { name: hub.spec.name },
            })
        }
    }
}

pub mod v1beta1 {
    use super::*;

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "shop.example.com", version = "v1beta1", kind = "Gadget", namespaced)]
    pub struct GadgetSpec {
        pub name: String,
    }

    #[kube_markers::conversion]
    impl kube_markers::conversion::Spoke<crate::v1::Gadget> for Gadget {
        type Error = String;

        fn to_hub(self) -> Result<crate::v1::Gadget, String> {
            Ok(crate::v1::Gadget {
                metadata: self.metadata,
                spec: crate::v1::GadgetSpec { name: self.spec.name },
            })
        }

        fn from_hub(hub: crate::v1::Gadget) -> Result<Self, String> {
            Ok(Gadget {
                metadata: hub.metadata,
                spec: GadgetSpec { name: hub.spec.name },
            })
        }
    }
}

pub mod v1 {
    use super::*;

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "shop.example.com", version = "v1", kind = "Gadget", namespaced)]
    pub struct GadgetSpec {
        pub name: String,
    }
}
"#;

/// Release 2: every kind of breaking change, each in the line that makes it.
fn release2() -> String {
    let mut lib = LIB.to_string();
    for (from, to) in [
        ("    /// How many.\n", "    /// How many, at most 5.\n"),
        ("minimum = 1, maximum = 10", "minimum = 2, maximum = 5"),
        ("    pub colour: String,\n", ""),
        ("pub count: Option<i32>", "pub count: Option<String>"),
        (
            "    #[serde(default)]\n    pub note: Option<String>,",
            "    pub note: String,",
        ),
        ("    Premium,\n", ""),
        ("    2\n", "    3\n"),
        ("^[a-z]+$", "^[a-z]{1,8}$"),
        ("list_type = \"set\"", "list_type = \"atomic\""),
        ("max_length = 20", "max_length = 10"),
        ("min_length = 1", "min_length = 2"),
        (
            "min_items = 0, max_items = 8",
            "min_items = 1, max_items = 4",
        ),
        (
            "min_properties = 0, max_properties = 16",
            "min_properties = 1, max_properties = 8",
        ),
        (
            "    #[serde(default)]\n    pub level: i32,",
            "    #[k8s(validation(rule = \"self >= 0\"))]\n    #[serde(default)]\n    pub level: i32,",
        ),
        (
            "list_map_keys = [\"name\"]",
            "list_map_keys = [\"name\", \"port\"]",
        ),
        ("map_type = \"granular\"", "map_type = \"atomic\""),
        ("pub weight: i32", "pub weight: i64"),
        ("kind = \"Widget\", namespaced)", "kind = \"Widget\")"),
    ] {
        assert!(lib.contains(from), "{from}");
        lib = lib.replacen(from, to, 1);
    }
    // v1alpha1 dropped with its conversion, and v1beta1's conversion too: v1beta1 and v1 are
    // left, unconverted (their schemas are the same).
    let start = lib.find("pub mod v1alpha1 {").unwrap();
    let end = lib.find("pub mod v1beta1 {").unwrap();
    lib.replace_range(start..end, "");
    let start = lib.find("    #[kube_markers::conversion]").unwrap();
    let end = lib[start..].find("\n    }\n}\n").unwrap() + start;
    lib.replace_range(start..end + "\n    }\n".len(), "");
    lib
}

fn output(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// One `to accept it:` line: the check, and where the allow goes.
#[derive(Debug)]
enum Suggestion {
    /// `#[k8s(allow(CHECK, reason = "..."))] on the field T.f (file:line)`: above that line.
    Field { attribute: String, line: usize },
    /// `... on the struct S, below its #[kube_markers::crd] (file:line), or allow(CHECK,
    /// reason = "...") in that #[kube_markers::crd(...)]`.
    Kind {
        attribute: String,
        inner: String,
        line: usize,
    },
}

/// The file and line of `(path:line)` in `text`, the line 1-based.
fn place(text: &str) -> (String, usize) {
    let at = text.rfind('(').unwrap();
    let inside = &text[at + 1..text[at..].find(')').unwrap() + at];
    let (file, line) = inside.rsplit_once(':').unwrap();
    (file.to_string(), line.parse().unwrap())
}

fn suggestions(text: &str) -> Vec<(String, Suggestion)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("to accept it: ") else {
            continue;
        };
        let check = rest
            .strip_prefix("#[k8s(allow(")
            .and_then(|r| r.split_once(','))
            .unwrap_or_else(|| panic!("not an allow: {rest}"))
            .0
            .to_string();
        let attribute = rest[..rest.find(")]").unwrap() + 2].to_string();
        if let Some((on_field, _)) = rest.split_once(" on the field ") {
            let (file, line) = place(rest);
            assert_eq!(file, "my-operator/src/lib.rs", "{rest}");
            assert_eq!(on_field, attribute);
            out.push((check, Suggestion::Field { attribute, line }));
        } else {
            let (kind, alternative) = rest.split_once(", or ").unwrap_or_else(|| panic!("{rest}"));
            let (file, line) = place(kind);
            assert_eq!(file, "my-operator/src/lib.rs", "{rest}");
            let inner = alternative
                .strip_suffix(" in that #[kube_markers::crd(...)]")
                .unwrap_or_else(|| panic!("{rest}"))
                .to_string();
            out.push((
                check,
                Suggestion::Kind {
                    attribute,
                    inner,
                    line,
                },
            ));
        }
    }
    out
}

/// `lib` with every suggestion applied as written; a kind's allows in its `#[kube_markers::crd]`
/// where `inside_crd` says so, else on lines of their own below it.
fn apply(lib: &str, suggested: &[(String, Suggestion)], inside_crd: bool) -> String {
    let mut lines: Vec<String> = lib.lines().map(str::to_string).collect();
    // Bottom up, so that the lines named above stay where they are.
    let mut edits: Vec<&Suggestion> = suggested.iter().map(|(_, s)| s).collect();
    edits.sort_by_key(|s| {
        std::cmp::Reverse(match s {
            Suggestion::Field { line, .. } | Suggestion::Kind { line, .. } => *line,
        })
    });
    for edit in edits {
        match edit {
            Suggestion::Field { attribute, line } => {
                let indent: String = lines[line - 1].chars().take_while(|c| *c == ' ').collect();
                lines.insert(line - 1, format!("{indent}{attribute}"));
            }
            Suggestion::Kind {
                attribute,
                inner,
                line,
            } => {
                let crd = &mut lines[line - 1];
                assert!(crd.trim().starts_with("#[kube_markers::crd"), "{crd}");
                if inside_crd {
                    *crd = match crd.strip_suffix(")]") {
                        Some(args) => format!("{args}, {inner})]"),
                        None => crd.replace(
                            "#[kube_markers::crd]",
                            &format!("#[kube_markers::crd({inner})]"),
                        ),
                    };
                } else {
                    let indent: String = crd.chars().take_while(|c| *c == ' ').collect();
                    lines.insert(*line, format!("{indent}{attribute}"));
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

fn restore(dir: &Path, files: &[(std::path::PathBuf, String)]) {
    let _ = std::fs::remove_dir_all(dir);
    for (path, text) in files {
        write(&dir.join(path), text);
    }
}

#[test]
fn every_way_out_a_breaking_change_names_works_as_written() {
    let ws = quick_start_workspace("upgrade-ways-out", LIB);
    let manifest = ws.join("Cargo.toml");
    let workspace = std::fs::read_to_string(&manifest).unwrap();
    write(
        &manifest,
        &format!(
            "{workspace}\n[workspace.metadata.kube-markers.upgrade]\n\
             checks = {{ description = \"error\" }}\n"
        ),
    );
    let lib_rs = ws.join("my-operator/src/lib.rs");
    let first = run_generator(&ws, &[]);
    assert!(first.status.success(), "{}", output(&first));
    let release1 = tree(&ws.join("rbac-out"));

    // Release 2: every finding is an error, on v1alpha1 as on v1, each with its allow.
    let release2 = release2();
    std::fs::write(&lib_rs, &release2).unwrap();
    let refused = run_generator(&ws, &[]);
    let text = output(&refused);
    assert!(!refused.status.success(), "{text}");
    let findings: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  - my-operator/src/lib.rs:"))
        .collect();
    let suggested = suggestions(&text);
    assert_eq!(
        findings.len(),
        suggested.len(),
        "each finding names its allow:\n{text}"
    );
    let checks: BTreeSet<&str> = suggested.iter().map(|(c, _)| c.as_str()).collect();
    let every: BTreeSet<&str> = kube_markers_compat::Check::ALL
        .iter()
        .map(|c| c.name())
        .filter(|c| *c != "storedVersionRemoval")
        .collect();
    assert_eq!(checks, every, "{text}");
    for expected in [
        "Widget v1alpha1 field `spec.size`: [maximum] maximum decreased: 10 → 5;",
        "Widget v1alpha1 field `spec.colour`: [existingFieldRemoval]",
        "[type] type changed: \"integer\" → \"string\"",
        "Widget v1alpha1 field `spec`: [required] newly required: note",
        "Gadget v1alpha1: [servedVersionRemoval] served version v1alpha1 removed",
        "[conversion] conversion strategy changed: Webhook → None",
    ] {
        assert!(text.contains(expected), "no `{expected}` in:\n{text}");
    }
    let policy_line = text
        .lines()
        .find_map(|l| {
            l.split_once("in its Cargo.toml: ")
                .map(|(_, rest)| rest.split_once("; or,").unwrap().0.to_string())
        })
        .unwrap_or_else(|| panic!("no policy way out in:\n{text}"));

    // Every allow as written: on lines of their own, then a kind's inside its attribute.
    for inside_crd in [false, true] {
        let allowed = apply(&release2, &suggested, inside_crd);
        std::fs::write(&lib_rs, &allowed).unwrap();
        let run = run_generator(&ws, &[]);
        let text = output(&run);
        assert!(run.status.success(), "{allowed}\n{text}");
        assert!(
            text.contains(&format!(
                "{} CRD change(s) accepted by #[k8s(allow(...))]:",
                findings.len()
            )),
            "{text}"
        );
        restore(&ws.join("rbac-out"), &release1);
    }

    // The workspace's policy as the message writes it: each change a warning.
    std::fs::write(&lib_rs, &release2).unwrap();
    let (table, checks_line) = policy_line.split_once(" checks = ").unwrap();
    write(
        &manifest,
        &format!("{workspace}\n{table}\nchecks = {checks_line}\n"),
    );
    let run = run_generator(&ws, &[]);
    let text = output(&run);
    assert!(run.status.success(), "{policy_line}\n{text}");
    assert!(!text.contains("breaking the CRDs written before"), "{text}");
    assert!(
        text.contains("[maximum] maximum decreased: 10 → 5"),
        "{text}"
    );
}
