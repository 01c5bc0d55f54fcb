// `impl Trait for ! { .. }`: the `!` after the keyword `for` is the never type, not a macro's,
// so the braces are the impl's body and the item after it is found.
#![feature(never_type)]
#[cfg(feature = "unstable")]
impl<'de> Deserialize<'de> for ! {
    #[rbac(verbs = "get")]
    fn deserialize() {}
}

#[rbac(verbs = "list")]
struct AfterTheImpl;
