//! What the generator refuses, with the reason and the type named: kube-rs' known failure
//! modes, and versions that cannot be merged.

use kube::CustomResource;
use kube_markers::codegen::generate_crds;
use kube_markers::crd::CrdProblem;
use kube_markers::registry::{CrdEntry, crd_entries};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn problems_for(types: &[&str]) -> Vec<CrdProblem> {
    let entries: Vec<&'static CrdEntry> = crd_entries()
        .into_iter()
        .filter(|e| types.contains(&e.type_name))
        .collect();
    assert_eq!(
        entries.len(),
        types.len(),
        "registered: {:?}",
        crd_entries()
            .iter()
            .map(|e| e.type_name)
            .collect::<Vec<_>>()
    );
    match generate_crds(&entries) {
        Ok(crds) => panic!("expected errors, got {} CRD(s)", crds.len()),
        Err(errors) => errors,
    }
}

/// The problems as the generator prints them.
fn errors_for(types: &[&str]) -> Vec<String> {
    problems_for(types)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn one_problem(types: &[&str]) -> CrdProblem {
    let problems = problems_for(types);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    problems.into_iter().next().unwrap()
}

fn one_error(types: &[&str]) -> String {
    one_problem(types).to_string()
}

/// The type names of the problem's types.
fn type_names(types: &[kube_markers::crd::CrdType]) -> Vec<&str> {
    types.iter().map(|t| t.type_name).collect()
}

// --- kube-rs failure modes -------------------------------------------------------------

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind")]
pub enum Tagged {
    A { x: i32 },
    B { y: String },
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "errors.example.com",
    version = "v1",
    kind = "InternallyTagged"
)]
pub struct InternallyTaggedSpec {
    pub choice: Tagged,
}

#[test]
fn an_internally_tagged_enum_is_an_error_not_a_panic() {
    let problem = one_problem(&["InternallyTagged"]);
    assert!(
        matches!(&problem, CrdProblem::KubeDerive { ty, .. }
            if ty.type_name == "InternallyTagged" && ty.source.file.ends_with("crd_errors.rs")),
        "{problem:?}"
    );
    let e = problem.to_string();
    assert!(e.contains("crd_errors.rs:"), "{e}");
    assert!(
        e.contains("(InternallyTagged): kube-derive could not build the CRD"),
        "{e}"
    );
    assert!(e.contains("#[serde(tag = ...)]"), "{e}");
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum NumberOrText {
    Number(i32),
    Text(String),
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "errors.example.com", version = "v1", kind = "Untagged")]
pub struct UntaggedSpec {
    pub value: NumberOrText,
}

#[test]
fn an_untagged_enum_of_primitives_has_no_type() {
    let e = errors_for(&["Untagged"]).join("\n");
    assert!(e.contains("spec.value: no `type`"), "{e}");
    assert!(e.contains("int_or_string"), "{e}");
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "errors.example.com", version = "v1", kind = "BareValue")]
pub struct BareValueSpec {
    pub config: serde_json::Value,
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "errors.example.com", version = "v1", kind = "MarkedValue")]
pub struct MarkedValueSpec {
    #[k8s(preserve_unknown_fields)]
    pub config: serde_json::Value,
}

#[test]
fn a_bare_json_value_needs_preserve_unknown_fields() {
    let e = one_error(&["BareValue"]);
    assert!(e.contains("errors.example.com/BareValue"), "{e}");
    assert!(
        e.contains("spec.config: no `type` (a serde_json::Value"),
        "{e}"
    );
    assert!(e.contains("preserve_unknown_fields"), "{e}");
    let ok = generate_crds(
        &crd_entries()
            .into_iter()
            .filter(|e| e.type_name == "MarkedValue")
            .collect::<Vec<_>>(),
    );
    assert!(ok.is_ok(), "{ok:?}");
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct Node {
    pub name: String,
    pub children: Vec<Node>,
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "errors.example.com", version = "v1", kind = "Recursive")]
pub struct RecursiveSpec {
    pub tree: Node,
}

#[test]
fn a_recursive_type_is_named() {
    let e = errors_for(&["Recursive"]).join("\n");
    assert!(e.contains("`$ref` is not allowed"), "{e}");
    assert!(e.contains("recursive type"), "{e}");
}

// --- versions ------------------------------------------------------------------------------

mod v1 {
    use super::*;

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "versions.example.com",
        version = "v1",
        kind = "NoStorage",
        namespaced
    )]
    pub struct NoStorageSpec {
        pub a: i32,
    }

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "versions.example.com",
        version = "v1",
        kind = "TwoStorage",
        namespaced
    )]
    pub struct TwoStorageSpec {
        pub a: i32,
    }

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "versions.example.com",
        version = "v1",
        kind = "Disagree",
        namespaced,
        shortname = "dis"
    )]
    pub struct DisagreeSpec {
        pub a: i32,
    }
}

mod v2 {
    use super::*;

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "versions.example.com",
        version = "v2",
        kind = "NoStorage",
        root = "NoStorageV2",
        namespaced
    )]
    pub struct NoStorageSpec {
        pub a: i32,
    }

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "versions.example.com",
        version = "v2",
        kind = "TwoStorage",
        root = "TwoStorageV2",
        namespaced
    )]
    pub struct TwoStorageSpec {
        pub a: i32,
    }

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "versions.example.com",
        version = "v2",
        kind = "Disagree",
        root = "DisagreeV2",
        shortname = "d"
    )]
    pub struct DisagreeSpec {
        pub a: i32,
    }
}

#[test]
fn several_versions_need_exactly_one_storage_version() {
    let problem = one_problem(&["NoStorage", "NoStorageV2"]);
    assert!(
        matches!(&problem, CrdProblem::NoStorageVersion { group, kind, types, .. }
            if group == "versions.example.com" && kind == "NoStorage"
                && type_names(types) == ["NoStorage", "NoStorageV2"]),
        "{problem:?}"
    );
    let e = problem.to_string();
    assert!(
        e.contains("versions.example.com/NoStorage has 2 versions"),
        "{e}"
    );
    assert!(
        e.contains("(NoStorage)") && e.contains("(NoStorageV2)"),
        "{e}"
    );
    assert!(e.contains("#[kube_markers::crd(storage)]"), "{e}");
    let problem = one_problem(&["TwoStorage", "TwoStorageV2"]);
    assert!(
        matches!(&problem, CrdProblem::SeveralStorageVersions { storage, .. }
            if type_names(storage) == ["TwoStorage", "TwoStorageV2"]),
        "{problem:?}"
    );
    let e = problem.to_string();
    assert!(e.contains("has 2 storage versions"), "{e}");
}

#[test]
fn versions_must_agree_on_names_and_scope() {
    let disagreements: Vec<(&str, String, String)> = problems_for(&["Disagree", "DisagreeV2"])
        .into_iter()
        .map(|p| match p {
            CrdProblem::NamesDisagree {
                what,
                first_value,
                other_value,
                ..
            } => (what, first_value, other_value),
            other => panic!("not a disagreement: {other}"),
        })
        .collect();
    assert_eq!(
        disagreements
            .iter()
            .map(|(what, ..)| *what)
            .collect::<Vec<_>>(),
        ["shortNames", "scope"]
    );
    assert_eq!(
        disagreements[1],
        ("scope", "Namespaced".into(), "Cluster".into())
    );
    let e = errors_for(&["Disagree", "DisagreeV2"]).join("\n");
    assert!(e.contains("disagree on shortNames"), "{e}");
    assert!(
        e.contains("disagree on scope: Namespaced vs Cluster"),
        "{e}"
    );
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "errors.example.com", version = "v1", kind = "BadDefault")]
pub struct BadDefaultSpec {
    /// `#[serde(default)]` makes schemars write `default: ""`, which the enum forbids.
    #[serde(default)]
    #[k8s(enum = ["Allow", "Forbid"])]
    pub policy: String,
}

#[test]
fn a_default_outside_the_enum_is_refused() {
    let e = one_error(&["BadDefault"]);
    assert!(
        e.contains("spec.policy: the default \"\" does not validate"),
        "{e}"
    );
    assert!(
        e.contains("\"\" is not one of \"Allow\" or \"Forbid\""),
        "{e}"
    );
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "type", content = "value")]
pub enum Adjacent {
    Count(i32),
    Name(String),
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "errors.example.com",
    version = "v1",
    kind = "AdjacentlyTagged"
)]
pub struct AdjacentlyTaggedSpec {
    pub choice: Adjacent,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub enum Mixed {
    Plain,
    WithData { x: i32 },
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "errors.example.com", version = "v1", kind = "MixedEnum")]
pub struct MixedEnumSpec {
    pub choice: Mixed,
}

#[test]
fn adjacently_tagged_and_mixed_enums_are_errors_naming_the_type() {
    for kind in ["AdjacentlyTagged", "MixedEnum"] {
        let e = errors_for(&[kind]).join("\n");
        assert!(e.contains(&format!("({kind})")), "{e}");
        assert!(
            e.contains("kube-derive could not build the CRD")
                || e.contains("not structural")
                || e.contains("no `type`"),
            "{e}"
        );
    }
}

// --- defaults against their whole schema -------------------------------------------------

/// Each `#[serde(default)]` writes the type's `Default` into the schema, and each breaks a
/// keyword the first check of defaults did not know.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "errors.example.com",
    version = "v1",
    kind = "DefaultsBreakMarkers"
)]
#[serde(rename_all = "camelCase")]
pub struct DefaultsBreakMarkersSpec {
    #[serde(default)]
    #[k8s(pattern = "^[a-z]+$")]
    pub name: String,
    #[serde(default)]
    #[k8s(min_properties = 1)]
    pub labels: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    #[k8s(format = "hostname")]
    pub host: String,
    #[serde(default)]
    #[k8s(validation(rule = "self > 0", message = "count must be positive"))]
    pub count: i32,
    /// Fine: a default that fits, and a format the API server does not check.
    #[serde(default = "three")]
    #[k8s(minimum = 1, format = "int32")]
    pub replicas: i32,
}

fn three() -> i32 {
    3
}

#[test]
fn defaults_are_checked_against_the_whole_schema() {
    let paths: Vec<Option<String>> = problems_for(&["DefaultsBreakMarkers"])
        .into_iter()
        .map(|p| match p {
            CrdProblem::Schema {
                version,
                ty,
                problem,
                ..
            } => {
                assert_eq!(
                    (version.as_str(), ty.type_name),
                    ("v1", "DefaultsBreakMarkers")
                );
                problem.path
            }
            other => panic!("not a schema problem: {other}"),
        })
        .collect();
    let mut paths: Vec<&str> = paths.iter().flatten().map(String::as_str).collect();
    paths.sort();
    assert_eq!(
        paths,
        ["spec.count", "spec.host", "spec.labels", "spec.name"]
    );
    let errors = errors_for(&["DefaultsBreakMarkers"]);
    let joined = errors.join("\n");
    for (field, why) in [
        ("spec.name", "\"\" does not match \"^[a-z]+$\""),
        ("spec.labels", "{} has less than 1 property"),
        ("spec.host", "\"\" is not a \"hostname\""),
        (
            "spec.count",
            "rule `self > 0` fails: count must be positive",
        ),
    ] {
        assert!(
            errors
                .iter()
                .any(|e| e.contains(&format!("{field}: the default"))
                    && e.contains(why)
                    && e.contains("crd_errors.rs:")),
            "{field}: {joined}"
        );
    }
    assert_eq!(errors.len(), 4, "{joined}");
}

// --- schemas no value satisfies -------------------------------------------------------------

/// The marker's bound is fine alone; schemars' own bounds of `u8` (0 to 255) leave nothing.
#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "errors.example.com", version = "v1", kind = "EmptyRange")]
pub struct EmptyRangeSpec {
    #[k8s(minimum = 300)]
    pub small: u8,
}

/// The API server takes such a schema without a word (nothing can set the field), so the
/// generator warns, as `check-crds` does, and `--deny-warnings` refuses the run.
#[test]
fn a_marker_bound_beyond_the_rust_type_is_an_empty_range() {
    let entries: Vec<&'static CrdEntry> = crd_entries()
        .into_iter()
        .filter(|e| e.type_name == "EmptyRange")
        .collect();
    let (crds, warnings) = kube_markers::codegen::generate_crds_warning(&entries, &[])
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(crds.len(), 1);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].to_string();
    assert!(
        w.contains(
            "spec.small: `minimum` (300) and `maximum` (255) leave no value between them \
             (the API server accepts it)"
        ),
        "{w}"
    );
    assert!(w.contains("(EmptyRange)"), "{w}");
}

// --- names that would make a file name outside the CRD directory ------------------------

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(
    group = "errors.example.com",
    version = "v1",
    kind = "Escaping",
    plural = "x/../../../escaped"
)]
pub struct EscapingSpec {
    pub x: Option<String>,
}

#[kube_markers::crd]
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "../../escaped2", version = "v1", kind = "EscapingGroup")]
pub struct EscapingGroupSpec {
    pub x: Option<String>,
}

#[test]
fn a_group_or_plural_the_api_server_refuses_is_an_error_not_a_path() {
    let problems = problems_for(&["Escaping", "EscapingGroup"]);
    let names: Vec<(&str, &str)> = problems
        .iter()
        .map(|p| match p {
            CrdProblem::InvalidName { field, value, .. } => (*field, value.as_str()),
            other => panic!("unexpected {other}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            ("group", "../../escaped2"),
            ("plural", "x/../../../escaped")
        ]
    );
    let text = problems[1].to_string();
    assert!(
        text.contains("(Escaping): plural \"x/../../../escaped\" is not valid")
            && text.contains("DNS-1123 label"),
        "{text}"
    );
}

// --- versions whose schemas differ -----------------------------------------------------------

mod evolving_v1 {
    use super::*;

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "evolving.example.com",
        version = "v1",
        kind = "Renamed",
        namespaced
    )]
    pub struct RenamedSpec {
        /// Documentation differs between the versions, which loses nothing.
        pub size: i32,
    }

    #[kube_markers::crd(allow(
        unconverted-versions,
        reason = "v1 clients only read; the dashboard that uses it never writes"
    ))]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "evolving.example.com",
        version = "v1",
        kind = "Accepted",
        namespaced
    )]
    pub struct AcceptedSpec {
        pub size: i32,
    }

    #[kube_markers::crd]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "evolving.example.com",
        version = "v1",
        kind = "Documented",
        namespaced
    )]
    pub struct DocumentedSpec {
        /// The old words.
        pub size: i32,
    }
}

mod evolving_v2 {
    use super::*;

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "evolving.example.com",
        version = "v2",
        kind = "Renamed",
        root = "RenamedV2",
        namespaced
    )]
    pub struct RenamedSpec {
        pub replicas: i32,
    }

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "evolving.example.com",
        version = "v2",
        kind = "Accepted",
        root = "AcceptedV2",
        namespaced
    )]
    pub struct AcceptedSpec {
        pub replicas: i32,
    }

    #[kube_markers::crd(storage)]
    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "evolving.example.com",
        version = "v2",
        kind = "Documented",
        root = "DocumentedV2",
        namespaced
    )]
    pub struct DocumentedSpec {
        /// The new words.
        pub size: i32,
    }
}

#[test]
fn versions_whose_schemas_differ_need_a_conversion_or_an_allow() {
    let problem = one_problem(&["Renamed", "RenamedV2"]);
    let CrdProblem::VersionsDiffer {
        group,
        kind,
        storage,
        version,
        storage_type,
        ty,
        path,
        ..
    } = &problem
    else {
        panic!("{problem:?}")
    };
    assert_eq!(
        (
            group.as_str(),
            kind.as_str(),
            storage.as_str(),
            version.as_str()
        ),
        ("evolving.example.com", "Renamed", "v2", "v1")
    );
    assert_eq!(
        (storage_type.type_name, ty.type_name),
        ("RenamedV2", "Renamed")
    );
    assert!(storage_type.source.file.ends_with("crd_errors.rs"));
    assert_eq!(path, "spec.replicas");
    let e = problem.to_string();
    assert!(
        e.starts_with("evolving.example.com/Renamed: versions v2 (tests/tests/crd_errors.rs:"),
        "{e}"
    );
    assert!(e.contains("(spec.replicas exists in v2 only)"), "{e}");
    assert!(
        e.contains("#[kube_markers::crd(allow(unconverted-versions, reason = \"...\"))]"),
        "{e}"
    );
    // `allow` on one of the kind's types accepts it, and the kind stays strategy `None`.
    let entries: Vec<&'static CrdEntry> = crd_entries()
        .into_iter()
        .filter(|e| {
            matches!(
                e.type_name,
                "Accepted" | "AcceptedV2" | "Documented" | "DocumentedV2"
            )
        })
        .collect();
    assert_eq!(entries.len(), 4);
    let allowed = entries.iter().find(|e| e.type_name == "Accepted").unwrap();
    assert_eq!(
        allowed.allow[0].reason,
        "v1 clients only read; the dashboard that uses it never writes"
    );
    let crds = generate_crds(&entries).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(crds.len(), 2);
    assert!(crds.iter().all(|c| c.crd.spec.conversion.is_none()));
}
