//! The workspace scan and cross-check for `#[webhook]` and `#[webhook_configuration]`: they are
//! nothing-is-lost attributes like `#[rbac]`.

use kube_markers::codegen::__internals::{self as scan, Workspace};
use kube_markers::codegen::Finding;
use std::path::Path;

/// `file:line` of each finding's subject, for compact asserts.
fn located(findings: &[Finding]) -> Vec<String> {
    let mut v: Vec<String> = findings
        .iter()
        .map(|f| {
            let place = f.place.as_ref().expect("a located finding");
            format!("{}:{}", place.file, place.line)
        })
        .collect();
    v.sort();
    v
}

// A webhook and a configuration name of this test binary, for the cross-check below.
#[kube_markers::webhook(
    name = "scan.example.com",
    mutating = false,
    path = "/scan",
    failure_policy = "Fail",
    side_effects = "None",
    groups = "",
    resources = "pods",
    verbs = "create",
    versions = "v1",
    admission_review_versions = "v1"
)]
#[kube_markers::webhook_configuration(mutating = false, name = "scan-test")]
const _: () = ();

/// A workspace of one package whose library is `file`.
fn one_file_workspace(file: &Path, krate: &str) -> Workspace {
    let dir = file.parent().unwrap().to_path_buf();
    Workspace {
        packages: vec![scan::Package {
            name: krate.replace('_', "-"),
            dir: dir.clone(),
            lib_crate: krate.into(),
            targets: vec![scan::Target::new(scan::TargetKind::Lib, file.to_path_buf())],
        }],
        ..Workspace::at(dir)
    }
}

/// `#[webhook]` and `#[webhook_configuration]` are nothing-is-lost attributes: one the
/// registry lacks is an error (unlinked crate), one behind an off `cfg` a warning.
#[test]
fn webhooks_missing_from_the_registry_are_reported_like_rbac() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lib.rs");
    std::fs::write(
        &file,
        "#[kube_markers::webhook(name = \"a.example.com\")]\n\
         const _: () = ();\n\
         use kube_markers::webhook_configuration;\n\
         #[webhook_configuration(mutating = true)]\n\
         struct S;\n\
         #[cfg(any())]\n\
         #[kube_markers::webhook(name = \"b.example.com\")]\n\
         async fn off() {}\n",
    )
    .unwrap();
    let ws = one_file_workspace(&file, "webhook_op");
    let report = ws.scan();
    let kinds: Vec<_> = report.attrs.iter().map(|a| (a.kind, a.line)).collect();
    assert_eq!(
        kinds,
        [
            (scan::AttrKind::Webhook, 1),
            (scan::AttrKind::WebhookConfiguration, 4),
            (scan::AttrKind::Webhook, 7)
        ]
    );
    let findings = scan::cross_check_all(&[], &[], &[], &report, &[], &ws.root, &ws.cfg_env());
    assert_eq!(located(&findings.errors), ["lib.rs:1", "lib.rs:4"]);
    assert!(
        findings.errors[0]
            .to_string()
            .contains("#[webhook] in crate `webhook_op` is missing from the registry"),
        "{:?}",
        findings.errors
    );
    assert!(
        findings.errors[1]
            .to_string()
            .contains("#[webhook_configuration]"),
        "{:?}",
        findings.errors
    );
    assert_eq!(located(&findings.warnings), ["lib.rs:7"]);
    assert!(
        findings.warnings[0]
            .to_string()
            .contains("#[webhook] behind `cfg(any())`"),
        "{:?}",
        findings.warnings
    );
}

/// A file no module declaration reaches is swept for every attribute, the webhook ones
/// included; a module file that names no attribute, no `mod` and no `include!` is not parsed
/// (its syntax error goes unreported: it cannot hold anything the scan looks for).
#[test]
fn the_sweep_finds_webhook_attributes_in_files_no_module_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lib.rs");
    std::fs::write(&file, "#[path = \"plain.rs\"] pub mod plain;\n").unwrap();
    std::fs::write(dir.path().join("plain.rs"), "pub fn f( {}\n").unwrap();
    std::fs::write(
        dir.path().join("stray.rs"),
        "#[kube_markers::webhook(name = \"a.example.com\")]\nconst _: () = ();\n",
    )
    .unwrap();
    let ws = one_file_workspace(&file, "webhook_op");
    let report = ws.scan();
    let found: Vec<_> = report
        .attrs
        .iter()
        .map(|a| {
            (
                a.kind,
                a.file.file_name().unwrap().to_owned(),
                a.target.clone(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(scan::AttrKind::Webhook, "stray.rs".into(), None)],
        "{report:#?}"
    );
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let findings = scan::cross_check_all(&[], &[], &[], &report, &[], &ws.root, &ws.cfg_env());
    assert_eq!(located(&findings.errors), ["stray.rs:1"], "{findings:?}");
}

/// The webhook entries of this binary are found at their place in this file: no findings.
#[test]
fn registered_webhooks_match_their_attributes() {
    let this_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scan_webhooks.rs");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let ws = Workspace {
        packages: vec![scan::Package {
            name: "kube-markers-tests".into(),
            dir: root.join("tests"),
            lib_crate: "kube_markers_tests".into(),
            targets: vec![scan::Target::new(scan::TargetKind::Lib, this_file.clone())],
        }],
        ..Workspace::at(root)
    };
    let others: Vec<_> = kube_markers::registry::webhook_entries()
        .into_iter()
        .filter(|e| e.attribute.source.file.ends_with("scan_webhooks.rs"))
        .map(|e| (scan::AttrKind::Webhook, e.attribute.source.clone()))
        .chain(
            kube_markers::registry::webhook_configuration_entries()
                .into_iter()
                .filter(|e| e.source.file.ends_with("scan_webhooks.rs"))
                .map(|e| (scan::AttrKind::WebhookConfiguration, e.source.clone())),
        )
        // The conversion below (`registered_conversions_match_their_attributes`).
        .chain(
            kube_markers::registry::conversion_entries()
                .into_iter()
                .filter(|e| e.source.file.ends_with("scan_webhooks.rs"))
                .map(|e| (scan::AttrKind::Conversion, e.source.clone())),
        )
        .collect();
    assert_eq!(others.len(), 3);
    let report = ws.scan();
    let findings = scan::cross_check_all(&[], &[], &others, &report, &[], &ws.root, &ws.cfg_env());
    let here: Vec<String> = findings
        .errors
        .iter()
        .chain(&findings.warnings)
        .map(Finding::to_string)
        .filter(|e| e.starts_with("tests/tests/scan_webhooks.rs:"))
        .collect();
    assert!(here.is_empty(), "{here:#?}");
}

// A conversion of this test binary, for the cross-check below.
mod conversion_kinds {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    pub mod v1 {
        use super::*;
        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[kube(
            group = "scan.example.com",
            version = "v1",
            kind = "Scanned",
            namespaced
        )]
        pub struct ScannedSpec {
            pub size: i32,
        }
    }

    pub mod v2 {
        use super::*;
        #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[kube(
            group = "scan.example.com",
            version = "v2",
            kind = "Scanned",
            namespaced
        )]
        pub struct ScannedSpec {
            pub replicas: i32,
        }
    }

    #[kube_markers::conversion]
    impl kube_markers::conversion::Spoke<v2::Scanned> for v1::Scanned {
        type Error = String;
        fn to_hub(self) -> Result<v2::Scanned, String> {
            Ok(v2::Scanned::new(
                "s",
                v2::ScannedSpec {
                    replicas: self.spec.size,
                },
            ))
        }
        fn from_hub(hub: v2::Scanned) -> Result<Self, String> {
            Ok(v1::Scanned::new(
                "s",
                v1::ScannedSpec {
                    size: hub.spec.replicas,
                },
            ))
        }
    }
}

/// `#[conversion]` is a nothing-is-lost attribute too: one the registry lacks is an error
/// naming its file and line (its crate is not linked), one behind an off `cfg` a warning.
#[test]
fn conversions_missing_from_the_registry_are_reported_like_rbac() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lib.rs");
    std::fs::write(
        &file,
        "use kube_markers::conversion;\n\
         #[conversion]\n\
         impl Spoke<v2::Db> for v1::Db {}\n\
         #[cfg(any())]\n\
         #[kube_markers::conversion]\n\
         impl Spoke<v2::Db> for v1beta1::Db {}\n\
         mod api {\n    \
             #[cfg_attr(all(), ::kube_markers::conversion)]\n    \
             impl Spoke<v2::Db> for v1alpha1::Db {}\n\
         }\n",
    )
    .unwrap();
    let ws = one_file_workspace(&file, "conversion_op");
    let report = ws.scan();
    let kinds: Vec<_> = report.attrs.iter().map(|a| (a.kind, a.line)).collect();
    assert_eq!(
        kinds,
        [
            (scan::AttrKind::Conversion, 2),
            (scan::AttrKind::Conversion, 5),
            (scan::AttrKind::Conversion, 8)
        ]
    );
    let findings = scan::cross_check_all(&[], &[], &[], &report, &[], &ws.root, &ws.cfg_env());
    assert_eq!(located(&findings.errors), ["lib.rs:2", "lib.rs:8"]);
    assert!(
        findings.errors[0]
            .to_string()
            .contains("#[conversion] in crate `conversion_op` is missing from the registry"),
        "{:?}",
        findings.errors
    );
    assert_eq!(located(&findings.warnings), ["lib.rs:5"]);
}

/// The conversion entry of this binary is found at its place in this file: no findings.
#[test]
fn registered_conversions_match_their_attributes() {
    let this_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scan_webhooks.rs");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let ws = Workspace {
        packages: vec![scan::Package {
            name: "kube-markers-tests".into(),
            dir: root.join("tests"),
            lib_crate: "kube_markers_tests".into(),
            targets: vec![scan::Target::new(scan::TargetKind::Lib, this_file.clone())],
        }],
        ..Workspace::at(root)
    };
    let all: Vec<_> = kube_markers::registry::webhook_entries()
        .into_iter()
        .filter(|e| e.attribute.source.file.ends_with("scan_webhooks.rs"))
        .map(|e| (scan::AttrKind::Webhook, e.attribute.source.clone()))
        .chain(
            kube_markers::registry::webhook_configuration_entries()
                .into_iter()
                .filter(|e| e.source.file.ends_with("scan_webhooks.rs"))
                .map(|e| (scan::AttrKind::WebhookConfiguration, e.source.clone())),
        )
        .collect();
    let conversions: Vec<_> = kube_markers::registry::conversion_entries()
        .into_iter()
        .filter(|e| e.source.file.ends_with("scan_webhooks.rs"))
        .map(|e| (scan::AttrKind::Conversion, e.source.clone()))
        .collect();
    assert_eq!(conversions.len(), 1);
    let report = ws.scan();
    let here = |others: &[(scan::AttrKind, kube_markers::registry::Source)]| -> Vec<String> {
        let findings =
            scan::cross_check_all(&[], &[], others, &report, &[], &ws.root, &ws.cfg_env());
        findings
            .errors
            .iter()
            .chain(&findings.warnings)
            .map(Finding::to_string)
            .filter(|e| e.starts_with("tests/tests/scan_webhooks.rs:"))
            .collect()
    };
    // Without its entry, the conversion is missing; with it, nothing is.
    let missing = here(&all);
    assert_eq!(missing.len(), 1, "{missing:#?}");
    assert!(
        missing[0].contains("#[conversion] in crate"),
        "{missing:#?}"
    );
    let with: Vec<_> = all.iter().cloned().chain(conversions).collect();
    let none = here(&with);
    assert!(none.is_empty(), "{none:#?}");
}
