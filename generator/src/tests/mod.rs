use super::*;
use crate::output::ledger;
use crate::output::write::{Staging, check_file};
use crate::pipeline::read_header;
use crate::testing::{marker, rbac, texts, webhook, webhook_configuration};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_markers_core::model::{Allow, WebhookClient, WebhookMarker};
use kube_markers_registry::Source;
use kube_markers_registry::{CrdEntry, WebhookEntry};
use std::path::Path;
use std::path::PathBuf;

mod conversions;
mod crd_verdicts;
mod destinations;
mod docs;
mod identity;
mod ledgers;
mod run;
mod upgrades;

fn entry(groups: &'static [&'static str], verbs: &'static [&'static str], line: u32) -> RbacEntry {
    rbac(
        marker(groups, &["jobs"], verbs),
        Source::__new("src/lib.rs", line, 1, "op", "reconcile"),
    )
}

mod kinds {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "fruit.example.com",
        version = "v1",
        kind = "Apple",
        namespaced
    )]
    pub struct AppleSpec {
        pub size: i32,
    }

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(
        group = "fruit.example.com",
        version = "v1",
        kind = "Banana",
        namespaced
    )]
    pub struct BananaSpec {
        pub length: i32,
    }

    #[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "veg.example.com", version = "v1", kind = "Carrot", namespaced)]
    pub struct CarrotSpec {
        pub color: String,
    }
}

fn crd_entry(crd: fn() -> CustomResourceDefinition, type_name: &'static str) -> CrdEntry {
    CrdEntry::__new(
        crd,
        false,
        "{}",
        type_name,
        Source::__new("src/kinds.rs", 1, 1, "op::kinds", type_name),
    )
}

fn apple() -> CrdEntry {
    crd_entry(<kinds::Apple as kube::CustomResourceExt>::crd, "Apple")
}

fn banana() -> CrdEntry {
    crd_entry(<kinds::Banana as kube::CustomResourceExt>::crd, "Banana")
}

fn carrot() -> CrdEntry {
    crd_entry(<kinds::Carrot as kube::CustomResourceExt>::crd, "Carrot")
}

const APPLES: &str = "fruit.example.com_apples.yaml";

const BANANAS: &str = "fruit.example.com_bananas.yaml";

const CARROTS: &str = "veg.example.com_carrots.yaml";

/// A generator: its name, its entries and its options over one temporary tree.
struct Gen {
    rbac: Vec<RbacEntry>,
    crds: Vec<CrdEntry>,
    opts: Options,
}

impl Gen {
    fn new(root: &Path, name: &str) -> Gen {
        Gen {
            rbac: vec![entry(&["batch"], &["get"], 1)],
            crds: vec![apple(), banana()],
            opts: Options {
                no_scan: true,
                out_dir: root.join("out"),
                crd_out_dir: Some(root.join("crds")),
                generator_name: name.into(),
                // The docs' own tests (`docs.rs`) turn them on; the others count files.
                no_docs: true,
                ..Options::default()
            },
        }
    }

    fn try_run(&self, check: bool) -> Result<Report, Error> {
        let rbac: Vec<&RbacEntry> = self.rbac.iter().collect();
        let crds: Vec<&CrdEntry> = self.crds.iter().collect();
        let opts = Options {
            check,
            ..self.opts.clone()
        };
        run_with(&rbac, &crds, &[], &opts)
    }

    fn run(&self) -> Report {
        self.try_run(false).unwrap()
    }

    fn check(&self) -> Report {
        self.try_run(true).unwrap()
    }

    fn crd_dir(&self) -> PathBuf {
        self.opts.crd_dir()
    }

    fn ledger(&self, dir: &Path) -> PathBuf {
        dir.join(format!(".kube-markers-{}.sha256", self.opts.generator_name))
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn status_of<'a>(report: &'a Report, path: &Path) -> Option<&'a FileStatus> {
    report
        .files
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, status)| status)
}

fn outputs_error(generator: &Gen) -> Vec<OutputProblem> {
    match generator.try_run(false).unwrap_err() {
        Error::Outputs(problems) => problems,
        other => panic!("expected output problems, got {other}"),
    }
}

/// A webhook entry as `#[webhook]` on `const _` registers it.
fn webhook_entry(name: &'static str, mutating: bool) -> WebhookEntry {
    let marker = WebhookMarker {
        name: name.into(),
        mutating,
        failure_policy: "Fail".into(),
        side_effects: Some("None".into()),
        groups: texts(&[""]),
        resources: texts(&["pods"]),
        verbs: texts(&["CREATE"]),
        versions: texts(&["v1"]),
        client: WebhookClient::Service {
            name: None,
            namespace: None,
            port: None,
            path: "/hook".into(),
        },
        admission_review_versions: texts(&["v1"]),
        ..WebhookMarker::default()
    };
    webhook(marker, Source::__new("src/lib.rs", 1, 1, "op", "_"))
}
