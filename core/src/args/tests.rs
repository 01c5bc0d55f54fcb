use super::*;
use quote::quote;

const EXPECTED: &str = "expected `key = value`";

fn parse(tokens: TokenStream) -> (Vec<Arg>, Vec<String>) {
    let mut cx = Ctxt::new();
    let args = parse_args(tokens, EXPECTED, &mut cx);
    (args, messages(cx))
}

fn messages(cx: Ctxt) -> Vec<String> {
    match cx.check() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

fn names(args: &[Arg]) -> Vec<&str> {
    args.iter().map(Arg::name).collect()
}

#[test]
fn flags_values_and_nested_groups() {
    let (args, errors) = parse(quote!(
        storage,
        r#enum = ["a", "b"],
        minimum = -2,
        ratio = 0.5,
        on = true,
        name = "x",
        items(min_length = 1, pattern = "^a$"),
    ));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        names(&args),
        ["storage", "enum", "minimum", "ratio", "on", "name", "items"]
    );
    assert!(matches!(args[0].value, ArgValue::Flag));
    assert!(matches!(&args[1].value, ArgValue::Value(Value::Array(elems, _)) if elems.len() == 2));
    assert!(matches!(
        &args[2].value,
        ArgValue::Value(Value::Neg(syn::Lit::Int(i), _)) if i.base10_digits() == "2"
    ));
    assert!(matches!(
        &args[3].value,
        ArgValue::Value(Value::Lit(syn::Lit::Float(_)))
    ));
    assert!(matches!(
        &args[4].value,
        ArgValue::Value(Value::Lit(syn::Lit::Bool(b))) if b.value
    ));
    let mut cx = Ctxt::new();
    let inner = args[6].nested(EXPECTED, &mut cx).expect("nested");
    assert_eq!(names(&inner), ["min_length", "pattern"]);
    assert!(args[5].nested(EXPECTED, &mut cx).is_none());
    assert!(messages(cx).is_empty());
}

#[test]
fn kebab_case_keys_are_one_key() {
    let (args, errors) = parse(quote!(
        cluster - secrets - read,
        workload_write,
        reason = "x"
    ));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        names(&args),
        ["cluster-secrets-read", "workload_write", "reason"]
    );
    let (_, errors) = parse(quote!(cluster - , b));
    assert_eq!(errors, ["expected a word after `cluster-`"]);
}

#[test]
fn each_argument_fails_on_its_own() {
    // A bad argument is reported and skipped; the others still parse.
    let (args, errors) = parse(quote!(
        "get",
        a = "x" "y",
        b("z") c,
        d = ,
        e "w",
        f = 1,
    ));
    // The keys of the malformed ones are kept, marked invalid, so models know they were written.
    assert_eq!(names(&args), ["a", "b", "d", "e", "f"]);
    let invalid: Vec<bool> = args
        .iter()
        .map(|a| matches!(a.value, ArgValue::Invalid))
        .collect();
    assert_eq!(invalid, [true, true, true, true, false]);
    assert_eq!(
        errors,
        [
            EXPECTED,
            "unexpected tokens after the value; separate arguments with `,`",
            "unexpected tokens after `(...)`; separate arguments with `,`",
            "`d =` needs a value after `=`",
            "expected `e = value`, `e(...)` or `,` after `e`",
        ]
    );
    // Empty arguments (`a, , b`, a trailing comma) are nothing, not errors.
    let (args, errors) = parse(quote!(, a, , b,));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(names(&args), ["a", "b"]);
}

#[test]
fn expressions_are_one_value() {
    // A path or a call is one value that no reader accepts, not "unexpected tokens".
    let (args, errors) = parse(quote!(
        minimum = i32::MAX,
        validation = Rule::new("a", b),
        c = [x y, "z"]
    ));
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(matches!(args[0].value, ArgValue::Value(Value::Other(_))));
    assert!(matches!(args[1].value, ArgValue::Value(Value::Other(_))));
    let ArgValue::Value(Value::Array(elems, _)) = &args[2].value else {
        panic!("array");
    };
    assert!(matches!(elems[0], Value::Other(_)));
    assert!(matches!(elems[1], Value::Lit(syn::Lit::Str(_))));
}

#[test]
fn invisible_groups_of_macro_rules_are_looked_through() {
    // macro_rules! passes a `$x:literal` as a group without delimiters.
    let lit = TokenTree::Group(Group::new(Delimiter::None, quote!("Widget")));
    let neg = TokenTree::Group(Group::new(Delimiter::None, quote!(-3)));
    let (args, errors) = parse(quote!(kind = #lit, minimum = #neg));
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(matches!(
        &args[0].value,
        ArgValue::Value(Value::Lit(syn::Lit::Str(s))) if s.value() == "Widget"
    ));
    assert!(matches!(&args[1].value, ArgValue::Value(Value::Neg(..))));
}

fn one(tokens: TokenStream) -> Arg {
    let (mut args, errors) = parse(tokens);
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(args.len(), 1);
    args.remove(0)
}

fn error_of<T>(result: syn::Result<T>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn readers_name_the_key() {
    assert_eq!(string(&one(quote!(name = "x"))).unwrap().value, "x");
    assert_eq!(
        error_of(string(&one(quote!(name = Fail)))),
        "`name` takes one string, e.g. `name = \"...\"`; quote it: `name = \"Fail\"`"
    );
    assert_eq!(
        error_of(string(&one(quote!(name)))),
        "`name` needs a value, e.g. `name = \"...\"`"
    );
    assert_eq!(
        error_of(string(&one(quote!(name("x"))))),
        "`name` takes a value (`name = \"...\"`), not `name(...)`"
    );
    assert!(flag(&one(quote!(on))).unwrap().0);
    assert!(!flag(&one(quote!(on = false))).unwrap().0);
    assert_eq!(
        error_of(flag(&one(quote!(on = "yes")))),
        "`on` is a flag: write `on` or `on = true`"
    );
    assert_eq!(
        error_of(boolean(&one(quote!(mutating = 1)))),
        "`mutating` takes a bool: `mutating = true` or `mutating = false`"
    );
    assert_eq!(int(&one(quote!(port = -8))).unwrap().0, -8);
    assert_eq!(
        error_of(int(&one(quote!(port = "8")))),
        "`port` takes an integer literal, e.g. `port = 10`"
    );
}

fn list_of(tokens: TokenStream, elements: Elements) -> Result<Vec<String>, Vec<String>> {
    let arg = one(tokens);
    let mut cx = Ctxt::new();
    let list = list(&arg, elements, &mut cx);
    let errors = messages(cx);
    match list {
        Some(list) if errors.is_empty() => Ok(list.items.into_iter().map(|i| i.value).collect()),
        _ => Err(errors),
    }
}

#[test]
fn lists_are_semicolon_strings_or_arrays() {
    let non_empty = Elements::NonEmpty;
    assert_eq!(
        list_of(quote!(verbs = "get;list"), non_empty).unwrap(),
        ["get", "list"]
    );
    assert_eq!(
        list_of(quote!(verbs = ["get", "list"]), non_empty).unwrap(),
        ["get", "list"]
    );
    assert_eq!(
        list_of(quote!(groups = ""), Elements::CoreGroup).unwrap(),
        [""]
    );
    assert_eq!(
        list_of(quote!(groups = ["", "apps"]), Elements::CoreGroup).unwrap(),
        ["", "apps"]
    );
    let errors = |tokens, elements| list_of(tokens, elements).unwrap_err();
    assert_eq!(
        errors(quote!(verbs = "get;;list"), non_empty),
        ["empty element in `verbs` (\"get;;list\" has `;;`)"]
    );
    assert_eq!(
        errors(quote!(groups = "apps;"), Elements::CoreGroup),
        [
            "empty element in `groups` (\"apps;\" has a leading or trailing `;`); to name the core \
          group among others write an array: `groups = [\"\", \"apps\"]`"
        ]
    );
    assert_eq!(
        errors(quote!(verbs = ""), non_empty),
        ["`verbs` is empty; list at least one element or leave `verbs` out"]
    );
    assert_eq!(
        errors(quote!(verbs = []), non_empty),
        ["`verbs` is empty; list at least one element or leave `verbs` out"]
    );
    // Every bad element is reported, not just the first.
    assert_eq!(
        errors(quote!(verbs = ["get", 1, "", "a;b", " x"]), non_empty),
        [
            "list elements must be string literals, e.g. `[\"get\", \"list\"]`",
            "empty element in `verbs`",
            "`;` inside an array element of `verbs`: use either \"a;b\" or [\"a\", \"b\"], not both",
            "`verbs` element \" x\" has leading or trailing whitespace",
        ]
    );
    assert_eq!(
        errors(quote!(verbs = get), non_empty),
        [
            "`verbs` takes a list of strings, e.g. `verbs = \"a;b\"` or `[\"a\", \"b\"]`; quote it: \
          `verbs = \"get\"`"
        ]
    );
    assert_eq!(
        errors(quote!(verbs = true), non_empty),
        ["`verbs` takes a list of strings, e.g. `verbs = \"a;b\"` or `[\"a\", \"b\"]`"]
    );
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Slot {
    A,
    B,
    Many,
}

const TABLE: KeyTable<Slot> = KeyTable {
    place: "#[test]",
    keys: &[
        KeySpec::new("alpha", Slot::A),
        KeySpec::new("beta_key", Slot::B).alias("betaKey"),
        KeySpec::new("many", Slot::Many).repeatable(),
    ],
};

#[test]
fn key_tables_resolve_aliases_and_report_unknown_and_repeated_keys() {
    let (args, errors) = parse(quote!(
        alpha = 1,
        betaKey = 2,
        many = 3,
        many = 4,
        alpah = 5,
        zzz = 6,
        beta_key = 7,
        alpha = 8
    ));
    assert!(errors.is_empty());
    let mut cx = Ctxt::new();
    let mut seen = Vec::new();
    let written = TABLE.read(&args, &mut cx, |spec, arg, _| {
        seen.push((spec.data, arg.name().to_string()));
        true
    });
    assert_eq!(
        seen,
        [
            (Slot::A, "alpha".to_string()),
            (Slot::B, "betaKey".to_string()),
            (Slot::Many, "many".to_string()),
            (Slot::Many, "many".to_string()),
        ]
    );
    // `alpah` counts as `alpha` for "is it missing?"; `zzz` resembles nothing.
    assert!(written.contains("alpha") && written.contains("beta_key") && !written.contains("zzz"));
    assert_eq!(
        messages(cx),
        [
            "unknown key `alpah` in #[test]; did you mean `alpha`? (expected one of: alpha, beta_key, many)",
            "unknown key `zzz` in #[test] (expected one of: alpha, beta_key, many)",
            "duplicate key `beta_key` in #[test]",
            "duplicate key `alpha` in #[test]",
        ]
    );
    // A key whose value did not parse counts as written, and is not read.
    let (args, errors) = parse(quote!(alpha = "x" "y"));
    assert_eq!(errors.len(), 1);
    let mut cx = Ctxt::new();
    let written = TABLE.read(&args, &mut cx, |_, _, _| panic!("not read"));
    assert!(written.contains("alpha"));
    assert!(messages(cx).is_empty());
    let (args, _) = parse(quote!(beta_key = 1, betaKey = 2));
    let mut cx = Ctxt::new();
    TABLE.read(&args, &mut cx, |_, _, _| true);
    assert_eq!(
        messages(cx),
        ["duplicate key `beta_key` in #[test] (`betaKey` is another spelling of `beta_key`)"]
    );
}
