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

#[test]
fn an_integer_bound_that_overflows_says_so() {
    let errors = field_errors(quote!(minimum = 99999999999999999999));
    assert_eq!(
        errors,
        [
            "`minimum = 99999999999999999999` does not fit in a 64-bit integer \
          (-9223372036854775808 to 9223372036854775807), in which integer bounds are kept \
          exactly"
        ]
    );
    let errors = field_errors(quote!(maximum = -9223372036854775809));
    assert!(
        errors[0].starts_with("`maximum = -9223372036854775809` does not fit"),
        "{errors:?}"
    );
    // The ends of the range are bounds like any other.
    assert_eq!(
        field_errors(quote!(minimum = -9223372036854775808)),
        Vec::<String>::new()
    );
    assert_eq!(
        field_errors(quote!(max_length = 99999999999999999999)),
        [
            "`max_length = 99999999999999999999` is too large: a count is at most \
          18446744073709551615"
        ]
    );
}

/// An empty message expression is none for the API server; a rule nesting past cel-go's limit
/// is refused with cel-go's text, not a crash.
#[test]
fn validation_expressions_as_the_api_server_parses_them() {
    assert_eq!(
        field_errors(quote!(validation(
            rule = "self > 0",
            message_expression = ""
        ))),
        Vec::<String>::new()
    );
    let deep = format!("{}true{}", "(".repeat(250), ")".repeat(250));
    let errors = field_errors(quote!(validation(rule = #deep)));
    assert_eq!(
        errors,
        [
            "the rule does not parse as CEL:\nERROR: <input>:-1:0: expression recursion limit exceeded: 250"
        ]
    );
}
