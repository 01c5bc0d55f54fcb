use super::*;
use quote::quote;

fn ok(tokens: TokenStream) -> RbacMarker {
    parse_marker(tokens).unwrap_or_else(|e| panic!("unexpected error: {e}"))
}

/// All messages of a failed parse, in order.
fn errors(tokens: TokenStream) -> Vec<String> {
    match parse_marker(tokens) {
        Ok(m) => panic!("expected errors, got {m:?}"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

fn one_error(tokens: TokenStream) -> String {
    let errs = errors(tokens);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    errs.into_iter().next().unwrap()
}

#[test]
fn semicolon_strings_and_arrays_are_the_same_list() {
    let a = ok(quote!(
        groups = "apps;batch",
        resources = "deployments",
        verbs = "get;list;watch"
    ));
    let b = ok(quote!(
        groups = ["apps", "batch"],
        resources = ["deployments"],
        verbs = ["get", "list", "watch"]
    ));
    assert_eq!(a, b);
    assert_eq!(a.verbs, ["get", "list", "watch"]);
}

#[test]
fn core_group_spellings() {
    assert_eq!(
        ok(quote!(groups = "", resources = "pods", verbs = "get")).groups,
        [""]
    );
    assert_eq!(
        ok(quote!(groups = [""], resources = "pods", verbs = "get")).groups,
        [""]
    );
    // `core` is kept as written; the aggregator maps it to "" like controller-gen.
    assert_eq!(
        ok(quote!(
            groups = ["core", "", "apps"],
            resources = "pods",
            verbs = "get"
        ))
        .groups,
        ["core", "", "apps"]
    );
}

#[test]
fn controller_gen_aliases_and_all_keys() {
    let m = ok(quote!(
        groups = "",
        resources = "configmaps",
        resourceNames = "a;b",
        verbs = "get",
        namespace = "tenant",
        roleName = "tenant-reader"
    ));
    assert_eq!(m.resource_names, ["a", "b"]);
    assert_eq!(m.namespace.as_deref(), Some("tenant"));
    assert_eq!(m.role_name.as_deref(), Some("tenant-reader"));
    let urls = ok(quote!(urls = "/metrics;/healthz*", verbs = "get"));
    assert_eq!(urls.urls, ["/metrics", "/healthz*"]);
    assert!(urls.groups.is_empty());
}

#[test]
fn wildcards_and_special_verbs() {
    ok(quote!(groups = "*", resources = "*", verbs = "*"));
    ok(quote!(
        groups = "apps",
        resources = "*/scale",
        verbs = "get;update"
    ));
    ok(quote!(
        groups = "rbac.authorization.k8s.io",
        resources = "clusterroles",
        verbs = "escalate;bind"
    ));
    ok(quote!(
        groups = "",
        resources = "serviceaccounts/token",
        resource_names = "sa",
        verbs = "create"
    ));
    ok(quote!(
        groups = "x.io",
        resources = "widgets",
        verbs = "frobnicate",
        custom_verbs
    ));
    ok(quote!(
        groups = "x.io",
        resources = "widgets",
        verbs = "frobnicate",
        custom_verbs = true
    ));
}

#[test]
fn unknown_key_suggests() {
    // `verb` is unknown, so `verbs` is also missing: both are reported.
    let e = one_error(quote!(groups = "", resources = "pods", verb = "get"));
    assert!(
        e.contains("unknown key `verb`") && e.contains("did you mean `verbs`?"),
        "{e}"
    );
    // A key with no close match: the rule really lacks verbs.
    let errs = errors(quote!(groups = "", resources = "pods", frobnicate = "get"));
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert!(errs[1].contains("missing `verbs`"), "{}", errs[1]);
}

#[test]
fn duplicate_keys_and_aliases() {
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        verbs = "get",
        verbs = "list"
    ));
    assert!(e.contains("duplicate key `verbs`"), "{e}");
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        verbs = "get",
        role_name = "a",
        roleName = "b"
    ));
    assert!(
        e.contains("`roleName` is another spelling of `role_name`"),
        "{e}"
    );
}

#[test]
fn empty_elements() {
    let e = one_error(quote!(groups = "", resources = "pods", verbs = "get;;list"));
    assert!(e.contains("empty element in `verbs`"), "{e}");
    let e = one_error(quote!(groups = "", resources = "pods", verbs = "get;"));
    assert!(e.contains("trailing"), "{e}");
    let e = one_error(quote!(groups = "", resources = ["pods", ""], verbs = "get"));
    assert!(e.contains("empty element in `resources`"), "{e}");
    let e = one_error(quote!(groups = "", resources = "pods", verbs = ""));
    assert!(e.contains("`verbs` is empty"), "{e}");
    let e = one_error(quote!(groups = "apps;", resources = "pods", verbs = "get"));
    assert!(
        e.contains("groups = [\\\"\\\", \\\"apps\\\"]") || e.contains("write an array"),
        "{e}"
    );
}

#[test]
fn verbs_are_checked_per_rule_kind() {
    let e = one_error(quote!(groups = "", resources = "pods", verbs = "get;lsit"));
    assert!(
        e.contains("unknown verb `lsit`: did you mean `list`?"),
        "{e}"
    );
    assert!(e.contains("custom_verbs"), "{e}");
    let e = one_error(quote!(groups = "", resources = "pods", verbs = "Get"));
    assert!(e.contains("uppercase") && e.contains("`get`"), "{e}");
    let e = one_error(quote!(urls = "/metrics", verbs = "list"));
    assert!(e.contains("HTTP methods"), "{e}");
    ok(quote!(urls = "/metrics", verbs = "get;head;post"));
}

#[test]
fn rule_shape() {
    let e = one_error(quote!(groups = "apps", verbs = "get"));
    assert!(e.contains("needs `resources`"), "{e}");
    let errs = errors(quote!(
        urls = "/metrics",
        groups = "",
        resources = "pods",
        verbs = "get"
    ));
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert!(
        errs.iter()
            .all(|e| e.contains("cannot be combined with `urls`"))
    );
    let e = one_error(quote!(urls = "/metrics", verbs = "get", namespace = "ns"));
    assert!(e.contains("only in ClusterRoles"), "{e}");
    let e = one_error(quote!(resources = "pods", verbs = "get"));
    assert!(e.contains("needs `groups`"), "{e}");
    let e = one_error(quote!(groups = "", resources = "pods"));
    assert!(e.contains("missing `verbs`"), "{e}");
}

#[test]
fn names_are_validated() {
    let e = one_error(quote!(groups = "Apps", resources = "pods", verbs = "get"));
    assert!(e.contains("malformed API group `Apps`"), "{e}");
    let e = one_error(quote!(groups = "", resources = "Pods", verbs = "get"));
    assert!(e.contains("uppercase") && e.contains("`pods`"), "{e}");
    let e = one_error(quote!(groups = "", resources = "pods/*", verbs = "get"));
    assert!(e.contains("not a wildcard"), "{e}");
    let e = one_error(quote!(urls = "metrics", verbs = "get"));
    assert!(e.contains("starting with `/`"), "{e}");
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        verbs = "get",
        namespace = "My_NS"
    ));
    assert!(e.contains("malformed namespace"), "{e}");
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        verbs = "get",
        role_name = "a..b"
    ));
    assert!(e.contains("malformed role name"), "{e}");
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        verbs = "get",
        namespace = ""
    ));
    assert!(e.contains("leave it out for a ClusterRole"), "{e}");
    // A Role may go in any namespace, Kubernetes' own included: an operator may need to read
    // kube-system's extension-apiserver-authentication ConfigMap. (Only the deploy bundle's
    // own namespace refuses `default` and `kube-*`: it creates and deletes that one.)
    for namespace in ["kube-system", "kube-public", "default", "kube-ops"] {
        let m = ok(quote!(
            groups = "",
            resources = "configmaps",
            verbs = "get",
            namespace = #namespace
        ));
        assert_eq!(m.namespace.as_deref(), Some(namespace));
    }
}

#[test]
fn resource_names_that_can_never_match() {
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        resource_names = "a",
        verbs = "create"
    ));
    assert!(e.contains("can never match"), "{e}");
    let e = one_error(quote!(
        groups = "",
        resources = "pods/eviction",
        resource_names = "a",
        verbs = "deletecollection"
    ));
    assert!(e.contains("can never match"), "{e}");
    // Any verb that carries a name keeps the rule useful.
    ok(quote!(
        groups = "",
        resources = "pods",
        resource_names = "a",
        verbs = "create;get"
    ));
    ok(quote!(
        groups = "",
        resources = "pods;pods/eviction",
        resource_names = "a",
        verbs = "create"
    ));
}

#[test]
fn value_syntax() {
    let e = one_error(quote!(groups = "", resources = "pods", verbs = get));
    assert!(e.contains("quote it: `verbs = \"get\"`"), "{e}");
    let e = one_error(quote!(groups = "", resources = "pods", verbs = ["get", 1]));
    assert!(e.contains("must be string literals"), "{e}");
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        verbs = "get",
        namespace = ["a"]
    ));
    assert!(e.contains("takes one string"), "{e}");
    let e = one_error(quote!(
        groups = "",
        resources = "pods",
        verbs = "get",
        custom_verbs = "yes"
    ));
    assert!(e.contains("is a flag"), "{e}");
    let e = one_error(quote!(groups = "", resources = "pods", verbs = "get" "list"));
    assert!(e.contains("unexpected tokens"), "{e}");
}

#[test]
fn many_errors_are_reported_together() {
    let errs = errors(quote!(
        gropus = "",
        resources = "Pods",
        verbs = "get;lsit",
        namespace = "-x"
    ));
    // The typo'd `gropus` counts as `groups`: no "resources needs groups" on top.
    assert_eq!(errs.len(), 4, "{errs:#?}");
}

#[test]
fn expansion_keeps_the_item_and_registers_an_entry() {
    let out = expand(
        quote!(groups = "apps", resources = "deployments", verbs = "get"),
        quote!(
            async fn reconcile(x: u32) -> u32 {
                x + 1
            }
        ),
        &Default::default(),
    )
    .to_string();
    assert!(out.starts_with("async fn reconcile"), "{out}");
    // The Linux section linkme names `linkme_RBAC_RECORDS` written directly, and the
    // slice's macro on every other target, each holding the same record.
    let targets = crate::registration::DIRECT_SECTION_TARGET
        .parse::<proc_macro2::TokenStream>()
        .unwrap()
        .to_string();
    assert!(
        out.contains(&format!(
            "# [cfg ({targets})] # [used] # [unsafe (link_section = \"linkme_RBAC_RECORDS\")] static ENTRY : :: kube_markers :: __private :: RbacRecord"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "# [cfg (not ({targets}))] :: kube_markers :: __private :: RBAC_RECORDS ! {{ # ! [linkme_macro = :: kube_markers :: __private :: RBAC_RECORDS] static ENTRY : :: kube_markers :: __private :: RbacRecord"
        )),
        "{out}"
    );
    assert_eq!(out.matches("static ENTRY").count(), 2, "{out}");
    let data = record_data(&out);
    let (_, other_target) = out.split_once("# [cfg (not").unwrap();
    assert_eq!(record_data(other_target), data, "{out}");
    let expected = crate::record::RbacRecordData {
        groups: vec!["apps"],
        resources: vec!["deployments"],
        verbs: vec!["get"],
        item: "reconcile",
        // The arguments as the macro received them, tokens joined by one space: the text
        // the cross-check compares with the source's.
        args: r#"groups = "apps" , resources = "deployments" , verbs = "get""#,
        ..Default::default()
    };
    assert_eq!(
        crate::record::RbacRecordData::decode(&data),
        Some(expected),
        "{out}"
    );
    assert!(out.contains("x + 1"), "{out}");

    let out = expand(
        quote!(groups = "apps", resources = "deployments", verbs = "get"),
        quote!(
            impl<T: Clone> Reconciler for Foo<T> {
                fn f(&self) {}
            }
        ),
        &Default::default(),
    )
    .to_string();
    let data = record_data(&out);
    let decoded = crate::record::RbacRecordData::decode(&data).expect("a record");
    assert_eq!(decoded.item, "impl Reconciler for Foo<T>", "{out}");
}

/// The `data` string of the one registry record in an expansion.
fn record_data(expansion: &str) -> String {
    let (_, rest) = expansion
        .split_once("data : ")
        .expect("the expansion holds a record");
    let literal = rest
        .split_once(", file")
        .expect("data is followed by file")
        .0;
    syn::parse_str::<syn::LitStr>(literal)
        .expect("data is a string literal")
        .value()
}

#[test]
fn every_elements_error_of_every_list_is_reported_in_one_pass() {
    // The issue's case: the `;;` used to hide the other two.
    let errs = errors(quote!(
        groups = "",
        resources = "pods",
        verbs = "gett;Get;;list"
    ));
    assert_eq!(errs.len(), 3, "{errs:#?}");
    assert!(errs[0].contains("empty element in `verbs`"), "{errs:#?}");
    assert!(
        errs.iter()
            .any(|e| e.contains("unknown verb `gett`") && e.contains("`get`")),
        "{errs:#?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.contains("verb `Get` has uppercase letters")),
        "{errs:#?}"
    );
    // Every list key, strings and arrays: each bad element, beside the list's own problem.
    let errs = errors(quote!(
        groups = ["Apps", 1, "batch"],
        resources = "Pods;;jobs",
        resource_names = ["a/b", " c"],
        verbs = ["get", "", "lsit"],
    ));
    let expected = [
        "malformed API group `Apps`",
        "list elements must be string literals",
        "empty element in `resources`",
        "resource `Pods` has uppercase letters",
        "malformed resource name `a/b`",
        "`resource_names` element \" c\" has leading or trailing whitespace",
        "empty element in `verbs`",
        "unknown verb `lsit`",
    ];
    for want in expected {
        assert!(errs.iter().any(|e| e.contains(want)), "{want}: {errs:#?}");
    }
    assert_eq!(errs.len(), expected.len(), "{errs:#?}");
    let errs = errors(quote!(urls = "/a;;b;/c*d", verbs = "get;PUT;watch"));
    for want in [
        "empty element in `urls`",
        "malformed URL `b`",
        "malformed URL `/c*d`",
        "verb `PUT` has uppercase letters",
        "unknown verb `watch`",
    ] {
        assert!(errs.iter().any(|e| e.contains(want)), "{want}: {errs:#?}");
    }
    assert_eq!(errs.len(), 5, "{errs:#?}");
}

#[test]
fn a_partial_list_draws_no_conclusion_about_the_whole() {
    // `resource_names` with only `create` could never match, but the left-out element might
    // have been `get`: only the element's own error.
    let errs = errors(quote!(
        groups = "",
        resources = "pods",
        resource_names = "p",
        verbs = ["create", 1]
    ));
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].contains("string literals"), "{errs:#?}");
}

#[test]
fn on_a_statement_the_error_says_where_it_may_stand() {
    for (statement, what) in [
        (quote!(let x = 1;), "a `let` statement"),
        (quote!(#[allow(unused)] let x = 1;), "a `let` statement"),
        (quote!(x += 1;), "an expression"),
    ] {
        let out = expand(
            quote!(groups = "", resources = "pods", verbs = "get"),
            statement,
            &Default::default(),
        )
        .to_string();
        assert!(
            out.contains(&format!("#[rbac] cannot stand on {what}: put it on")),
            "{out}"
        );
        assert!(!out.contains("expected one of"), "{out}");
    }
}

#[test]
fn expansion_on_error_emits_item_and_errors() {
    let out = expand(
        quote!(verbs = "nope"),
        quote!(
            fn f() {}
        ),
        &Default::default(),
    )
    .to_string();
    assert!(out.starts_with("fn f () { }"), "{out}");
    assert!(out.contains("compile_error"), "{out}");
    assert!(!out.contains("distributed_slice"), "{out}");
    let out = expand(
        quote!(urls = "/m", verbs = "get"),
        quote!(
            trait T {}
        ),
        &Default::default(),
    )
    .to_string();
    assert!(out.contains("cannot stand on a trait"), "{out}");
}

#[test]
fn allow_names_lints_with_a_reason() {
    let m = ok(quote!(
        groups = "",
        resources = "secrets",
        verbs = "get;list",
        allow(
            cluster - secrets - read,
            redundant,
            reason = "mirrors TLS Secrets"
        )
    ));
    let allowed: Vec<(&str, &str)> = m
        .allow
        .iter()
        .map(|a| (a.lint.as_ref(), a.reason.as_ref()))
        .collect();
    assert_eq!(
        allowed,
        [
            ("cluster-secrets-read", "mirrors TLS Secrets"),
            ("redundant", "mirrors TLS Secrets")
        ]
    );
    // snake_case names the same lint; two `allow(...)` each carry their own reason.
    let m = ok(quote!(
        groups = "apps",
        resources = "deployments",
        verbs = "create",
        allow(workload_write, reason = "runs the database"),
        allow(redundant, reason = "each operator declares its own needs")
    ));
    assert_eq!(m.allow[0].lint, "workload-write");
    assert_eq!(m.allow[1].reason, "each operator declares its own needs");
}

#[test]
fn allow_errors() {
    let base = quote!(groups = "", resources = "secrets", verbs = "get");
    let err = |allow: TokenStream| one_error(quote!(#base, #allow));
    assert!(
        err(quote!(allow(secrets_read, reason = "x"))).contains(
            "unknown lint `secrets_read` in `allow`; did you mean `cluster-secrets-read`?"
        ),
        "{}",
        err(quote!(allow(secrets_read, reason = "x")))
    );
    assert!(err(quote!(allow(redundant))).contains("needs a `reason"));
    assert!(err(quote!(allow(redundant, reason = "  "))).contains("empty `reason`"));
    assert!(err(quote!(allow(reason = "why"))).contains("names no lint"));
    assert!(err(quote!(allow)).contains("`allow` needs lint names and a reason"));
    assert!(err(quote!(allow = "redundant")).contains("in parentheses"));
    assert!(err(quote!(allow(redundant, redundant, reason = "x"))).contains("allowed twice"));
    assert!(err(quote!(allow(redundant, reason = 1))).contains("`reason` takes a string"));
    assert!(err(quote!(allow("redundant", reason = "x"))).contains("expected a lint name"));
}

#[test]
fn custom_verbs_are_for_resources_not_urls() {
    let e = one_error(quote!(urls = "/x", verbs = "frob", custom_verbs = true));
    assert!(
        e.starts_with("`custom_verbs` cannot be combined with `urls`"),
        "{e}"
    );
    // `custom_verbs = false` says nothing either way; with resources it is the point.
    ok(quote!(urls = "/x", verbs = "get", custom_verbs = false));
    ok(quote!(
        groups = "metrics.example.com",
        resources = "pods",
        verbs = "frob",
        custom_verbs = true
    ));
}
