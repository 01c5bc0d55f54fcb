/* /* nested */ #[rbac(verbs = "get")] fn no() {} */
/** doc */ #[rbac(verbs = "get")] /* plain */
fn f() {}
/***/ #[rbac(verbs = "get")] fn g() {}
/**/ #[rbac(verbs = "get")] fn h() {}
//// not doc #[rbac(verbs = "get")]
/// doc
#[rbac(verbs = "get")] fn i() {}
