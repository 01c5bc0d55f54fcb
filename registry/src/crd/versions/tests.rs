use super::*;
use crate::CrdEntry;
use crate::crd::merge;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::json;

fn crd(kind: &str, version: &str, spec: Value) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{}s.example.com", kind.to_lowercase())},
        "spec": {
            "group": "example.com",
            "names": {"kind": kind, "plural": format!("{}s", kind.to_lowercase())},
            "scope": "Namespaced",
            "versions": [{
                "name": version, "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": spec},
                }},
            }],
        },
    }))
    .unwrap()
}

fn size_v1() -> CustomResourceDefinition {
    crd(
        "Cache",
        "v1",
        json!({"type": "object", "description": "v1's docs", "properties": {"size": {"type": "integer"}}}),
    )
}
fn size_v2() -> CustomResourceDefinition {
    crd(
        "Cache",
        "v2",
        json!({"type": "object", "description": "v2's docs", "properties": {"size": {"type": "integer"}}}),
    )
}
fn replicas_v2() -> CustomResourceDefinition {
    crd(
        "Cache",
        "v2",
        json!({"type": "object", "required": ["replicas"], "properties": {"replicas": {"type": "integer"}}}),
    )
}
fn size_v3() -> CustomResourceDefinition {
    crd(
        "Cache",
        "v3",
        json!({"type": "object", "properties": {"size": {"type": "string"}}}),
    )
}
fn other_kind() -> CustomResourceDefinition {
    crd("Other", "v1", json!({"type": "object"}))
}

fn source(line: u32, item: &'static str) -> Source {
    Source::__new("src/api.rs", line, 1, "api", item)
}

fn entry(crd: fn() -> CustomResourceDefinition, storage: bool, line: u32) -> CrdEntry {
    CrdEntry::__new(crd, storage, "{}", "Cache", source(line, "CacheSpec"))
}

fn identity(v: Value) -> Result<Value, String> {
    Ok(v)
}

fn conversion(
    spoke: fn() -> CustomResourceDefinition,
    hub: fn() -> CustomResourceDefinition,
    line: u32,
) -> ConversionEntry {
    ConversionEntry::__new(
        spoke,
        hub,
        identity,
        identity,
        "v1::Cache",
        "v2::Cache",
        source(line, "impl"),
    )
}

/// The problems of `check` over these entries and conversions, as messages.
fn problems(entries: &[CrdEntry], conversions: &[ConversionEntry]) -> Vec<String> {
    let refs: Vec<&CrdEntry> = entries.iter().collect();
    let (kinds, errors) = merge(&refs);
    assert!(errors.is_empty(), "{errors:?}");
    let conversions: Vec<&ConversionEntry> = conversions.iter().collect();
    let (_, problems) = check(&kinds, &conversions);
    problems.iter().map(ToString::to_string).collect()
}

#[test]
fn descriptions_do_not_count() {
    assert_eq!(
        schema_difference(
            &size_v1().spec.versions[0]
                .schema
                .as_ref()
                .map(|s| serde_json::to_value(&s.open_api_v3_schema).unwrap())
                .unwrap(),
            &size_v2().spec.versions[0]
                .schema
                .as_ref()
                .map(|s| serde_json::to_value(&s.open_api_v3_schema).unwrap())
                .unwrap()
        ),
        None
    );
    assert!(problems(&[entry(size_v1, false, 1), entry(size_v2, true, 2)], &[]).is_empty());
}

#[test]
fn a_field_before_its_parents_keywords() {
    let d = schema_difference(
        &json!({"properties": {"spec": {"required": ["size"], "properties": {"size": {"type": "integer"}}}}}),
        &json!({"properties": {"spec": {"required": ["replicas"], "properties": {"replicas": {"type": "integer"}}}}}),
    )
    .unwrap();
    assert_eq!(d.path, "spec.replicas");
    assert_eq!(d.what, Difference::OnlyInSecond);
    assert_eq!(d.describe("v2", "v1"), "spec.replicas exists in v1 only");
}

#[test]
fn a_missing_field_anywhere_before_any_keyword() {
    let d = schema_difference(
        &json!({"properties": {"a": {"type": "string", "maxLength": 3}, "z": {"type": "string"}}}),
        &json!({"properties": {"a": {"type": "string"}}}),
    )
    .unwrap();
    assert_eq!(d.describe("v1", "v1alpha1"), "z exists in v1 only");
}

#[test]
fn keywords_items_and_maps() {
    let d = schema_difference(
        &json!({"type": "array", "items": {"type": "object", "additionalProperties": {"type": "string"}}}),
        &json!({"type": "array", "items": {"type": "object", "additionalProperties": {"type": "integer", "description": "x"}}}),
    )
    .unwrap();
    assert_eq!(d.path, "[*][<key>]");
    assert_eq!(
        d.describe("v1", "v2"),
        "[*][<key>]: `type` is \"string\" in v1, \"integer\" in v2"
    );
    let d = schema_difference(
        &json!({"type": "integer"}),
        &json!({"type": "integer", "maximum": 3}),
    )
    .unwrap();
    assert_eq!(
        d.describe("v1", "v2"),
        "<root>: `maximum` is absent in v1, 3 in v2"
    );
    // A property named `description` is a field, not documentation.
    let d = schema_difference(
        &json!({"properties": {"description": {"type": "string"}}}),
        &json!({"properties": {}}),
    )
    .unwrap();
    assert_eq!(d.what, Difference::OnlyInFirst);
    assert_eq!(d.path, "description");
    // Descriptions inside anyOf do not count either; other keywords there do.
    assert_eq!(
        schema_difference(
            &json!({"anyOf": [{"description": "a", "required": ["x"]}]}),
            &json!({"anyOf": [{"description": "b", "required": ["x"]}]}),
        ),
        None
    );
    assert!(
        schema_difference(
            &json!({"anyOf": [{"required": ["x"]}]}),
            &json!({"anyOf": [{"required": ["y"]}]}),
        )
        .is_some()
    );
}

#[test]
fn differing_versions_without_conversion_are_refused() {
    let got = problems(
        &[entry(size_v1, false, 10), entry(replicas_v2, true, 20)],
        &[],
    );
    assert_eq!(got.len(), 1, "{got:?}");
    let message = &got[0];
    for part in [
        "example.com/Cache: versions v2 (src/api.rs:20 (Cache)) and v1 (src/api.rs:10 (Cache))",
        "spec.replicas exists in v2 only",
        "allow(unconverted-versions",
    ] {
        assert!(message.contains(part), "{message}");
    }
}

static ALLOW: [crate::CrdAllow; 1] = [crate::CrdAllow::__new(UNCONVERTED_VERSIONS, "read-only")];

#[test]
fn allow_accepts_them() {
    let allowed = entry(size_v1, false, 10).__allow(&ALLOW);
    assert!(problems(&[allowed, entry(replicas_v2, true, 20)], &[]).is_empty());
}

/// The unneeded allows of these entries and conversions, as messages.
fn unneeded(entries: &[CrdEntry], conversions: &[ConversionEntry]) -> Vec<String> {
    let refs: Vec<&CrdEntry> = entries.iter().collect();
    let (kinds, _) = merge(&refs);
    let conversions: Vec<&ConversionEntry> = conversions.iter().collect();
    let (converting, _) = check(&kinds, &conversions);
    unneeded_allows(&kinds, &converting)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn an_allow_that_accepts_nothing_is_named() {
    let allowed = || entry(size_v1, false, 10).__allow(&ALLOW);
    assert!(unneeded(&[allowed(), entry(replicas_v2, true, 20)], &[]).is_empty());
    assert_eq!(
        unneeded(&[allowed(), entry(size_v2, true, 20)], &[]),
        [
            "src/api.rs:10 (Cache): `allow(unconverted-versions, ...)` is not needed: \
          example.com/Cache has versions of one schema; remove it, so that versions that \
          differ later are refused again"
        ]
    );
    let got = unneeded(
        &[allowed(), entry(replicas_v2, true, 20)],
        &[conversion(size_v1, replicas_v2, 30)],
    );
    assert_eq!(got.len(), 1);
    assert!(got[0].contains("example.com/Cache converts through #[kube_markers::conversion]"));
}

#[test]
fn conversions_cover_the_kind() {
    let entries = [entry(size_v1, false, 10), entry(replicas_v2, true, 20)];
    let refs: Vec<&CrdEntry> = entries.iter().collect();
    let (kinds, _) = merge(&refs);
    let c = conversion(size_v1, replicas_v2, 30);
    let (per_kind, problems) = check(&kinds, &[&c]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(per_kind[0].len(), 1);
}

#[test]
fn every_version_but_the_hub_needs_one() {
    let entries = [
        entry(size_v1, false, 10),
        entry(replicas_v2, true, 20),
        entry(size_v3, false, 25),
    ];
    let got = problems(&entries, &[conversion(size_v1, replicas_v2, 30)]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("example.com/Cache v3 (src/api.rs:25 (Cache)) has no #[kube_markers::conversion] to and from the hub v2, but the kind converts through a webhook (the conversions at src/api.rs:30)"),
        "{}",
        got[0]
    );
}

#[test]
fn conversions_that_name_what_is_not_there() {
    let entries = [entry(size_v1, false, 10), entry(replicas_v2, true, 20)];
    let cases: [(ConversionEntry, &str); 4] = [
        (
            conversion(size_v1, size_v1, 31),
            "converts example.com/Cache v1 (v1::Cache and v2::Cache) to itself",
        ),
        (
            conversion(size_v3, replicas_v2, 32),
            "names example.com/Cache v3 (v1::Cache), which no #[kube_markers::crd] type defines (its versions: v1, v2)",
        ),
        (
            conversion(other_kind, replicas_v2, 33),
            "converts v1::Cache (example.com/Other v1) and v2::Cache (example.com/Cache v2), which are not versions of one group and kind",
        ),
        (
            conversion(other_kind, other_kind, 34),
            "converts example.com/Other, which no #[kube_markers::crd] type of the linked crates defines",
        ),
    ];
    for (c, expected) in cases {
        let got = problems(&entries, &[c]);
        assert!(
            got.iter().any(|m| m.contains(expected)),
            "{expected}\n{got:#?}"
        );
    }
}

/// A release that serves the new hub while the old version is still stored: the hub is v1,
/// the storage version v1alpha1 (here v2 and v1).
#[test]
fn the_hub_need_not_be_the_storage_version() {
    let entries = [entry(size_v1, true, 10), entry(replicas_v2, false, 20)];
    let refs: Vec<&CrdEntry> = entries.iter().collect();
    let (kinds, _) = merge(&refs);
    let c = conversion(size_v1, replicas_v2, 30);
    let (per_kind, got) = check(&kinds, &[&c]);
    assert!(got.is_empty(), "{got:?}");
    assert_eq!(per_kind[0].len(), 1);
    // The third version needs a conversion to and from that hub, and says where the
    // others stand even when they are refused.
    let entries = [
        entry(size_v1, true, 10),
        entry(replicas_v2, false, 20),
        entry(size_v3, false, 25),
    ];
    let got = problems(&entries, &[conversion(size_v1, replicas_v2, 30)]);
    assert_eq!(
        got,
        [
            "example.com/Cache v3 (src/api.rs:25 (Cache)) has no #[kube_markers::conversion] to and from the hub v2, but the kind converts through a webhook (the conversions at src/api.rs:30): the API server would send objects of v3 to the webhook, which could not convert them"
        ]
    );
}

#[test]
fn a_kind_has_one_hub() {
    let entries = [
        entry(size_v1, false, 10),
        entry(replicas_v2, true, 20),
        entry(size_v3, false, 25),
    ];
    let got = problems(
        &entries,
        &[
            conversion(size_v1, replicas_v2, 30),
            conversion(replicas_v2, size_v3, 40),
        ],
    );
    assert_eq!(
        got,
        [
            "src/api.rs:40 (impl): #[kube_markers::conversion] converts example.com/Cache v2 to and from v3 (v2::Cache), but src/api.rs:30 (impl) converts to and from v2: a kind has one hub, which every other version converts to and from",
            "example.com/Cache v3 (src/api.rs:25 (Cache)) has no #[kube_markers::conversion] to and from the hub v2, but the kind converts through a webhook (the conversions at src/api.rs:30, src/api.rs:40): the API server would send objects of v3 to the webhook, which could not convert them",
        ]
    );
}

#[test]
fn two_conversions_for_one_spoke() {
    let entries = [entry(size_v1, false, 10), entry(replicas_v2, true, 20)];
    let got = problems(
        &entries,
        &[
            conversion(size_v1, replicas_v2, 30),
            conversion(size_v1, replicas_v2, 40),
        ],
    );
    assert_eq!(
        got,
        [
            "example.com/Cache v1 has two conversions: src/api.rs:30 (impl) and src/api.rs:40 (impl); the webhook server would not know which to run"
        ]
    );
}

#[test]
fn titles_do_not_count() {
    assert_eq!(
        schema_difference(
            &json!({"title": "A", "type": "object"}),
            &json!({"title": "B", "type": "object"})
        ),
        None
    );
}
