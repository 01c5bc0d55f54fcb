mod‎hidden;
#[rbac(verbs = "get")] fn g() {}
