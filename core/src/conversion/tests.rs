use super::*;
use quote::quote;

fn errors(args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> Vec<String> {
    match parse(args, item) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn the_accepted_spellings_of_the_trait() {
    for item in [
        quote!(impl Spoke<v2::Db> for v1::Db {}),
        quote!(impl conversion::Spoke<v2::Db> for v1::Db {}),
        quote!(impl kube_markers::conversion::Spoke<v2::Db> for v1::Db {}),
        quote!(impl ::kube_markers::conversion::Spoke<crate::v2::Db> for Db where Db: Clone {}),
    ] {
        let parsed = parse(quote!(), item.clone()).unwrap_or_else(|e| panic!("{item}: {e}"));
        assert!(parse::compact(&parsed.hub).ends_with("v2::Db"));
    }
}

#[test]
fn every_problem_is_reported_at_once() {
    let found = errors(
        quote!(storage),
        quote!(
            unsafe impl<T> Spoke<T> for Vec<T> {}
        ),
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found[0].contains("takes no arguments"), "{found:#?}");
    assert!(found[1].contains("safe trait"), "{found:#?}");
    assert!(found[2].contains("cannot be generic"), "{found:#?}");
}

#[test]
fn each_wrong_item_has_its_message() {
    for (item, message) in [
        (
            quote!(
                struct Db;
            ),
            "stands on an `impl kube_markers::conversion::Spoke<Hub> for Spoke` block",
        ),
        (quote!(impl Db {}), "not on an inherent impl"),
        (
            quote!(impl From<v2::Db> for v1::Db {}),
            "not of `From<v2::Db>`",
        ),
        (
            quote!(impl other::Spoke<v2::Db> for v1::Db {}),
            "not of `other::Spoke<v2::Db>`",
        ),
        (
            quote!(impl Spoke for v1::Db {}),
            "name the hub (storage) version",
        ),
        (
            quote!(impl Spoke<v2::Db, v3::Db> for v1::Db {}),
            "name the hub (storage) version",
        ),
        (
            quote!(impl Spoke<'a> for v1::Db {}),
            "the trait's argument is the hub",
        ),
        (
            quote!(impl Spoke<Self> for v1::Db {}),
            "the hub is the spoke itself",
        ),
        (
            quote!(impl Spoke<v1::Db> for v1 :: Db {}),
            "the hub is the spoke itself",
        ),
        (quote!(impl Spoke<&v2::Db> for v1::Db {}), "not this type"),
        (quote!(impl Spoke<v2::Db> for (v1::Db,) {}), "not this type"),
    ] {
        let found = errors(quote!(), item.clone());
        assert_eq!(found.len(), 1, "{item}: {found:#?}");
        assert!(found[0].contains(message), "{item}: {found:#?}");
    }
}
