//! The CRD reference docs: the examples' pages as emitted (snapshots), and a completeness
//! check that walks each CRD's `openAPIV3Schema`, as read back from the YAML the generator
//! writes, and asserts that every field and every constraint it sets is on the page.

mod check;

use check::check_page;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers::codegen::generate::docs;
use kube_markers::codegen::{GeneratedCrd, generate_crds_with_conversions, render_crd};
use serde_json::Value;

// Linked so their entries are in this test binary.
kube_markers::link!(memcached_operator, mydatabase_operator);

const REGENERATE: &str = "`cargo run -p codegen`";

fn example_crds() -> Vec<GeneratedCrd> {
    let entries: Vec<_> = kube_markers::registry::crd_entries()
        .into_iter()
        .filter(|e| {
            matches!(
                e.source.crate_name(),
                "memcached_operator" | "mydatabase_operator"
            )
        })
        .collect();
    let crds =
        generate_crds_with_conversions(&entries, &kube_markers::registry::conversion_entries())
            .unwrap();
    assert_eq!(crds.len(), 2, "the examples' two CRDs");
    crds
}

/// The CRD as its YAML file says it: the text the generator writes, read back.
fn as_written(yaml: &str) -> Value {
    serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"))
}

#[test]
fn example_pages() {
    let crds = example_crds();
    for crd in &crds {
        let page = docs::render_page(&crd.crd, &crd.file_name, REGENERATE);
        insta::assert_snapshot!(docs::page_name(&crd.file_name), page);
    }
    insta::assert_snapshot!("index", docs::render_index(&crds, REGENERATE));
}

#[test]
fn every_field_and_constraint_of_the_examples_is_on_their_pages() {
    for crd in example_crds() {
        let page = docs::render_page(&crd.crd, &crd.file_name, REGENERATE);
        let problems = check_page(&as_written(&render_crd(&crd, "")), &page);
        assert!(
            problems.is_empty(),
            "{}:\n{}",
            crd.file_name,
            problems.join("\n")
        );
    }
}

/// A CRD that sets every key the pages show, with `|`, `<` and line breaks in its texts.
fn every_key() -> Value {
    serde_json::from_str(include_str!("every_key.json")).unwrap()
}

fn every_key_page() -> (Value, String) {
    let crd: CustomResourceDefinition = serde_json::from_value(every_key()).unwrap();
    let yaml =
        kube_markers::codegen::output::yaml::render_yaml(&serde_json::to_value(&crd).unwrap());
    let page = docs::render_page(&crd, "docs.example.com_widgets.yaml", REGENERATE);
    (as_written(&yaml), page)
}

#[test]
fn every_key_a_crd_can_set_is_on_its_page() {
    let (crd, page) = every_key_page();
    let problems = check_page(&crd, &page);
    assert!(problems.is_empty(), "{}\n\n{page}", problems.join("\n"));
    insta::assert_snapshot!("docs.example.com_widgets.md", page);
}

#[test]
fn the_check_fails_when_a_field_or_a_constraint_is_dropped() {
    let (crd, page) = every_key_page();
    let without = |needle: &str| -> String {
        let line = page
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle}"));
        page.replacen(&format!("{line}\n"), "", 1)
    };
    let dropped_row = check_page(&crd, &without("| `spec.size` |"));
    assert!(
        dropped_row.iter().any(|p| p.contains("`spec.size`")),
        "{dropped_row:?}"
    );
    let dropped_rule = check_page(&crd, &without("computed by"));
    assert!(
        dropped_rule.iter().any(|p| p.contains("rule")),
        "{dropped_rule:?}"
    );
    let no_bound = page.replacen("maximum: `100`", "", 1);
    let problems = check_page(&crd, &no_bound);
    assert!(
        problems.iter().any(|p| p.contains("maximum")),
        "{problems:?}"
    );
    let no_pattern = page.replacen("pattern:", "", 1);
    assert!(!check_page(&crd, &no_pattern).is_empty());
}
