use super::*;
use proc_macro2::TokenStream;
use quote::quote;

/// The messages of the errors `#[k8s(...)]` with `tokens` records on a field of unknown type,
/// in order.
fn field_errors(tokens: TokenStream) -> Vec<String> {
    let mut cx = Ctxt::new();
    let args = crate::args::parse_args(tokens, "expected a marker", &mut cx);
    parse(&args, Place::Field, Shape::Unknown, None, &mut cx);
    match cx.check() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn validation_without_a_rule() {
    assert_eq!(
        field_errors(quote!(validation(message = "m"))),
        ["`validation(...)` needs a `rule = \"...\"`"]
    );
}

#[test]
fn a_malformed_or_misspelled_rule_is_not_also_missing() {
    assert_eq!(
        field_errors(quote!(validation(rule = 1, message = "m"))),
        ["`rule` takes one string, e.g. `rule = \"...\"`"]
    );
    let misspelled = field_errors(quote!(validation(rul = "self > 0")));
    assert_eq!(misspelled.len(), 1, "{misspelled:#?}");
    assert!(
        misspelled[0].starts_with("unknown key `rul` in `validation(...)`; did you mean `rule`?"),
        "{misspelled:#?}"
    );
    let unparsed = field_errors(quote!(validation(rule = )));
    assert_eq!(unparsed, ["`rule =` needs a value after `=`"]);
}
