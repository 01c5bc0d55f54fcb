//! `codegen explain` and `--deny-warnings`, the real binary, on the example operators.

mod common;
use common::{codegen, text, workspace_root};

/// `file:line:column` of the `#[rbac(` attribute whose text contains `needle`.
fn attribute(file: &str, needle: &str) -> String {
    let source = std::fs::read_to_string(workspace_root().join(file)).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let at = lines.iter().position(|l| l.contains(needle)).unwrap();
    let start = (0..=at)
        .rev()
        .find(|&i| lines[i].trim_start().starts_with("#[rbac("))
        .unwrap();
    format!("{file}:{}:1", start + 1)
}

#[test]
fn every_rule_of_the_examples_with_its_attributes() {
    let out = codegen(&["explain"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // Both operators' deployments attributes are behind the one merged rule.
    let memcached = attribute("examples/memcached-operator/src/lib.rs", "\"deployments\"");
    let mydatabase = attribute("examples/mydatabase-operator/src/lib.rs", "\"deployments\"");
    let rule = stdout
        .split("  rules[")
        .find(|r| r.contains("resources: [\"deployments\"]"))
        .unwrap();
    assert!(
        rule.contains(&format!(
            "[1] {memcached} (reconcile); allows workload-write"
        )),
        "{rule}"
    );
    assert!(
        rule.contains(&format!(
            "[2] {mydatabase} (reconcile); allows workload-write"
        )),
        "{rule}"
    );
    assert!(rule.contains("\"create\" [1, 2]"), "{rule}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn json_is_the_same_explanation() {
    let out = codegen(&["explain", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let roles = value["roles"].as_array().unwrap();
    assert_eq!(
        roles
            .iter()
            .map(|r| (r["kind"].as_str().unwrap(), r["name"].as_str().unwrap()))
            .collect::<Vec<_>>(),
        [
            ("ClusterRole", "manager-role"),
            ("Role", "mydatabase-tenant")
        ]
    );
    // As many rules as role.yaml, each value traced to an attribute of the list.
    let role_yaml = std::fs::read_to_string(workspace_root().join("rbac-out/role.yaml")).unwrap();
    let rules: usize = roles
        .iter()
        .map(|r| r["rules"].as_array().unwrap().len())
        .sum();
    assert_eq!(rules, role_yaml.matches("\n- ").count());
    let attributes = value["attributes"].as_array().unwrap();
    assert_eq!(attributes.len(), 9);
    let metrics = &roles[0]["rules"][0];
    assert_eq!(
        metrics["rule"]["nonResourceURLs"],
        serde_json::json!(["/metrics"])
    );
    let id = metrics["origins"]["nonResourceURLs"]["/metrics"][0]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(attributes[id]["item"], "cluster_database_count");
    assert_eq!(
        format!(
            "{}:{}:{}",
            attributes[id]["file"].as_str().unwrap(),
            attributes[id]["line"],
            attributes[id]["column"]
        ),
        attribute(
            "examples/mydatabase-operator/src/lib.rs",
            "urls = \"/metrics\""
        )
    );
}

#[test]
fn a_question_names_the_attributes_that_give_it() {
    let out = codegen(&["explain", "patch", "configmaps", "-n", "db-tenants"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let publish = attribute("examples/mydatabase-operator/src/lib.rs", "\"configmaps\"");
    assert!(stdout.starts_with("yes\n"), "{stdout}");
    assert!(
        stdout.contains("rules[0] of Role \"mydatabase-tenant\" in namespace \"db-tenants\""),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("  {publish} (publish)\n")),
        "{stdout}"
    );

    // Elsewhere the Role does not apply: no, exit 1, with the attribute that would allow it.
    let out = codegen(&["explain", "patch", "configmaps", "-n", "web"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains(
            "to allow it: #[kube_markers::rbac(groups = \"\", resources = \"configmaps\", verbs = \"patch\")]"
        ),
        "{}",
        text(&out.stdout)
    );

    let out = codegen(&["explain", "get", "/metrics", "--format=json"]);
    assert_eq!(out.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["allowed"], true);
    assert_eq!(value["grants"][0]["kind"], "ClusterRole");
    assert_eq!(value["attributes"][0]["item"], "cluster_database_count");
}

#[test]
fn bad_arguments_exit_2_with_the_reason() {
    for (args, message) in [
        (&["explain", "get"][..], "missing TYPE after `get`"),
        (
            &["explain", "--format", "yaml"],
            "`--format yaml` is not a format",
        ),
        (
            &["explain", "get", "pods", "extra"],
            "unexpected argument `extra`",
        ),
        (
            &["explain", "--namespce", "x"],
            "did you mean `--namespace`?",
        ),
        (&["explain", "-n", "web"], "`--namespace` needs a question"),
        (&["explain", "get", "pods.Bad_Group"], "is not an API group"),
    ] {
        let out = codegen(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(stderr.contains("Run `codegen explain --help`"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    let help = codegen(&["explain", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).contains("Usage: codegen explain"));
}

/// CI's lint gate: the examples accept every lint they trip, each with a reason.
#[test]
fn the_workspace_passes_deny_warnings() {
    let out = codegen(&["--check", "--deny-warnings"]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn type_is_resolved_as_can_i_resolves_it() {
    // deployments are the apps group's (the core group has none): the examples create them.
    let out = codegen(&["explain", "create", "deployments", "-n", "x"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("request: \"create\" resource \"deployments.apps\""),
        "{stdout}"
    );
    // The linked Memcached CRD, by plural, short name and kind.
    for name in ["memcacheds", "mc", "Memcached"] {
        let out = codegen(&["explain", "list", name, "-n", "x"]);
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains("resource \"memcacheds.cache.example.com\""),
            "{name}: {stdout}"
        );
    }
}
