mod m {
    #![cfg(any())]
    //! doc
    #[rbac(verbs = "get")] fn f() {}
}
fn g() {
    //! inner doc
    #![cfg(feature = "z")]
    #[rbac(verbs = "get")] fn h() {}
    { #![allow(unused)] #[rbac(verbs = "get")] fn i() {} }
}
impl S { #![cfg(unix)] #[rbac(verbs = "get")] fn j() {} }
trait T { #![cfg(windows)] #[rbac(verbs = "get")] fn k(); }
