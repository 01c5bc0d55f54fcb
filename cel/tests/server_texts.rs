//! The API server's own verdicts and texts for rules it refuses at CRD creation, as
//! kube-apiserver 1.37 words them (apiextensions `validation_test.go`, cel-go's checker).

use kube_markers_cel::{Severity, check_schema};
use serde_json::{Value, json};

/// A CRD root whose `spec` carries `rules` over `count` (int), `name` (string) and `xs`
/// (strings, unbounded).
fn crd(rules: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": rules,
        "properties": {
            "count": {"type": "integer"},
            "name": {"type": "string"},
            "xs": {"type": "array", "items": {"type": "string"}},
        },
    }}})
}

const ROOT: &str = "spec.validation.openAPIV3Schema";

fn details(rules: Value) -> Vec<(String, Severity, String)> {
    check_schema(&crd(rules), ROOT)
        .problems
        .into_iter()
        .map(|p| (p.path, p.severity, p.detail))
        .collect()
}

#[test]
fn undefined_field() {
    assert_eq!(
        details(json!([{"rule": "self.nope == 1"}])),
        [(
            format!("{ROOT}.properties[spec].x-kubernetes-validations[0].rule"),
            Severity::Invalid,
            "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^".into()
        )]
    );
}

#[test]
fn no_matching_overload() {
    assert_eq!(
        details(json!([{"rule": "self.count == 'a'"}])),
        [(
            format!("{ROOT}.properties[spec].x-kubernetes-validations[0].rule"),
            Severity::Invalid,
            "compilation failed: ERROR: <input>:1:12: found no matching overload for '_==_' applied to '(int, string)'\n | self.count == 'a'\n | ...........^".into()
        )]
    );
}

#[test]
fn nested_comprehension_over_unbounded_list_is_over_budget() {
    let report = check_schema(
        &crd(json!([{"rule": "self.xs.all(x, self.xs.all(y, x == y))"}])),
        ROOT,
    );
    let rule = format!("{ROOT}.properties[spec].x-kubernetes-validations[0].rule");
    let problem = report
        .problems
        .iter()
        .find(|p| p.path == rule)
        .expect("a cost error on the rule");
    assert_eq!(problem.severity, Severity::Forbidden);
    assert_eq!(
        problem.detail,
        "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    );
    // The fix bounds xs; the bound it names keeps the rule under budget, one more does not.
    let fix = problem.fix.as_ref().expect("a fix");
    assert_eq!(fix.property.as_deref(), Some("xs"));
    for (max, ok) in [(fix.max, true), (fix.max + 1, false)] {
        let mut schema = crd(json!([{"rule": "self.xs.all(x, self.xs.all(y, x == y))"}]));
        let xs = &mut schema["properties"]["spec"]["properties"]["xs"];
        xs[fix.keyword] = json!(max);
        let over = check_schema(&schema, ROOT)
            .problems
            .iter()
            .any(|p| p.path == rule);
        assert_eq!(!over, ok, "{} = {max}", fix.keyword);
    }
}

#[test]
fn message_expression_with_string_of_int_is_over_budget() {
    let problems = details(
        json!([{"rule": "self.count >= 0", "messageExpression": "'got ' + string(self.count)"}]),
    );
    let msg = format!("{ROOT}.properties[spec].x-kubernetes-validations[0].messageExpression");
    assert_eq!(
        problems,
        [
            (msg.clone(), Severity::Forbidden, "estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)".into()),
            (msg, Severity::Forbidden, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema".into()),
            (ROOT.into(), Severity::Forbidden, "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)".into()),
        ]
    );
}

#[test]
fn rule_must_be_bool_and_message_a_string() {
    assert_eq!(
        details(json!([{"rule": "self.count"}]))[0].2,
        "cel expression must evaluate to a bool"
    );
    assert_eq!(
        details(json!([{"rule": "true", "messageExpression": "self.count"}]))[0].2,
        "messageExpression must evaluate to a string"
    );
}

/// Accepted on a schema whose strings and lists are bounded.
#[test]
fn accepted_rules_have_no_problems() {
    for rule in [
        "self.count > 0",
        "self.name.startsWith('a') && self.name.size() < 10",
        "has(self.name) ? self.name != '' : true",
        "self.xs.all(x, x.matches('^[a-z]+$'))",
        "self.xs.exists_one(x, x == 'a')",
        "self.xs.map(x, x + 'a').size() >= 0",
        "self.xs.filter(x, x != '').size() <= self.count",
        "self.?name.orValue('') == ''",
        "self == oldSelf",
        "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
        "isURL('https://a') && url('https://a').getHost() == 'a'",
        "ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP('10.1.1.1')",
        "format.dns1123Label().validate('abc').hasValue() == false",
        "isSemver('1.2.3') && semver('1.2.3').major() == 1",
        "self.xs.all(i, v, i >= 0 && v != '')",
        "sets.contains(['a'], ['a'])",
        "self.xs.sort().size() >= 0",
        "[1, 2, 3].sum() == 6 && [1, 2].max() == 2 && [1].isSorted()",
        "self.name.split('-').size() > 0 && self.name.lowerAscii() == self.name",
        "type(self.count) == int",
        "self.count + 1 > 1.5",
    ] {
        let mut schema = crd(json!([{"rule": rule}]));
        let spec = &mut schema["properties"]["spec"]["properties"];
        spec["xs"]["maxItems"] = json!(10);
        spec["xs"]["items"]["maxLength"] = json!(10);
        spec["name"]["maxLength"] = json!(20);
        let problems = check_schema(&schema, ROOT).problems;
        assert!(problems.is_empty(), "{rule}: {problems:?}");
    }
}

#[test]
fn refused_rules_name_the_server_error() {
    for (rule, message) in [
        (
            "self.count.foo == 1",
            "type 'int' does not support field selection",
        ),
        (
            "nope(self.count)",
            "undeclared reference to 'nope' (in container '')",
        ),
        ("self.count && true", "expected type 'bool' but found 'int'"),
        (
            "[1, 'a'].size() > 0",
            "expected type 'int' but found 'string'",
        ),
        (
            "self.count.all(x, true)",
            "expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
        ),
        (
            "self.name.startsWith(1)",
            "found no matching overload for 'startsWith' applied to 'string.(int)'",
        ),
        ("x == 1", "undeclared reference to 'x' (in container '')"),
    ] {
        let problems = details(json!([{"rule": rule}]));
        assert_eq!(problems.len(), 1, "{rule}: {problems:?}");
        assert!(
            problems[0]
                .2
                .starts_with("compilation failed: ERROR: <input>:1:"),
            "{rule}: {}",
            problems[0].2
        );
        assert!(problems[0].2.contains(message), "{rule}: {}", problems[0].2);
    }
}

#[test]
fn old_self_under_an_atomic_list_is_uncorrelatable() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "xs": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10,
            "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}},
    }}}});
    let problems = check_schema(&schema, ROOT).problems;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].detail,
        format!(
            "oldSelf cannot be used on the uncorrelatable portion of the schema within {ROOT}.properties[spec].properties[xs]"
        )
    );
}

#[test]
fn optional_old_self_without_old_self_is_refused() {
    let problems = details(json!([{"rule": "self.count > 0", "optionalOldSelf": true}]));
    assert_eq!(
        problems[0].0,
        format!("{ROOT}.properties[spec].x-kubernetes-validations[0].optionalOldSelf")
    );
    assert_eq!(
        problems[0].2,
        "may not be set if oldSelf is not used in rule"
    );
}

/// cel-go's parser limits (250 nested rules, 250 nested operators), with its texts at no
/// location; the deepest rules they let through are checked and costed without overflowing
/// the stack (this test runs on a 2 MiB test thread, unoptimized).
#[test]
fn recursion_limits() {
    let rule_path = format!("{ROOT}.properties[spec].x-kubernetes-validations[0].rule");
    let nested = |n: usize| format!("size({}1{}) == 1", "[".repeat(n), "]".repeat(n));
    let parens = |n: usize| format!("{}self.count > 0{}", "(".repeat(n), ")".repeat(n));
    let sum = |n: usize| format!("self.count{} > 0", " + 1".repeat(n));
    let all = |n: usize| {
        format!(
            "{}self.count > 0{}",
            "self.xs.all(x, ".repeat(n),
            ")".repeat(n)
        )
    };
    // `size(` is one more nesting; `.count` and `> 0` two more operators.
    for accepted in [nested(248), parens(249), sum(248), all(124)] {
        let problems = details(json!([{"rule": accepted}]));
        assert!(
            problems.iter().all(|p| !p.2.contains("recursion")),
            "{problems:?}"
        );
    }
    for (refused, text) in [
        (nested(249), "expression recursion limit exceeded: 250"),
        (parens(250), "expression recursion limit exceeded: 250"),
        (sum(249), "max recursion depth exceeded"),
    ] {
        assert_eq!(
            details(json!([{"rule": refused}])),
            [(
                rule_path.clone(),
                Severity::Invalid,
                format!("compilation failed: ERROR: <input>:-1:0: {text}")
            )]
        );
    }
}

/// apiserver multiplies `maxLength` by 4 in int64 and hands the estimator `uint64` of the
/// product, wrapping as Go does: 2^61 code points is 2^63 bytes (over budget), 2^62 is 0.
#[test]
fn huge_max_length_wraps_as_in_go() {
    let verdict = |max_length: i64| {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [{"rule": "self.s.contains('a')"}],
            "properties": {"s": {"type": "string", "maxLength": max_length},
                "q": {"x-kubernetes-int-or-string": true, "maxLength": max_length}}}}});
        check_schema(&schema, ROOT).problems
    };
    let over = verdict(1 << 61);
    assert!(
        over[0]
            .detail
            .starts_with("estimated rule cost exceeds budget"),
        "{over:?}"
    );
    assert_eq!(verdict(1 << 62), []);
    assert_eq!(verdict(i64::MAX), verdict(-4 + (1 << 62)));
}

/// cel-go's `nodeAsUintValue`: a negative int constant is a size of 0; a uint constant is no
/// size at all (the default).
#[test]
fn negative_constants_are_sizes_of_zero() {
    for rule in [
        "lists.range(-1).size() == 0",
        "self.xs.slice(-1, 0).size() == 0",
        "[[1]].flatten(-1).size() == 1",
    ] {
        assert_eq!(details(json!([{"rule": rule}])), [], "{rule}");
    }
}

/// apiextensions' checks of a rule's texts, on the trimmed texts, one per rule.
#[test]
fn rule_and_message_texts() {
    let at = |field: &str| format!("{ROOT}.properties[spec].x-kubernetes-validations[0].{field}");
    assert_eq!(details(json!([{"rule": "self.count > 0\n"}])), []);
    assert_eq!(
        details(json!([{"rule": "self.count > 0", "messageExpression": ""}])),
        []
    );
    assert_eq!(
        details(json!([{"rule": "self.count > 0", "message": "a\nb"}])),
        [(
            at("message"),
            Severity::Invalid,
            "must not contain line breaks".into()
        )]
    );
    assert_eq!(
        details(json!([{"rule": "self.count > 0", "message": "  "}])),
        [(
            at("message"),
            Severity::Invalid,
            "must be non-empty if specified".into()
        )]
    );
    assert_eq!(
        details(json!([{"rule": "self.count\n > 0"}])),
        [(
            at("message"),
            Severity::Required,
            "message must be specified if rule contains line breaks".into()
        )]
    );
}

/// Literals and names as cel-go parses and resolves them: the smallest int, raw bytes, and a
/// leading dot that scopes a name to the root (resolved as without it, reported as written).
#[test]
fn literals_and_root_scoped_names() {
    for rule in [
        "-0x8000000000000000 < 0",
        "-9223372036854775808 < 0",
        r"br'\x' == b'\\x' && RB'\d' == b'\\d'",
        ".self.count > 0",
        ".size('ab') == 2",
        "has(.self.name)",
    ] {
        assert_eq!(details(json!([{"rule": rule}])), [], "{rule}");
    }
    // Comprehension variables are not in the root scope (kube-apiserver 1.37.2, live).
    assert!(!details(json!([{"rule": "self.xs.all(x, .x != '')"}])).is_empty());
    assert_eq!(
        details(json!([{"rule": ".nope == 1"}])),
        [(
            format!("{ROOT}.properties[spec].x-kubernetes-validations[0].rule"),
            Severity::Invalid,
            "compilation failed: ERROR: <input>:1:2: undeclared reference to '.nope' (in container '')\n | .nope == 1\n | .^".into()
        )]
    );
}

/// The API server plans each rule with cel-go's `OptOptimize`, which converts constants while
/// planning: a conversion that fails fails the program, and the rule costs nothing.
#[test]
fn constant_conversions_fail_the_program() {
    let at = |field: &str| format!("{ROOT}.properties[spec].x-kubernetes-validations[0].{field}");
    assert_eq!(
        details(json!([{"rule": "self.count == int('x')"}])),
        [(
            at("rule"),
            Severity::Invalid,
            "program instantiation failed: type conversion error from 'string' to 'int'".into()
        )]
    );
    assert_eq!(
        details(json!([{"rule": "self.count > 0", "messageExpression": "string(uint(-1))"}])),
        [(
            at("messageExpression"),
            Severity::Invalid,
            "messageExpression instantiation failed: unsigned integer overflow".into()
        )]
    );
}

/// cel-go's literal validators evaluate the call on any literal: `timestamp(int)` out of
/// years 1 to 9999 is an invalid argument; `matches` checks argument 0 of either form.
#[test]
fn literal_validators_as_cel_go_applies_them() {
    let rule_path = format!("{ROOT}.properties[spec].x-kubernetes-validations[0].rule");
    let invalid = |rule: &str, col: usize, what: &str| {
        vec![(
            rule_path.clone(),
            Severity::Invalid,
            format!(
                "compilation failed: ERROR: <input>:1:{col}: invalid {what} argument\n | {rule}\n | {}^",
                ".".repeat(col - 1)
            ),
        )]
    };
    let rule = "false && timestamp(253402300800) > timestamp(0)";
    assert_eq!(
        details(json!([{"rule": rule}])),
        invalid(rule, 20, "timestamp")
    );
    assert_eq!(
        details(json!([{"rule": "timestamp(253402300799) > timestamp(0)"}])),
        []
    );
    let rule = "matches('(', self.name)";
    assert_eq!(
        details(json!([{"rule": rule}])),
        invalid(rule, 9, "matches")
    );
    // The pattern of the global form is compiled when the rule is planned.
    assert_eq!(
        details(json!([{"rule": "matches(self.name, '(')"}])),
        [(
            rule_path.clone(),
            Severity::Invalid,
            "program instantiation failed: error parsing regexp: missing closing ): `(`".into()
        )]
    );
}
