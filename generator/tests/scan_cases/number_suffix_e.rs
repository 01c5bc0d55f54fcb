fn f() { let x = 1usize-1; }
m! { 1usize-mod x; }
#[rbac(verbs = "get")] fn g() {}
