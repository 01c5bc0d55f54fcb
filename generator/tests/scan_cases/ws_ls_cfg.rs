#[cfg(any())] struct A;
#[rbac(verbs = "get")] fn g() {}
