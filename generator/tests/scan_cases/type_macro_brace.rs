macro_rules! t { ($($t:tt)*) => { u8 } }
#[cfg(all())]
fn f() -> t!{ #[cfg(any())] fn x() { #[rbac(verbs = "get")] fn y() {} } } {
    #![cfg(feature = "k")]
    #[rbac(verbs = "get")]
    fn inner() {}
    0
}
