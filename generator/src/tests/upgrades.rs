//! The run compares every CRD with the one its ledger says it wrote before: a breaking change
//! refuses the run (and `--check`) with nothing written, naming the type, the field, the
//! check and the ways out; a compatible one passes; `--allow-breaking` lets one run through.

use super::*;
use crate::check::upgrade;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use kube_markers_compat::{Check, Policy, Severity};
use serde_json::Value;

/// Apple's CRD with `edit` applied to its `spec` schema.
fn apple_with(edit: fn(&mut JSONSchemaProps)) -> CustomResourceDefinition {
    let mut crd = <kinds::Apple as kube::CustomResourceExt>::crd();
    let root = crd.spec.versions[0]
        .schema
        .as_mut()
        .unwrap()
        .open_api_v3_schema
        .as_mut()
        .unwrap();
    edit(root.properties.as_mut().unwrap().get_mut("spec").unwrap());
    crd
}

fn size(spec: &mut JSONSchemaProps) -> &mut JSONSchemaProps {
    spec.properties.as_mut().unwrap().get_mut("size").unwrap()
}

fn size_is_a_string() -> CustomResourceDefinition {
    apple_with(|s| size(s).type_ = Some("string".into()))
}

fn size_at_most_5() -> CustomResourceDefinition {
    apple_with(|s| size(s).maximum = Some(5.0))
}

fn size_at_most_10() -> CustomResourceDefinition {
    apple_with(|s| size(s).maximum = Some(10.0))
}

fn with_an_optional_note() -> CustomResourceDefinition {
    apple_with(|s| {
        s.properties.as_mut().unwrap().insert(
            "note".into(),
            JSONSchemaProps {
                type_: Some("string".into()),
                ..Default::default()
            },
        );
    })
}

fn generator_with(root: &Path, apple: fn() -> CustomResourceDefinition) -> Gen {
    let mut generator = Gen::new(root, "gen");
    generator.crds = vec![crd_entry(apple, "Apple")];
    generator
}

fn breaking(generator: &Gen, check: bool) -> Vec<upgrade::UpgradeFinding> {
    match generator.try_run(check) {
        Err(Error::Breaking(found)) => found,
        Err(other) => panic!("expected a breaking change, got {other}"),
        Ok(_) => panic!("expected a breaking change, the run passed"),
    }
}

#[test]
fn a_breaking_change_refuses_the_run_and_check_naming_type_field_and_check() {
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), size_at_most_10).run();
    let before = std::fs::read_to_string(root.path().join("crds").join(APPLES)).unwrap();
    let changed = generator_with(root.path(), size_is_a_string);
    for check in [false, true] {
        let found = breaking(&changed, check);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].finding.check, Check::Type);
        let text = Error::Breaking(found).to_string();
        assert!(
            text.contains(
                "src/kinds.rs:1: Apple v1 field `spec.size`: [type] type changed: \"integer\" → \"string\""
            ),
            "{text}"
        );
        assert!(text.contains("run once with --allow-breaking"), "{text}");
        assert!(text.contains("new version, with a conversion"), "{text}");
    }
    let after = std::fs::read_to_string(root.path().join("crds").join(APPLES)).unwrap();
    assert_eq!(before, after, "nothing is written");

    let tighter = generator_with(root.path(), size_at_most_5);
    let found = breaking(&tighter, false);
    assert_eq!(found[0].finding.check, Check::Maximum);
    assert_eq!(found[0].finding.old.as_deref(), Some("10"));
}

#[test]
fn compatible_changes_pass() {
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), size_at_most_5).run();
    // A loosened maximum, then a new optional field.
    generator_with(root.path(), size_at_most_10).run();
    generator_with(root.path(), with_an_optional_note).check_or_run();
}

#[test]
fn allow_breaking_lets_one_run_through_and_lists_the_changes() {
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), size_at_most_10).run();
    let mut changed = generator_with(root.path(), size_at_most_5);
    changed.opts.allow_breaking = true;
    let report = changed.run();
    assert!(
        report
            .summary
            .contains("1 breaking CRD change(s) allowed by --allow-breaking"),
        "{}",
        report.summary
    );
    assert!(
        report.summary.contains("[maximum] maximum decreased"),
        "{}",
        report.summary
    );
    // Written: the next run compares with the new file.
    changed.opts.allow_breaking = false;
    changed.check();
}

#[test]
fn the_first_run_and_files_of_no_ledger_compare_with_nothing() {
    let root = tempfile::tempdir().unwrap();
    let crds = root.path().join("crds");
    std::fs::create_dir_all(&crds).unwrap();
    // A CRD file nobody's ledger lists: not ours to compare with (the plan says what it does
    // with such a file).
    generator_with(root.path(), size_is_a_string).run();
    std::fs::remove_file(crds.join(".kube-markers-gen.sha256")).unwrap();
    let run = generator_with(root.path(), size_at_most_5).try_run(false);
    assert!(!matches!(run, Err(Error::Breaking(_))), "{:?}", run.err());
}

#[test]
fn a_previous_file_that_does_not_read_is_named() {
    let root = tempfile::tempdir().unwrap();
    let generator = generator_with(root.path(), size_at_most_10);
    generator.run();
    let file = root.path().join("crds").join(APPLES);
    std::fs::write(&file, "kind: CustomResourceDefinition\nspec: [\n").unwrap();
    match generator.try_run(false) {
        Err(Error::Upgrade(upgrade::UpgradeProblem::Previous { file: named, why })) => {
            assert_eq!(named, file);
            assert!(why.starts_with("not YAML"), "{why}");
        }
        other => panic!("{:?}", other.map(|r| r.summary)),
    }
}

#[test]
fn the_policy_reads_from_workspace_metadata() {
    let settings = serde_json::json!({"upgrade": {"checks": {"maximum": "warn"}, "alpha": "warn"}});
    let policy = upgrade::policy(&settings).unwrap();
    assert_eq!(policy.severity(Check::Maximum), Severity::Warn);
    assert_eq!(policy.alpha, Severity::Warn);
    assert_eq!(policy.alpha_set_in, upgrade::SETTINGS);
    assert_eq!(upgrade::policy(&Value::Null).unwrap(), Policy::default());
    let bad = serde_json::json!({"upgrade": {"checks": {"maximun": "warn"}}});
    assert!(upgrade::policy(&bad).unwrap_err().to_string().starts_with(
        "[workspace.metadata.kube-markers.upgrade] `checks.maximun`: no check is named"
    ),);

    // At `warn`, a finding is a warning of the run.
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), size_at_most_10).run();
    let crds =
        crate::generate::crds::generate_crds(&[&crd_entry(size_at_most_5, "Apple")]).unwrap();
    let compared = upgrade::compare(
        &crds,
        &[&crd_entry(size_at_most_5, "Apple")],
        &[],
        &root.path().join("crds"),
        &crate::output::ledger::listed(&root.path().join("crds"), "gen"),
        &policy,
    )
    .unwrap();
    assert!(compared.errors.is_empty());
    assert_eq!(compared.warnings.len(), 1);
    assert_eq!(compared.warnings[0].finding.severity, Severity::Warn);
}

impl Gen {
    fn check_or_run(&self) {
        self.run();
        self.check();
    }
}

#[test]
fn every_check_name_is_an_allow_name_and_the_crd_wide_ones_the_kinds_only() {
    let names: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(
        names,
        kube_markers_registry::schema_types::COMPAT_CHECKS,
        "core's COMPAT_CHECKS is kube-markers-compat's Check::ALL"
    );
    assert_eq!(
        kube_markers_core::schema_types::KIND_ONLY,
        [
            Check::Scope,
            Check::StoredVersionRemoval,
            Check::ServedVersionRemoval,
            Check::Conversion
        ]
        .map(Check::name)
    );
}

fn apple_at(version: &'static str) -> CustomResourceDefinition {
    let mut crd = size_at_most_10();
    crd.spec.versions[0].name = version.into();
    crd
}

fn apple_v1alpha1() -> CustomResourceDefinition {
    apple_at("v1alpha1")
}

fn apple_v1alpha1_at_most_5() -> CustomResourceDefinition {
    let mut crd = size_at_most_5();
    crd.spec.versions[0].name = "v1alpha1".into();
    crd
}

fn apple_v1() -> CustomResourceDefinition {
    apple_at("v1")
}

#[test]
fn each_breaking_change_names_the_allow_that_accepts_it_and_the_policy_entries() {
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), size_at_most_10).run();
    let found = breaking(&generator_with(root.path(), size_at_most_5), false);
    let text = Error::Breaking(found).to_string();
    assert!(
        text.contains(
            "\n    to accept it: #[k8s(allow(maximum, reason = \"...\"))] on the struct Apple, \
             below its #[kube_markers::crd] (src/kinds.rs:1), or allow(maximum, reason = \
             \"...\") in that #[kube_markers::crd(...)]"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "[workspace.metadata.kube-markers.upgrade] checks = { maximum = \"warn\" }; or"
        ),
        "{text}"
    );
    assert!(text.contains("maximum decreased: 10 → 5;"), "{text}");
}

#[test]
fn alpha_versions_are_checked_and_a_version_dropped_is_refused_by_default() {
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), apple_v1alpha1).run();
    let found = breaking(
        &generator_with(root.path(), apple_v1alpha1_at_most_5),
        false,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].finding.check, Check::Maximum);
    assert_eq!(found[0].finding.version, "v1alpha1");
    // v1 in place of v1alpha1: the served version dropped, with the allow on the kind that
    // defines the CRD now.
    let found = breaking(&generator_with(root.path(), apple_v1), false);
    let checks: Vec<Check> = found.iter().map(|f| f.finding.check).collect();
    assert_eq!(checks, [Check::ServedVersionRemoval], "{found:?}");
    let text = Error::Breaking(found).to_string();
    assert!(
        text.contains("served version v1alpha1 removed: clients that use it get 404.")
            && text.contains("to accept it: #[k8s(allow(servedVersionRemoval, reason = \"...\"))]"),
        "{text}"
    );
}

#[test]
fn a_relaxed_alpha_policy_warns_or_summarizes_each_finding() {
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), apple_v1alpha1).run();
    let crds =
        crate::generate::crds::generate_crds(&[&crd_entry(apple_v1alpha1_at_most_5, "Apple")])
            .unwrap();
    for (level, warned, summarized) in [("warn", 1, 0), ("off", 0, 1)] {
        let settings = serde_json::json!({"upgrade": {"alpha": level}});
        let policy = upgrade::policy(&settings).unwrap();
        let compared = upgrade::compare(
            &crds,
            &[&crd_entry(apple_v1alpha1_at_most_5, "Apple")],
            &[],
            &root.path().join("crds"),
            &crate::output::ledger::listed(&root.path().join("crds"), "gen"),
            &policy,
        )
        .unwrap();
        assert!(compared.errors.is_empty(), "{level}");
        assert_eq!(compared.warnings.len(), warned, "{level}");
        assert_eq!(compared.relaxed.len(), summarized, "{level}");
        let finding = compared
            .warnings
            .iter()
            .chain(&compared.relaxed)
            .next()
            .unwrap();
        assert!(
            finding.to_string().contains(&format!(
                "(a warning, not an error: alpha = \"{level}\" in \
                 [workspace.metadata.kube-markers.upgrade] relaxes alpha versions)"
            )),
            "{finding}"
        );
    }
}

fn size_at_most_9() -> CustomResourceDefinition {
    apple_with(|s| size(s).maximum = Some(9.0))
}

fn size_at_most_11() -> CustomResourceDefinition {
    apple_with(|s| size(s).maximum = Some(11.0))
}

/// The previous CRD is read as `check-crds --previous` and kubectl read it (YAML 1.1): a
/// `maximum: 012` someone wrote into it is 10 (octal), not 12 as the YAML 1.2 reader the run
/// used before read it. So raising the maximum to 11 passes, lowering it to 9 is one
/// breaking change from 10, and both paths give the same verdict on the same file.
#[test]
fn the_previous_crd_is_read_as_check_crds_reads_it() {
    let root = tempfile::tempdir().unwrap();
    generator_with(root.path(), size_at_most_10).run();
    let previous = root.path().join("crds").join(APPLES);
    let text = std::fs::read_to_string(&previous).unwrap();
    assert!(text.contains("maximum: 10\n"), "{text}");
    std::fs::write(&previous, text.replace("maximum: 10\n", "maximum: 012\n")).unwrap();
    let policy = Policy::default();
    let compare = |new: fn() -> CustomResourceDefinition| {
        let new_file = root.path().join("new.yaml");
        let crd = serde_json::to_value(new()).unwrap();
        std::fs::write(&new_file, crate::output::yaml::render_documents("", &[crd])).unwrap();
        kube_markers_crdcheck::upgrade::compare_files(
            std::slice::from_ref(&previous),
            &[new_file],
            &policy,
        )
        .unwrap()
        .into_iter()
        .map(|change| change.finding)
        .filter(|f| f.severity == Severity::Error)
        .collect::<Vec<_>>()
    };
    // Raised from 10 to 11: compatible for both (from 12 it was a decrease before).
    assert_eq!(compare(size_at_most_11), []);
    if let Err(Error::Breaking(found)) = generator_with(root.path(), size_at_most_11).try_run(true)
    {
        panic!("a maximum raised from 10 to 11 was read as breaking: {found:?}");
    }
    // Lowered to 9: breaking for both, from 10.
    let from_files = compare(size_at_most_9);
    let from_run = breaking(&generator_with(root.path(), size_at_most_9), true);
    assert_eq!(from_files.len(), 1, "{from_files:?}");
    assert_eq!(from_run.len(), 1, "{from_run:?}");
    assert_eq!(from_run[0].finding, from_files[0]);
    assert_eq!(from_run[0].finding.old.as_deref(), Some("10"));
}
