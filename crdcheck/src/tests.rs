use super::resolve;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The problems as the generator prints them.
fn check_schema(root: &Value) -> Vec<String> {
    super::check_schema(root)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn check_version(version: &Value) -> Vec<String> {
    super::check_version(version)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn schema(spec: Value) -> Value {
    json!({"type": "object", "properties": {"spec": spec}})
}

#[test]
fn missing_types_refs_and_unique_items() {
    let problems = check_schema(&schema(json!({"type": "object", "properties": {
        "any": {},
        "recursive": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
        "set": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
        "both": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
        "fine": {"x-kubernetes-int-or-string": true},
        "free": {"x-kubernetes-preserve-unknown-fields": true},
    }})));
    let joined = problems.join("\n");
    assert!(joined.contains("spec.any: no `type`"), "{joined}");
    assert!(joined.contains("spec.recursive[*]: `$ref`"), "{joined}");
    assert!(joined.contains("spec.set: `uniqueItems: true`"), "{joined}");
    assert!(
        joined.contains("spec.both: `properties` and `additionalProperties`"),
        "{joined}"
    );
    assert!(
        !joined.contains("spec.fine") && !joined.contains("spec.free"),
        "{joined}"
    );
}

/// Each problem of `properties` as a spec, by the property its path names.
fn problems_by_property(properties: Value) -> BTreeMap<String, String> {
    let problems =
        super::check_schema(&schema(json!({"type": "object", "properties": properties})));
    let mut by_name = BTreeMap::new();
    for problem in problems {
        let name = problem
            .path
            .as_deref()
            .and_then(|p| p.strip_prefix("spec."))
            .unwrap_or_else(|| panic!("not on a spec property: {problem}"))
            .to_string();
        assert!(
            by_name.insert(name, problem.to_string()).is_none(),
            "two problems: {problem}"
        );
    }
    by_name
}

#[test]
fn defaults_must_fit_their_schema() {
    let problems = problems_by_property(json!({
        "policy": {"type": "string", "enum": ["Allow", "Forbid"], "default": ""},
        "size": {"type": "integer", "minimum": 1, "default": 0},
        "name": {"type": "string", "maxLength": 2, "default": "abc"},
        "list": {"type": "array", "items": {"type": "integer", "maximum": 3}, "default": [1, 5]},
        "typed": {"type": "boolean", "default": "yes"},
        "ok": {"type": "integer", "format": "int32", "default": 0, "enum": [0, 1]},
        "nested": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x"}},
        // The keywords the first version of this check did not know.
        "image": {"type": "string", "pattern": "^[a-z]+$", "default": "Nginx"},
        "labels": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string"}, "default": {}},
        "host": {"type": "string", "format": "hostname", "default": ""},
        "id": {"type": "string", "format": "uuid", "default": "not-a-uuid"},
        "even": {"type": "integer", "default": 3, "x-kubernetes-validations": [{"rule": "self % 2 == 0", "message": "must be even"}]},
        "deep": {"type": "object", "default": {"x": 1}, "properties": {"x": {"type": "integer",
            "x-kubernetes-validations": [{"rule": "self > 1", "message": "x above 1"}]}}},
        "extra": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x", "b": "y"}},
        "whole": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}, "default": {}},
        // Properties named like keywords are properties.
        "named": {"type": "object", "default": {"format": "", "enum": null}, "properties": {
            "format": {"type": "string", "minLength": 1}, "enum": {"type": "integer", "nullable": true}}},
        // Fine: what the API server accepts.
        "free": {"type": "string", "format": "int-or-whatever", "default": ""},
        "kept": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "default": {"b": 1}},
        "transition": {"type": "string", "default": "a", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]},
        "nullable": {"type": "string", "nullable": true, "default": null},
        // Go's JSON reads `default: null` as no default: the API server accepts it.
        "nothing": {"type": "string", "default": null},
        // kube-cel escapes `_` where the API server does not: `has(self.a_b)` holds on the
        // API server, not in kube-cel; such a default is left to the API server.
        "snake": {"type": "object", "properties": {"a_b": {"type": "integer"}}, "default": {"a_b": 1},
            "x-kubernetes-validations": [{"rule": "has(self.a_b)"}]},
    }));
    let because = |name: &str, why: &str| {
        let problem = problems
            .get(name)
            .unwrap_or_else(|| panic!("no problem for {name}: {problems:#?}"));
        assert!(
            problem.starts_with(&format!("spec.{name}: the default "))
                && problem.contains("does not validate against the field's own schema")
                && problem.contains(why),
            "{name}: {problem}"
        );
    };
    because("policy", "\"\" is not one of \"Allow\" or \"Forbid\"");
    because("size", "0 is less than the minimum of 1");
    because("name", "\"abc\" is longer than 2 characters");
    because("list", "at /1: 5 is greater than the maximum of 3");
    because("typed", "\"yes\" is not of type \"boolean\"");
    because("image", "does not match \"^[a-z]+$\"");
    because("labels", "{} has less than 1 property");
    because("host", "\"\" is not a \"hostname\"");
    because("id", "\"not-a-uuid\" is not a \"uuid\"");
    because("even", "rule `self % 2 == 0` fails: must be even");
    because("deep", "rule `self > 1` fails: x above 1");
    because("extra", "`b` is not a property of the schema");
    because("whole", "\"a\" is a required property");
    because("named", "(at /format: \"\" is shorter than 1 character)");
    // Its default is fine; its format is one the API server warns of (and ignores).
    assert_eq!(
        problems["free"],
        "spec.free: unrecognized format \"int-or-whatever\", which the API server ignores"
    );
    assert_eq!(problems.len(), 15, "{problems:#?}");
}

#[test]
fn schemas_no_value_satisfies_are_refused() {
    // A marker's bound meets schemars' own (u8: 0 to 255).
    let problems = problems_by_property(json!({
        "small": {"type": "integer", "format": "int32", "minimum": 300, "maximum": 255},
        "point": {"type": "number", "minimum": 5, "exclusiveMinimum": true, "maximum": 5},
        "gap": {"type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 2, "exclusiveMaximum": true},
        "half": {"type": "integer", "minimum": 0.5},
        "step": {"type": "number", "multipleOf": -1},
        "kinds": {"type": "integer", "enum": [1, "two"]},
        "short": {"type": "string", "minLength": 3, "maxLength": 2},
        "fine": {"type": "integer", "minimum": 1, "maximum": 1},
    }));
    let because = |name: &str, why: &str| {
        let problem = &problems[name];
        assert!(
            problem.starts_with(&format!("spec.{name}: ")) && problem.contains(why),
            "{name}: {problem}"
        );
    };
    because(
        "small",
        "`minimum` (300) and `maximum` (255) leave no value",
    );
    because(
        "point",
        "`minimum` (5, exclusive) and `maximum` (5) leave no value",
    );
    because("gap", "leave no integer between them");
    because("half", "`minimum` 0.5 is not a whole number");
    because("step", "`multipleOf` must be greater than 0");
    because("kinds", "enum value \"two\" is not an integer");
    because("short", "`maxLength` (2) is smaller than `minLength` (3)");
    assert_eq!(problems.len(), 7, "{problems:#?}");
}

#[test]
fn junctors_must_not_carry_types() {
    let problems = check_schema(&schema(json!({"anyOf": [{"type": "integer"}, {}]})));
    assert!(
        problems.iter().any(|p| p.contains("inside anyOf")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("spec: no `type`")),
        "{problems:?}"
    );
    let ok = check_schema(&schema(
        json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ));
    assert!(ok.is_empty(), "{ok:?}");
}

#[test]
fn list_maps_need_required_scalar_keys() {
    let list = |required: Value| {
        schema(
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type", "missing"],
            "items": {"type": "object", "required": required, "properties": {"type": {"type": "string"}}}}),
        )
    };
    let problems = check_schema(&list(json!([])));
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`type` must be required or have a default")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`missing` is not a property")),
        "{problems:?}"
    );
    let problems = check_schema(&list(json!(["type"])));
    assert_eq!(problems.len(), 1, "{problems:?}");
    let set = check_schema(&schema(
        json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}),
    ));
    assert!(set.iter().any(|p| p.contains("scalar")), "{set:?}");
}

#[test]
fn paths_resolve_through_lists_and_filters() {
    let root = schema(json!({"type": "object", "properties": {"replicas": {"type": "integer"}}}));
    let root = {
        let mut r = root;
        r["properties"]["status"] = json!({"type": "object", "properties": {"conditions": {"type": "array", "items": {"type": "object", "properties": {"status": {"type": "string"}, "type": {"type": "string"}}}}}});
        r
    };
    assert_eq!(resolve(&root, ".spec.replicas").unwrap()["type"], "integer");
    assert_eq!(
        resolve(&root, ".status.conditions[?(@.type==\"Ready\")].status").unwrap()["type"],
        "string"
    );
    assert!(resolve(&root, ".metadata.creationTimestamp").is_ok());
    assert_eq!(
        resolve(&root, ".spec.size").unwrap_err(),
        super::PathError::NoProperty {
            name: "size".into(),
            under: ".spec".into()
        }
    );
    assert_eq!(
        resolve(&root, ".spec.size").unwrap_err().to_string(),
        "no property `size` under `.spec`"
    );
    assert!(resolve(&root, "spec").is_err());
}

#[test]
fn versions_check_columns_fields_and_scale() {
    let version = json!({
        "name": "v1",
        "schema": {"openAPIV3Schema": schema(json!({"type": "object", "properties": {"replicas": {"type": "integer"}, "image": {"type": "string"}}}))},
        "additionalPrinterColumns": [{"name": "Replicas", "jsonPath": ".spec.replica", "type": "integer"}],
        "selectableFields": [{"jsonPath": ".spec.image"}, {"jsonPath": ".spec"}],
        "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
    });
    let problems = check_version(&version).join("\n");
    assert!(
        problems.contains("printer column `Replicas` path `.spec.replica` does not resolve"),
        "{problems}"
    );
    assert!(
        problems.contains("selectable field `.spec` must be a string"),
        "{problems}"
    );
    assert!(
        problems.contains("statusReplicasPath `.status.replicas` does not resolve"),
        "{problems}"
    );
    assert!(!problems.contains(".spec.image"), "{problems}");
}

#[test]
fn rules_must_parse() {
    let problems = check_schema(&schema(
        json!({"type": "object", "x-kubernetes-validations": [
        {"rule": "self.a <", "message": "m"}, {"rule": "true", "reason": "Nope"}, {"rule": "self.?a.orValue(1) > 0"}]}),
    ));
    assert_eq!(problems.len(), 2, "{problems:?}");
}

/// What the API server accepts, check-crds accepts: a schema no value satisfies, printer
/// column and scale paths that lead nowhere (warnings), `default: null`, an empty message
/// expression, a rule with a trailing line break and no message.
#[test]
fn check_crds_accepts_what_the_api_server_accepts() {
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com",
    "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
    "versions": [{"name": "v1", "served": true, "storage": true,
        "additionalPrinterColumns": [{"name": "Nope", "type": "string", "jsonPath": ".spec.nope"}],
        "subresources": {"scale": {"specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.replicas"}},
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.n >= 0\n", "messageExpression": ""},
                {"rule": "\n  self.n < 10"},
                {"rule": "self.n != 5", "message": "not five"},
            ],
            "properties": {
                "n": {"type": "integer", "minimum": 300, "maximum": 255},
                "s": {"type": "string", "default": null},
            }}}}}}]}});
    let report = crate::files::check_crd(&crd, 1);
    assert_eq!(report.problems, Vec::<String>::new());
    let warnings = report.warnings.join("\n");
    for expected in [
        "spec.n: `minimum` (300) and `maximum` (255) leave no value",
        "printer column `Nope` path `.spec.nope` does not resolve",
        "scale specReplicasPath `.spec.replicas` does not resolve",
        "scale statusReplicasPath `.status.replicas` does not resolve",
    ] {
        assert!(warnings.contains(expected), "{expected}: {warnings}");
    }
    assert_eq!(report.warnings.len(), 4, "{warnings}");
    // The rules were type-checked and costed although the schema has warnings.
    assert_eq!(report.versions[0].expressions.len(), 3);
}

/// What the API server refuses in a CRD's names, printer columns and conversion.
#[test]
fn check_crds_refuses_names_columns_and_conversions_the_api_server_refuses() {
    let crd = |names: Value, columns: Value, conversion: Value| {
        let mut crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com",
            "scope": "Namespaced", "names": names,
            "versions": [{"name": "v1", "served": true, "storage": true,
                "additionalPrinterColumns": columns,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                    "type": "object", "properties": {"n": {"type": "integer"}}}}}}}]}});
        if !conversion.is_null() {
            crd["spec"]["conversion"] = conversion;
        }
        crate::files::check_crd(&crd, 1).problems
    };
    let fine = crd(
        json!({"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
            "shortNames": ["wd"], "categories": ["all"]}),
        json!([{"name": "N", "type": "integer", "format": "int64", "jsonPath": ".spec.n"}]),
        json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
            "clientConfig": {"service": {"name": "s", "namespace": "n"}}}}),
    );
    assert_eq!(fine, Vec::<String>::new());
    let problems = crd(
        json!({"plural": "widgets", "kind": "Widget", "listKind": "Widget",
            "shortNames": ["Wd"], "categories": ["1all"]}),
        json!([{"name": "N", "type": "int", "format": "long", "jsonPath": "spec.n"}]),
        json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v2"]}}),
    );
    for expected in [
        "spec.names.shortNames[0] `Wd`",
        "spec.names.categories[0] `1all`: it must start with a letter",
        "spec.names.listKind `Widget`: kind and listKind may not be the same",
        "spec.versions[0].additionalPrinterColumns[0].type `int`: must be one of boolean,date,integer,number,string",
        "spec.versions[0].additionalPrinterColumns[0].format `long`",
        "spec.versions[0].additionalPrinterColumns[0].jsonPath `spec.n`",
        "spec.conversion.webhook.clientConfig: required when strategy is set to Webhook",
        "spec.conversion.webhook.conversionReviewVersions: must include at least one of v1, v1beta1",
    ] {
        assert!(
            problems.iter().any(|p| p.starts_with(expected)),
            "{expected}: {problems:#?}"
        );
    }
    assert_eq!(problems.len(), 8, "{problems:#?}");
    let none = crd(
        json!({"plural": "widgets", "kind": "Widget"}),
        json!([]),
        json!({"strategy": "None", "webhook": {"clientConfig": {"url": "https://x"}}}),
    );
    assert_eq!(
        none,
        [
            "spec.conversion.webhook.clientConfig: should not be set when strategy is not set to Webhook"
        ]
    );
}

/// Schemas a demanding user tried against kube-apiserver 1.37.2 (server-side dry run): a
/// `pattern` Go cannot compile is refused; `additionalProperties: true` beside `properties`,
/// a `set` of lists without a list type and a default under `additionalProperties` that its
/// schema refuses are accepted by the server (the last two are warnings here).
#[test]
fn schemas_as_the_api_server_judged_them() {
    let crd = |spec_properties: Value| {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com",
        "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
        "versions": [{"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                "type": "object", "properties": spec_properties}}}}}]}})
    };
    for pattern in ["(", "[a", "a**", "(?=a)", "a{1001}"] {
        let report = crate::files::check_crd(
            &crd(json!({"s": {"type": "string", "pattern": pattern}})),
            1,
        );
        assert_eq!(report.problems.len(), 1, "{pattern}: {:?}", report.problems);
        assert!(
            report.problems[0].contains(
                "`pattern` must be a valid regular expression, but isn't: error parsing regexp"
            ),
            "{pattern}: {:?}",
            report.problems
        );
    }
    let accepted = crd(json!({
        "open": {"type": "object", "properties": {"a": {"type": "string"}},
            "additionalProperties": true},
        "sets": {"type": "array", "x-kubernetes-list-type": "set",
            "items": {"type": "array", "items": {"type": "string"}}},
        "counts": {"type": "object",
            "additionalProperties": {"type": "integer", "minimum": 5, "default": 1}},
        "ok": {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$"},
    }));
    let report = crate::files::check_crd(&accepted, 1);
    assert_eq!(report.problems, Vec::<String>::new());
    let warnings = report.warnings.join("\n");
    assert_eq!(report.warnings.len(), 3, "{warnings}");
    assert!(
        warnings.contains("spec.sets: `x-kubernetes-list-type: set` of lists without a list type"),
        "{warnings}"
    );
    assert!(
        warnings.contains(
            "spec.sets: x-kubernetes-list-type: set for items of type \"array\" is not \
             supported by server-side apply or CEL validation rules (the API server warns of it)"
        ),
        "{warnings}"
    );
    assert!(
        warnings.contains("spec.counts[<key>]: the default 1 does not validate"),
        "{warnings}"
    );
    // Refused as before: `false` or a schema beside `properties`.
    let closed = crd(
        json!({"closed": {"type": "object", "properties": {"a": {"type": "string"}},
        "additionalProperties": false}}),
    );
    assert_eq!(crate::files::check_crd(&closed, 1).problems.len(), 1);
}
