#[rbac(verbs = "get")]
fn f() {}
#[cfg(any())]
struct A;
/* x
 */ #[rbac(verbs = "get")] fn g() {}
#[cfg_attr(x,
  rbac(verbs = "c"))] fn h() {}
