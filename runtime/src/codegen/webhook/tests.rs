use super::*;
use crate::registry::Source;
use kube_markers_core::webhook::parse_marker;

fn source(line: u32) -> Source {
    Source::__new("src/lib.rs", line, 1, "op", "item")
}

fn marker(name: &str, mutating: bool, extra: &str) -> WebhookMarker {
    let text = format!(
        "name = \"{name}\", mutating = {mutating}, path = \"/p\", failure_policy = \"fail\", \
         side_effects = \"None\", groups = \"core\", resources = \"pods\", verbs = \"create\", \
         versions = \"v1\", admission_review_versions = \"v1\"{extra}"
    );
    parse_marker(text.parse().unwrap()).unwrap()
}

#[test]
fn mutating_first_sorted_by_name_with_default_names_and_service() {
    let webhooks = vec![
        (marker("b.example.com", false, ""), source(3)),
        (marker("a.example.com", false, ""), source(4)),
        (
            marker(
                "m.example.com",
                true,
                ", reinvocation_policy = \"ifneeded\"",
            ),
            source(5),
        ),
    ];
    let merged = configurations(&webhooks, &[]).unwrap();
    insta::assert_snapshot!(render(&merged, ""));
}

#[test]
fn configuration_names_and_duplicates() {
    let webhooks = vec![(marker("v.example.com", false, ""), source(1))];
    let named = WebhookConfigurationEntry::__new(false, Some("bar"), source(2));
    let merged = configurations(&webhooks, &[&named]).unwrap();
    assert_eq!(merged.documents[0]["metadata"]["name"], "bar");

    let other = WebhookConfigurationEntry::__new(false, Some("baz"), source(9));
    let errors = configurations(&webhooks, &[&named, &other]).unwrap_err();
    assert_eq!(
        errors,
        [WebhookProblem::ConfigurationNamedTwice {
            mutating: false,
            first: source(2),
            second: source(9),
        }]
    );
    let message = errors[0].to_string();
    assert!(
        message.contains("src/lib.rs:2") && message.contains("src/lib.rs:9"),
        "{message}"
    );

    // A name for a kind without webhooks: nothing generated, said so.
    let mutating = WebhookConfigurationEntry::__new(true, Some("foo"), source(3));
    let merged = configurations(&webhooks, &[&mutating]).unwrap();
    assert_eq!(merged.documents.len(), 1);
    assert_eq!(
        merged.warnings,
        [WebhookWarning::UnusedName {
            at: source(3),
            mutating: true
        }]
    );
    assert!(
        merged.warnings[0]
            .to_string()
            .contains("no #[webhook] is mutating"),
        "{:?}",
        merged.warnings
    );
}

#[test]
fn duplicate_webhook_names_keep_source_order_and_warn() {
    let webhooks = vec![
        (
            marker("v.example.com", false, ", timeout_seconds = 1"),
            source(1),
        ),
        (
            marker("v.example.com", false, ", timeout_seconds = 2"),
            source(2),
        ),
    ];
    let merged = configurations(&webhooks, &[]).unwrap();
    let hooks = merged.documents[0]["webhooks"].as_array().unwrap();
    assert_eq!(hooks[0]["timeoutSeconds"], 1);
    assert_eq!(hooks[1]["timeoutSeconds"], 2);
    assert_eq!(
        merged.warnings,
        [WebhookWarning::DuplicateName {
            mutating: false,
            name: "v.example.com".into()
        }]
    );
}

#[test]
fn no_webhooks_no_documents() {
    assert!(configurations(&[], &[]).unwrap().documents.is_empty());
}
