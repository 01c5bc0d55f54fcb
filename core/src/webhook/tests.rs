use super::*;
use quote::quote;
use serde_json::json;

fn errors(tokens: proc_macro2::TokenStream) -> Vec<String> {
    match parse_marker(tokens) {
        Ok(m) => panic!("expected errors, got {m:?}"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn parses_controller_gen_spellings_into_api_values() {
    let m = parse_marker(quote!(
        webhookVersions = "v1",
        verbs = "create;Update",
        path = "/validate-x",
        mutating = false,
        failurePolicy = "fail",
        matchPolicy = "equivalent",
        groups = ["core", "apps"],
        resources = "cronjobs",
        versions = "v1",
        name = "validation.cronjob.example.io",
        sideEffects = "noneondryrun",
        timeoutSeconds = 10,
        admissionReviewVersions = "v1;v1beta1",
        servicePort = 1234
    ))
    .unwrap();
    assert_eq!(m.failure_policy, "Fail");
    assert_eq!(m.match_policy.as_deref(), Some("Equivalent"));
    assert_eq!(m.side_effects.as_deref(), Some("NoneOnDryRun"));
    assert_eq!(m.verbs, ["CREATE", "UPDATE"]);
    assert_eq!(m.timeout_seconds, Some(10));
    let object = webhook_object(&m).unwrap();
    assert_eq!(object["rules"][0]["apiGroups"], json!(["", "apps"]));
    assert_eq!(
        object["clientConfig"],
        json!({"service": {"name": "webhook-service", "namespace": "system", "path": "/validate-x", "port": 1234}})
    );
}

const BASE: &str = "name = \"v.example.com\", mutating = true, path = \"/m\", \
    failure_policy = \"Fail\", side_effects = \"None\", groups = \"\", resources = \"pods\", \
    verbs = \"create\", versions = \"v1\", admission_review_versions = \"v1\"";

fn with(extra: &str) -> proc_macro2::TokenStream {
    format!("{BASE}, {extra}").parse().unwrap()
}

#[test]
fn patch_merges_objects_removes_nulls_and_replaces_lists() {
    let m = parse_marker(with(
        r##"timeout_seconds = 5, patch = r#"{"timeoutSeconds":null,"rules":[{"apiGroups":["batch"]}],"namespaceSelector":{"matchLabels":{"a":"b"}}}"#"##,
    ))
    .unwrap();
    let o = webhook_object(&m).unwrap();
    assert!(o.get("timeoutSeconds").is_none());
    assert_eq!(o["rules"], json!([{"apiGroups": ["batch"]}]));
    assert_eq!(o["namespaceSelector"]["matchLabels"]["a"], "b");
}

#[test]
fn reports_every_problem() {
    let errs = errors(with(
        "timeout_seconds = 40, webhook_versions = \"v1beta1\", verbs2 = \"x\", url = \"https://x\"",
    ));
    let all = errs.join("\n");
    assert!(all.contains("between 1 and 30"), "{all}");
    assert!(
        all.contains("unsupported webhook version: v1beta1"),
        "{all}"
    );
    assert!(all.contains("did you mean `verbs`?"), "{all}");
    assert!(all.contains("mutually exclusive"), "{all}");
}

#[test]
fn patch_problems_are_errors() {
    for (patch, expected) in [
        ("{invalid", "not valid JSON"),
        (r#"{"TimeoutSeconds":25}"#, "did you mean `timeoutSeconds`?"),
        (
            r#"{"namespaceSelector":{"matchlabels":{}}}"#,
            "namespaceSelector.matchlabels",
        ),
        (r#"{"$patch":"replace"}"#, "directives are not supported"),
        (r#"{"timeoutSeconds":"5"}"#, "must be an integer"),
        (r#"{"timeoutSeconds":99}"#, "between 1 and 30"),
        (r#"{"sideEffects":null}"#, "missing `side_effects`"),
        ("[]", "must be a JSON object"),
        ("null", "must be a JSON object"),
    ] {
        let tokens = with(&format!("patch = {}", proc_macro2::Literal::string(patch)));
        let all = errors(tokens).join("\n");
        assert!(all.contains(expected), "{patch}: {all}");
    }
}

#[test]
fn side_effects_some_and_missing_required_keys() {
    let all = errors(quote!(side_effects = "Some")).join("\n");
    assert!(all.contains("must not have side effects `Some`"), "{all}");
    for key in [
        "name",
        "mutating",
        "failure_policy",
        "groups",
        "admission_review_versions",
    ] {
        assert!(all.contains(&format!("missing `{key}`")), "{key}: {all}");
    }
    assert!(all.contains("missing `path` or `url`"), "{all}");
}

#[test]
fn configuration_needs_mutating() {
    let err = parse_configuration(quote!(name = "foo"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing `mutating`"), "{err}");
    let m = parse_configuration(quote!(mutating = true, name = "foo")).unwrap();
    assert_eq!(m.name.as_deref(), Some("foo"));
}

#[test]
fn every_bad_list_element_is_reported_in_one_pass() {
    let errs = errors(quote!(
        name = "v.example.com",
        mutating = true,
        path = "/m",
        failure_policy = "Fail",
        side_effects = "None",
        groups = "Apps;;batch",
        resources = "pods",
        verbs = "creat;;update;upsert",
        versions = "v1",
        admission_review_versions = "v1;;v2"
    ));
    for want in [
        "empty element in `groups`",
        "`groups` element \"Apps\"",
        "empty element in `verbs`",
        "`verbs` element \"creat\" is not an admission operation",
        "`verbs` element \"upsert\"",
        "empty element in `admission_review_versions`",
        "`admission_review_versions` element \"v2\"",
    ] {
        assert!(errs.iter().any(|e| e.contains(want)), "{want}: {errs:#?}");
    }
    assert_eq!(errs.len(), 7, "{errs:#?}");
}

#[test]
fn an_integer_out_of_64_bits_says_so() {
    let errs = errors(with("timeout_seconds = 99999999999999999999"));
    assert_eq!(
        errs,
        [
            "`timeout_seconds = 99999999999999999999` does not fit in a 64-bit integer \
          (-9223372036854775808 to 9223372036854775807)"
        ]
    );
    // In range for 64 bits (the sign is read with the digits), then out of the key's range.
    let errs = errors(with("timeout_seconds = -9223372036854775808"));
    assert!(errs[0].contains("between 1 and 30"), "{errs:?}");
}

#[test]
fn the_service_name_is_a_dns_1035_label() {
    let errs = errors(with("service_name = \"1svc\""));
    assert_eq!(
        errs,
        ["`service_name` \"1svc\": it must start with a letter"]
    );
    let errs = errors(with("service_name = \"Svc\""));
    assert!(errs[0].contains("(names are lowercase)"), "{errs:?}");
    // A namespace may start with a digit.
    assert!(parse_marker(with("service_name = \"svc\", service_namespace = \"1ns\"")).is_ok());
}
