use super::*;
use kube_markers_core::call_site::normalized_tokens;

/// Both scans, which must agree; the token scan's answer.
fn scan(text: &str) -> FileScan {
    let normalized = |mut scan: FileScan| {
        for a in &mut scan.attrs {
            a.args = normalized_text(&a.args).unwrap();
        }
        format!("{scan:?}")
    };
    let oracle = scan_file(&syn::parse_file(text).unwrap());
    let found = scan_source(text).unwrap();
    assert_eq!(normalized(oracle), normalized(found.clone()));
    found
}

#[test]
fn finds_attributes_where_the_compiler_places_them() {
    let found = scan(
        "use kube_markers::rbac;\n\
         #[rbac(verbs = \"get\")]\n\
         fn a() {}\n\
         /* é */ #[kube_markers::rbac(verbs = \"get\")] fn b() {}\n\
         #[cfg_attr(all(), rbac(verbs = \"get\"))]\n\
         fn c() {}\n\
         #[kube_markers::crd] struct S;\n\
         #[other::rbac] fn d() {}\n\
         #[::kube_markers::rbac(verbs = \"x\")] fn e() {}\n\
         #[::rbac(verbs = \"x\")] fn f() {}\n",
    );
    let at: Vec<(AttrKind, usize, usize)> = found
        .attrs
        .iter()
        .map(|a| (a.kind, a.line, a.column))
        .collect();
    assert_eq!(
        at,
        [
            (AttrKind::Rbac, 2, 1),
            (AttrKind::Rbac, 4, 9),
            (AttrKind::Rbac, 5, 19),
            (AttrKind::Crd, 7, 1),
            (AttrKind::Rbac, 9, 1),
        ]
    );
    assert_eq!(found.attrs[2].cfgs, [Cfg::All(vec![])]);
    assert_eq!(found.attrs[2].outer, Some((5, 1)));
    assert_eq!(found.attrs[1].outer, None);
}

#[test]
fn records_cfgs_of_files_items_and_cfg_attr() {
    let found = scan(
        "#![cfg(unix)]\n\
         #[cfg(feature = \"x\")]\n\
         mod m {\n\
             #[cfg(not(test))]\n\
             fn f() {\n\
                 #[cfg_attr(any(a, b = \"c\"), cfg_attr(true, rbac(verbs = \"get\")))]\n\
                 const _: () = ();\n\
             }\n\
         }\n",
    );
    let cfgs: Vec<String> = found.attrs[0].cfgs.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        cfgs,
        [
            "unix",
            "feature = \"x\"",
            "not(test)",
            "any(a, b = \"c\")",
            "true"
        ]
    );
}

#[test]
fn follows_modules_and_includes_but_not_macro_bodies() {
    let found = scan(
        "mod a;\n\
         #[path = \"x/y.rs\"] mod b;\n\
         mod inline { #[cfg(unix)] mod c; }\n\
         include!(\"part.rs\");\n\
         include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/src/gen.rs\"));\n\
         include!(concat!(env!(\"OUT_DIR\"), \"/proto.rs\"));\n\
         fn f() { include!(some_path!()); }\n\
         macro_rules! m { () => { #[kube_markers::rbac(verbs = \"get\")] fn g() {} } }\n\
         m!();\n",
    );
    assert!(found.attrs.is_empty());
    let mods: Vec<(&str, Option<&str>, &[String], usize)> = found
        .mods
        .iter()
        .map(|m| {
            (
                m.name.as_str(),
                m.path_attr.as_deref(),
                m.inline_path.as_slice(),
                m.cfgs.len(),
            )
        })
        .collect();
    let inline = ["inline".to_string()];
    assert_eq!(
        mods,
        [
            ("a", None, &[][..], 0),
            ("b", Some("x/y.rs"), &[][..], 0),
            ("c", None, &inline[..], 1)
        ]
    );
    let includes: Vec<&IncludePath> = found.includes.iter().map(|i| &i.path).collect();
    assert_eq!(
        includes,
        [
            &IncludePath::Relative("part.rs".into()),
            &IncludePath::ManifestDir("/src/gen.rs".into()),
            &IncludePath::OutDir,
            &IncludePath::Unknown("some_path ! ()".into()),
        ]
    );
}

#[test]
fn attributes_in_macro_input_are_found_where_they_stand() {
    let found = scan(
        "cfg_if::cfg_if! {\n\
             if #[cfg(unix)] {\n\
                 #[rbac(verbs = \"get\")] pub fn f() {}\n\
             }\n\
         }\n\
         pastey::paste! { #[kube_markers::rbac(verbs = \"get\")] pub fn g() {} }\n\
         core::include!(\"x.rs\");\n\
         macro_rules! m { () => { #[rbac(verbs = \"get\")] fn h() {} } }\n\
         impl S { m!{ #[rbac(verbs = \"list\")] fn i() {} } }\n",
    );
    let at: Vec<(usize, usize)> = found.attrs.iter().map(|a| (a.line, a.column)).collect();
    assert_eq!(at, [(3, 1), (6, 18), (9, 14)]);
    assert_eq!(found.includes.len(), 1);
}

#[test]
fn a_cfg_attr_yielding_a_cfg_scopes_its_item() {
    let found = scan(
        "#[cfg_attr(not(debug_assertions), cfg(any()))]\n\
         #[rbac(verbs = \"get\")] pub fn e() {}\n\
         #[cfg_attr(unix, inline)] #[rbac(verbs = \"get\")] pub fn f() {}",
    );
    assert_eq!(
        found.attrs[0].cfgs[0].profile_cfg(),
        Some("debug_assertions")
    );
    assert!(found.attrs[1].cfgs.is_empty());
}

#[test]
fn a_cfg_on_a_statement_scopes_the_items_inside() {
    let found = scan(
        "fn f() {\n\
             #[cfg(debug_assertions)] { #[rbac] fn a() {} }\n\
             #[cfg(debug_assertions)] let _x = { #[rbac] fn b() {} };\n\
             #[cfg(debug_assertions)] (|| { #[rbac] fn c() {} })();\n\
             #[rbac] fn d() {}\n\
             match 1 { #[cfg(debug_assertions)] 0 => { #[rbac] fn e() {} } _ => { #[rbac] fn g() {} } }\n\
         }",
    );
    let cfgs: Vec<String> = found
        .attrs
        .iter()
        .map(|a| a.cfgs.iter().map(|c| c.to_string()).collect())
        .collect();
    assert_eq!(
        cfgs,
        [
            "debug_assertions",
            "debug_assertions",
            "debug_assertions",
            "",
            "debug_assertions",
            ""
        ]
    );
}

#[test]
fn the_token_scan_agrees_on_lexical_corners() {
    for text in [
        "\u{feff}#[rbac(verbs = \"get\")] fn a() {}",
        "#!/usr/bin/env run\n#[rbac(verbs = \"get\")] fn a() {}",
        "#![cfg(unix)]\n#[rbac(verbs = \"get\")] fn a() {}",
        "const S: &str = r#\"#[rbac(verbs = \"get\")] fn x() {}\"#;\n\
         /* #[rbac] /* nested */ */ #[rbac] fn b() {}",
        "fn f<'a>(x: &'a str) -> char { let c = '\"'; 'outer: loop { break 'outer; } c }\n\
         #[rbac] fn g() {}",
        "/// doc\n#[cfg(x)]\n/** more */ #[kube_markers::rbac(verbs = \"get\")] fn h() {}",
        "impl<T> S<T> where T: Tr<{ 1 }>, { #[rbac] fn m(&self) {} }",
        "fn outer() { #![cfg(feature = \"y\")] #[rbac] fn inner() {} }",
        "extern \"C\" { #[rbac] fn ffi(); }",
        "fn f() { #[cfg(x)] m!(#[rbac] fn a() {}).x(); #[cfg(y)] n! { #[rbac] fn b() {} } }",
        "#[cfg(x)] const _: () = { #[rbac] fn c() {} };\n#[rbac] fn d() {}",
        "mod a { #![cfg(unix)] #[cfg_attr(all(), path = \"x.rs\")] mod b; }",
        "/* é */ #[cfg_attr(any(),\n    kube_markers::rbac(verbs = \"get\"))] fn é() {}",
    ] {
        scan(text);
    }
    // A text that does not lex goes to syn, whose error is the answer.
    assert!(scan_source("fn f( {").is_err());
    assert!(scan_source("const S: &str = \"open;").is_err());
}

#[test]
fn both_normalizations_agree() {
    for args in [
        "verbs = \"get\"",
        "groups = [\"\", \"apps\"], resources = \"pods/status\" , verbs=\"get;list\"",
        "allow(cluster-secrets-read, reason = r#\"a \"b\"\"#), namespace = \"x\"",
        "a = -1, b = 1.5e-3, c = 'x', d = b\"y\", e::f<'a>, g = {h}",
        "",
    ] {
        let tokens: TokenStream = args.parse().unwrap();
        assert_eq!(
            normalized_text(args).as_deref(),
            Some(normalized_tokens(&tokens).as_str()),
            "{args}"
        );
    }
    assert_eq!(
        normalized_text("verbs = \"get\"").unwrap(),
        "verbs = \"get\""
    );
    assert_eq!(normalized_text("f<'a>").unwrap(), "f < ' a >");
    assert!(normalized_text("a /** doc */ b").is_none());
    for (text, expected, same) in [
        ("verbs  =\"get\"", "verbs = \"get\"", true),
        ("verbs = \"get\"", "verbs = \"get\" ", false),
        ("verbs = \"get\"", "verbs = \"ge", false),
        ("verbs = \"get\", x", "verbs = \"get\"", false),
        ("f<'a>", "f < ' a >", true),
        ("", "", true),
        ("a", "", false),
    ] {
        assert_eq!(
            normalized_text_is(text, expected),
            same,
            "{text:?} {expected:?}"
        );
        assert_eq!(normalized_text(text).as_deref() == Some(expected), same);
    }
    assert_eq!(
        normalized_text("a  =\n[ \"x\" ,]").unwrap(),
        "a = [ \"x\" , ]"
    );
}
