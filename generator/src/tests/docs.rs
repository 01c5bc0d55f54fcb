//! The CRD reference docs in a run: written through the plan with their ledger, checked by
//! `--check`, and removed again by `--no-docs`.

use super::*;

fn with_docs(mut generator: Gen) -> Gen {
    generator.opts.no_docs = false;
    generator
}

#[test]
fn a_run_writes_a_page_per_crd_and_an_index_with_their_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let generator = with_docs(Gen::new(dir.path(), "gen"));
    generator.run();
    let docs = generator.opts.out_dir.join("docs");
    assert_eq!(
        names_in(&docs),
        [
            ".kube-markers-gen.sha256",
            "README.md",
            "fruit.example.com_apples.md",
            "fruit.example.com_bananas.md",
        ]
    );
    let index = std::fs::read_to_string(docs.join("README.md")).unwrap();
    assert!(
        index.contains("| [Apple](fruit.example.com_apples.md) | `fruit.example.com` |"),
        "{index}"
    );
    let apples = std::fs::read_to_string(docs.join("fruit.example.com_apples.md")).unwrap();
    assert!(
        apples.contains("| `spec.size` | integer (int32) | required |"),
        "{apples}"
    );
    let ledger = std::fs::read_to_string(generator.ledger(&docs)).unwrap();
    assert!(ledger.contains(&format!(
        "{}  fruit.example.com_apples.md",
        ledger::sha256_hex(apples.as_bytes())
    )));
    // A fresh tree checks clean; an edited page is reported as edited.
    assert!(
        generator
            .check()
            .files
            .iter()
            .all(|(_, s)| *s == FileStatus::Unchanged)
    );
    std::fs::write(docs.join("fruit.example.com_apples.md"), "mine").unwrap();
    let check = generator.check();
    assert!(matches!(
        status_of(&check, &docs.join("fruit.example.com_apples.md")),
        Some(FileStatus::Edited(_))
    ));
}

#[test]
fn no_docs_writes_none_and_removes_an_earlier_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut generator = with_docs(Gen::new(dir.path(), "gen"));
    generator.run();
    let docs = generator.opts.out_dir.join("docs");
    assert!(docs.join("README.md").is_file());
    generator.opts.no_docs = true;
    let run = generator.run();
    assert_eq!(
        status_of(&run, &docs.join("fruit.example.com_bananas.md")),
        Some(&FileStatus::Removed(Orphan::Output))
    );
    assert_eq!(names_in(&docs), Vec::<String>::new());
    assert!(
        generator
            .check()
            .files
            .iter()
            .all(|(_, s)| *s == FileStatus::Unchanged)
    );
}

#[test]
fn no_docs_is_a_flag_of_the_run() {
    let Command::Run(opts) = Command::parse(["--no-docs"]).unwrap() else {
        panic!("a run")
    };
    assert!(opts.no_docs);
    let Command::Run(opts) = Command::parse(Vec::<String>::new()).unwrap() else {
        panic!("a run")
    };
    assert!(!opts.no_docs);
    assert_eq!(opts.docs_dir(), PathBuf::from("rbac-out/docs"));
    let Command::Run(opts) = Command::parse(["--docs-out", "site/crds"]).unwrap() else {
        panic!("a run")
    };
    assert_eq!(opts.docs_dir(), PathBuf::from("site/crds"));
}

#[test]
fn docs_out_places_the_pages() {
    let dir = tempfile::tempdir().unwrap();
    let mut generator = with_docs(Gen::new(dir.path(), "gen"));
    generator.opts.docs_out_dir = Some(dir.path().join("site"));
    generator.run();
    assert!(
        dir.path()
            .join("site/fruit.example.com_apples.md")
            .is_file()
    );
    assert!(!generator.opts.out_dir.join("docs").exists());
}

#[test]
fn no_crds_no_docs() {
    let dir = tempfile::tempdir().unwrap();
    let mut generator = with_docs(Gen::new(dir.path(), "gen"));
    generator.crds.clear();
    generator.run();
    assert!(!generator.opts.out_dir.join("docs").exists());
}

/// kube-rs's own root description (`Auto-generated derived type for XSpec via
/// `CustomResource``) says nothing to a reader and is left out; a root description the user
/// wrote (`#[kube(doc = "...")]`) is shown.
#[test]
fn the_root_description_is_shown_unless_it_is_kube_rs_placeholder() {
    let page_with = |description: &str| {
        let crd = serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "apples.fruit.example.com"},
            "spec": {
                "group": "fruit.example.com", "scope": "Namespaced",
                "names": {"kind": "Apple", "plural": "apples"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "description": description,
                        "properties": {"spec": {"type": "object", "description": "An apple."}}}}}]
            }
        });
        crate::generate::docs::render_page(&serde_json::from_value(crd).unwrap(), "a.yaml", "run")
    };
    let placeholder = "Auto-generated derived type for AppleSpec via `CustomResource`";
    let page = page_with(placeholder);
    assert!(!page.contains("Auto-generated"), "{page}");
    assert!(page.contains("| `spec` | object |"), "{page}");
    let page = page_with("An apple, as the orchard grows it.");
    assert!(
        page.contains("### Fields of v1\n\nAn apple, as the orchard grows it.\n"),
        "{page}"
    );
    // Only kube-rs's exact sentence is left out.
    let page = page_with("Auto-generated derived type for two things via `CustomResource`");
    assert!(page.contains("for two things"), "{page}");
}
