use super::*;
use kube_markers_core::model::WebhookConfigurationMarker;
use kube_markers_core::webhook::parse_marker;
use kube_markers_registry::Source;

/// [`configurations`] of webhooks given with where they stand.
fn merge(
    webhooks: &[(WebhookMarker, Source)],
    names: &[&WebhookConfigurationEntry],
) -> Result<Merged, Vec<WebhookProblem>> {
    let webhooks: Vec<Attribute<WebhookMarker>> = webhooks
        .iter()
        .map(|(marker, source)| Attribute::new(marker.clone(), source.clone(), ""))
        .collect();
    configurations(&webhooks.iter().collect::<Vec<_>>(), names)
}

fn configuration_name(
    mutating: bool,
    name: Option<&'static str>,
    source: Source,
) -> WebhookConfigurationEntry {
    let marker = WebhookConfigurationMarker {
        mutating,
        name: name.map(Into::into),
    };
    Attribute::new(marker, source, "")
}

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
    let merged = merge(&webhooks, &[]).unwrap();
    insta::assert_snapshot!(render(&merged, ""));
}

#[test]
fn configuration_names_and_duplicates() {
    let webhooks = vec![(marker("v.example.com", false, ""), source(1))];
    let named = configuration_name(false, Some("bar"), source(2));
    let merged = merge(&webhooks, &[&named]).unwrap();
    assert_eq!(merged.documents[0]["metadata"]["name"], "bar");

    let other = configuration_name(false, Some("baz"), source(9));
    let errors = merge(&webhooks, &[&named, &other]).unwrap_err();
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
    let mutating = configuration_name(true, Some("foo"), source(3));
    let merged = merge(&webhooks, &[&mutating]).unwrap();
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
    let merged = merge(&webhooks, &[]).unwrap();
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
    assert!(merge(&[], &[]).unwrap().documents.is_empty());
}
